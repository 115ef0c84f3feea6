//===- Launch.cpp - Kernel launches and timing ----------------------------===//
//
// Argument slots, the pre-launch checks, cuLaunchKernelEx, and timing with a
// pair of events around repeated launches.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runtime/Launch.h"

#include "DriverApi.h"

#include <cstring>
#include <memory>

using namespace fa4::runtime;

KernelArgs &KernelArgs::add(ParamKind kind, const void *data) {
  Slot &slot = slots.emplace_back();
  std::memcpy(slot.bytes, data, paramKindSize(kind));
  kinds.push_back(kind);
  return *this;
}

KernelArgs &KernelArgs::addPointer(CUdeviceptr address) {
  static_assert(sizeof(address) == 8, "device pointers are 64-bit");
  return add(ParamKind::Pointer, &address);
}

KernelArgs &KernelArgs::addCounter(CUdeviceptr address) {
  return add(ParamKind::Counter, &address);
}

void KernelArgs::setAddress(size_t index, CUdeviceptr address) {
  std::memcpy(slots[index].bytes, &address, sizeof(address));
}

KernelArgs &KernelArgs::addTensorMap(const CUtensorMap &map) {
  static_assert(sizeof(map) == 128, "CUtensorMap is 128 bytes");
  return add(ParamKind::TensorMap, &map);
}

KernelArgs &KernelArgs::addI32(int32_t value) {
  return add(ParamKind::I32, &value);
}

KernelArgs &KernelArgs::addI64(int64_t value) {
  return add(ParamKind::I64, &value);
}

KernelArgs &KernelArgs::addF32(float value) {
  return add(ParamKind::F32, &value);
}

std::vector<void *> KernelArgs::pointers() const {
  std::vector<void *> result;
  // The driver only reads the arguments through these pointers.
  for (const Slot &slot : slots)
    result.push_back(const_cast<unsigned char *>(slot.bytes));
  return result;
}

/// "1 <noun>" or "<n> <noun>s".
static std::string count(size_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

Status fa4::runtime::checkArguments(const std::string &entry,
                                    const std::vector<KernelParam> &params,
                                    const KernelArgs &args) {
  if (args.size() != params.size())
    return Status::error("kernel '" + entry + "' takes " +
                         count(params.size(), "parameter") + ", got " +
                         count(args.size(), "argument"));
  for (size_t i = 0; i < params.size(); ++i)
    if (args.kind(i) != params[i].kind)
      return Status::error("argument " + std::to_string(i) + " of kernel '" +
                           entry + "' has kind " + paramKindName(args.kind(i)) +
                           " but parameter '" + params[i].name + "' has kind " +
                           paramKindName(params[i].kind));
  return Status::success();
}

/// Checks `config` against what `kernel` was loaded and compiled for.
static Status checkConfig(const Kernel &kernel, const LaunchConfig &config,
                          const KernelArgs &args) {
  const std::string &entry = kernel.entry();
  if (config.grid.count() == 0 || config.block.count() == 0)
    return Status::error("cannot launch kernel '" + entry + "' with grid " +
                         config.grid.str() + " and block " +
                         config.block.str());
  uint64_t maxThreads = uint64_t(kernel.info().maxThreadsPerBlock);
  if (config.block.count() > maxThreads)
    return Status::error("block " + config.block.str() + " has " +
                         std::to_string(config.block.count()) +
                         " threads; kernel '" + entry + "' allows at most " +
                         std::to_string(maxThreads));
  if (config.dynamicSharedBytes > kernel.dynamicSharedBytes())
    return Status::error(
        "launch of kernel '" + entry + "' asks for " +
        std::to_string(config.dynamicSharedBytes) +
        " B of dynamic shared memory; the kernel was loaded for at most " +
        std::to_string(kernel.dynamicSharedBytes()) + " B");
  if (!kernel.signature())
    return Status::success();
  const KernelSignature &signature = *kernel.signature();
  if (config.block != signature.block)
    return Status::error("kernel '" + entry + "' was compiled for block " +
                         signature.block.str() + " but the launch uses " +
                         config.block.str());
  return checkArguments(entry, signature.params, args);
}

Status fa4::runtime::launch(const Kernel &kernel, const LaunchConfig &config,
                            const KernelArgs &args) {
  if (Status s = checkConfig(kernel, config, args); !s.ok())
    return s;
  CUlaunchConfig cuConfig = {};
  cuConfig.gridDimX = config.grid.x;
  cuConfig.gridDimY = config.grid.y;
  cuConfig.gridDimZ = config.grid.z;
  cuConfig.blockDimX = config.block.x;
  cuConfig.blockDimY = config.block.y;
  cuConfig.blockDimZ = config.block.z;
  cuConfig.sharedMemBytes = config.dynamicSharedBytes;
  cuConfig.hStream = config.stream;
  CUlaunchAttribute programmatic = {};
  if (config.programmatic) {
    programmatic.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    programmatic.value.programmaticStreamSerializationAllowed = 1;
    cuConfig.attrs = &programmatic;
    cuConfig.numAttrs = 1;
  }
  std::vector<void *> params = args.pointers();
  // The message is built only on failure: a launch is on the hot path.
  CUresult result = kernel.driver().api().cuLaunchKernelExFn(
      &cuConfig, kernel.function(), params.data(), nullptr);
  if (result == CUDA_SUCCESS)
    return Status::success();
  return kernel.driver().check(
      result, "cuLaunchKernelEx",
      "launching kernel '" + kernel.entry() + "' with grid " +
          config.grid.str() + ", block " + config.block.str() + " and " +
          std::to_string(config.dynamicSharedBytes) +
          " B of dynamic shared memory");
}

namespace {
/// The start and stop events of a timing, destroyed together.
struct EventPair {
  explicit EventPair(const Driver &driver) : driver(driver) {}
  ~EventPair() {
    // A destructor cannot report a failure; the events are unused after this.
    for (CUevent event : {start, stop})
      if (event)
        (void)driver.api().cuEventDestroyFn(event);
  }

  /// Creates both events; `what` names the timing in errors.
  Status create(const std::string &what) {
    for (CUevent *event : {&start, &stop})
      if (Status s = FA4_CU_CHECK(driver, what, cuEventCreate, event,
                                  unsigned(CU_EVENT_DEFAULT));
          !s.ok())
        return s;
    return Status::success();
  }

  /// The milliseconds between the two recorded events.
  Expected<float> elapsed(const std::string &what) const {
    float milliseconds = 0;
    if (Status s = FA4_CU_CHECK(driver, what, cuEventElapsedTime,
                                &milliseconds, start, stop);
        !s.ok())
      return s;
    return milliseconds;
  }

  const Driver &driver;
  CUevent start = nullptr;
  CUevent stop = nullptr;
};

/// What a timing of `count` launches of `kernel` is called in errors, or an
/// error when there is nothing to time.
Expected<std::string> describeTiming(const Kernel &kernel, unsigned count,
                                     const char *how) {
  if (count == 0)
    return Status::error("cannot time 0 launches of kernel '" + kernel.entry() +
                         "'");
  return "timing " + std::to_string(count) + how + " launches of kernel '" +
         kernel.entry() + "'";
}
} // namespace

Expected<float> fa4::runtime::timeLaunches(const Kernel &kernel,
                                           const LaunchConfig &config,
                                           const KernelArgs &args,
                                           unsigned count) {
  Expected<std::string> what = describeTiming(kernel, count, "");
  if (!what.ok())
    return what.status();
  const Driver &driver = kernel.driver();
  EventPair events(driver);
  if (Status s = events.create(*what); !s.ok())
    return s;
  if (Status s = FA4_CU_CHECK(driver, *what, cuEventRecord, events.start,
                              config.stream);
      !s.ok())
    return s;
  for (unsigned i = 0; i < count; ++i)
    if (Status s = launch(kernel, config, args); !s.ok())
      return s;
  if (Status s = FA4_CU_CHECK(driver, *what, cuEventRecord, events.stop,
                              config.stream);
      !s.ok())
    return s;
  if (Status s = FA4_CU_CHECK(driver, *what, cuEventSynchronize, events.stop);
      !s.ok())
    return s;
  return events.elapsed(*what);
}

Expected<std::vector<float>>
fa4::runtime::timeEachLaunch(const Kernel &kernel, const LaunchConfig &config,
                             const KernelArgs &args, unsigned count) {
  Expected<std::string> what = describeTiming(kernel, count, " queued");
  if (!what.ok())
    return what.status();
  const Driver &driver = kernel.driver();
  std::vector<std::unique_ptr<EventPair>> pairs;
  for (unsigned i = 0; i < count; ++i) {
    pairs.push_back(std::make_unique<EventPair>(driver));
    if (Status s = pairs.back()->create(*what); !s.ok())
      return s;
  }
  // Every launch is queued before the first wait, so that no launch waits
  // for the host: each pair of events brackets the kernel alone.
  for (auto &pair : pairs) {
    if (Status s = FA4_CU_CHECK(driver, *what, cuEventRecord, pair->start,
                                config.stream);
        !s.ok())
      return s;
    if (Status s = launch(kernel, config, args); !s.ok())
      return s;
    if (Status s = FA4_CU_CHECK(driver, *what, cuEventRecord, pair->stop,
                                config.stream);
        !s.ok())
      return s;
  }
  if (Status s = FA4_CU_CHECK(driver, *what, cuEventSynchronize,
                              pairs.back()->stop);
      !s.ok())
    return s;
  std::vector<float> times;
  for (auto &pair : pairs) {
    Expected<float> ms = pair->elapsed(*what);
    if (!ms.ok())
      return ms.status();
    times.push_back(*ms);
  }
  return times;
}
