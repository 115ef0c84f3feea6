//===- Plan.h - the plan choices of a kernel, one type ----------*- C++ -*-===//
//
// The plan fields a user may set (every other choice is derived): one struct
// from the command line, the C API and Python to the compiler, which turns
// it into an `#fa4.config` in one place (ConfigAttr::derive). Each field is
// unset ("derived") unless asked for. The field table below is the one list
// of them: command-line parsing, the text of a kernel key and its name, and
// the help all read it, so a new plan field is its member here, its line in
// the table, its `#fa4.config` parameter with the verifier's rule, and the
// pass that reads it. No MLIR and no CUDA: the runtime and libfa4 use it too.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_PLAN_H
#define FA4_KERNELFORMAT_PLAN_H

#include "fa4/KernelFormat/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fa4 {

/// Plan choices that override the derived ones; unset is derived.
struct Plan {
  /// K/V pipeline stages.
  std::optional<int64_t> kvStages;
  /// qk stages: the K loads split over the head dim.
  std::optional<int64_t> qkStages;
  /// Rows of one K/V block (attention).
  std::optional<int64_t> blockN;
  /// Consumer warpgroups, one per 64 query rows of a CTA.
  std::optional<int64_t> consumerWarpgroups;
  /// A persistent kernel: CTAs loop over the tiles of the grid.
  std::optional<bool> persistent;
  /// Q stages of a persistent kernel (1 or 2).
  std::optional<int64_t> qStages;
  /// Bounded barrier waits that report a hang (fa4-instrument-hangs).
  std::optional<bool> debugHangs;
  /// Each MMA step's descriptor rebuilt from its address.
  std::optional<bool> rebuildDescriptors;
  /// Each MMA's descriptor base made where the MMA runs (in its loop).
  std::optional<bool> pinDescriptors;
  /// A persistent kernel's tiles numbered with the heads varying fastest.
  std::optional<bool> interleaveHeads;
  /// A persistent kernel's CTAs take their tiles from a counter.
  std::optional<bool> dynamicSchedule;
  /// A persistent kernel stages O for its TMA store in the tile's Q stage.
  std::optional<bool> oInQ;
  /// CTAs an SM runs at once, which share its registers (a kernel without
  /// warp roles).
  std::optional<int64_t> ctasPerSm;
  /// Shared-memory addresses of 32 bits (LLVM's 64 otherwise).
  std::optional<bool> shortPointers;

  /// One row of the field table.
  struct Field {
    /// The spelling on command lines and in key text: `kv-stages`.
    const char *name;
    /// The short form in kernel names: `kv` (`attention-hd128-kv3`).
    const char *token;
    /// What it chooses, for `fa4-run --help`.
    const char *help;
    /// Exactly one is set: the member of an integer or a boolean field.
    std::optional<int64_t> Plan::*integer = nullptr;
    std::optional<bool> Plan::*boolean = nullptr;
  };
  /// Every plan field, in the order of key text and kernel names.
  static const std::vector<Field> &fields();

  /// The value of `field` when it is set (a boolean as 0 or 1).
  std::optional<int64_t> get(const Field &field) const;
  /// `name=value` of each field that is set, space-separated, in table
  /// order; empty when every choice is derived.
  std::string str() const;
  /// Sets field `name` (a table name) from `value`: an integer, or true or
  /// false for a boolean field; `derived` unsets it. A failure names the
  /// field and the value.
  runtime::Status set(std::string_view name, std::string_view value);
  /// Sets fields from `name=value` pairs separated by spaces or commas.
  runtime::Status parse(std::string_view text);
};

} // namespace fa4

#endif // FA4_KERNELFORMAT_PLAN_H
