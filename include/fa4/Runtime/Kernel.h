//===- Kernel.h - Loaded kernels --------------------------------*- C++ -*-===//
//
// Loading a kernel: a cubin, or PTX compiled by the driver's JIT (its log in
// the error on failure), the entry function looked up, and the dynamic
// shared-memory limit raised after checking it against the device. The target
// and shared-memory checks are also exposed on their own, since they need no
// driver.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNTIME_KERNEL_H
#define FA4_RUNTIME_KERNEL_H

#include "fa4/KernelFormat/HangReport.h"
#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/Status.h"
#include "fa4/KernelFormat/Types.h"
#include "fa4/Runtime/Driver.h"

#include <cuda.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fa4::runtime {

/// Checks that a `format` binary for `target` (sm_XY, sm_XYa or sm_XYf) runs
/// on `device`: sm_XYa only on sm_XY; sm_XYf on major X from minor Y; a cubin
/// for sm_XY on major X from minor Y; PTX for sm_XY on sm_XY and newer.
Status checkTarget(const std::string &entry, std::string_view target,
                   BinaryFormat format, const DeviceInfo &device);

/// Checks that `dynamicBytes` plus `staticBytes` of shared memory fit in one
/// block of `device` (its opt-in limit).
Status checkSharedMemory(const std::string &entry, uint64_t dynamicBytes,
                         uint64_t staticBytes, const DeviceInfo &device);

/// Facts about a loaded function (cuFuncGetAttribute).
struct FunctionInfo {
  int registers = 0;
  int staticSharedBytes = 0;
  /// Local memory per thread; non-zero means register spills.
  int localBytes = 0;
  int maxThreadsPerBlock = 0;
};

/// What the kernel file says the launch must match.
struct KernelSignature {
  std::vector<KernelParam> params;
  Dim3 block;
};

/// A loaded module and its entry function, unloaded when destroyed.
/// Move-only; its `Driver` must outlive it.
class Kernel {
public:
  /// Loads `binary`, looks up `entry` and allows it `dynamicSharedBytes` of
  /// dynamic shared memory.
  static Expected<Kernel> load(const Driver &driver, BinaryFormat format,
                               std::string_view binary,
                               const std::string &entry,
                               uint32_t dynamicSharedBytes);

  /// Checks the file's target against the device, then loads it like the
  /// overload above; launches are checked against the file's signature.
  static Expected<Kernel> load(const Driver &driver, const KernelFile &file);

  Kernel(Kernel &&other) noexcept;
  Kernel &operator=(Kernel &&other) noexcept;
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  ~Kernel();

  const Driver &driver() const { return *owner; }
  CUfunction function() const { return entryFunction; }
  const std::string &entry() const { return entryName; }
  /// The dynamic shared memory the kernel was allowed at load time.
  uint32_t dynamicSharedBytes() const { return dynamicShared; }
  const FunctionInfo &info() const { return functionInfo; }
  /// The JIT's info log (register use, spills) of a PTX load.
  const std::string &jitLog() const { return log; }
  /// Set when loaded from a kernel file.
  const std::optional<KernelSignature> &signature() const { return sig; }

  /// Whether the kernel was built to diagnose hangs (`debug_hangs`): its
  /// module has the report's globals, and the load pointed them at a
  /// record in mapped host memory.
  bool diagnosesHangs() const { return hangRecord != nullptr; }
  /// What the record says when one of the kernel's waits timed out (the
  /// kernel then trapped), else nullopt.
  std::optional<std::string> hangReport() const;
  /// `failure` (a failed launch or synchronize) with the hang report put
  /// first when there is one.
  Status explainFailure(Status failure) const;

private:
  Kernel(const Driver &driver, CUmodule module, std::string entry)
      : owner(&driver), module(module), entryName(std::move(entry)) {}

  void release();
  Status setUpHangReport(std::string_view binary);

  const Driver *owner;
  CUmodule module;
  CUfunction entryFunction = nullptr;
  std::string entryName;
  uint32_t dynamicShared = 0;
  FunctionInfo functionInfo;
  std::string log;
  std::optional<KernelSignature> sig;
  /// The mapped host record of a kernel that diagnoses hangs, its sites.
  uint32_t *hangRecord = nullptr;
  std::vector<HangSite> hangSites;
};

} // namespace fa4::runtime

#endif // FA4_RUNTIME_KERNEL_H
