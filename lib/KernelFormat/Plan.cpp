//===- Plan.cpp - the plan choices of a kernel ----------------------------===//
//
// The field table of fa4::Plan and what reads it: a field's value, the key
// text, setting a field from its spelling, and parsing a list of
// `name=value` pairs.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/Plan.h"

#include <cerrno>
#include <cstdlib>

using namespace fa4;
using runtime::Status;

const std::vector<Plan::Field> &Plan::fields() {
  static const std::vector<Field> table = {
      {"kv-stages", "kv",
       "K/V pipeline stages (derived: as many as shared memory holds, at most "
       "4 at head dim 64 and 2 from 128 on)",
       &Plan::kvStages},
      {"qk-stages", "qk",
       "stages of the K loads over the head dim (derived: padded head dim / "
       "64 for 16-bit types)",
       &Plan::qkStages},
      {"block-n", "bn",
       "rows of a K/V block, a multiple of 16 (derived: the most, up to 128, "
       "that leave two K/V stages; in the backward the block its loop "
       "visits: for dQ 128 keys up to head dim 128, 64 up to 192, 32 wider; "
       "for dK and dV 128 queries up to 64, 64 wider)",
       &Plan::blockN},
      {"consumer-warpgroups", "wg",
       "consumer warpgroups, one per 64 rows of a CTA (derived: 2; in the "
       "backward 1 for dK over 192 columns of head dim)",
       &Plan::consumerWarpgroups},
      {"persistent", "persistent",
       "CTAs that loop over the tiles in a folded order (derived: the "
       "program's measured choice)",
       nullptr, &Plan::persistent},
      {"q-stages", "qs",
       "Q buffers of a persistent kernel, 1 or 2 (derived: 2 when they fit)",
       &Plan::qStages},
      {"debug-hangs", "debug-hangs",
       "every barrier wait gives up after 2^30 cycles and reports where it "
       "waited",
       nullptr, &Plan::debugHangs},
      {"rebuild-descriptors", "rd",
       "each MMA step's descriptor rebuilt from its address (derived: at "
       "padded head dim 64)",
       nullptr, &Plan::rebuildDescriptors},
      {"pin-descriptors", "pd",
       "each MMA's descriptor base made where the MMA runs, one register an "
       "operand tile instead of one a step held across a loop (derived: on "
       "in the backward's key-block kernels from head dim 96 and in the "
       "forward at head dim 256 over key blocks other than 64 rows, off "
       "elsewhere)",
       nullptr, &Plan::pinDescriptors},
      {"interleave-heads", "ih",
       "a persistent kernel numbers its tiles with the heads varying fastest",
       nullptr, &Plan::interleaveHeads},
      {"dynamic-schedule", "ds",
       "a persistent kernel's CTAs take their tiles from a counter as they "
       "come free (derived: the program's measured choice)",
       nullptr, &Plan::dynamicSchedule},
      {"o-in-q", "oq",
       "a persistent kernel stages O for its TMA store in the tile's Q stage "
       "instead of a buffer of its own (derived: when its own buffer would "
       "narrow the widest K/V block that keeps two stages)",
       nullptr, &Plan::oInQ},
      {"ctas-per-sm", "ctas",
       "CTAs an SM runs at once: each thread gets the SM's 65536 registers "
       "shared among them (at most 248), which a memory-bound kernel needs "
       "for its loads in flight; a kernel with a producer warp runs one "
       "(derived: 1)",
       &Plan::ctasPerSm},
      {"short-pointers", "sp",
       "shared-memory addresses of 32 bits, as nvcc and Triton make them, "
       "instead of LLVM's 64: fewer registers and instructions for address "
       "arithmetic (derived: on in the backward's dQ and dK/dV kernels up "
       "to head dim 64, off elsewhere)",
       nullptr, &Plan::shortPointers},
  };
  return table;
}

std::optional<int64_t> Plan::get(const Field &field) const {
  if (field.integer)
    return this->*field.integer;
  if (std::optional<bool> value = this->*field.boolean)
    return int64_t(*value);
  return std::nullopt;
}

std::string Plan::str() const {
  std::string text;
  for (const Field &field : fields()) {
    std::optional<int64_t> value = get(field);
    if (!value)
      continue;
    if (!text.empty())
      text += " ";
    text += std::string(field.name) + "=" +
            (field.boolean ? (*value ? "true" : "false")
                           : std::to_string(*value));
  }
  return text;
}

Status Plan::set(std::string_view name, std::string_view value) {
  for (const Field &field : fields()) {
    if (name != field.name)
      continue;
    if (value == "derived") {
      if (field.integer)
        (this->*field.integer).reset();
      else
        (this->*field.boolean).reset();
      return Status::success();
    }
    if (field.boolean) {
      if (value != "true" && value != "false")
        return Status::error("plan field " + std::string(name) + " takes " +
                             "true, false or derived, not '" +
                             std::string(value) + "'");
      this->*field.boolean = value == "true";
      return Status::success();
    }
    std::string digits(value);
    char *end = nullptr;
    errno = 0;
    long long number = std::strtoll(digits.c_str(), &end, 10);
    if (digits.empty() || *end || errno || number < 1)
      return Status::error("plan field " + std::string(name) +
                           " takes a positive integer or derived, not '" +
                           digits + "'");
    this->*field.integer = number;
    return Status::success();
  }
  std::string known;
  for (const Field &field : fields())
    known += std::string(known.empty() ? "" : ", ") + field.name;
  return Status::error("'" + std::string(name) +
                       "' is not a plan field (the fields: " + known + ")");
}

Status Plan::parse(std::string_view text) {
  while (!text.empty()) {
    size_t end = text.find_first_of(" ,");
    std::string_view pair = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view()
                                         : text.substr(end + 1);
    if (pair.empty())
      continue;
    size_t equals = pair.find('=');
    if (equals == std::string_view::npos)
      return Status::error("plan entry '" + std::string(pair) +
                           "' is not name=value");
    if (Status s = set(pair.substr(0, equals), pair.substr(equals + 1));
        !s.ok())
      return s;
  }
  return Status::success();
}
