//===- Driver.h - CUDA driver loading ---------------------------*- C++ -*-===//
//
// The CUDA driver as the runtime sees it: `libcuda.so.1` opened at run time
// (the runtime never links it, so it builds and its CPU-side checks run on
// machines without a GPU), its entry points resolved from an explicit symbol
// table, device 0 chosen and its primary context made current. Every driver
// call goes through `Driver::check`, which turns a CUresult into a message
// naming the call, the CUDA error and what was being done.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNTIME_DRIVER_H
#define FA4_RUNTIME_DRIVER_H

#include "fa4/KernelFormat/Status.h"

#include <cuda.h>

#include <memory>
#include <string>
#include <string_view>

namespace fa4::runtime {

struct DriverApi;

/// What the runtime knows about the device it drives.
struct DeviceInfo {
  /// Device name as the driver reports it, e.g. "NVIDIA H200".
  std::string name;
  /// Compute capability, e.g. 9 and 0 for sm_90.
  int computeMajor = 0;
  int computeMinor = 0;
  /// Number of streaming multiprocessors.
  int smCount = 0;
  /// Largest shared memory one block may use after opting in, in bytes.
  int maxSharedPerBlockOptin = 0;
  /// Driver API version, e.g. 13000 for CUDA 13.0.
  int driverVersion = 0;

  /// Architecture name of the device, e.g. "sm_90".
  std::string archName() const;
};

/// The loaded CUDA driver, device 0 and its primary context, current on the
/// thread that called `load`. Buffers, kernels and launches refer to the
/// `Driver` they were made with, which must outlive them.
class Driver {
public:
  /// Opens `library`, resolves the driver entry points, initializes the
  /// driver, picks device 0 and makes its primary context current. Fails with
  /// "no CUDA driver: ..." when the library cannot be opened.
  static Expected<std::unique_ptr<Driver>>
  load(const std::string &library = "libcuda.so.1");

  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;
  /// Releases the primary context. The library stays loaded: the driver's
  /// helper threads run its code until the process exits.
  ~Driver();

  /// The device in use.
  const DeviceInfo &device() const { return info; }

  /// The resolved entry points (internal to the runtime).
  const DriverApi &api() const { return *table; }

  /// Success when `result` is CUDA_SUCCESS; otherwise "<call> failed with
  /// <CUDA error name> while <what>".
  Status check(CUresult result, const char *call, std::string_view what) const;

  /// Waits for all work on the device (cuCtxSynchronize); asynchronous
  /// kernel faults surface here.
  Status synchronize() const;

  /// Zeroes `bytes` (a multiple of 4) of device memory from `address` on
  /// `stream`, ordered with its kernels (cuMemsetD32Async).
  Status zeroAsync(CUdeviceptr address, size_t bytes, CUstream stream) const;

private:
  explicit Driver(std::unique_ptr<DriverApi> table);

  std::unique_ptr<DriverApi> table;
  DeviceInfo info;
  CUdevice device0 = 0;
  bool contextRetained = false;
};

} // namespace fa4::runtime

#endif // FA4_RUNTIME_DRIVER_H
