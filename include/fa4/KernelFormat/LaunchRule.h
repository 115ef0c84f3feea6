//===- LaunchRule.h - Integer rules of a launch description -----*- C++ -*-===//
//
// The small integer language in which a kernel file says how to make a
// launch from the caller's tensors: the grid (`cdiv(q.dim1, 128)`), a scalar
// parameter that is a size (`q.dim1`), the shape an output must have. A rule
// is parsed once, printed in one canonical form (what kernel files hold) and
// evaluated against the bound tensors and scalars, with 64-bit overflow and
// division by zero reported rather than wrapped.
//
//   rule    := sum (('==' | '!=' | '<' | '<=' | '>' | '>=') sum)?
//   sum     := product (('+' | '-') product)*
//   product := atom (('*' | '/' | '%') atom)*
//   atom    := INTEGER | NAME | NAME '.dim' N | NAME '.stride' N
//            | ('cdiv' | 'min' | 'max') '(' rule ',' rule ')' | '(' rule ')'
//
// NAME.dimN is the extent of dimension N (0 outermost) of the tensor NAME;
// NAME.strideN its stride in elements; a bare NAME a scalar parameter or a
// built-in (`num_sms`, the device's multiprocessor count). '/' and '%' round
// toward negative infinity and `cdiv(a, b)` is the ceiling of a / b; all three
// need b > 0. A comparison is 1 when it holds and 0 when not (what a kernel
// file's `require` lines state).
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_LAUNCHRULE_H
#define FA4_KERNELFORMAT_LAUNCHRULE_H

#include "fa4/KernelFormat/Status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fa4::runtime {

/// What a rule reads: a dimension or stride of a tensor, or a named value.
struct RuleRef {
  enum Kind { Dim, Stride, Name };
  Kind kind = Name;
  /// The tensor, or the scalar or built-in.
  std::string name;
  /// The dimension, for `Dim` and `Stride`.
  unsigned index = 0;

  /// "q.dim1", "q.stride0" or "seq_q", as rules spell it.
  std::string str() const;
};

/// The built-in value `num_sms`: the multiprocessor count of the device.
inline constexpr std::string_view kNumSmsName = "num_sms";

/// A parsed rule. Cheap to copy (the tree is shared and immutable).
class LaunchRule {
public:
  /// Parses `text`; the error names the position and what was expected.
  static Expected<LaunchRule> parse(std::string_view text);
  /// The rule that is the integer `value`.
  static LaunchRule constant(int64_t value);

  /// The canonical text: no spaces, parentheses only where needed, e.g.
  /// "cdiv(q.dim1,128)". Parsing it gives the same rule.
  const std::string &str() const { return text; }

  /// The tensors and names the rule reads, in order of appearance.
  std::vector<RuleRef> refs() const;

  /// Evaluates the rule, asking `lookup` for each value it reads. Fails with
  /// lookup's error, or on overflow or a division by a non-positive value,
  /// naming the rule.
  using Lookup = std::function<Expected<int64_t>(const RuleRef &)>;
  Expected<int64_t> evaluate(const Lookup &lookup) const;

  struct Node;

private:
  LaunchRule(std::shared_ptr<const Node> root);

  std::shared_ptr<const Node> root;
  std::string text;
};

/// Splits `text` at the commas outside parentheses: "cdiv(a,2), b" gives
/// "cdiv(a,2)" and " b".
std::vector<std::string_view> splitRules(std::string_view text);

} // namespace fa4::runtime

#endif // FA4_KERNELFORMAT_LAUNCHRULE_H
