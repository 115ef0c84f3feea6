//===- Buffer.h - Device memory ---------------------------------*- C++ -*-===//
//
// Device buffers owned RAII-style, with the copies and fills that running and
// checking a kernel needs: upload inputs, poison outputs with a NaN pattern so
// that unwritten elements show, download results.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNTIME_BUFFER_H
#define FA4_RUNTIME_BUFFER_H

#include "fa4/KernelFormat/Status.h"

#include <cuda.h>

#include <cstddef>
#include <cstdint>

namespace fa4::runtime {

class Driver;

/// A device allocation (cuMemAlloc), freed when the buffer is destroyed.
/// Move-only; its `Driver` must outlive it.
class DeviceBuffer {
public:
  /// Allocates `bytes` (at least 1) of device memory. The address is 256-byte
  /// aligned, as cuMemAlloc guarantees, so it is a valid TMA global address.
  static Expected<DeviceBuffer> allocate(const Driver &driver, size_t bytes);

  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  /// Device address of the first byte.
  CUdeviceptr address() const { return base; }
  /// Size in bytes.
  size_t size() const { return bytes; }

  /// Copies `count` bytes from `source` to the start of the buffer.
  Status copyFromHost(const void *source, size_t count);
  /// Copies `count` bytes from the start of the buffer to `destination`.
  Status copyToHost(void *destination, size_t count) const;

  /// Sets every byte to `value`. All-ones (0xff) is a NaN in bf16, f16 and
  /// f32, which makes it the poison for outputs.
  Status fill8(uint8_t value);
  /// Sets every 16-bit word to `value` (e.g. 0x3f80, bf16 1.0); the size must
  /// be even.
  Status fill16(uint16_t value);

private:
  DeviceBuffer(const Driver &driver, CUdeviceptr base, size_t bytes)
      : driver(&driver), base(base), bytes(bytes) {}

  void release();

  const Driver *driver;
  CUdeviceptr base;
  size_t bytes;
};

} // namespace fa4::runtime

#endif // FA4_RUNTIME_BUFFER_H
