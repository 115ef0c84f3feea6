//===- Driver.cpp - CUDA driver loading -----------------------------------===//
//
// Opens libcuda with dlopen, resolves the entry points of DriverSymbols.def
// with dlsym, initializes the driver, describes device 0 and makes its primary
// context current, and formats driver errors.
//
//===----------------------------------------------------------------------===//

#include "DriverApi.h"

#include <dlfcn.h>

using namespace fa4::runtime;

std::string DeviceInfo::archName() const {
  return "sm_" + std::to_string(computeMajor) + std::to_string(computeMinor);
}

Driver::Driver(std::unique_ptr<DriverApi> table) : table(std::move(table)) {}

Driver::~Driver() {
  // A destructor cannot report a failure, and the process is ending or done
  // with the device either way.
  if (contextRetained)
    (void)table->cuDevicePrimaryCtxReleaseFn(device0);
}

/// Resolves every entry point of DriverSymbols.def in `handle`. Fails naming
/// the first missing one and how many others are missing.
static Status resolveSymbols(void *handle, const std::string &library,
                             DriverApi &api) {
  const char *firstMissing = nullptr;
  unsigned missing = 0, total = 0;
#define FA4_CU_SYMBOL(ApiName, ExportedSymbol)                                 \
  ++total;                                                                     \
  api.ApiName##Fn = reinterpret_cast<decltype(api.ApiName##Fn)>(               \
      dlsym(handle, #ExportedSymbol));                                         \
  if (!api.ApiName##Fn && missing++ == 0)                                      \
    firstMissing = #ExportedSymbol;
#include "DriverSymbols.def"
  if (missing == 0)
    return Status::success();
  std::string message = "CUDA driver library " + library +
                        " lacks the entry point '" + firstMissing + "'";
  if (missing > 1)
    message += " and " + std::to_string(missing - 1) + " more of the " +
               std::to_string(total) + " this runtime uses";
  return Status::error(message);
}

Expected<std::unique_ptr<Driver>> Driver::load(const std::string &library) {
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return Status::error("no CUDA driver: " + library +
                         " could not be loaded (" + dlerror() + ")");

  auto table = std::make_unique<DriverApi>();
  if (Status status = resolveSymbols(handle, library, *table); !status.ok()) {
    dlclose(handle);
    return status;
  }
  std::unique_ptr<Driver> driver(new Driver(std::move(table)));
  const Driver &d = *driver;

  if (Status s = FA4_CU_CHECK(d, "initializing the CUDA driver", cuInit, 0);
      !s.ok())
    return s;
  DeviceInfo &info = driver->info;
  if (Status s = FA4_CU_CHECK(d, "querying the driver version",
                              cuDriverGetVersion, &info.driverVersion);
      !s.ok())
    return s;

  int count = 0;
  if (Status s =
          FA4_CU_CHECK(d, "counting CUDA devices", cuDeviceGetCount, &count);
      !s.ok())
    return s;
  if (count == 0)
    return Status::error("no CUDA devices: the driver reports 0 devices");
  if (Status s =
          FA4_CU_CHECK(d, "getting device 0", cuDeviceGet, &driver->device0, 0);
      !s.ok())
    return s;

  char name[256] = {};
  if (Status s =
          FA4_CU_CHECK(d, "getting the name of device 0", cuDeviceGetName, name,
                       int(sizeof(name) - 1), driver->device0);
      !s.ok())
    return s;
  info.name = name;

  struct {
    CUdevice_attribute attribute;
    int *value;
    const char *what;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.computeMajor,
       "querying the compute capability of device 0"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.computeMinor,
       "querying the compute capability of device 0"},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.smCount,
       "querying the SM count of device 0"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &info.maxSharedPerBlockOptin,
       "querying the opt-in shared memory per block of device 0"},
  };
  for (const auto &query : attributes)
    if (Status s = FA4_CU_CHECK(d, query.what, cuDeviceGetAttribute,
                                query.value, query.attribute, driver->device0);
        !s.ok())
      return s;

  CUcontext context = nullptr;
  if (Status s =
          FA4_CU_CHECK(d, "retaining the primary context of device 0",
                       cuDevicePrimaryCtxRetain, &context, driver->device0);
      !s.ok())
    return s;
  driver->contextRetained = true;
  if (Status s = FA4_CU_CHECK(d, "making the primary context current",
                              cuCtxSetCurrent, context);
      !s.ok())
    return s;
  return driver;
}

Status Driver::check(CUresult result, const char *call,
                     std::string_view what) const {
  if (result == CUDA_SUCCESS)
    return Status::success();
  const char *name = nullptr;
  std::string errorName;
  if (table->cuGetErrorNameFn(result, &name) == CUDA_SUCCESS && name)
    errorName = name;
  else if (result == CUDA_ERROR_STUB_LIBRARY)
    // The toolkit's link stub cannot name its own errors.
    errorName = "CUDA_ERROR_STUB_LIBRARY (the loaded libcuda is the "
                "toolkit's link stub, not a driver)";
  else
    errorName = "CUDA error " + std::to_string(int(result));
  return Status::error(std::string(call) + " failed with " + errorName +
                       " while " + std::string(what));
}

Status Driver::synchronize() const {
  return check(table->cuCtxSynchronizeFn(), "cuCtxSynchronize",
               "waiting for the device");
}

Status Driver::zeroAsync(CUdeviceptr address, size_t bytes,
                         CUstream stream) const {
  if (bytes % 4)
    return Status::error("zeroing " + std::to_string(bytes) +
                         " bytes: not a whole number of 32-bit words");
  return check(table->cuMemsetD32AsyncFn(address, 0, bytes / 4, stream),
               "cuMemsetD32Async", "zeroing a workspace");
}
