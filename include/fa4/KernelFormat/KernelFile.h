//===- KernelFile.h - Compiled kernel files ---------------------*- C++ -*-===//
//
// The compiled-kernel file: what the compiler hands the runtime, so that a
// kernel compiled on a machine without a GPU runs on one without the compiler.
// It holds the binary (cubin or PTX) and the kernel's launch description: the
// logical tensors it reads and writes, how each parameter is made from them
// (a tensor map over a tensor, a pointer to one, a size of one, or a value the
// caller gives), the grid as a rule over them, the block and the dynamic
// shared memory, and free-form metadata. A runtime launches the kernel from
// the description alone (Binding.h).
//
// Format, version 3: a text header of lines ending in '\n', then the binary.
// A file without a `launch` line is written as version 2:
//
//   fa4-kernel 2
//   entry = attention
//   target = sm_90a
//   format = cubin
//   block = 384 1 1
//   grid = cdiv(q.dim1,128), q.dim0, 1
//   dynamic-shared-bytes = 165904
//   tensor = q input type=bf16 rank=3 align=16
//   tensor = o output type=bf16 rank=3 align=16 shape=q.dim0,q.dim1,q.dim2
//   param = tensor_map q tensor=q type=bf16 box=64,128,1 swizzle=128 dims=2,1,0
//   fill=zero param = pointer o tensor=o param = i64 seq_q value=q.dim1 param =
//   f32 scale_log2 require = q.dim2==64 meta = head_dim 128 binary = 51234
//   <exactly 51234 raw bytes, up to the end of the file>
//
// - The first line is the magic `fa4-kernel` and the format version.
// - `binary = <bytes>` is the last header line; the binary follows it.
// - `entry`, `target` (e.g. sm_90a), `format` (ptx | cubin), `block` (three
//   positive integers), `dynamic-shared-bytes` and `binary` are required, once
//   each. `grid` is three rules (LaunchRule.h) separated by commas; without
//   it the file cannot be launched from its description.
// - `tensor` lines name a logical tensor, outermost dimension first: whether
//   the kernel reads it (input), writes it (output) or both (inout), its
//   element type, rank (1 to 8), the byte alignment of its address (a power
//   of two, default 16) and optionally `shape=` one rule or `*` (any) per
//   dimension, which a bound tensor must match, and `contiguous` when its
//   strides must be the row-major ones.
// - `param` lines, in the kernel's parameter order, give the kind (pointer,
//   tensor_map, i32, i64 or f32) and the name. A tensor_map also gives
//   tensor= (the tensor it views), type= (bf16, f16, f32 or i32), box= (box
//   dims, innermost first as cuTensorMapEncodeTiled takes them, comma
//   separated), swizzle= (0, 32, 64 or 128 bytes), and optionally dims= (which
//   tensor dimension each map dimension is, innermost first; default the
//   reverse order) and fill= (zero or nan, default zero). A pointer may give
//   tensor= (a pointer to that tensor; without it the caller gives the
//   address); an i32 or i64 may give value= (a rule; without it the caller
//   gives it).
// - `require = <rule>` lines state what a launch needs beyond the shapes
//   (e.g. `n%128==0`); the launch is refused unless each rule is nonzero.
// - `launch = programmatic` (version 3), at most once: the kernel may be
//   launched while the kernel before it in its stream finishes
//   (programmatic dependent launch; it waits for that kernel's memory
//   itself), and the runtime launches it so; without the line, in stream
//   order.
// - `meta = <key> <value>` lines hold metadata; the value is the rest of the
//   line (no newline). The keys are fa4's (`head_dim`, `head_dim_v`: the
//   kernel's head dims; `problem`: a description) or a caller's own, which
//   start with `x-`; any other is refused.
// - The block has at most 1024 threads (z at most 64), the dynamic shared
//   memory at most 232448 B, a tensor map's box extents are in [1, 256] with
//   an inner extent of a multiple of 16 B within its swizzle span.
// - Names, keys, the entry and the target are non-empty, without whitespace
//   or '='. Spaces around '=' are optional. Any other key is an error: a new
//   field means a new version.
// - A file is written in the lowest version that holds its fields (2
//   without a `launch` line), so that older runtimes read what they can
//   launch. Version 1 files (no tensor lines, no rules, a grid of three
//   integers) still load; their tensor maps' tensors are taken as tensors of
//   the map's rank and type, and without a grid they cannot be launched from
//   the description.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_KERNELFILE_H
#define FA4_KERNELFORMAT_KERNELFILE_H

#include "fa4/KernelFormat/LaunchRule.h"
#include "fa4/KernelFormat/Status.h"
#include "fa4/KernelFormat/Types.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fa4::runtime {

/// The newest kernel-file format version this runtime reads and writes.
inline constexpr unsigned kKernelFileVersion = 3;

/// How a kernel uses a tensor.
enum class TensorAccess { Input, Output, InOut };

/// Name in kernel files: "input", "output" or "inout".
const char *tensorAccessName(TensorAccess access);
/// Inverse of `tensorAccessName`; nullopt for any other text.
std::optional<TensorAccess> parseTensorAccess(std::string_view name);

/// The largest tensor rank a description holds.
inline constexpr unsigned kMaxTensorRank = 8;

/// A logical tensor of the kernel, as the caller binds it.
struct KernelTensor {
  std::string name;
  TensorAccess access = TensorAccess::Input;
  ElementType elementType = ElementType::BF16;
  unsigned rank = 1;
  /// The byte alignment its address needs: a power of two.
  unsigned alignment = 16;
  /// Empty, or one rule per dimension ("*": any extent).
  std::vector<std::string> shape;
  /// Whether its strides must be the row-major ones of its shape.
  bool contiguous = false;

  friend bool operator==(const KernelTensor &a, const KernelTensor &b) {
    return a.name == b.name && a.access == b.access &&
           a.elementType == b.elementType && a.rank == b.rank &&
           a.alignment == b.alignment && a.shape == b.shape &&
           a.contiguous == b.contiguous;
  }
};

/// One kernel parameter as the kernel file describes it.
struct KernelParam {
  ParamKind kind = ParamKind::Pointer;
  std::string name;
  /// Tensor maps: the tensor the map views; pointers: the tensor pointed
  /// to (empty: the caller gives the address).
  std::string tensor;
  /// Tensor maps only: the element type, the box dims (innermost first), the
  /// swizzle, the tensor dimension of each map dimension (innermost first;
  /// empty: the reverse order) and the out-of-bounds fill.
  ElementType elementType = ElementType::BF16;
  std::vector<uint32_t> boxDims;
  Swizzle swizzle = Swizzle::None;
  std::vector<unsigned> mapDims;
  OobFill fill = OobFill::Zero;
  /// i32 and i64 only: the rule that makes the value; empty: the caller
  /// gives it.
  std::string value;

  /// The tensor dimension of each map dimension, innermost first: `mapDims`,
  /// or the reverse order of the box's rank.
  std::vector<unsigned> tensorDims() const;

  friend bool operator==(const KernelParam &a, const KernelParam &b) {
    return a.kind == b.kind && a.name == b.name && a.tensor == b.tensor &&
           a.elementType == b.elementType && a.boxDims == b.boxDims &&
           a.swizzle == b.swizzle && a.mapDims == b.mapDims &&
           a.fill == b.fill && a.value == b.value;
  }
};

/// A compiled kernel and its launch metadata.
struct KernelFile {
  /// The format version the file was read from (written: the lowest that
  /// holds its fields).
  unsigned version = kKernelFileVersion;
  std::string entry;
  /// Architecture the binary is for, e.g. "sm_90a".
  std::string target;
  BinaryFormat format = BinaryFormat::PTX;
  Dim3 block;
  /// Empty, or the rules of grid x, y and z.
  std::vector<std::string> grid;
  uint32_t dynamicSharedBytes = 0;
  /// Launched with programmatic stream serialization (`launch =
  /// programmatic`): the kernel may start while the one before it in its
  /// stream finishes, and waits for that kernel's memory itself.
  bool programmaticLaunch = false;
  std::vector<KernelTensor> tensors;
  std::vector<KernelParam> params;
  /// Rules that must be nonzero for a launch.
  std::vector<std::string> requirements;
  std::map<std::string, std::string> metadata;
  /// The cubin or PTX, byte for byte.
  std::string binary;

  friend bool operator==(const KernelFile &a, const KernelFile &b) {
    return a.entry == b.entry && a.target == b.target && a.format == b.format &&
           a.block == b.block && a.grid == b.grid &&
           a.dynamicSharedBytes == b.dynamicSharedBytes &&
           a.programmaticLaunch == b.programmaticLaunch &&
           a.tensors == b.tensors && a.params == b.params &&
           a.requirements == b.requirements && a.metadata == b.metadata &&
           a.binary == b.binary;
  }

  /// The tensor named `name`, or null.
  const KernelTensor *findTensor(std::string_view name) const;
  /// The parameter named `name`, or null.
  const KernelParam *findParam(std::string_view name) const;
};

/// Checks what the format cannot express: names and keys without whitespace
/// or '=', metadata values without newlines, a positive block, tensor-map
/// attributes only on tensor maps, a box of rank 1 to 5, tensor maps over
/// declared tensors of their type and rank, rules that parse and read only
/// declared tensor dimensions (below the rank), scalar parameters and
/// `num_sms`, without a cycle through the scalars' rules, a binary.
Status verifyKernelFile(const KernelFile &file);
/// `verifyKernelFile` without the binary: what the compiler checks before
/// it compiles one.
Status verifyDescription(const KernelFile &file);

/// Checks the binary against the description: a cubin must be a 64-bit
/// little-endian CUDA ELF for the SM of `target` that has `entry` as a
/// function and, where its .nv.info lists them, parameters of the sizes
/// `params` give, in their order; PTX must be text whose `.target` is
/// `target` and that defines `.entry <entry>`. Loading a file from disk or
/// into a driver runs it.
Status verifyKernelBinary(const KernelFile &file);

/// The file's bytes in the format above; fails when `verifyKernelFile` does.
Expected<std::string> serializeKernelFile(const KernelFile &file);

/// Parses the bytes of a kernel file. Errors name the line, and say when the
/// file is truncated, has a bad magic or version, or lacks a field.
Expected<KernelFile> parseKernelFile(std::string_view contents);

/// Writes `file` to `path`.
Status writeKernelFile(const KernelFile &file, const std::string &path);

/// Reads and parses the kernel file at `path` (a regular file of at most 256
/// MiB) and checks its binary; errors start with the path.
Expected<KernelFile> readKernelFile(const std::string &path);

} // namespace fa4::runtime

#endif // FA4_KERNELFORMAT_KERNELFILE_H
