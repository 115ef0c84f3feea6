//===- Passes.td - fa4 passes ------------------------------*- tablegen -*-===//
//
// The passes of fa4 that work on the plan of a kernel: attaching a derived
// `#fa4.config` and reporting its budgets.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TRANSFORMS_PASSES_TD
#define FA4_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FA4AttachConfig : Pass<"fa4-attach-config", "ModuleOp"> {
  let summary = "attach a derived #fa4.config to every kernel function";
  let description = [{
    Derives the plan of an attention kernel from the problem (head dim,
    element type, target), FA4Config-style, and attaches it as `fa4.config` to
    every function of the module that has none. Options override the derived
    kv stages, qk stages and key block; an impossible plan is an error that
    prints the numbers (for instance the shared memory it would need).

    ```
    fa4-opt --fa4-attach-config="head-dim=128 dtype=bf16 target=sm_90a kv-stages=2"
    ```
  }];
  let dependentDialects = ["::mlir::fa4::FA4Dialect"];
  let options = [
    Option<"headDim", "head-dim", "int64_t", /*default=*/"128",
           "head dim of Q and K">,
    Option<"headDimV", "head-dim-v", "int64_t", /*default=*/"0",
           "head dim of V (0: the same as head-dim)">,
    Option<"dtype", "dtype", "std::string", /*default=*/"\"bf16\"",
           "element type of Q, K and V: bf16 or f16">,
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target GPU: sm_90a or sm_100a">,
    Option<"kvStages", "kv-stages", "int64_t", /*default=*/"0",
           "kv pipeline stages (0: as many as shared memory holds, at most 4)">,
    Option<"qkStages", "qk-stages", "int64_t", /*default=*/"0",
           "qk stages of the K loads (0: padded head dim / 64 for 16-bit types)">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"0",
           "rows of a K/V tile (0: the widest that leaves two kv stages)">,
  ];
}

def FA4PrintPlan : Pass<"fa4-print-plan", "ModuleOp"> {
  let summary = "print the budgets of every #fa4.config in the module";
  let description = [{
    For each op that carries `fa4.config`, prints its tiles, its shared-memory
    budget (Q, K, V and barrier bytes against the target's limit) and its warp
    roles' registers against the SM's register file, to the error stream.
    The IR is left unchanged.
  }];
}

#endif // FA4_TRANSFORMS_PASSES_TD
