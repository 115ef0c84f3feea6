//===- KernelFileEmission.h - MLIR to the runtime's kernel file -*- C++ -*-===//
//
// The last step of the compiler: a module with one `nvvm.kernel` function
// becomes a kernel file (fa4/KernelFormat/KernelFile.h) that the runtime loads on a
// machine without the compiler. The launch metadata comes from the kernel's
// attributes: the block from `nvvm.maxntid`, the dynamic shared memory from
// `fa4.shared_memory_bytes`, and one parameter per argument, with the
// tensor-map views from each argument's `fa4.tensor_map` type and the names
// from optional `fa4.name` string attributes.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TARGET_KERNELFILEEMISSION_H
#define FA4_TARGET_KERNELFILEEMISSION_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::fa4 {

/// The argument attribute that names a kernel parameter in the kernel file;
/// without it the parameter is named `arg<N>`.
inline constexpr StringLiteral kParamNameAttrName = "fa4.name";

/// Describe the single `nvvm.kernel` function of `module` as a kernel file
/// for `options.arch` in cubin format, without the binary: entry, target,
/// block (`nvvm.maxntid`), dynamic shared memory (`fa4.shared_memory_bytes`,
/// 0 when absent) and one parameter per argument: a `!llvm.ptr` with
/// `fa4.tensor_map` is a tensor map (box reversed to innermost first, tensor
/// named like the parameter), any other `!llvm.ptr` in address space 0 or 1
/// (not by value) a pointer, and i64, i32 and f32 scalars. A kernel with
/// `fa4.config` gets `meta = head_dim N` and `meta = head_dim_v N`. Reports at
/// the module when there is no kernel or several, and at the kernel what it
/// cannot describe, naming the argument.
FailureOr<::fa4::runtime::KernelFile>
describeKernel(ModuleOp module, const TargetOptions &options);

/// `describeKernel`, then the cubin: translation to LLVM IR (which rewrites
/// `module` in place, see `translateToLLVMIR`), PTX and ptxas. Sets `report`
/// to ptxas's -v report, and when given `llvmIR` and `ptx` to the text of
/// those stages. The result is ready for
/// `::fa4::runtime::serializeKernelFile`.
/// Wall-clock seconds of emitKernelFile's stages.
struct EmissionTimes {
  /// The LLVM dialect checked, translated to LLVM IR and optimized (LLVM's
  /// pipeline at the options' level).
  double llvmIR = 0;
  /// The NVPTX backend, LLVM IR to PTX.
  double backend = 0;
  /// ptxas, PTX to the cubin.
  double ptxas = 0;
};

FailureOr<::fa4::runtime::KernelFile>
emitKernelFile(ModuleOp module, const TargetOptions &options,
               std::string &report, std::string *llvmIR = nullptr,
               std::string *ptx = nullptr, EmissionTimes *times = nullptr);

} // namespace mlir::fa4

#endif // FA4_TARGET_KERNELFILEEMISSION_H
