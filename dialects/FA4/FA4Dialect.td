//===- FA4Dialect.td - the fa4 dialect ---------------------*- tablegen -*-===//
//
// The fa4 dialect models the machinery of a FlashAttention-4-class kernel as
// IR: TMA producer pipelines over staged mbarriers, qk-stage splits of the K
// loads, warp roles with register budgets, asynchronous MMA and named barriers.
// The plan every such kernel follows is the `#fa4.config` attribute.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_DIALECT_TD
#define FA4_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def FA4_Dialect : Dialect {
  let name = "fa4";
  let cppNamespace = "::mlir::fa4";
  let summary = "FlashAttention-4 pipelines, warp roles and asynchronous MMA";
  let description = [{
    The fa4 dialect makes explicit what a FlashAttention-4-class kernel is made
    of: shared-memory stage buffers filled by TMA through producer/consumer
    pipelines of mbarriers (K staged over the head dimension in `qk` stages, V
    loaded complete), warp roles with register budgets, asynchronous
    matrix-multiply-accumulate and its completion, and named barriers that
    order the roles. The ops are target-neutral where the concept is; what is
    Hopper- or Blackwell-specific lives in the lowering.

    A kernel carries its plan as the discardable attribute `fa4.config` (a
    `#fa4.config`), on the kernel function or any enclosing op; ops that
    create pipelines check their tiles against it.

    A kernel also carries its launch description to the kernel file, as
    launch rules (fa4/KernelFormat/LaunchRule.h) in string attributes: `fa4.grid`
    and `fa4.require` on the kernel, and `fa4.name`, `fa4.value`,
    `fa4.shape`, `fa4.access` and `fa4.element_type` on its arguments.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The name of the discardable attribute that holds a kernel's plan.
    static constexpr ::llvm::StringLiteral getConfigAttrName() {
      return ::llvm::StringLiteral("fa4.config");
    }
  }];
}

class FA4_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<FA4_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class FA4_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<FA4_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class FA4_Op<string mnemonic, list<Trait> traits = []>
    : Op<FA4_Dialect, mnemonic, traits>;

#endif // FA4_DIALECT_TD
