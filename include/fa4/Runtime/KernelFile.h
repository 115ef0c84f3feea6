//===- KernelFile.h - Compiled kernel files ---------------------*- C++ -*-===//
//
// The compiled-kernel file: what the compiler hands the runtime, so that a
// kernel compiled on a machine without a GPU runs on one without the compiler.
// It holds the binary (cubin or PTX) and what the launch needs: entry name,
// target, parameters (with the tensor-map views), block, dynamic shared memory
// and free-form metadata such as the problem configuration.
//
// Format, version 1: a text header of lines ending in '\n', then the binary.
//
//   fa4-kernel 1
//   entry = fa4_attention
//   target = sm_90a
//   format = ptx
//   block = 384 1 1
//   grid = 32 16 1
//   dynamic-shared-bytes = 200704
//   param = tensor_map q_map tensor=q type=bf16 box=64,128 swizzle=128
//   param = pointer o
//   param = i32 seq_len
//   meta = head_dim 128
//   meta = problem b=2 h=16 s=4096 d=128 causal
//   binary = 51234
//   <exactly 51234 raw bytes, up to the end of the file>
//
// - The first line is the magic `fa4-kernel` and the format version.
// - `binary = <bytes>` is the last header line; the binary follows it.
// - `entry`, `target` (e.g. sm_90a), `format` (ptx | cubin), `block` (three
//   positive integers), `dynamic-shared-bytes` and `binary` are required, once
//   each. `grid` is optional; without it the launcher computes the grid.
// - `param` lines, in the kernel's parameter order, give the kind (pointer,
//   tensor_map, i32, i64 or f32) and the name. A tensor_map also gives
//   tensor= (the tensor it views), type= (bf16, f16 or f32), box= (box dims,
//   innermost first as cuTensorMapEncodeTiled takes them, comma separated)
//   and swizzle= (0, 32, 64 or 128 bytes), all four and nothing else.
// - `meta = <key> <value>` lines hold free-form metadata; the value is the
//   rest of the line (no newline).
// - Names, keys, the entry and the target are non-empty, without whitespace
//   or '='. Spaces around '=' are optional. Any other key is an error: a new
//   field means a new version.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNTIME_KERNELFILE_H
#define FA4_RUNTIME_KERNELFILE_H

#include "fa4/Runtime/Status.h"
#include "fa4/Runtime/Types.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fa4::runtime {

/// The kernel-file format version this runtime reads and writes.
inline constexpr unsigned kKernelFileVersion = 1;

/// One kernel parameter as the kernel file describes it.
struct KernelParam {
  ParamKind kind = ParamKind::Pointer;
  std::string name;
  /// Tensor maps only: the tensor the map views, its element type, the box
  /// dims (innermost first) and the swizzle.
  std::string tensor;
  ElementType elementType = ElementType::BF16;
  std::vector<uint32_t> boxDims;
  Swizzle swizzle = Swizzle::None;

  friend bool operator==(const KernelParam &a, const KernelParam &b) {
    return a.kind == b.kind && a.name == b.name && a.tensor == b.tensor &&
           a.elementType == b.elementType && a.boxDims == b.boxDims &&
           a.swizzle == b.swizzle;
  }
};

/// A compiled kernel and its launch metadata.
struct KernelFile {
  std::string entry;
  /// Architecture the binary is for, e.g. "sm_90a".
  std::string target;
  BinaryFormat format = BinaryFormat::PTX;
  Dim3 block;
  /// Set when the grid is fixed at compile time.
  std::optional<Dim3> grid;
  uint32_t dynamicSharedBytes = 0;
  std::vector<KernelParam> params;
  std::map<std::string, std::string> metadata;
  /// The cubin or PTX, byte for byte.
  std::string binary;

  friend bool operator==(const KernelFile &a, const KernelFile &b) {
    return a.entry == b.entry && a.target == b.target && a.format == b.format &&
           a.block == b.block && a.grid == b.grid &&
           a.dynamicSharedBytes == b.dynamicSharedBytes &&
           a.params == b.params && a.metadata == b.metadata &&
           a.binary == b.binary;
  }
};

/// Checks what the format cannot express: names and keys without whitespace
/// or '=', metadata values without newlines, positive block and grid dims,
/// tensor-map attributes only on tensor maps, a box of rank 1 to 5, a binary.
Status verifyKernelFile(const KernelFile &file);

/// The file's bytes in the format above; fails when `verifyKernelFile` does.
Expected<std::string> serializeKernelFile(const KernelFile &file);

/// Parses the bytes of a kernel file. Errors name the line, and say when the
/// file is truncated, has a bad magic or version, or lacks a field.
Expected<KernelFile> parseKernelFile(std::string_view contents);

/// Writes `file` to `path`.
Status writeKernelFile(const KernelFile &file, const std::string &path);

/// Reads and parses the kernel file at `path`; errors start with the path.
Expected<KernelFile> readKernelFile(const std::string &path);

} // namespace fa4::runtime

#endif // FA4_RUNTIME_KERNELFILE_H
