//===- Types.h - Runtime vocabulary -----------------------------*- C++ -*-===//
//
// The small value types shared by the tensor-map builder, the kernel file and
// the launcher: element types, swizzle modes, kernel-parameter kinds, binary
// formats and three-component dimensions, with their names in kernel files
// and messages.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_TYPES_H
#define FA4_KERNELFORMAT_TYPES_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fa4::runtime {

/// Element type of a kernel's tensor (and of a tensor map over one): the
/// floats of attention and GEMMs, and i32 for offsets such as cu_seqlens.
enum class ElementType { BF16, F16, F32, I32 };

/// Size of one element in bytes.
unsigned elementSize(ElementType type);
/// Name in kernel files and messages: "bf16", "f16", "f32" or "i32".
const char *elementTypeName(ElementType type);
/// Inverse of `elementTypeName`; nullopt for any other text.
std::optional<ElementType> parseElementType(std::string_view name);

/// Shared-memory swizzle of a TMA box, named by its span in bytes.
enum class Swizzle { None, B32, B64, B128 };

/// Span of the swizzle pattern in bytes; 0 for `Swizzle::None`.
unsigned swizzleBytes(Swizzle swizzle);
/// The swizzle with a span of `bytes` (0, 32, 64 or 128); nullopt otherwise.
std::optional<Swizzle> swizzleFromBytes(unsigned bytes);

/// What a TMA load reads outside the tensor.
enum class OobFill {
  /// Zeros (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE).
  Zero,
  /// NaNs (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA).
  NaN,
};

/// Name in kernel files: "zero" or "nan".
const char *oobFillName(OobFill fill);
/// Inverse of `oobFillName`; nullopt for any other text.
std::optional<OobFill> parseOobFill(std::string_view name);

/// What a kernel parameter is. A tensor map is passed by value: the 128-byte
/// `CUtensorMap` itself is the parameter. A counter is a pointer to the i32
/// from which a dynamically scheduled kernel claims its tiles: zero at each
/// launch, and left zero by the kernel, so the runtime keeps one per stream
/// (Binding.h) unless the caller binds one.
enum class ParamKind { Pointer, TensorMap, I32, I64, F32, Counter };

/// Name in kernel files and messages: "pointer", "tensor_map", "i32", "i64",
/// "f32" or "counter".
const char *paramKindName(ParamKind kind);
/// Inverse of `paramKindName`; nullopt for any other text.
std::optional<ParamKind> parseParamKind(std::string_view name);
/// Size of the parameter in the kernel's parameter space, in bytes.
size_t paramKindSize(ParamKind kind);

/// Form of a kernel binary: a cubin (ELF, for one architecture) or PTX text
/// (compiled by the driver's JIT when loaded).
enum class BinaryFormat { Cubin, PTX };

/// Name in kernel files and messages: "cubin" or "ptx".
const char *binaryFormatName(BinaryFormat format);
/// Inverse of `binaryFormatName`; nullopt for any other text.
std::optional<BinaryFormat> parseBinaryFormat(std::string_view name);

/// A tensor shape as messages print it: "6x300x64" ("()" for rank 0).
std::string shapeText(const std::vector<int64_t> &shape);

/// A grid or block shape.
struct Dim3 {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;

  /// Number of elements, x * y * z.
  uint64_t count() const { return uint64_t(x) * y * z; }
  /// "X x Y x Z", as messages print shapes.
  std::string str() const;

  friend bool operator==(const Dim3 &a, const Dim3 &b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
  }
  friend bool operator!=(const Dim3 &a, const Dim3 &b) { return !(a == b); }
};

} // namespace fa4::runtime

#endif // FA4_KERNELFORMAT_TYPES_H
