//===- kernel-format-checks.cpp - checks of the kernel key and plan -------===//
//
// The driver behind the kernel-format lit tests: `key` prints the name and
// text of kernel keys (every combination of the attention options
// with a few head dims and plans, and the GEMM), then checks that no two
// differ in name or text; `plan` sets and parses plan fields and
// prints each refusal; `table` prints the backward's kernels that libfa4
// prepares (backwardKernelsForAnyLaunch) and checks that every launch's
// kernels, at every length, are among them.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/KernelKey.h"
#include "fa4/KernelFormat/PlanTable.h"

#include <cstdio>
#include <set>
#include <string>
#include <vector>

using namespace fa4;

static int runKey() {
  std::vector<KernelKey> keys;
  for (auto [d, dv] : {std::pair<int64_t, int64_t>{64, 0}, {128, 0}, {256, 0},
                       {80, 0}, {96, 0}, {160, 0}, {192, 128}, {32, 0}})
    for (int options = 0; options < 16; ++options) {
      KernelKey key;
      key.headDim = d;
      key.headDimV = dv;
      key.dtype = options & 1 ? DType::F16 : DType::BF16;
      key.varlen = options & 2;
      key.window = options & 4;
      key.softcap = options & 8;
      keys.push_back(key);
    }
  KernelKey planned;
  planned.headDim = 256;
  planned.plan.blockN = 64;
  keys.push_back(planned);
  planned.plan.persistent = false;
  keys.push_back(planned);
  planned.plan.persistent = true;
  keys.push_back(planned);
  KernelKey dims;
  dims.headDim = 128;
  dims.headDimV = 128;
  keys.push_back(KernelKey::gemm());
  // The backward's three kernels at two head dims and in f16, one with a
  // plan.
  for (Family family : {Family::AttentionBackwardPreprocess,
                        Family::AttentionBackwardDq,
                        Family::AttentionBackwardDkDv})
    for (int64_t d : {64, 128}) {
      KernelKey key;
      key.family = family;
      key.headDim = d;
      keys.push_back(key);
      key.dtype = DType::F16;
      keys.push_back(key);
    }
  KernelKey backward;
  backward.family = Family::AttentionBackwardDkDv;
  backward.plan.blockN = 32;
  keys.push_back(backward);
  // The five-product backward's main kernel and postprocess.
  for (Family family :
       {Family::AttentionBackwardFused, Family::AttentionBackwardPostprocess}) {
    KernelKey key;
    key.family = family;
    key.headDim = 96;
    keys.push_back(key);
  }
  // Decode's two kernels: the main one with MLA's head dims, a window and a
  // softcap, a plan; the combine.
  KernelKey decode;
  decode.family = Family::AttentionDecode;
  decode.headDim = 192;
  decode.headDimV = 128;
  decode.window = decode.softcap = true;
  keys.push_back(decode);
  decode.plan.kvStages = 3;
  keys.push_back(decode);
  decode.pageRows = 64;
  keys.push_back(decode);
  decode.pageRows = 16;
  keys.push_back(decode);
  decode.pageRows = 0;
  KernelKey combine;
  combine.family = Family::AttentionDecodeCombine;
  keys.push_back(combine);
  std::set<std::string> names, texts;
  int failures = 0;
  for (const KernelKey &key : keys) {
    std::printf("%s %s\n", key.name().c_str(), key.str().c_str());
    if (runtime::Status s = key.verify(); !s.ok()) {
      std::printf("  refused: %s\n", s.message().c_str());
      ++failures;
    }
    names.insert(key.name());
    texts.insert(key.str());
  }
  // A V head dim equal to Q's is the same key as none.
  KernelKey same;
  same.headDim = 128;
  if (dims.name() != same.name() || dims.str() != same.str())
    ++failures;
  std::printf("%zu keys: %zu names, %zu texts\n", keys.size(), names.size(),
              texts.size());
  if (names.size() != keys.size() || texts.size() != keys.size())
    ++failures;
  for (auto [d, dv] : {std::pair<int64_t, int64_t>{100, 0}, {272, 0},
                       {16, 0}, {128, 40}}) {
    KernelKey key;
    key.headDim = d;
    key.headDimV = dv;
    std::printf("head dims %lld/%lld: %s\n", (long long)d, (long long)dv,
                key.verify().ok() ? "ok" : key.verify().message().c_str());
  }
  KernelKey gemm = KernelKey::gemm();
  gemm.window = true;
  std::printf("gemm window: %s\n", gemm.verify().message().c_str());
  // What the backward's kernels refuse.
  backward.plan = {};
  backward.varlen = true;
  for (Family family :
       {Family::AttentionBackwardDq, Family::AttentionBackwardDkDv,
        Family::AttentionBackwardPreprocess, Family::AttentionBackwardFused}) {
    KernelKey packed = backward;
    packed.family = family;
    std::printf("backward varlen %s: %s\n", packed.name().c_str(),
                packed.verify().ok() ? "ok"
                                     : packed.verify().message().c_str());
  }
  // D's kernel of packed sequences reads them as one sequence.
  for (const KernelKey &key : KernelKey::backwardKernels(backward, false))
    std::printf("backward varlen kernel %s\n", key.name().c_str());
  backward.varlen = false;
  backward.headDimV = 64;
  std::printf("backward 128/64: %s\n",
              backward.verify().ok() ? "ok"
                                     : backward.verify().message().c_str());
  backward.headDim = 64;
  backward.headDimV = 128;
  std::printf("backward 64/128: %s\n", backward.verify().message().c_str());
  backward.headDim = backward.headDimV = 256;
  std::printf("backward 256: %s\n", backward.verify().ok()
                                        ? "ok"
                                        : backward.verify().message().c_str());
  // Over 128 columns, dV and dK by programs of their own.
  for (int64_t d : {128, 144, 256}) {
    KernelKey wide;
    wide.headDim = d;
    std::printf("backward kernels at %lld:", (long long)d);
    for (const KernelKey &key : KernelKey::backwardKernels(wide, false))
      std::printf(" %s", key.name().c_str());
    std::printf("\n");
  }
  backward.family = Family::AttentionBackwardFused;
  std::printf("fused backward 256: %s\n", backward.verify().message().c_str());
  KernelKey fused;
  fused.family = Family::AttentionBackwardFused;
  fused.headDim = 64;
  runtime::Status fusedStatus = fused.verify();
  std::printf("fused backward 64: %s\n",
              fusedStatus.ok() ? "ok" : fusedStatus.message().c_str());
  // What decode's kernels refuse.
  decode.plan = {};
  decode.varlen = true;
  std::printf("decode varlen: %s\n", decode.verify().message().c_str());
  combine.window = true;
  std::printf("combine window: %s\n", combine.verify().message().c_str());
  KernelKey pagedForward;
  pagedForward.pageRows = 64;
  std::printf("paged forward: %s\n", pagedForward.verify().message().c_str());
  decode.pageRows = 48;
  std::printf("page rows 48: %s\n", decode.verify().message().c_str());
  for (int64_t page : {16, 64, 96, 256, 24, 8, 48, 80, 4096})
    std::printf("page %lld: rows %lld\n", (long long)page,
                (long long)KernelKey::decodePageRows(page));
  return failures ? 1 : 0;
}

static int runPlan() {
  Plan plan;
  for (const char *text :
       {"kv-stages=3 block-n=64", "persistent=false,debug-hangs=true",
        "kv-stages=derived", "kv-stages=0", "kv-stages=x", "persistent=1",
        "tiles=2", "kv-stages"}) {
    runtime::Status s = plan.parse(text);
    std::printf("%s: %s\n", text,
                s.ok() ? ("{" + plan.str() + "}").c_str()
                       : s.message().c_str());
  }
  for (const Plan::Field &field : Plan::fields())
    std::printf("field %s (%s)\n", field.name, field.token);
  return 0;
}

static int runTable() {
  int missed = 0;
  struct Options {
    int d;
    DType dtype;
    bool window;
  };
  for (auto [d, dtype, window] :
       {Options{64, DType::BF16, false}, Options{64, DType::F16, false},
        Options{64, DType::BF16, true}, Options{96, DType::BF16, false},
        Options{128, DType::BF16, false}, Options{256, DType::BF16, false}})
    for (bool deterministic : {false, true}) {
      KernelKey main;
      main.headDim = d;
      main.dtype = dtype;
      main.window = window;
      std::vector<KernelKey> any =
          backwardKernelsForAnyLaunch(main, deterministic);
      std::printf("d%d%s%s%s:", d, dtype == DType::F16 ? " f16" : "",
                  window ? " window" : "",
                  deterministic ? " deterministic" : "");
      std::set<std::string> prepared;
      for (const KernelKey &key : any) {
        std::printf(" %s", key.name().c_str());
        prepared.insert(key.str());
      }
      std::printf("\n");
      for (int64_t seqK = 0; seqK <= 40000; ++seqK)
        for (bool causal : {false, true})
          for (const KernelKey &key :
               backwardKernelsForLaunch(main, seqK, causal, deterministic))
            if (!prepared.count(key.str())) {
              std::printf("not prepared: %s at %lld keys%s\n",
                          key.str().c_str(), static_cast<long long>(seqK),
                          causal ? ", causal" : "");
              ++missed;
            }
    }
  std::printf("launches not prepared: %d\n", missed);
  return missed != 0;
}

int main(int argc, char **argv) {
  std::string command = argc == 2 ? argv[1] : "";
  if (command == "key")
    return runKey();
  if (command == "plan")
    return runPlan();
  if (command == "table")
    return runTable();
  std::fprintf(stderr, "usage: fa4-kernel-format-checks key|plan|table\n");
  return 2;
}
