"""GPU tests of fa4 as a Hugging Face transformers attention (skipped without
CUDA or transformers): a small randomly initialised Llama-style model (GQA,
head dim 64 and 128) with attn_implementation="fa4" against "sdpa" and
"eager": prefill logits as close to SDPA's as eager's are, and greedy
generation (prefill through fa4.attention, each new token through
fa4.attention_with_kvcache) giving SDPA's tokens where SDPA and eager agree.

    python3 -m unittest python/tests/test_gpu_transformers.py -v
"""

import importlib.util
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

HAVE = torch.cuda.is_available() and importlib.util.find_spec("transformers") is not None


@unittest.skipUnless(HAVE, "no CUDA device or no transformers")
class TransformersTest(unittest.TestCase):

    def model(self, implementation, head_dim, seed=0):
        from transformers import LlamaConfig, LlamaForCausalLM
        import fa4.integrations.transformers  # noqa: F401  (registers "fa4")
        torch.manual_seed(seed)
        config = LlamaConfig(vocab_size=512, hidden_size=8 * head_dim,
                             intermediate_size=1024, num_hidden_layers=3,
                             num_attention_heads=8, num_key_value_heads=2,
                             head_dim=head_dim, max_position_embeddings=4096)
        model = LlamaForCausalLM._from_config(config, attn_implementation=implementation)
        return model.to("cuda", torch.bfloat16).eval()

    def test_prefill_and_generation(self):
        import fa4.integrations.transformers as integration
        for head_dim in (64, 128):
            with self.subTest(head_dim=head_dim):
                models = {name: self.model(name, head_dim) for name in ("fa4", "sdpa", "eager")}
                torch.manual_seed(1)
                ids = torch.randint(0, 512, (3, 301), device="cuda")
                with torch.no_grad():
                    logits = {name: m(ids).logits.float() for name, m in models.items()}
                fa4_err = (logits["fa4"] - logits["sdpa"]).abs().max().item()
                eager_err = (logits["eager"] - logits["sdpa"]).abs().max().item()
                self.assertLessEqual(fa4_err, max(2 * eager_err, 1e-2),
                                     "prefill logits: fa4 %.3e from SDPA, eager %.3e"
                                     % (fa4_err, eager_err))
                before = integration.fallbacks
                with torch.no_grad():
                    tokens = {name: m.generate(ids[:, :57], max_new_tokens=24, do_sample=False,
                                               pad_token_id=0)
                              for name, m in models.items()}
                self.assertEqual(integration.fallbacks, before,
                                 "a call went to SDPA: fa4 got a mask")
                agree = (tokens["sdpa"] == tokens["eager"]).all(dim=1)
                self.assertTrue(bool(agree.any()), "SDPA and eager disagree everywhere")
                print("head dim %d: prefill logits from SDPA's: fa4 %.3e, eager %.3e; "
                      "greedy rows where SDPA and eager agree: %d of %d"
                      % (head_dim, fa4_err, eager_err, int(agree.sum()), len(agree)),
                      file=sys.stderr)
                for row in agree.nonzero().flatten().tolist():
                    self.assertTrue(torch.equal(tokens["fa4"][row], tokens["sdpa"][row]),
                                    "row %d: fa4 %s, SDPA %s" % (
                                        row, tokens["fa4"][row].tolist(),
                                        tokens["sdpa"][row].tolist()))

    def test_padding_falls_back(self):
        import fa4.integrations.transformers as integration
        model, reference = self.model("fa4", 64), self.model("sdpa", 64)
        ids = torch.randint(0, 512, (2, 40), device="cuda")
        mask = torch.ones_like(ids)
        mask[0, :7] = 0
        before = integration.fallbacks
        with torch.no_grad():
            got = model(ids, attention_mask=mask).logits
            want = reference(ids, attention_mask=mask).logits
        self.assertGreater(integration.fallbacks, before)
        self.assertTrue(torch.equal(got, want))


if __name__ == "__main__":
    unittest.main()
