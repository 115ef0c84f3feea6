//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// A small reader and writer of NumPy's .npy format (versions 1.0 and 2.0),
// for the arrays fa4-run exchanges with Python: C-order arrays of `<u2` (bf16
// stored as uint16 bits), `<f2` (f16) or `<f4` (f32), and integers (`<i4`,
// `<i8`) for offsets. Reading refuses, with a
// message that starts with the file's name, anything else: a bad magic, an
// unsupported version or dtype, Fortran order, a malformed header, and data
// that does not match the shape.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_NPY_H
#define FA4_RUNNER_NPY_H

#include "fa4/KernelFormat/Status.h"
#include "fa4/KernelFormat/Types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fa4::runner {

/// The dtypes fa4-run reads and writes.
enum class NpyType {
  BF16Bits, ///< `<u2`: bf16 values as their 16 bits.
  F16,      ///< `<f2`
  F32,      ///< `<f4`
  I32,      ///< `<i4` (offsets such as cu_seqlens)
  I64,      ///< `<i8` (NumPy's default integers)
};

/// The `descr` of `type`: "<u2", "<f2", "<f4", "<i4" or "<i8".
const char *npyDescr(NpyType type);

/// An array read from a .npy file.
struct NpyArray {
  NpyType type = NpyType::F32;
  std::vector<uint64_t> shape;
  /// The elements in C order, little-endian, as in the file.
  std::string data;

  /// The number of elements, the product of the shape.
  uint64_t elements() const;
  /// The shape as Python prints it: "(2, 3, 64)".
  std::string shapeText() const;
};

/// Parses the bytes of a .npy file; `name` starts every error message.
runtime::Expected<NpyArray> parseNpy(std::string_view bytes,
                                     const std::string &name);

/// Reads and parses the .npy file at `path`.
runtime::Expected<NpyArray> readNpy(const std::string &path);

/// The elements of `array` as words of `type` (bf16 or f16): every dtype is
/// converted through float, exactly for a word of `type` itself and with
/// round-to-nearest-even otherwise.
std::vector<uint16_t> toWords(const NpyArray &array, runtime::ElementType type);
/// The elements of an integer array (`<i4` or `<i8`); an error naming
/// `name` for a float one.
runtime::Expected<std::vector<int64_t>> toIntegers(const NpyArray &array,
                                                   const std::string &name);

/// A version 1.0 .npy file of `shape` holding `words` of `type` (bf16 as
/// `<u2`, f16 as `<f2`).
std::string serializeNpy(runtime::ElementType type,
                         const std::vector<uint64_t> &shape,
                         const std::vector<uint16_t> &words);

/// A version 1.0 .npy file of `shape` holding `values` as `<f4`.
std::string serializeNpy(const std::vector<uint64_t> &shape,
                         const std::vector<float> &values);

/// Writes `serializeNpy(type, shape, words)` to `path`.
runtime::Status writeNpy(const std::string &path, runtime::ElementType type,
                         const std::vector<uint64_t> &shape,
                         const std::vector<uint16_t> &words);
/// Writes `values` to `path` as a version 1.0 .npy file of `shape`, `<i4`.
runtime::Status writeNpy(const std::string &path,
                         const std::vector<uint64_t> &shape,
                         const std::vector<int32_t> &values);
/// Writes `serializeNpy(shape, values)` to `path`.
runtime::Status writeNpy(const std::string &path,
                         const std::vector<uint64_t> &shape,
                         const std::vector<float> &values);

} // namespace fa4::runner

#endif // FA4_RUNNER_NPY_H
