//===- Extent.h - launch sizes written in the DSL ---------------*- C++ -*-===//
//
// An `Extent` is a size that the launch computes from the caller's tensors,
// not the kernel: the grid (`cdiv(q.dim(1), 128)`), a scalar argument that
// is a dimension of a tensor (`q.dim(1)`), the shape an output must have, a
// condition a launch needs (`n % 128 == 0`). It is host-side arithmetic that
// writes down a launch rule (fa4/KernelFormat/LaunchRule.h), which travels as an
// attribute through the compiler to the kernel file, where the runtime
// evaluates it against the bound tensors.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_DSL_EXTENT_H
#define FA4_DSL_EXTENT_H

#include <cstdint>
#include <string>

namespace fa4::dsl {

/// A launch rule being written: an integer, a dimension or stride of a
/// tensor argument (`Desc::dim`, `Ptr::dim`), a scalar argument, or
/// arithmetic and comparisons of those.
class Extent {
public:
  Extent(int64_t value) : text(std::to_string(value)), level(kAtom) {}
  Extent(int value) : Extent(int64_t(value)) {}

  /// Any extent: a shape entry the kernel does not constrain.
  static Extent any() { return Extent("*", kAtom); }
  /// A dimension of a tensor, a scalar argument or a built-in (`num_sms`),
  /// by its name in the kernel file.
  static Extent named(const std::string &name) { return Extent(name, kAtom); }

  /// The rule's text, as the kernel file will hold it (before the runtime
  /// puts it in canonical form).
  const std::string &str() const { return text; }
  bool isAny() const { return text == "*"; }

  friend Extent operator+(const Extent &a, const Extent &b) {
    return binary(a, "+", b, kSum);
  }
  friend Extent operator-(const Extent &a, const Extent &b) {
    return binary(a, "-", b, kSum);
  }
  friend Extent operator*(const Extent &a, const Extent &b) {
    return binary(a, "*", b, kProduct);
  }
  /// Floor division and its remainder; the divisor must be positive.
  friend Extent operator/(const Extent &a, const Extent &b) {
    return binary(a, "/", b, kProduct);
  }
  friend Extent operator%(const Extent &a, const Extent &b) {
    return binary(a, "%", b, kProduct);
  }
  /// Comparisons: 1 when they hold, else 0.
  friend Extent operator==(const Extent &a, const Extent &b) {
    return binary(a, "==", b, kCompare);
  }
  friend Extent operator!=(const Extent &a, const Extent &b) {
    return binary(a, "!=", b, kCompare);
  }
  friend Extent operator<(const Extent &a, const Extent &b) {
    return binary(a, "<", b, kCompare);
  }
  friend Extent operator<=(const Extent &a, const Extent &b) {
    return binary(a, "<=", b, kCompare);
  }
  friend Extent operator>(const Extent &a, const Extent &b) {
    return binary(a, ">", b, kCompare);
  }
  friend Extent operator>=(const Extent &a, const Extent &b) {
    return binary(a, ">=", b, kCompare);
  }

  /// ceil(a / b), min and max.
  friend Extent cdiv(const Extent &a, const Extent &b) {
    return call("cdiv", a, b);
  }
  friend Extent min(const Extent &a, const Extent &b) {
    return call("min", a, b);
  }
  friend Extent max(const Extent &a, const Extent &b) {
    return call("max", a, b);
  }

private:
  enum Level { kCompare, kSum, kProduct, kAtom };

  Extent(std::string text, Level level) : text(std::move(text)), level(level) {}

  static std::string operand(const Extent &e, bool parenthesize) {
    return parenthesize ? "(" + e.text + ")" : e.text;
  }
  static Extent binary(const Extent &a, const char *op, const Extent &b,
                       Level level) {
    // Left-associative: the right operand is parenthesized at the same level.
    return Extent(operand(a, a.level < level) + " " + op + " " +
                      operand(b, b.level <= level),
                  level);
  }
  static Extent call(const char *name, const Extent &a, const Extent &b) {
    return Extent(std::string(name) + "(" + a.text + ", " + b.text + ")",
                  kAtom);
  }

  std::string text;
  Level level;
};

} // namespace fa4::dsl

#endif // FA4_DSL_EXTENT_H
