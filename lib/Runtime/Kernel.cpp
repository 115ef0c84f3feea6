//===- Kernel.cpp - Loaded kernels ----------------------------------------===//
//
// Module loading through cuModuleLoadDataEx with the JIT logs captured, the
// entry lookup, the function attributes, the target and shared-memory checks,
// and raising the dynamic shared-memory limit.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runtime/Kernel.h"

#include "DriverApi.h"

#include <cstring>
#include <utility>

using namespace fa4::runtime;

/// Size of each JIT log buffer; ptxas output for one kernel fits easily.
static constexpr size_t kJitLogBytes = 16384;

namespace {
/// A parsed "sm_XY", "sm_XYa" or "sm_XYf".
struct Target {
  int major;
  int minor;
  char suffix;
};
} // namespace

static std::optional<Target> parseTarget(std::string_view text) {
  if (text.substr(0, 3) != "sm_")
    return std::nullopt;
  text.remove_prefix(3);
  char suffix = 0;
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) {
    suffix = text.back();
    text.remove_suffix(1);
  }
  if (text.size() < 2 || text.size() > 3)
    return std::nullopt;
  int number = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    number = number * 10 + (c - '0');
  }
  return Target{number / 10, number % 10, suffix};
}

static std::string archName(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

Status fa4::runtime::checkTarget(const std::string &entry,
                                 std::string_view target, BinaryFormat format,
                                 const DeviceInfo &device) {
  std::optional<Target> parsed = parseTarget(target);
  if (!parsed)
    return Status::error("kernel '" + entry + "' has target '" +
                         std::string(target) +
                         "', expected sm_<major><minor> with an optional 'a' "
                         "or 'f' suffix");
  const Target &t = *parsed;
  int major = device.computeMajor, minor = device.computeMinor;
  std::string arch = archName(t.major, t.minor);
  bool runs;
  std::string where;
  if (t.suffix == 'a') {
    runs = major == t.major && minor == t.minor;
    where = "only on " + arch;
  } else if (t.suffix == 'f' || format == BinaryFormat::Cubin) {
    runs = major == t.major && minor >= t.minor;
    where = "on sm_" + std::to_string(t.major) + "x from " + arch;
  } else {
    runs = major > t.major || (major == t.major && minor >= t.minor);
    where = "on " + arch + " and newer";
  }
  if (runs)
    return Status::success();
  return Status::error("kernel '" + entry + "' is " +
                       (format == BinaryFormat::PTX ? "PTX" : "a cubin") +
                       " for " + std::string(target) + ", which runs " + where +
                       "; device 0 (" + device.name + ") is " +
                       device.archName());
}

Status fa4::runtime::checkSharedMemory(const std::string &entry,
                                       uint64_t dynamicBytes,
                                       uint64_t staticBytes,
                                       const DeviceInfo &device) {
  uint64_t limit = uint64_t(device.maxSharedPerBlockOptin);
  if (dynamicBytes + staticBytes <= limit)
    return Status::success();
  return Status::error(
      "kernel '" + entry + "' needs " +
      std::to_string(dynamicBytes + staticBytes) + " B of shared memory (" +
      std::to_string(dynamicBytes) + " B dynamic + " +
      std::to_string(staticBytes) + " B static) but device 0 (" + device.name +
      ") allows at most " + std::to_string(limit) + " B per block (opt-in)");
}

/// The text a driver wrote into a log buffer, without trailing newlines.
static std::string logText(const std::vector<char> &buffer) {
  std::string text(buffer.data(), strnlen(buffer.data(), buffer.size()));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  return text;
}

Expected<Kernel> Kernel::load(const Driver &driver, BinaryFormat format,
                              std::string_view binary, const std::string &entry,
                              uint32_t dynamicSharedBytes) {
  // PTX must be NUL-terminated; std::string provides the terminator.
  std::string image(binary);
  std::vector<char> infoLog(kJitLogBytes), errorLog(kJitLogBytes);
  CUjit_option options[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_LOG_VERBOSE};
  void *values[] = {infoLog.data(), reinterpret_cast<void *>(kJitLogBytes),
                    errorLog.data(), reinterpret_cast<void *>(kJitLogBytes),
                    reinterpret_cast<void *>(uintptr_t(1))};
  static_assert(std::size(options) == std::size(values));

  CUmodule module = nullptr;
  std::string what = "loading kernel '" + entry + "' from " +
                     (format == BinaryFormat::PTX ? "PTX" : "a cubin") + " (" +
                     std::to_string(binary.size()) + " B)";
  if (Status s =
          FA4_CU_CHECK(driver, what, cuModuleLoadDataEx, &module, image.c_str(),
                       unsigned(std::size(options)), options, values);
      !s.ok()) {
    std::string jitLog = logText(errorLog);
    if (jitLog.empty())
      return s;
    return Status::error(s.message() + "; JIT error log:\n" + jitLog);
  }
  Kernel kernel(driver, module, entry);
  kernel.log = logText(infoLog);

  if (Status s = FA4_CU_CHECK(
          driver, "looking up kernel '" + entry + "' in its module",
          cuModuleGetFunction, &kernel.entryFunction, module, entry.c_str());
      !s.ok())
    return s;

  if (Status s = kernel.setUpHangReport(binary); !s.ok())
    return s;

  FunctionInfo &info = kernel.functionInfo;
  struct {
    CUfunction_attribute attribute;
    int *value;
  } attributes[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, &info.registers},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &info.staticSharedBytes},
      {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &info.localBytes},
      {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.maxThreadsPerBlock},
  };
  for (const auto &query : attributes)
    if (Status s = FA4_CU_CHECK(
            driver, "querying the attributes of kernel '" + entry + "'",
            cuFuncGetAttribute, query.value, query.attribute,
            kernel.entryFunction);
        !s.ok())
      return s;

  if (Status s =
          checkSharedMemory(entry, dynamicSharedBytes,
                            uint64_t(info.staticSharedBytes), driver.device());
      !s.ok())
    return s;
  if (Status s = FA4_CU_CHECK(
          driver,
          "raising the dynamic shared-memory limit of kernel '" + entry +
              "' to " + std::to_string(dynamicSharedBytes) + " B",
          cuFuncSetAttribute, kernel.entryFunction,
          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          int(dynamicSharedBytes));
      !s.ok())
    return s;
  kernel.dynamicShared = dynamicSharedBytes;
  return kernel;
}

Expected<Kernel> Kernel::load(const Driver &driver, const KernelFile &file) {
  if (Status s = verifyKernelBinary(file); !s.ok())
    return s;
  if (Status s =
          checkTarget(file.entry, file.target, file.format, driver.device());
      !s.ok())
    return s;
  Expected<Kernel> kernel = load(driver, file.format, file.binary, file.entry,
                                 file.dynamicSharedBytes);
  if (kernel.ok())
    kernel->sig = KernelSignature{file.params, file.block};
  return kernel;
}

Kernel::Kernel(Kernel &&other) noexcept
    : owner(other.owner), module(std::exchange(other.module, nullptr)),
      entryFunction(std::exchange(other.entryFunction, nullptr)),
      entryName(std::move(other.entryName)), dynamicShared(other.dynamicShared),
      functionInfo(other.functionInfo), log(std::move(other.log)),
      sig(std::move(other.sig)),
      hangRecord(std::exchange(other.hangRecord, nullptr)),
      hangSites(std::move(other.hangSites)) {}

Kernel &Kernel::operator=(Kernel &&other) noexcept {
  if (this != &other) {
    release();
    owner = other.owner;
    module = std::exchange(other.module, nullptr);
    entryFunction = std::exchange(other.entryFunction, nullptr);
    entryName = std::move(other.entryName);
    dynamicShared = other.dynamicShared;
    functionInfo = other.functionInfo;
    log = std::move(other.log);
    sig = std::move(other.sig);
    hangRecord = std::exchange(other.hangRecord, nullptr);
    hangSites = std::move(other.hangSites);
  }
  return *this;
}

Kernel::~Kernel() { release(); }

void Kernel::release() {
  // A destructor cannot report a failure; the module is gone either way.
  if (module)
    (void)owner->api().cuModuleUnloadFn(module);
  module = nullptr;
  if (hangRecord)
    (void)owner->api().cuMemFreeHostFn(hangRecord);
  hangRecord = nullptr;
}

/// The most bytes of site table a load reads (a kernel has tens of sites).
static constexpr size_t kMaxHangSiteTableBytes = 1 << 20;

Status Kernel::setUpHangReport(std::string_view binary) {
  // Only a binary that names the report's global is asked for it: a lookup
  // that fails is an API error to compute-sanitizer.
  if (binary.find(kHangReportGlobal) == std::string_view::npos)
    return Status::success();
  const Driver &driver = *owner;
  const DriverApi &api = driver.api();
  CUdeviceptr slot = 0;
  size_t slotBytes = 0;
  CUresult found =
      api.cuModuleGetGlobalFn(&slot, &slotBytes, module, kHangReportGlobal);
  if (found == CUDA_ERROR_NOT_FOUND)
    return Status::success(); // A release kernel.
  std::string what = "setting up the hang report of kernel '" + entryName + "'";
  if (Status s = driver.check(found, "cuModuleGetGlobal", what); !s.ok())
    return s;
  if (slotBytes != sizeof(uint64_t))
    return Status::error(what + ": its global " + kHangReportGlobal + " has " +
                         std::to_string(slotBytes) + " B, not 8");
  CUdeviceptr table = 0;
  size_t tableBytes = 0;
  if (Status s = FA4_CU_CHECK(driver, what + " (its site table)",
                              cuModuleGetGlobal, &table, &tableBytes, module,
                              kHangSitesGlobal);
      !s.ok())
    return s;
  if (tableBytes > kMaxHangSiteTableBytes)
    return Status::error(what + ": its site table " + kHangSitesGlobal +
                         " has " + std::to_string(tableBytes) +
                         " B, more than the " +
                         std::to_string(kMaxHangSiteTableBytes) + " B allowed");
  std::string text(tableBytes, '\0');
  if (tableBytes)
    if (Status s = FA4_CU_CHECK(driver, what, cuMemcpyDtoH, text.data(), table,
                                tableBytes);
        !s.ok())
      return s;
  std::optional<std::vector<HangSite>> sites = parseHangSites(text);
  if (!sites)
    return Status::error(what + ": its site table " + kHangSitesGlobal +
                         " is not a list of 'role|first thread|barrier|0 or "
                         "1|location' entries");
  hangSites = std::move(*sites);

  void *host = nullptr;
  if (Status s = FA4_CU_CHECK(driver, what, cuMemHostAlloc, &host,
                              kHangWords * sizeof(uint32_t),
                              CU_MEMHOSTALLOC_DEVICEMAP);
      !s.ok())
    return s;
  hangRecord = static_cast<uint32_t *>(host);
  std::memset(hangRecord, 0, kHangWords * sizeof(uint32_t));
  CUdeviceptr device = 0;
  if (Status s = FA4_CU_CHECK(driver, what, cuMemHostGetDevicePointer, &device,
                              host, 0);
      !s.ok())
    return s;
  uint64_t address = device;
  return FA4_CU_CHECK(driver, what, cuMemcpyHtoD, slot, &address,
                      sizeof(address));
}

std::optional<std::string> Kernel::hangReport() const {
  if (!hangRecord)
    return std::nullopt;
  // The kernel wrote the record from the GPU; read each word once.
  uint32_t record[kHangWords];
  const volatile uint32_t *words = hangRecord;
  for (unsigned i = 0; i < kHangWords; ++i)
    record[i] = words[i];
  return describeHang(record, hangSites);
}

Status Kernel::explainFailure(Status failure) const {
  if (failure.ok())
    return failure;
  std::optional<std::string> report = hangReport();
  if (!report)
    return failure;
  return Status::error("kernel '" + entryName + "' hung: " + *report +
                       "; it trapped after the wait timed out (" +
                       failure.message() + ")");
}
