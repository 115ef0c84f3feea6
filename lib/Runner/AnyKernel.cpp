//===- AnyKernel.cpp - Running any kernel from its description ------------===//
//
// `--arg` and `--save` parsing, the host tensors of a run (files, random
// draws, outputs shaped by their rules), the checked launch with guards
// after the outputs, and the readable form of a launch description.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/AnyKernel.h"

#include "fa4/KernelFormat/Files.h"
#include "fa4/Runner/Npy.h"
#include "fa4/Runner/Random.h"
#include "fa4/Runtime/Binding.h"
#include "fa4/Runtime/Buffer.h"

#include "Execution.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace fa4::runner;
using namespace fa4::runtime;

/// Bytes of poison after each output, to catch a write past its end.
static constexpr uint64_t kGuardBytes = 64 * 1024;
/// The largest tensor fa4-run allocates.
static constexpr double kMaxTensorBytes = double(uint64_t(1) << 40);

uint64_t HostTensor::elements() const {
  uint64_t count = 1;
  for (int64_t extent : shape)
    count *= uint64_t(extent);
  return count;
}

/// `NAME=VALUE` split at the first '='.
static Status splitNamed(std::string_view text, const char *option,
                         std::string &name, std::string &value) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    return Status::error("--" + std::string(option) + " '" + std::string(text) +
                         "' is not NAME=VALUE");
  name = text.substr(0, eq);
  value = text.substr(eq + 1);
  return Status::success();
}

static bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.substr(text.size() - suffix.size()) == suffix;
}

/// A shape `2x3x64`: one to eight positive extents.
static Expected<std::vector<int64_t>> parseShape(std::string_view text,
                                                 const std::string &what) {
  std::vector<int64_t> shape;
  size_t pos = 0;
  while (true) {
    size_t x = text.find('x', pos);
    std::string_view item = text.substr(pos, x - pos);
    int64_t extent = 0;
    auto [end, ec] =
        std::from_chars(item.data(), item.data() + item.size(), extent);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() ||
        extent < 1 || extent > (int64_t(1) << 40))
      return Status::error(what + ": '" + std::string(text) +
                           "' is not a shape like 128x64 (positive extents)");
    shape.push_back(extent);
    if (x == std::string_view::npos)
      break;
    pos = x + 1;
  }
  if (shape.size() > kMaxTensorRank)
    return Status::error(what + ": a shape has at most " +
                         std::to_string(kMaxTensorRank) + " dimensions");
  return shape;
}

Expected<ArgumentSpec> fa4::runner::parseArgumentSpec(std::string_view text) {
  ArgumentSpec spec;
  std::string value;
  if (Status s = splitNamed(text, "arg", spec.name, value); !s.ok())
    return s;
  std::string what = "--arg " + spec.name;
  for (auto [prefix, kind] : {std::pair{"random:", ArgumentSpec::Kind::Random},
                              {"zeros:", ArgumentSpec::Kind::Zeros}}) {
    std::string_view p(prefix);
    if (value.compare(0, p.size(), p) != 0)
      continue;
    Expected<std::vector<int64_t>> shape =
        parseShape(std::string_view(value).substr(p.size()), what);
    if (!shape.ok())
      return shape.status();
    spec.kind = kind;
    spec.shape = shape.take();
    return spec;
  }
  if (endsWith(value, ".npy")) {
    spec.kind = ArgumentSpec::Kind::File;
    spec.path = value;
    return spec;
  }
  errno = 0;
  char *end = nullptr;
  double number = std::strtod(value.c_str(), &end);
  if (end != value.c_str() + value.size() || errno != 0 ||
      !std::isfinite(number))
    return Status::error(what + " = '" + value +
                         "' is not a .npy file, random:SHAPE, zeros:SHAPE or "
                         "a finite number");
  spec.kind = ArgumentSpec::Kind::Number;
  spec.number = number;
  return spec;
}

Expected<SaveSpec> fa4::runner::parseSaveSpec(std::string_view text) {
  SaveSpec spec;
  if (Status s = splitNamed(text, "save", spec.name, spec.path); !s.ok())
    return s;
  if (!endsWith(spec.path, ".npy"))
    return Status::error("--save " + spec.name + " = '" + spec.path +
                         "' does not end in .npy");
  return spec;
}

/// The bytes of `array` as elements of `type`.
static Expected<std::string> tensorBytes(const NpyArray &array,
                                         ElementType type,
                                         const std::string &what) {
  if (type == ElementType::F32) {
    if (array.type != NpyType::F32)
      return Status::error(what + " is " + npyDescr(array.type) +
                           "; the kernel's tensor is f32, give '<f4'");
    return array.data;
  }
  if (type == ElementType::I32) {
    if (array.type != NpyType::I32)
      return Status::error(what + " is " + npyDescr(array.type) +
                           "; the kernel's tensor is i32, give '<i4'");
    return array.data;
  }
  if (array.type == NpyType::I32 || array.type == NpyType::I64)
    return Status::error(what + " is " + npyDescr(array.type) +
                         "; the kernel's tensor is " +
                         elementTypeName(type) + ", give floats");
  std::vector<uint16_t> words = toWords(array, type);
  return std::string(reinterpret_cast<const char *>(words.data()),
                     words.size() * 2);
}

/// A tensor of `shape` and `type` drawn from `seed` and `stream`.
static std::string randomBytes(ElementType type, uint64_t elements,
                               uint64_t seed, uint64_t stream) {
  if (type == ElementType::F32) {
    std::vector<float> values(elements);
    fillUniform(values, seed, stream);
    return std::string(reinterpret_cast<const char *>(values.data()),
                       values.size() * 4);
  }
  std::vector<uint16_t> words(elements);
  fillUniform(words, type, seed, stream);
  return std::string(reinterpret_cast<const char *>(words.data()),
                     words.size() * 2);
}

static Status checkSize(const std::string &name, ElementType type,
                        const std::vector<int64_t> &shape) {
  double bytes = elementSize(type);
  for (int64_t extent : shape)
    bytes *= double(extent);
  if (bytes <= kMaxTensorBytes)
    return Status::success();
  return Status::error("tensor '" + name + "' of shape " + shapeText(shape) +
                       " would take more than the 1024 GiB fa4-run allocates "
                       "a tensor");
}

Expected<KernelInputs>
fa4::runner::prepareInputs(const KernelFile &file,
                           const std::vector<ArgumentSpec> &args,
                           uint64_t seed) {
  Expected<Binding> binding = Binding::create(file);
  if (!binding.ok())
    return binding.status();
  DeviceInfo device = placeholderDevice();

  KernelInputs inputs;
  std::vector<const ArgumentSpec *> given(file.tensors.size(), nullptr);
  for (const ArgumentSpec &arg : args) {
    size_t index = 0;
    while (index < file.tensors.size() && file.tensors[index].name != arg.name)
      ++index;
    if (index < file.tensors.size()) {
      if (arg.kind == ArgumentSpec::Kind::Number)
        return Status::error("--arg " + arg.name + " gives a number, but '" +
                             arg.name + "' is a tensor of kernel '" +
                             file.entry + "'");
      if (given[index])
        return Status::error("--arg " + arg.name + " is given twice");
      given[index] = &arg;
      continue;
    }
    const KernelParam *param = file.findParam(arg.name);
    if (!param)
      return Status::error("kernel '" + file.entry + "' has no tensor or "
                           "parameter '" + arg.name + "'");
    if (arg.kind != ArgumentSpec::Kind::Number)
      return Status::error("--arg " + arg.name + " gives a tensor, but '" +
                           arg.name + "' is a " + paramKindName(param->kind) +
                           " parameter of kernel '" + file.entry + "'");
    for (const auto &[name, value] : inputs.scalars)
      if (name == arg.name)
        return Status::error("--arg " + arg.name + " is given twice");
    if (Status s = binding->setScalar(arg.name, arg.number); !s.ok())
      return Status::error("--arg " + arg.name + ": " + s.message());
    inputs.scalars.push_back({arg.name, arg.number});
  }

  // The given tensors first, so that the outputs' shape rules can read them.
  inputs.tensors.resize(file.tensors.size());
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const KernelTensor &decl = file.tensors[i];
    HostTensor &tensor = inputs.tensors[i];
    tensor.name = decl.name;
    tensor.elementType = decl.elementType;
    const ArgumentSpec *arg = given[i];
    if (!arg)
      continue;
    std::string what = "--arg " + decl.name;
    if (arg->kind == ArgumentSpec::Kind::File) {
      Expected<NpyArray> array = readNpy(arg->path);
      if (!array.ok())
        return array.status();
      for (uint64_t extent : array->shape)
        tensor.shape.push_back(int64_t(extent));
      Expected<std::string> bytes =
          tensorBytes(*array, decl.elementType, what + " (" + arg->path + ")");
      if (!bytes.ok())
        return bytes.status();
      tensor.bytes = bytes.take();
    } else {
      tensor.shape = arg->shape;
    }
    if (Status s = checkSize(decl.name, decl.elementType, tensor.shape);
        !s.ok())
      return s;
    if (arg->kind == ArgumentSpec::Kind::Random &&
        decl.elementType == ElementType::I32)
      return Status::error(what + " = random: '" + decl.name +
                           "' is an i32 tensor (offsets or indices, which "
                           "random values would send out of bounds); give "
                           "it as a '<i4' .npy file");
    if (arg->kind == ArgumentSpec::Kind::Random)
      tensor.bytes =
          randomBytes(decl.elementType, tensor.elements(), seed, uint64_t(i));
    else if (arg->kind == ArgumentSpec::Kind::Zeros)
      tensor.bytes.assign(tensor.elements() * elementSize(decl.elementType),
                          '\0');
    if (Status s = binding->setTensor(
            decl.name, {placeholderAddress(i), decl.elementType, tensor.shape, {}});
        !s.ok())
      return Status::error(what + ": " + s.message());
  }
  // The outputs not given: the shapes their rules fix.
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const KernelTensor &decl = file.tensors[i];
    HostTensor &tensor = inputs.tensors[i];
    if (given[i])
      continue;
    if (decl.access == TensorAccess::Input)
      return Status::error("kernel '" + file.entry + "' reads tensor '" +
                           decl.name + "'; give it with --arg " + decl.name +
                           "=FILE.npy or --arg " + decl.name +
                           "=random:SHAPE");
    bool fixed = decl.shape.size() == decl.rank;
    for (const std::string &rule : decl.shape)
      fixed = fixed && rule != "*";
    if (!fixed)
      return Status::error("the shape of output '" + decl.name +
                           "' is not fixed by the kernel's rules; give it "
                           "with --arg " +
                           decl.name + "=zeros:SHAPE");
    for (size_t d = 0; d < decl.shape.size(); ++d) {
      Expected<int64_t> extent = binding->evaluate(
          decl.shape[d],
          "dimension " + std::to_string(d) + " of output '" + decl.name + "'",
          device);
      if (!extent.ok())
        return extent.status();
      tensor.shape.push_back(*extent);
    }
    if (Status s = checkSize(decl.name, decl.elementType, tensor.shape);
        !s.ok())
      return s;
    if (Status s = binding->setTensor(
            decl.name, {placeholderAddress(i), decl.elementType, tensor.shape, {}});
        !s.ok())
      return Status::error("output '" + decl.name + "': " + s.message());
  }
  Expected<ResolvedLaunch> launch = binding->resolve(device);
  if (!launch.ok())
    return launch.status();
  return inputs;
}

Status fa4::runner::checkSaves(const KernelInputs &inputs,
                               const std::vector<SaveSpec> &saves) {
  for (const SaveSpec &save : saves) {
    bool found = false;
    for (const HostTensor &tensor : inputs.tensors)
      found |= tensor.name == save.name;
    if (!found)
      return Status::error("--save " + save.name +
                           ": the kernel has no tensor '" + save.name + "'");
    if (Status s = runtime::checkWritableFile(save.path, "--save " + save.name);
        !s.ok())
      return s;
  }
  return Status::success();
}

Expected<KernelRunResult> fa4::runner::runKernel(const Kernel &kernel,
                                                 const KernelFile &file,
                                                 const KernelInputs &inputs,
                                                 const RunOptions &options) {
  const Driver &driver = kernel.driver();
  Expected<Launcher> launcher = Launcher::create(kernel, file);
  if (!launcher.ok())
    return launcher.status();
  std::vector<DeviceBuffer> buffers;
  std::vector<uint64_t> sizes;
  for (size_t i = 0; i < inputs.tensors.size(); ++i) {
    const HostTensor &tensor = inputs.tensors[i];
    uint64_t bytes = tensor.elements() * elementSize(tensor.elementType);
    bool output = file.tensors[i].access != TensorAccess::Input;
    Expected<DeviceBuffer> buffer =
        DeviceBuffer::allocate(driver, bytes + (output ? kGuardBytes : 0));
    if (!buffer.ok())
      return buffer.status();
    if (output)
      if (Status s = buffer->fill8(0xff); !s.ok())
        return s;
    if (!tensor.bytes.empty())
      if (Status s = buffer->copyFromHost(tensor.bytes.data(), bytes); !s.ok())
        return s;
    if (Status s = launcher->setTensor(tensor.name,
                                       {buffer->address(), tensor.elementType,
                                        tensor.shape, {}});
        !s.ok())
      return s;
    buffers.push_back(buffer.take());
    sizes.push_back(bytes);
  }
  for (const auto &[name, value] : inputs.scalars)
    if (Status s = launcher->setScalar(name, value); !s.ok())
      return s;
  if (options.ctas)
    launcher->setNumSms(int64_t(options.ctas));
  if (Status s = launcher->launch(); !s.ok())
    return s;
  if (Status s = driver.synchronize(); !s.ok())
    return kernel.explainFailure(s);

  KernelRunResult result;
  result.grid = launcher->config().grid;
  // Each tensor read back once; an output with its guard, which must still
  // hold the poison.
  for (size_t i = 0; i < inputs.tensors.size(); ++i) {
    bool output = file.tensors[i].access != TensorAccess::Input;
    HostTensor after = inputs.tensors[i];
    after.bytes.resize(sizes[i] + (output ? kGuardBytes : 0));
    if (Status s = buffers[i].copyToHost(after.bytes.data(), after.bytes.size());
        !s.ok())
      return s;
    uint64_t written = 0;
    for (uint64_t b = sizes[i]; b < after.bytes.size(); ++b)
      written += uint8_t(after.bytes[b]) != 0xff;
    after.bytes.resize(sizes[i]);
    result.after.push_back(std::move(after));
    if (written)
      result.failure.push_back("kernel '" + file.entry + "' wrote " +
                               std::to_string(written) +
                               " bytes past the end of tensor '" +
                               inputs.tensors[i].name + "' (shape " +
                               shapeText(inputs.tensors[i].shape) + ")");
  }
  if (options.bench)
    if (Status s = benchmark(kernel, launcher->config(), launcher->args(),
                             options, result.medianMs, result.minMs);
        !s.ok())
      return s;
  return result;
}

Status fa4::runner::saveTensors(const KernelRunResult &result,
                                const std::vector<SaveSpec> &saves) {
  for (const SaveSpec &save : saves)
    for (const HostTensor &tensor : result.after) {
      if (tensor.name != save.name)
        continue;
      std::vector<uint64_t> shape(tensor.shape.begin(), tensor.shape.end());
      Status s = Status::success();
      if (tensor.elementType == ElementType::F32) {
        std::vector<float> values(tensor.elements());
        std::memcpy(values.data(), tensor.bytes.data(), values.size() * 4);
        s = writeNpy(save.path, shape, values);
      } else if (tensor.elementType == ElementType::I32) {
        std::vector<int32_t> values(tensor.elements());
        std::memcpy(values.data(), tensor.bytes.data(), values.size() * 4);
        s = writeNpy(save.path, shape, values);
      } else {
        std::vector<uint16_t> words(tensor.elements());
        std::memcpy(words.data(), tensor.bytes.data(), words.size() * 2);
        s = writeNpy(save.path, tensor.elementType, shape, words);
      }
      if (!s.ok())
        return s;
    }
  return Status::success();
}

std::string fa4::runner::describeLaunch(const KernelFile &file) {
  std::string text = "kernel '" + file.entry + "' (" + file.target + ", " +
                     binaryFormatName(file.format) + "), block " +
                     file.block.str() + ", " +
                     std::to_string(file.dynamicSharedBytes) +
                     " B dynamic shared memory\n";
  text += "tensors:\n";
  for (const KernelTensor &tensor : file.tensors) {
    text += "  " + tensor.name + ": " + tensorAccessName(tensor.access) + " " +
            elementTypeName(tensor.elementType) + ", rank " +
            std::to_string(tensor.rank);
    if (!tensor.shape.empty()) {
      text += ", shape [";
      for (size_t d = 0; d < tensor.shape.size(); ++d)
        text += (d ? ", " : "") + tensor.shape[d];
      text += "]";
    }
    text += tensor.contiguous ? ", contiguous" : "";
    text += ", " + std::to_string(tensor.alignment) + "-byte aligned\n";
  }
  text += "parameters:\n";
  for (const KernelParam &param : file.params) {
    text += "  " + param.name + ": " + paramKindName(param.kind);
    if (param.kind == ParamKind::TensorMap) {
      text += " over tensor " + param.tensor + ", box ";
      for (size_t d = 0; d < param.boxDims.size(); ++d)
        text += (d ? "x" : "") + std::to_string(param.boxDims[d]);
      text += " (innermost first), swizzle " +
              std::to_string(swizzleBytes(param.swizzle)) + " B\n";
    } else if (param.kind == ParamKind::Pointer) {
      text += param.tensor.empty() ? ", given by the caller\n"
                                   : " to tensor " + param.tensor + "\n";
    } else if (param.kind == ParamKind::Counter) {
      text += ", the runtime's tile counter (zero at each launch)\n";
    } else {
      text += param.value.empty() ? ", given by the caller (--arg " +
                                        param.name + "=NUMBER)\n"
                                  : " = " + param.value + "\n";
    }
  }
  for (const std::string &rule : file.requirements)
    text += "requires: " + rule + "\n";
  if (file.grid.empty())
    text += "grid: not described (this file cannot be launched by name)\n";
  else
    text += "grid: " + file.grid[0] + ", " + file.grid[1] + ", " +
            file.grid[2] + "\n";
  return text;
}
