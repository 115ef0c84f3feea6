//===- Buffer.cpp - Device memory -----------------------------------------===//
//
// Allocation, copies and fills of device buffers, each driver call checked,
// with sizes checked before the call so that an overrun names both sizes.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runtime/Buffer.h"

#include "DriverApi.h"

#include <utility>

using namespace fa4::runtime;

Expected<DeviceBuffer> DeviceBuffer::allocate(const Driver &driver,
                                              size_t bytes) {
  if (bytes == 0)
    return Status::error("cannot allocate an empty device buffer");
  CUdeviceptr base = 0;
  if (Status s = FA4_CU_CHECK(
          driver, "allocating " + std::to_string(bytes) + " B of device memory",
          cuMemAlloc, &base, bytes);
      !s.ok())
    return s;
  return DeviceBuffer(driver, base, bytes);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : driver(other.driver), base(std::exchange(other.base, 0)),
      bytes(std::exchange(other.bytes, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    driver = other.driver;
    base = std::exchange(other.base, 0);
    bytes = std::exchange(other.bytes, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  // A destructor cannot report a failure; a failed free leaks the memory of a
  // context that is already broken.
  if (base != 0)
    (void)driver->api().cuMemFreeFn(base);
  base = 0;
}

/// Fails when `count` bytes do not fit in a buffer of `size` bytes.
static Status checkFits(size_t count, size_t size, const char *direction) {
  if (count <= size)
    return Status::success();
  return Status::error("cannot copy " + std::to_string(count) + " B " +
                       direction + " a " + std::to_string(size) +
                       " B device buffer");
}

Status DeviceBuffer::copyFromHost(const void *source, size_t count) {
  if (Status s = checkFits(count, bytes, "into"); !s.ok())
    return s;
  return FA4_CU_CHECK(*driver,
                      "copying " + std::to_string(count) + " B to the device",
                      cuMemcpyHtoD, base, source, count);
}

Status DeviceBuffer::copyToHost(void *destination, size_t count) const {
  if (Status s = checkFits(count, bytes, "out of"); !s.ok())
    return s;
  return FA4_CU_CHECK(*driver,
                      "copying " + std::to_string(count) + " B from the device",
                      cuMemcpyDtoH, destination, base, count);
}

Status DeviceBuffer::fill8(uint8_t value) {
  return FA4_CU_CHECK(
      *driver, "filling " + std::to_string(bytes) + " B of device memory",
      cuMemsetD8, base, value, bytes);
}

Status DeviceBuffer::fill16(uint16_t value) {
  if (bytes % 2 != 0)
    return Status::error("cannot fill a " + std::to_string(bytes) +
                         " B device buffer with 16-bit values");
  return FA4_CU_CHECK(
      *driver, "filling " + std::to_string(bytes) + " B of device memory",
      cuMemsetD16, base, value, bytes / 2);
}
