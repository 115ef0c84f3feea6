//===- Binding.cpp - Launching a kernel from its description --------------===//
//
// The checks of each bound tensor and scalar against the kernel file's
// declarations, the resolution of a launch (rules, tensor-map specs, grid),
// and the launcher that encodes the maps once and launches.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runtime/Binding.h"

#include "DriverApi.h"

#include <cmath>
#include <cstdio>

using namespace fa4::runtime;

/// CUDA's grid limits.
static constexpr int64_t kMaxGrid[3] = {2147483647, 65535, 65535};

static std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)value);
  return text;
}

std::vector<int64_t> TensorArg::effectiveStrides() const {
  if (!strides.empty())
    return strides;
  std::vector<int64_t> result(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    result[d - 1] = result[d] * shape[d];
  return result;
}

Expected<Binding> Binding::create(const KernelFile &file) {
  if (file.grid.empty())
    return Status::error(
        "kernel '" + file.entry +
        "' has no launch description (its kernel "
        "file, version " +
        std::to_string(file.version) +
        ", has no grid rule); recompile it with this fa4 to launch it by "
        "name");
  if (Status s = verifyKernelFile(file); !s.ok())
    return Status::error("kernel '" + file.entry + "': " + s.message());
  return Binding(file);
}

/// The names of the tensors of `file`, for messages.
static std::string tensorNames(const KernelFile &file) {
  std::string names;
  for (const KernelTensor &tensor : file.tensors)
    names += (names.empty() ? "" : ", ") + tensor.name;
  return names.empty() ? "none" : names;
}

Status Binding::setTensor(std::string_view name, const TensorArg &tensor) {
  const KernelFile &file = *kernelFile;
  const KernelTensor *decl = file.findTensor(name);
  auto what = [&] { return "tensor '" + std::string(name) + "'"; };
  if (!decl)
    return Status::error("kernel '" + file.entry + "' has no " + what() +
                         " (its tensors: " + tensorNames(file) + ")");
  if (tensor.elementType != decl->elementType)
    return Status::error(what() + " is " + elementTypeName(tensor.elementType) +
                         "; kernel '" + file.entry + "' takes " +
                         elementTypeName(decl->elementType));
  if (tensor.shape.size() != decl->rank)
    return Status::error(what() + " has rank " +
                         std::to_string(tensor.shape.size()) + " (shape " +
                         shapeText(tensor.shape) + "); kernel '" + file.entry +
                         "' takes rank " + std::to_string(decl->rank));
  for (size_t d = 0; d < tensor.shape.size(); ++d)
    if (tensor.shape[d] < 1)
      return Status::error(what() + " has shape " + shapeText(tensor.shape) +
                           ": dimension " + std::to_string(d) + " is " +
                           std::to_string(tensor.shape[d]) +
                           "; every extent must be at least 1");
  if (!tensor.strides.empty()) {
    if (tensor.strides.size() != tensor.shape.size())
      return Status::error(what() + " has " +
                           std::to_string(tensor.strides.size()) +
                           " strides for its " +
                           std::to_string(tensor.shape.size()) + " dimensions");
    for (size_t d = 0; d < tensor.strides.size(); ++d)
      if (tensor.strides[d] < 0)
        return Status::error(what() + " has stride " +
                             std::to_string(tensor.strides[d]) +
                             " in dimension " + std::to_string(d) +
                             "; strides must not be negative");
  }
  if (tensor.address == 0)
    return Status::error(what() + " has a null address");
  if (tensor.address % decl->alignment != 0)
    return Status::error(
        what() + " at " + hex(tensor.address) + " is not " +
        std::to_string(decl->alignment) + "-byte aligned (address mod " +
        std::to_string(decl->alignment) + " = " +
        std::to_string(tensor.address % decl->alignment) + ")");
  if (decl->contiguous) {
    TensorArg rowMajor = tensor;
    rowMajor.strides.clear();
    std::vector<int64_t> want = rowMajor.effectiveStrides();
    std::vector<int64_t> have = tensor.effectiveStrides();
    for (size_t d = 0; d < want.size(); ++d)
      if (tensor.shape[d] > 1 && have[d] != want[d])
        return Status::error(what() + " must be contiguous: dimension " +
                             std::to_string(d) + " has stride " +
                             std::to_string(have[d]) + ", the row-major " +
                             "stride of shape " + shapeText(tensor.shape) +
                             " is " + std::to_string(want[d]));
  }
  tensors[std::string(name)] = tensor;
  ++changes;
  return Status::success();
}

Status Binding::setScalar(std::string_view name, double value) {
  const KernelFile &file = *kernelFile;
  const KernelParam *param = file.findParam(name);
  auto what = [&] { return "parameter '" + std::string(name) + "'"; };
  if (!param)
    return Status::error("kernel '" + file.entry + "' has no " + what());
  if (param->kind == ParamKind::Pointer ||
      param->kind == ParamKind::TensorMap || param->kind == ParamKind::Counter)
    return Status::error(
        what() + " is a " + paramKindName(param->kind) + ", not a scalar" +
        (param->tensor.empty() ? std::string()
                               : "; bind tensor '" + param->tensor + "'"));
  if (!param->value.empty())
    return Status::error(what() + " is made by its rule '" + param->value +
                         "'; the caller does not give it");
  if (param->kind != ParamKind::F32) {
    double limit =
        param->kind == ParamKind::I32 ? 2147483648.0 : 9223372036854775808.0;
    if (!(value == std::floor(value)) || value < -limit || value >= limit)
      return Status::error(what() + " is " + paramKindName(param->kind) + "; " +
                           std::to_string(value) +
                           " is not an integer in its range");
  }
  scalars[std::string(name)] = value;
  ++changes;
  return Status::success();
}

Status Binding::setPointer(std::string_view name, CUdeviceptr address) {
  const KernelFile &file = *kernelFile;
  const KernelParam *param = file.findParam(name);
  auto what = [&] { return "parameter '" + std::string(name) + "'"; };
  if (!param)
    return Status::error("kernel '" + file.entry + "' has no " + what());
  if (param->kind != ParamKind::Pointer && param->kind != ParamKind::Counter)
    return Status::error(what() + " is " + paramKindName(param->kind) +
                         ", not a pointer");
  if (!param->tensor.empty())
    return Status::error(what() + " points to tensor '" + param->tensor +
                         "'; bind the tensor");
  pointers[std::string(name)] = address;
  ++changes;
  return Status::success();
}

Expected<LaunchRule> Binding::parsed(const std::string &text) const {
  auto known = rules.find(text);
  if (known != rules.end())
    return known->second;
  Expected<LaunchRule> rule = LaunchRule::parse(text);
  if (rule.ok())
    rules.emplace(text, *rule);
  return rule;
}

template <typename What>
Expected<int64_t> Binding::evaluate(const std::string &text, What &&what,
                                    const DeviceInfo &device,
                                    std::map<std::string, int64_t> &values,
                                    unsigned depth) const {
  Expected<LaunchRule> rule = parsed(text);
  if (!rule.ok())
    return Status::error(what() + ": " + rule.status().message());
  Expected<int64_t> value = rule->evaluate([&](const RuleRef &ref) {
    return lookup(ref, device, values, depth + 1);
  });
  if (!value.ok())
    return Status::error(what() + ": " + value.status().message());
  return value;
}

Expected<int64_t> Binding::evaluate(const std::string &rule,
                                    const std::string &what,
                                    const DeviceInfo &device) const {
  std::map<std::string, int64_t> values;
  return evaluate(rule, [&] { return what; }, device, values, 0);
}

Expected<int64_t> Binding::lookup(const RuleRef &ref, const DeviceInfo &device,
                                  std::map<std::string, int64_t> &values,
                                  unsigned depth) const {
  if (depth > 64)
    return Status::error("the rules nest deeper than 64 (a cycle?)");
  if (ref.kind != RuleRef::Name) {
    auto it = tensors.find(ref.name);
    if (it == tensors.end())
      return Status::error("tensor '" + ref.name + "' is not bound");
    const TensorArg &tensor = it->second;
    if (ref.index >= tensor.shape.size())
      return Status::error("'" + ref.str() +
                           "' is beyond the rank of tensor '" + ref.name + "'");
    return ref.kind == RuleRef::Dim ? tensor.shape[ref.index]
                                    : tensor.effectiveStrides()[ref.index];
  }
  if (ref.name == kNumSmsName)
    return numSmsOverride ? *numSmsOverride : int64_t(device.smCount);
  auto known = values.find(ref.name);
  if (known != values.end())
    return known->second;
  const KernelParam *param = kernelFile->findParam(ref.name);
  if (!param)
    return Status::error("rule reads an unknown name '" + ref.name + "'");
  if (param->value.empty()) {
    auto given = scalars.find(ref.name);
    if (given == scalars.end())
      return Status::error("parameter '" + ref.name + "' is not bound");
    return int64_t(given->second);
  }
  Expected<int64_t> value = evaluate(
      param->value,
      [&] { return "parameter '" + ref.name + "' = " + param->value; }, device,
      values, depth);
  if (value.ok())
    values[ref.name] = *value;
  return value;
}

Expected<ResolvedLaunch> Binding::resolve(const DeviceInfo &device) const {
  const KernelFile &file = *kernelFile;
  for (const KernelTensor &tensor : file.tensors)
    if (!tensors.count(tensor.name))
      return Status::error("tensor '" + tensor.name + "' of kernel '" +
                           file.entry + "' is not bound");
  for (const KernelParam &param : file.params) {
    bool callerScalar = param.kind != ParamKind::Pointer &&
                        param.kind != ParamKind::TensorMap &&
                        param.kind != ParamKind::Counter && param.value.empty();
    if (callerScalar && !scalars.count(param.name))
      return Status::error("parameter '" + param.name + "' (" +
                           paramKindName(param.kind) + ") of kernel '" +
                           file.entry + "' is not bound");
    if (param.kind == ParamKind::Pointer && param.tensor.empty() &&
        !pointers.count(param.name))
      return Status::error("pointer '" + param.name + "' of kernel '" +
                           file.entry + "' is not bound");
  }

  std::map<std::string, int64_t> values;
  // The shapes the kernel needs.
  for (const KernelTensor &decl : file.tensors) {
    const TensorArg &tensor = tensors.find(decl.name)->second;
    for (size_t d = 0; d < decl.shape.size(); ++d) {
      if (decl.shape[d] == "*")
        continue;
      Expected<int64_t> want = evaluate(
          decl.shape[d],
          [&] {
            return "dimension " + std::to_string(d) + " of tensor '" +
                   decl.name + "'";
          },
          device, values, 0);
      if (!want.ok())
        return want.status();
      if (*want != tensor.shape[d])
        return Status::error(
            "tensor '" + decl.name + "' has shape " + shapeText(tensor.shape) +
            "; kernel '" + file.entry + "' needs dimension " +
            std::to_string(d) + " = " +
            (decl.shape[d] == std::to_string(*want)
                 ? decl.shape[d]
                 : decl.shape[d] + " = " + std::to_string(*want)));
    }
  }

  for (const std::string &text : file.requirements) {
    Expected<int64_t> holds = evaluate(
        text, [&] { return "requirement " + text; }, device, values, 0);
    if (!holds.ok())
      return holds.status();
    if (*holds)
      continue;
    std::string facts;
    for (const RuleRef &ref : parsed(text)->refs()) {
      Expected<int64_t> value = lookup(ref, device, values, 0);
      if (value.ok() && facts.find(ref.str() + " =") == std::string::npos)
        facts += (facts.empty() ? "" : ", ") + ref.str() + " = " +
                 std::to_string(*value);
    }
    return Status::error("kernel '" + file.entry + "' requires " + text +
                         ", which does not hold" +
                         (facts.empty() ? "" : " (" + facts + ")"));
  }

  ResolvedLaunch launch;
  for (const KernelParam &param : file.params) {
    ResolvedParam resolved;
    resolved.kind = param.kind;
    switch (param.kind) {
    case ParamKind::Pointer:
      resolved.address = param.tensor.empty()
                             ? pointers.find(param.name)->second
                             : tensors.find(param.tensor)->second.address;
      break;
    case ParamKind::Counter:
      // 0: the launcher's counter for the stream.
      if (auto it = pointers.find(param.name); it != pointers.end())
        resolved.address = it->second;
      break;
    case ParamKind::F32:
      resolved.real = float(scalars.find(param.name)->second);
      break;
    case ParamKind::I32:
    case ParamKind::I64: {
      Expected<int64_t> value =
          lookup({RuleRef::Name, param.name, 0}, device, values, 0);
      if (!value.ok())
        return value.status();
      if (param.kind == ParamKind::I32 &&
          (*value < INT32_MIN || *value > INT32_MAX))
        return Status::error("parameter '" + param.name + "' = " + param.value +
                             " = " + std::to_string(*value) +
                             " does not fit in i32");
      resolved.integer = *value;
      break;
    }
    case ParamKind::TensorMap: {
      const TensorArg &tensor = tensors.find(param.tensor)->second;
      std::vector<int64_t> strides = tensor.effectiveStrides();
      std::vector<unsigned> dims = param.tensorDims();
      TensorMapSpec &spec = resolved.map;
      spec.elementType = param.elementType;
      spec.boxDims = param.boxDims;
      spec.swizzle = param.swizzle;
      spec.oobFill = param.fill;
      unsigned size = elementSize(param.elementType);
      if (strides[dims[0]] != 1)
        return Status::error("tensor map '" + param.name + "' needs tensor '" +
                             param.tensor + "' contiguous in dimension " +
                             std::to_string(dims[0]) +
                             " (stride 1), it has "
                             "stride " +
                             std::to_string(strides[dims[0]]));
      for (size_t i = 0; i < dims.size(); ++i) {
        spec.globalDims.push_back(uint64_t(tensor.shape[dims[i]]));
        if (i > 0)
          spec.globalStrides.push_back(uint64_t(strides[dims[i]]) * size);
      }
      if (Status s = checkTensorMap(spec, tensor.address); !s.ok())
        return Status::error("tensor map '" + param.name + "' over tensor '" +
                             param.tensor + "' (shape " +
                             shapeText(tensor.shape) + "): " + s.message());
      resolved.address = tensor.address;
      break;
    }
    }
    launch.params.push_back(std::move(resolved));
  }

  uint32_t grid[3];
  for (unsigned d = 0; d < 3; ++d) {
    auto what = [&] {
      return std::string("grid ") + "xyz"[d] + " = " + file.grid[d];
    };
    Expected<int64_t> value = evaluate(file.grid[d], what, device, values, 0);
    if (!value.ok())
      return value.status();
    if (*value < 1 || *value > kMaxGrid[d])
      return Status::error(what() + " = " + std::to_string(*value) +
                           "; CUDA allows 1 to " + std::to_string(kMaxGrid[d]));
    grid[d] = uint32_t(*value);
  }
  launch.grid = {grid[0], grid[1], grid[2]};
  return launch;
}

Expected<Launcher> Launcher::create(const Kernel &kernel,
                                    const KernelFile &file) {
  Expected<Binding> binding = Binding::create(file);
  if (!binding.ok())
    return binding.status();
  return Launcher(kernel, binding.take());
}

static bool sameSpec(const TensorMapSpec &a, const TensorMapSpec &b) {
  return a.elementType == b.elementType && a.globalDims == b.globalDims &&
         a.globalStrides == b.globalStrides && a.boxDims == b.boxDims &&
         a.swizzle == b.swizzle && a.oobFill == b.oobFill;
}

Expected<CUdeviceptr> Launcher::counterFor(CUstream stream) {
  // By the stream's id, not its handle: the per-thread default stream is
  // one handle for a stream per thread, and a handle may be reused.
  const Driver &driver = kernel->driver();
  unsigned long long id = 0;
  if (Status s = FA4_CU_CHECK(driver, "identifying the stream", cuStreamGetId,
                              stream, &id);
      !s.ok())
    return s;
  if (auto it = counters.find(id); it != counters.end())
    return it->second;
  if (counterChunks.empty() || counterChunks.back().used == kCountersPerChunk) {
    Expected<DeviceBuffer> chunk =
        DeviceBuffer::allocate(driver, kCountersPerChunk * sizeof(int32_t));
    if (!chunk.ok())
      return chunk.status();
    counterChunks.push_back({chunk.take(), 0});
  }
  // Zeroed on the stream itself, so the stream's first launch finds it so
  // whatever the stream's flags.
  CounterChunk &chunk = counterChunks.back();
  CUdeviceptr address = chunk.buffer.address() + chunk.used * sizeof(int32_t);
  if (Status s = FA4_CU_CHECK(driver, "zeroing a tile counter",
                              cuMemsetD32Async, address, 0, 1, stream);
      !s.ok())
    return s;
  ++chunk.used;
  counters.emplace(id, address);
  return address;
}

Status Launcher::useCounterOf(CUstream stream, CUdeviceptr *captured) {
  if (!streamCounter)
    return Status::success();
  const Driver &driver = kernel->driver();
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (Status s = FA4_CU_CHECK(driver, "asking whether the stream captures",
                              cuStreamIsCapturing, stream, &capture);
      !s.ok())
    return s;
  if (capture == CU_STREAM_CAPTURE_STATUS_NONE) {
    Expected<CUdeviceptr> kept = counterFor(stream);
    if (!kept.ok())
      return kept.status();
    arguments.setAddress(*streamCounter, *kept);
    return Status::success();
  }
  // A graph may replay the launch at any time, beside launches on this
  // stream: the graph allocates and zeroes a counter of its own each
  // replay, which the launch frees after the kernel. Only a launch does.
  if (!captured)
    return Status::success();
  const char *what = "making a captured launch's tile counter";
  if (Status s = FA4_CU_CHECK(driver, what, cuMemAllocAsync, captured,
                              sizeof(int32_t), stream);
      !s.ok())
    return s;
  if (Status s =
          FA4_CU_CHECK(driver, what, cuMemsetD32Async, *captured, 0, 1, stream);
      !s.ok())
    return s;
  arguments.setAddress(*streamCounter, *captured);
  return Status::success();
}

Status Launcher::prepareArguments() {
  if (preparedGeneration && *preparedGeneration == bound.generation())
    return Status::success();
  Expected<ResolvedLaunch> resolved = bound.resolve(kernel->driver().device());
  if (!resolved.ok())
    return resolved.status();
  streamCounter.reset();
  KernelArgs args;
  for (size_t i = 0; i < resolved->params.size(); ++i) {
    const ResolvedParam &param = resolved->params[i];
    switch (param.kind) {
    case ParamKind::Pointer:
      args.addPointer(param.address);
      break;
    case ParamKind::Counter:
      args.addCounter(param.address);
      if (!param.address)
        streamCounter = i;
      break;
    case ParamKind::I32:
      args.addI32(int32_t(param.integer));
      break;
    case ParamKind::I64:
      args.addI64(param.integer);
      break;
    case ParamKind::F32:
      args.addF32(param.real);
      break;
    case ParamKind::TensorMap: {
      auto cached = maps.find(i);
      if (cached == maps.end() || cached->second.address != param.address ||
          !sameSpec(cached->second.spec, param.map)) {
        Expected<CUtensorMap> map =
            encodeTensorMap(kernel->driver(), param.map, param.address);
        if (!map.ok())
          return Status::error("tensor map '" + bound.file().params[i].name +
                               "': " + map.status().message());
        ++encodes;
        cached =
            maps.insert_or_assign(i, CachedMap{param.map, param.address, *map})
                .first;
      }
      args.addTensorMap(cached->second.map);
      break;
    }
    }
  }
  arguments = std::move(args);
  last = resolved.take();
  launchConfig.grid = last.grid;
  launchConfig.block = bound.file().block;
  launchConfig.dynamicSharedBytes = bound.file().dynamicSharedBytes;
  launchConfig.programmatic = bound.file().programmaticLaunch;
  preparedGeneration = bound.generation();
  return Status::success();
}

Status Launcher::prepare(CUstream stream) {
  if (Status s = prepareArguments(); !s.ok())
    return s;
  return useCounterOf(stream, nullptr);
}

Status Launcher::launch(CUstream stream) {
  if (Status s = prepareArguments(); !s.ok())
    return s;
  CUdeviceptr captured = 0;
  Status s = useCounterOf(stream, &captured);
  if (s.ok()) {
    launchConfig.stream = stream;
    s = fa4::runtime::launch(*kernel, launchConfig, arguments);
  }
  if (captured) {
    Status freed = FA4_CU_CHECK(kernel->driver(),
                                "freeing a captured launch's tile counter",
                                cuMemFreeAsync, captured, stream);
    if (s.ok())
      s = freed;
  }
  return s;
}
