"""fa4 as the attention of Hugging Face transformers models.

    import fa4.integrations.transformers  # registers "fa4"
    model = AutoModelForCausalLM.from_pretrained(name, attn_implementation="fa4")

Importing this module registers ``attn_implementation="fa4"`` through
transformers' ``AttentionInterface``, with SDPA's mask function (so a
purely causal mask arrives as None, as SDPA gets it). A call without a mask
runs fa4: prefill (and any query block as long as its keys) through
``fa4.attention`` with the model's causality, scaling, and Gemma 2's softcap
where the model passes one; a few query tokens against a longer key cache
(generation) through ``fa4.attention_with_kvcache``, the layer's cached keys
as the cache. A call with a mask fa4 has no kernel for (padding in a batch,
a sliding window's mask) runs transformers' SDPA function instead, with the
mask: the result is right either way, and ``fallbacks`` counts those calls.
No dropout (inference and evaluation).
"""

import fa4

try:
    from transformers import AttentionInterface
    from transformers.integrations.sdpa_attention import sdpa_attention_forward
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask
except ImportError as error:  # pragma: no cover - only without transformers
    raise ImportError("fa4.integrations.transformers needs the transformers package "
                      "(AttentionInterface, transformers 4.53 or later): %s" % error)

NAME = "fa4"
# Calls that had a mask fa4 cannot run, and went to SDPA.
fallbacks = 0
# The query tokens up to which a call against a longer key cache is decode.
_DECODE_TOKENS = 16


def fa4_attention_forward(module, query, key, value, attention_mask, scaling=None,
                          dropout=0.0, softcap=None, **kwargs):
    """transformers' attention function signature: query (B, H, SQ, D), key
    and value (B, HKV, SK, D) (the cache's, after this step's update);
    returns (out (B, SQ, H, Dv), None)."""
    global fallbacks
    if dropout:
        raise NotImplementedError("fa4's transformers attention has no dropout; use "
                                  "model.eval() (dropout 0) for inference")
    if attention_mask is not None:
        fallbacks += 1
        return sdpa_attention_forward(module, query, key, value, attention_mask,
                                      scaling=scaling, dropout=dropout, **kwargs)
    q = query.transpose(1, 2)
    k = key.transpose(1, 2)
    v = value.transpose(1, 2)
    sq, sk = q.shape[1], k.shape[1]
    causal = bool(getattr(module, "is_causal", True)) and sq > 1
    cap = float(softcap) if softcap else 0.0
    if sq <= _DECODE_TOKENS and sk > sq:
        out = fa4.attention_with_kvcache(q, k, v, causal=causal, softmax_scale=scaling,
                                         softcap=cap)
    else:
        out = fa4.attention(q, k, v, causal=causal, softmax_scale=scaling, softcap=cap)
    return out, None


AttentionInterface.register(NAME, fa4_attention_forward)
AttentionMaskInterface.register(NAME, sdpa_mask)
