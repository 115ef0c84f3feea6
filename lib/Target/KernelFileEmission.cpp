//===- KernelFileEmission.cpp - MLIR to the runtime's kernel file ---------===//
//
// Reads the launch metadata of a module's single `nvvm.kernel` function (its
// block, dynamic shared memory, parameters and, from `fa4.config`, the head
// dims as `meta` lines) into the runtime's KernelFile, then compiles the
// module to a cubin and puts it inside. Everything the runtime will need is
// checked here, at the kernel or at the argument, so that a bad kernel file is
// a compile-time error rather than a launch failure.
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/KernelFileEmission.h"

#include "FA4/FA4Dialect.h"
#include "fa4/KernelFormat/LaunchRule.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::fa4;
namespace rt = ::fa4::runtime;

/// The `nvvm.kernel` function of `module`; reports at the module when there
/// are none or several.
static FailureOr<LLVM::LLVMFuncOp> findKernel(ModuleOp module) {
  SmallVector<LLVM::LLVMFuncOp> kernels;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      kernels.push_back(func);
  if (kernels.size() == 1)
    return kernels.front();
  if (kernels.empty())
    return module.emitError()
           << "a kernel file needs one llvm.func with "
           << NVVM::NVVMDialect::getKernelFuncAttrName()
           << ", the module has none (is it lowered with --fa4-to-llvm?)";
  InFlightDiagnostic diag = module.emitError()
                            << "a kernel file holds one kernel, the module has "
                            << kernels.size() << ":";
  for (LLVM::LLVMFuncOp kernel : kernels)
    diag << " '" << kernel.getSymName() << "'";
  return diag;
}

/// Whether `name` can stand in a kernel file header: non-empty, without
/// whitespace or '='.
static bool isHeaderToken(StringRef name) {
  return !name.empty() && name.find_first_of(" \t\r\n\v\f=") == StringRef::npos;
}

/// The block of `kernel` from `nvvm.maxntid` (one to three positive dims).
static FailureOr<rt::Dim3> getBlock(LLVM::LLVMFuncOp kernel) {
  StringRef attrName = NVVM::NVVMDialect::getMaxntidAttrName();
  auto maxntid = kernel->getAttrOfType<DenseI32ArrayAttr>(attrName);
  if (!maxntid)
    return kernel.emitError()
           << "kernel '" << kernel.getSymName() << "' needs " << attrName
           << " (array<i32: x, y, z>) to fix its block";
  ArrayRef<int32_t> dims = maxntid.asArrayRef();
  if (dims.empty() || dims.size() > 3 ||
      llvm::any_of(dims, [](int32_t d) { return d < 1; }))
    return kernel.emitError()
           << attrName << " of kernel '" << kernel.getSymName() << "' is "
           << maxntid << "; a block needs one to three positive dims";
  rt::Dim3 block;
  block.x = uint32_t(dims[0]);
  block.y = dims.size() > 1 ? uint32_t(dims[1]) : 1;
  block.z = dims.size() > 2 ? uint32_t(dims[2]) : 1;
  return block;
}

/// The dynamic shared memory of `kernel`, 0 without the attribute.
static FailureOr<uint32_t> getDynamicSharedBytes(LLVM::LLVMFuncOp kernel) {
  Attribute attr = kernel->getAttr(kSharedMemoryBytesAttrName);
  if (!attr)
    return 0u;
  auto bytes = dyn_cast<IntegerAttr>(attr);
  if (!bytes || bytes.getValue().isNegative() ||
      bytes.getValue().getActiveBits() > 32)
    return kernel.emitError() << kSharedMemoryBytesAttrName << " of kernel '"
                              << kernel.getSymName() << "' is " << attr
                              << "; expected an integer in [0, 2^32)";
  return uint32_t(bytes.getValue().getZExtValue());
}

/// The element type of a tensor map as the runtime names it.
static std::optional<rt::ElementType> getElementType(Type type) {
  if (type.isBF16())
    return rt::ElementType::BF16;
  if (type.isF16())
    return rt::ElementType::F16;
  if (type.isF32())
    return rt::ElementType::F32;
  if (type.isInteger(32))
    return rt::ElementType::I32;
  return std::nullopt;
}

/// Fills the tensor-map fields of `param` from the `fa4.tensor_map` attribute
/// `attr` of argument `index`.
static LogicalResult describeTensorMap(LLVM::LLVMFuncOp kernel, unsigned index,
                                       Attribute attr, rt::KernelParam &param) {
  auto typeAttr = dyn_cast<TypeAttr>(attr);
  auto mapType =
      typeAttr ? dyn_cast<TensorMapType>(typeAttr.getValue()) : TensorMapType();
  if (!mapType)
    return kernel.emitError()
           << "argument " << index << " ('" << param.name << "') of kernel '"
           << kernel.getSymName() << "' has " << kTensorMapArgAttrName << " = "
           << attr << "; expected a !fa4.tensor_map type";
  std::optional<rt::ElementType> elementType =
      getElementType(mapType.getElementType());
  if (!elementType)
    return kernel.emitError()
           << "tensor map argument " << index << " ('" << param.name
           << "') of kernel '" << kernel.getSymName() << "' has element type "
           << mapType.getElementType()
           << "; kernel files take bf16, f16, f32 or i32";
  // TensorMapType::verify has checked the swizzle and the box.
  std::optional<rt::Swizzle> swizzle =
      rt::swizzleFromBytes(unsigned(mapType.getSwizzle()));
  assert(swizzle && "the type verifier accepts only 0, 32, 64 and 128");
  param.kind = rt::ParamKind::TensorMap;
  param.tensor = param.name;
  param.elementType = *elementType;
  param.swizzle = *swizzle;
  // The type gives the box outermost first, the runtime innermost first;
  // the map's dimensions are the tensor's in the same reverse order.
  for (int64_t dim : llvm::reverse(mapType.getBox()))
    param.boxDims.push_back(uint32_t(dim));
  for (size_t d = param.boxDims.size(); d-- > 0;)
    param.mapDims.push_back(unsigned(d));
  return success();
}

/// `text` in the canonical form of a launch rule, or an error at `kernel`
/// naming `what`.
static FailureOr<std::string> canonicalRule(LLVM::LLVMFuncOp kernel,
                                            const Twine &what, StringRef text) {
  rt::Expected<rt::LaunchRule> rule = rt::LaunchRule::parse(text.str());
  if (!rule.ok())
    return kernel.emitError() << what << " of kernel '" << kernel.getSymName()
                              << "': " << rule.status().message();
  return rule->str();
}

/// The logical tensor of argument `index` of `kernel`, named like `param`,
/// of `rank` dims and `elementType`: its access (`fa4.access`, else
/// `access`) and shape (`fa4.shape`, when given).
static FailureOr<rt::KernelTensor>
describeTensor(LLVM::LLVMFuncOp kernel, unsigned index,
               const rt::KernelParam &param, rt::ElementType elementType,
               unsigned rank, rt::TensorAccess access) {
  rt::KernelTensor tensor;
  tensor.name = param.name;
  tensor.elementType = elementType;
  tensor.rank = rank;
  tensor.access = access;
  if (auto attr =
          kernel.getArgAttrOfType<StringAttr>(index, kAccessArgAttrName))
    if (std::optional<rt::TensorAccess> given =
            rt::parseTensorAccess(attr.getValue()))
      tensor.access = *given;
  if (auto attr =
          kernel.getArgAttrOfType<StringAttr>(index, kShapeArgAttrName)) {
    for (std::string_view item : rt::splitRules(attr.getValue())) {
      if (StringRef(item).trim() == "*") {
        tensor.shape.push_back("*");
        continue;
      }
      FailureOr<std::string> rule = canonicalRule(
          kernel, "the shape of argument '" + param.name + "'", item);
      if (failed(rule))
        return failure();
      tensor.shape.push_back(*rule);
    }
    if (tensor.shape.size() != rank)
      return kernel.emitError()
             << "argument '" << param.name << "' of kernel '"
             << kernel.getSymName() << "' has a shape of "
             << tensor.shape.size() << " extents for a tensor of rank " << rank;
  }
  return tensor;
}

/// The kernel-file parameter of argument `index` of `kernel`, and the
/// tensor it is made from, added to `tensors`.
static FailureOr<rt::KernelParam>
describeParam(LLVM::LLVMFuncOp kernel, unsigned index,
              std::vector<rt::KernelTensor> &tensors) {
  rt::KernelParam param;
  param.name = "arg" + std::to_string(index);
  if (Attribute nameAttr = kernel.getArgAttr(index, kParamNameAttrName)) {
    auto name = dyn_cast<StringAttr>(nameAttr);
    if (!name || !isHeaderToken(name.getValue()))
      return kernel.emitError()
             << kParamNameAttrName << " of argument " << index << " of kernel '"
             << kernel.getSymName() << "' is " << nameAttr
             << "; expected a non-empty string without whitespace or '='";
    param.name = name.getValue().str();
  }

  Type type = kernel.getArgumentTypes()[index];
  Attribute mapAttr = kernel.getArgAttr(index, kTensorMapArgAttrName);
  auto pointer = dyn_cast<LLVM::LLVMPointerType>(type);
  if (mapAttr && !pointer)
    return kernel.emitError()
           << "argument " << index << " ('" << param.name << "') of kernel '"
           << kernel.getSymName() << "' has " << kTensorMapArgAttrName
           << " but type " << type << ", not !llvm.ptr";
  if (mapAttr) {
    if (failed(describeTensorMap(kernel, index, mapAttr, param)))
      return failure();
    FailureOr<rt::KernelTensor> tensor =
        describeTensor(kernel, index, param, param.elementType,
                       unsigned(param.boxDims.size()), rt::TensorAccess::Input);
    if (failed(tensor))
      return failure();
    tensors.push_back(std::move(*tensor));
    return param;
  }
  bool byValue = static_cast<bool>(
      kernel.getArgAttr(index, LLVM::LLVMDialect::getByValAttrName()));
  // The fa4 dialect checks that a counter is a global pointer.
  if (kernel.getArgAttr(index, kCounterArgAttrName)) {
    param.kind = rt::ParamKind::Counter;
    return param;
  }
  if (pointer && !byValue && pointer.getAddressSpace() <= 1) {
    param.kind = rt::ParamKind::Pointer;
    auto shape = kernel.getArgAttrOfType<StringAttr>(index, kShapeArgAttrName);
    if (!shape)
      return param;
    auto typeAttr =
        kernel.getArgAttrOfType<TypeAttr>(index, kElementTypeArgAttrName);
    std::optional<rt::ElementType> elementType =
        typeAttr ? getElementType(typeAttr.getValue()) : std::nullopt;
    if (!elementType)
      return kernel.emitError()
             << "pointer argument " << index << " ('" << param.name
             << "') of kernel '" << kernel.getSymName() << "' has "
             << kShapeArgAttrName << " but no " << kElementTypeArgAttrName
             << " of bf16, f16, f32 or i32";
    FailureOr<rt::KernelTensor> tensor =
        describeTensor(kernel, index, param, *elementType,
                       unsigned(rt::splitRules(shape.getValue()).size()),
                       rt::TensorAccess::Output);
    if (failed(tensor))
      return failure();
    // A pointer to a tensor: contiguous unless the kernel reads its strides
    // (checked once every rule is known, in describeKernel).
    tensor->contiguous = true;
    param.tensor = param.name;
    tensors.push_back(std::move(*tensor));
    return param;
  }
  if (type.isInteger(64) || type.isInteger(32) || type.isF32()) {
    param.kind = type.isF32()         ? rt::ParamKind::F32
                 : type.isInteger(64) ? rt::ParamKind::I64
                                      : rt::ParamKind::I32;
    if (auto value =
            kernel.getArgAttrOfType<StringAttr>(index, kValueArgAttrName)) {
      if (type.isF32())
        return kernel.emitError()
               << "f32 argument " << index << " ('" << param.name
               << "') of kernel '" << kernel.getSymName() << "' has "
               << kValueArgAttrName << "; launch rules make integers";
      FailureOr<std::string> rule =
          canonicalRule(kernel, "the value of argument '" + param.name + "'",
                        value.getValue());
      if (failed(rule))
        return failure();
      param.value = *rule;
    }
    return param;
  }
  return kernel.emitError()
         << "argument " << index << " ('" << param.name << "') of kernel '"
         << kernel.getSymName() << "' has type " << type
         << (byValue ? " passed by value" : "")
         << ", which a kernel file cannot describe; expected a tensor map "
            "(!llvm.ptr with "
         << kTensorMapArgAttrName
         << "), a global or generic !llvm.ptr, i64, i32 or f32";
}

FailureOr<rt::KernelFile>
mlir::fa4::describeKernel(ModuleOp module, const TargetOptions &options) {
  FailureOr<LLVM::LLVMFuncOp> kernel = findKernel(module);
  if (failed(kernel))
    return failure();
  rt::KernelFile file;
  file.entry = kernel->getSymName().str();
  file.target = options.arch;
  file.format = rt::BinaryFormat::Cubin;
  FailureOr<rt::Dim3> block = getBlock(*kernel);
  FailureOr<uint32_t> sharedBytes = getDynamicSharedBytes(*kernel);
  if (failed(block) || failed(sharedBytes))
    return failure();
  file.block = *block;
  file.dynamicSharedBytes = *sharedBytes;
  file.programmaticLaunch = (*kernel)->hasAttr(kProgrammaticLaunchAttrName);
  // An attention kernel is compiled for one head dim; the runner checks it.
  if (ConfigAttr config = lookupConfig(*kernel)) {
    file.metadata["head_dim"] = std::to_string(config.getHeadDim());
    file.metadata["head_dim_v"] = std::to_string(config.getHeadDimV());
  }

  if (auto grid = (*kernel)->getAttrOfType<StringAttr>(kGridAttrName)) {
    for (std::string_view item : rt::splitRules(grid.getValue())) {
      FailureOr<std::string> rule = canonicalRule(*kernel, "the grid", item);
      if (failed(rule))
        return failure();
      file.grid.push_back(*rule);
    }
  }
  if (auto rules = (*kernel)->getAttrOfType<ArrayAttr>(kRequireAttrName)) {
    for (Attribute attr : rules) {
      auto text = dyn_cast<StringAttr>(attr);
      FailureOr<std::string> rule =
          text ? canonicalRule(*kernel, "a requirement", text.getValue())
               : FailureOr<std::string>(kernel->emitError()
                                        << kRequireAttrName
                                        << " holds a non-string " << attr);
      if (failed(rule))
        return failure();
      file.requirements.push_back(*rule);
    }
  }

  llvm::StringMap<unsigned> names;
  for (unsigned i = 0, e = kernel->getNumArguments(); i < e; ++i) {
    FailureOr<rt::KernelParam> param = describeParam(*kernel, i, file.tensors);
    if (failed(param))
      return failure();
    auto [it, inserted] = names.try_emplace(param->name, i);
    if (!inserted)
      return kernel->emitError() << "arguments " << it->second << " and " << i
                                 << " of kernel '" << kernel->getSymName()
                                 << "' are both named '" << param->name << "'";
    file.params.push_back(std::move(*param));
  }
  // A tensor whose strides a parameter's rule reads may have any strides:
  // the kernel addresses it through them.
  for (rt::KernelTensor &tensor : file.tensors)
    for (const rt::KernelParam &param : file.params) {
      if (param.value.empty() || !tensor.contiguous)
        continue;
      rt::Expected<rt::LaunchRule> rule = rt::LaunchRule::parse(param.value);
      if (rule.ok())
        for (const rt::RuleRef &ref : rule->refs())
          if (ref.kind == rt::RuleRef::Stride && ref.name == tensor.name)
            tensor.contiguous = false;
    }
  // What the runtime will check on load: the rules read declared tensors
  // and integer parameters, the maps' tensors agree with them.
  if (rt::Status s = rt::verifyDescription(file); !s.ok())
    return kernel->emitError()
           << "the launch description of kernel '" << kernel->getSymName()
           << "' is inconsistent: " << s.message();
  return file;
}

FailureOr<rt::KernelFile>
mlir::fa4::emitKernelFile(ModuleOp module, const TargetOptions &options,
                          std::string &report, std::string *llvmIR,
                          std::string *ptxText, EmissionTimes *times) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  EmissionTimes unused;
  EmissionTimes &spent = times ? *times : unused;
  // Describe first: the module is rewritten by the translation, and a kernel
  // that cannot be described should fail before ptxas runs.
  FailureOr<rt::KernelFile> file = describeKernel(module, options);
  if (failed(file))
    return failure();
  llvm::LLVMContext llvmContext;
  Clock::time_point start = Clock::now();
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      translateToLLVMIR(module, llvmContext, options);
  if (failed(llvmModule))
    return failure();
  spent.llvmIR = since(start);
  FailureOr<Assembly> assembly =
      assemble(**llvmModule, options, module.getLoc(), llvmIR != nullptr);
  if (failed(assembly))
    return failure();
  warnOfLostOverlap(assembly->report, module);
  spent.backend = assembly->backendSeconds;
  spent.ptxas = assembly->ptxasSeconds;
  report = assembly->report;
  if (llvmIR)
    *llvmIR = std::move(assembly->llvmIR);
  if (ptxText)
    *ptxText = assembly->ptx;
  file->binary = std::move(assembly->cubin);
  return file;
}
