//===- Launch.h - Kernel launches and timing --------------------*- C++ -*-===//
//
// Kernel arguments as owned, aligned blobs (a tensor map is a 128-byte
// argument passed by value), launches through cuLaunchKernelEx checked
// against the kernel file's signature first, and event timing of repeated
// launches.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNTIME_LAUNCH_H
#define FA4_RUNTIME_LAUNCH_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/Status.h"
#include "fa4/KernelFormat/Types.h"
#include "fa4/Runtime/Kernel.h"

#include <cuda.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace fa4::runtime {

/// The arguments of one launch, in parameter order. Each is copied into its
/// own slot, aligned and sized like a CUtensorMap, that stays put while
/// arguments are added.
class KernelArgs {
public:
  KernelArgs &addPointer(CUdeviceptr address);
  KernelArgs &addCounter(CUdeviceptr address);
  /// Sets pointer or counter argument `index` to `address`.
  void setAddress(size_t index, CUdeviceptr address);
  KernelArgs &addTensorMap(const CUtensorMap &map);
  KernelArgs &addI32(int32_t value);
  KernelArgs &addI64(int64_t value);
  KernelArgs &addF32(float value);

  /// Number of arguments.
  size_t size() const { return kinds.size(); }
  /// Kind of argument `index`.
  ParamKind kind(size_t index) const { return kinds[index]; }

  /// One pointer per argument, as cuLaunchKernelEx's kernelParams wants; valid
  /// while these arguments live.
  std::vector<void *> pointers() const;

private:
  struct alignas(alignof(CUtensorMap)) Slot {
    unsigned char bytes[sizeof(CUtensorMap)];
  };

  KernelArgs &add(ParamKind kind, const void *data);

  std::deque<Slot> slots;
  std::vector<ParamKind> kinds;
};

/// Checks that `args` match the kernel parameters `params` in number and
/// kind; `entry` names the kernel in the message.
Status checkArguments(const std::string &entry,
                      const std::vector<KernelParam> &params,
                      const KernelArgs &args);

/// The shape of one launch.
struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamicSharedBytes = 0;
  /// Null for the default stream.
  CUstream stream = nullptr;
  /// Launch with programmatic stream serialization: the kernel may start
  /// while the one before it in the stream finishes (a kernel file's
  /// `launch = programmatic`; the kernel waits for that one's memory).
  bool programmatic = false;
};

/// Launches `kernel` asynchronously with cuLaunchKernelEx after checking the
/// configuration against the kernel (threads per block, dynamic shared memory
/// allowed at load, the block and parameters of its kernel file).
Status launch(const Kernel &kernel, const LaunchConfig &config,
              const KernelArgs &args);

/// Launches `kernel` `count` times back to back on `config.stream` between two
/// events, waits for the second, and returns the milliseconds between them:
/// the time of all `count` launches together.
Expected<float> timeLaunches(const Kernel &kernel, const LaunchConfig &config,
                             const KernelArgs &args, unsigned count);

/// Queues `count` launches of `kernel` on `config.stream`, each between its
/// own pair of events, waits once after the last, and returns each launch's
/// milliseconds: kernel times with no host latency inside them.
Expected<std::vector<float>> timeEachLaunch(const Kernel &kernel,
                                            const LaunchConfig &config,
                                            const KernelArgs &args,
                                            unsigned count);

} // namespace fa4::runtime

#endif // FA4_RUNTIME_LAUNCH_H
