//===- Binding.h - Launching a kernel from its description ------*- C++ -*-===//
//
// The launch API: the caller binds its tensors (address, element type, shape,
// strides) and scalars by name, and the kernel file's description
// (KernelFile.h) says the rest: which tensor map to build over which tensor,
// which pointer to pass, which size each scalar parameter is, and the grid.
//
// `Binding` does the part that needs no driver: it checks each tensor against
// its declaration (type, rank, alignment, the shape rules, contiguity) and
// resolves the launch (the rules evaluated, the tensor-map specs checked
// against the TMA rules, the grid within CUDA's limits), every message naming
// the argument and the numbers. `Launcher` adds a loaded kernel: it encodes
// the tensor maps, keeps them while the tensors they view stay bound, and
// launches on a stream.
//
//   Launcher launcher = Launcher::create(kernel, file).take();
//   launcher.setTensor("q", {qAddress, ElementType::BF16, {64, 4096, 128}});
//   ...
//   launcher.setScalar("scale_log2", 0.1275);
//   Status s = launcher.launch(stream);
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNTIME_BINDING_H
#define FA4_RUNTIME_BINDING_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/Status.h"
#include "fa4/KernelFormat/Types.h"
#include "fa4/Runtime/Buffer.h"
#include "fa4/Runtime/Driver.h"
#include "fa4/Runtime/Kernel.h"
#include "fa4/Runtime/Launch.h"
#include "fa4/Runtime/TensorMap.h"

#include <cuda.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fa4::runtime {

/// A tensor in device memory as the caller binds it.
struct TensorArg {
  CUdeviceptr address = 0;
  ElementType elementType = ElementType::BF16;
  /// Extents, outermost first.
  std::vector<int64_t> shape;
  /// Strides in elements, outermost first; empty: row-major contiguous.
  std::vector<int64_t> strides;

  /// The strides, or the row-major ones when none are given.
  std::vector<int64_t> effectiveStrides() const;
};

/// One parameter of a resolved launch.
struct ResolvedParam {
  ParamKind kind = ParamKind::Pointer;
  /// Pointers: the address; tensor maps: the tensor's address.
  CUdeviceptr address = 0;
  /// Tensor maps: the map to encode.
  TensorMapSpec map;
  /// i32 and i64 parameters.
  int64_t integer = 0;
  /// f32 parameters.
  float real = 0;
};

/// A launch with every parameter made and the grid computed.
struct ResolvedLaunch {
  std::vector<ResolvedParam> params;
  Dim3 grid;
};

/// The bound arguments of one kernel file, checked against its description.
/// Needs no driver: `resolve` takes the device's facts.
class Binding {
public:
  /// Fails when `file` has no grid rule (a version 1 file, or one written
  /// without a description).
  static Expected<Binding> create(const KernelFile &file);

  /// Binds tensor `name`: checks its type, rank, shape and strides (each
  /// extent at least 1, each stride at least 0), and its alignment.
  Status setTensor(std::string_view name, const TensorArg &tensor);
  /// Binds the caller-given scalar parameter `name` (an i32 or i64 without a
  /// value rule: `value` must be an integer in range; an f32: finite or not,
  /// as given).
  Status setScalar(std::string_view name, double value);
  /// Binds the caller-given pointer parameter `name` (one without a tensor),
  /// or a tile counter, which then replaces the launcher's (it must be zero
  /// at each launch, and no two launches that may run at once may share it).
  Status setPointer(std::string_view name, CUdeviceptr address);
  /// Sets the value of `num_sms` in the rules (default: the device's).
  void setNumSms(int64_t count) {
    numSmsOverride = count;
    ++changes;
  }

  /// Checks that everything is bound, evaluates the rules (scalar values,
  /// shapes, the grid) and builds the tensor-map specs, checking each against
  /// the TMA rules and the grid against CUDA's limits.
  Expected<ResolvedLaunch> resolve(const DeviceInfo &device) const;

  /// Evaluates `rule` over what is bound so far (`what` starts an error),
  /// e.g. an output's shape rule before the output is allocated.
  Expected<int64_t> evaluate(const std::string &rule, const std::string &what,
                             const DeviceInfo &device) const;
  /// Whether tensor `name` is bound.
  bool hasTensor(std::string_view name) const {
    return tensors.find(name) != tensors.end();
  }

  const KernelFile &file() const { return *kernelFile; }
  /// Bumped whenever a binding changes.
  uint64_t generation() const { return changes; }

private:
  explicit Binding(const KernelFile &file) : kernelFile(&file) {}

  Expected<int64_t> lookup(const RuleRef &ref, const DeviceInfo &device,
                           std::map<std::string, int64_t> &scalars,
                           unsigned depth) const;
  /// Evaluates `rule`; `what()` (built only on failure) starts the error.
  template <typename What>
  Expected<int64_t>
  evaluate(const std::string &rule, What &&what, const DeviceInfo &device,
           std::map<std::string, int64_t> &scalars, unsigned depth) const;
  /// `text` parsed, from a cache: a launch evaluates the same rules again.
  Expected<LaunchRule> parsed(const std::string &text) const;

  const KernelFile *kernelFile;
  std::map<std::string, TensorArg, std::less<>> tensors;
  std::map<std::string, double, std::less<>> scalars;
  std::map<std::string, CUdeviceptr, std::less<>> pointers;
  std::optional<int64_t> numSmsOverride;
  uint64_t changes = 0;
  mutable std::map<std::string, LaunchRule, std::less<>> rules;
};

/// A `Binding` over a loaded kernel: encodes the tensor maps (re-encoding a
/// map only when what it views changed) and launches. The kernel and its
/// file must outlive it.
class Launcher {
public:
  /// Fails like `Binding::create`.
  static Expected<Launcher> create(const Kernel &kernel,
                                   const KernelFile &file);

  Binding &binding() { return bound; }
  Status setTensor(std::string_view name, const TensorArg &tensor) {
    return bound.setTensor(name, tensor);
  }
  Status setScalar(std::string_view name, double value) {
    return bound.setScalar(name, value);
  }
  Status setPointer(std::string_view name, CUdeviceptr address) {
    return bound.setPointer(name, address);
  }
  void setNumSms(int64_t count) { bound.setNumSms(count); }

  /// Resolves the binding and builds the arguments, unless nothing changed
  /// since the last call, with this launcher's tile counter for `stream`
  /// where the kernel has one the caller did not bind (one launch at a time
  /// per stream uses it: the kernel leaves it zero for the next). On a
  /// stream that captures a graph, only `launch` gives the kernel a
  /// counter (one of the graph's own).
  Status prepare(CUstream stream = nullptr);
  /// `prepare`, then one asynchronous launch on `stream`.
  Status launch(CUstream stream = nullptr);

  /// After `prepare`: the arguments (for the stream it was given) and the
  /// launch shape (on the default stream; set `stream` to launch
  /// elsewhere).
  const KernelArgs &args() const { return arguments; }
  const LaunchConfig &config() const { return launchConfig; }
  /// After `prepare`: the resolved parameters.
  const ResolvedLaunch &resolved() const { return last; }
  /// Tensor maps encoded so far (a measure of the cache).
  uint64_t mapsEncoded() const { return encodes; }

private:
  Launcher(const Kernel &kernel, Binding binding)
      : kernel(&kernel), bound(std::move(binding)) {}

  /// Resolves the binding and builds the arguments (no counter yet),
  /// unless nothing changed since the last call.
  Status prepareArguments();
  /// This launcher's tile counter for `stream` (by its id): an i32 of its
  /// own, zeroed on the stream at its first launch (the kernels leave it
  /// zero), from chunks of device memory the launcher allocates.
  Expected<CUdeviceptr> counterFor(CUstream stream);
  /// Points the counter argument the caller did not bind, if any, at
  /// `stream`'s counter, or, while the stream captures a graph and
  /// `captured` is given, at one the graph allocates and zeroes, returned
  /// in `*captured` for the launch to free after the kernel.
  Status useCounterOf(CUstream stream, CUdeviceptr *captured);

  const Kernel *kernel;
  Binding bound;
  std::optional<uint64_t> preparedGeneration;
  ResolvedLaunch last;
  /// The encoded map of each tensor-map parameter, by parameter index, with
  /// the spec and address it was encoded for.
  struct CachedMap {
    TensorMapSpec spec;
    CUdeviceptr address = 0;
    CUtensorMap map;
  };
  std::map<size_t, CachedMap> maps;
  KernelArgs arguments;
  LaunchConfig launchConfig;
  uint64_t encodes = 0;
  /// The counter argument the launcher fills in, by parameter index.
  std::optional<size_t> streamCounter;
  /// The counters, by stream, in chunks of device memory.
  static constexpr size_t kCountersPerChunk = 64;
  struct CounterChunk {
    DeviceBuffer buffer;
    size_t used = 0;
  };
  std::vector<CounterChunk> counterChunks;
  /// By stream id (cuStreamGetId).
  std::map<unsigned long long, CUdeviceptr> counters;
};

} // namespace fa4::runtime

#endif // FA4_RUNTIME_BINDING_H
