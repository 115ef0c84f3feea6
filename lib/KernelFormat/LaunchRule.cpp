//===- LaunchRule.cpp - Integer rules of a launch description -------------===//
//
// A recursive-descent parser for the grammar in LaunchRule.h, the canonical
// printer, and the checked evaluator.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/LaunchRule.h"

#include <cctype>
#include <charconv>

using namespace fa4::runtime;

std::string RuleRef::str() const {
  switch (kind) {
  case Dim:
    return name + ".dim" + std::to_string(index);
  case Stride:
    return name + ".stride" + std::to_string(index);
  case Name:
    return name;
  }
  return name;
}

namespace {
enum class Op {
  Number,
  Ref,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  CDiv,
  Min,
  Max
};
} // namespace

struct LaunchRule::Node {
  Op op = Op::Number;
  int64_t value = 0;
  RuleRef ref;
  std::shared_ptr<const Node> lhs, rhs;
};

using NodePtr = std::shared_ptr<const LaunchRule::Node>;

/// Binding strength of an operator when printed: comparisons 0, sums 1,
/// products 2, the rest (atoms, calls) 3.
static int precedence(Op op) {
  switch (op) {
  case Op::Eq:
  case Op::Ne:
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge:
    return 0;
  case Op::Add:
  case Op::Sub:
    return 1;
  case Op::Mul:
  case Op::Div:
  case Op::Mod:
    return 2;
  default:
    return 3;
  }
}

static const char *opText(Op op) {
  switch (op) {
  case Op::Eq:
    return "==";
  case Op::Ne:
    return "!=";
  case Op::Lt:
    return "<";
  case Op::Le:
    return "<=";
  case Op::Gt:
    return ">";
  case Op::Ge:
    return ">=";
  case Op::Add:
    return "+";
  case Op::Sub:
    return "-";
  case Op::Mul:
    return "*";
  case Op::Div:
    return "/";
  case Op::Mod:
    return "%";
  case Op::CDiv:
    return "cdiv";
  case Op::Min:
    return "min";
  case Op::Max:
    return "max";
  default:
    return "";
  }
}

static void print(const LaunchRule::Node &node, std::string &out) {
  switch (node.op) {
  case Op::Number:
    out += std::to_string(node.value);
    return;
  case Op::Ref:
    out += node.ref.str();
    return;
  case Op::CDiv:
  case Op::Min:
  case Op::Max:
    out += opText(node.op);
    out += '(';
    print(*node.lhs, out);
    out += ',';
    print(*node.rhs, out);
    out += ')';
    return;
  default:
    break;
  }
  // Left-associative: the left operand needs parentheses when it binds
  // looser, the right one also when it binds the same (a-(b-c), a/(b*c)),
  // so that parsing the text gives the same tree.
  int p = precedence(node.op);
  bool leftParens = precedence(node.lhs->op) < p;
  bool rightParens = precedence(node.rhs->op) <= p;
  if (leftParens)
    out += '(';
  print(*node.lhs, out);
  if (leftParens)
    out += ')';
  out += opText(node.op);
  if (rightParens)
    out += '(';
  print(*node.rhs, out);
  if (rightParens)
    out += ')';
}

namespace {
/// The recursive-descent parser over one rule's text.
class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  Expected<NodePtr> parseRule() {
    Expected<NodePtr> node = parseComparison();
    if (!node.ok())
      return node;
    skipSpace();
    if (pos != text.size())
      return error("unexpected '" + std::string(1, text[pos]) + "'");
    return node;
  }

private:
  Status error(const std::string &what) const {
    return Status::error("bad rule '" + std::string(text) + "': " + what +
                         " at column " + std::to_string(pos + 1));
  }

  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }

  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  static NodePtr binary(Op op, NodePtr lhs, NodePtr rhs) {
    auto node = std::make_shared<LaunchRule::Node>();
    node->op = op;
    node->lhs = std::move(lhs);
    node->rhs = std::move(rhs);
    return node;
  }

  /// A sum, or two sums compared (one comparison; 1 when it holds, else 0).
  Expected<NodePtr> parseComparison() {
    Expected<NodePtr> lhs = parseSum();
    if (!lhs.ok())
      return lhs;
    skipSpace();
    static const std::pair<const char *, Op> ops[] = {
        {"==", Op::Eq}, {"!=", Op::Ne}, {"<=", Op::Le},
        {">=", Op::Ge}, {"<", Op::Lt},  {">", Op::Gt}};
    for (auto [spelling, op] : ops) {
      std::string_view token(spelling);
      if (text.substr(pos, token.size()) != token)
        continue;
      pos += token.size();
      Expected<NodePtr> rhs = parseSum();
      if (!rhs.ok())
        return rhs;
      return binary(op, lhs.take(), rhs.take());
    }
    return lhs;
  }

  Expected<NodePtr> parseSum() {
    Expected<NodePtr> lhs = parseProduct();
    if (!lhs.ok())
      return lhs;
    NodePtr node = lhs.take();
    while (true) {
      Op op;
      if (consume('+'))
        op = Op::Add;
      else if (consume('-'))
        op = Op::Sub;
      else
        return node;
      Expected<NodePtr> rhs = parseProduct();
      if (!rhs.ok())
        return rhs;
      node = binary(op, node, rhs.take());
    }
  }

  Expected<NodePtr> parseProduct() {
    Expected<NodePtr> lhs = parseAtom();
    if (!lhs.ok())
      return lhs;
    NodePtr node = lhs.take();
    while (true) {
      Op op;
      if (consume('*'))
        op = Op::Mul;
      else if (consume('/'))
        op = Op::Div;
      else if (consume('%'))
        op = Op::Mod;
      else
        return node;
      Expected<NodePtr> rhs = parseAtom();
      if (!rhs.ok())
        return rhs;
      node = binary(op, node, rhs.take());
    }
  }

  static bool isNameStart(char c) {
    return std::isalpha((unsigned char)c) || c == '_';
  }
  static bool isNameChar(char c) {
    return std::isalnum((unsigned char)c) || c == '_';
  }

  Expected<NodePtr> parseAtom() {
    skipSpace();
    if (pos == text.size())
      return error("expected a number, a name or '('");
    char c = text[pos];
    if (c == '(') {
      ++pos;
      Expected<NodePtr> inner = parseComparison();
      if (!inner.ok())
        return inner;
      if (!consume(')'))
        return error("expected ')'");
      return inner;
    }
    if (std::isdigit((unsigned char)c)) {
      size_t start = pos;
      while (pos < text.size() && std::isdigit((unsigned char)text[pos]))
        ++pos;
      int64_t value = 0;
      auto [ptr, ec] =
          std::from_chars(text.data() + start, text.data() + pos, value);
      if (ec != std::errc())
        return error("the number '" +
                     std::string(text.substr(start, pos - start)) +
                     "' does not fit in 64 bits");
      auto node = std::make_shared<LaunchRule::Node>();
      node->value = value;
      return NodePtr(node);
    }
    if (!isNameStart(c))
      return error("expected a number, a name or '(' but found '" +
                   std::string(1, c) + "'");
    size_t start = pos;
    while (pos < text.size() && isNameChar(text[pos]))
      ++pos;
    std::string name(text.substr(start, pos - start));
    if (name == "cdiv" || name == "min" || name == "max") {
      if (!consume('('))
        return error("expected '(' after '" + name + "'");
      Expected<NodePtr> a = parseSum();
      if (!a.ok())
        return a;
      if (!consume(','))
        return error("'" + name + "' takes two arguments; expected ','");
      Expected<NodePtr> b = parseSum();
      if (!b.ok())
        return b;
      if (!consume(')'))
        return error("expected ')' after the arguments of '" + name + "'");
      Op op = name == "cdiv" ? Op::CDiv : name == "min" ? Op::Min : Op::Max;
      return binary(op, a.take(), b.take());
    }
    auto node = std::make_shared<LaunchRule::Node>();
    node->op = Op::Ref;
    node->ref.name = name;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      size_t fieldStart = pos;
      while (pos < text.size() && std::isalpha((unsigned char)text[pos]))
        ++pos;
      std::string_view field = text.substr(fieldStart, pos - fieldStart);
      if (field != "dim" && field != "stride")
        return error("expected 'dim' or 'stride' after '" + name + ".'");
      size_t digits = pos;
      while (pos < text.size() && std::isdigit((unsigned char)text[pos]))
        ++pos;
      unsigned index = 0;
      auto [ptr, ec] =
          std::from_chars(text.data() + digits, text.data() + pos, index);
      if (digits == pos || ec != std::errc() || index > 15)
        return error("expected a dimension number from 0 to 15 after '" + name +
                     "." + std::string(field) + "'");
      node->ref.kind = field == "dim" ? RuleRef::Dim : RuleRef::Stride;
      node->ref.index = index;
    }
    return NodePtr(node);
  }

  std::string_view text;
  size_t pos = 0;
};
} // namespace

LaunchRule::LaunchRule(std::shared_ptr<const Node> root)
    : root(std::move(root)) {
  print(*this->root, text);
}

Expected<LaunchRule> LaunchRule::parse(std::string_view text) {
  Expected<NodePtr> root = Parser(text).parseRule();
  if (!root.ok())
    return root.status();
  return LaunchRule(root.take());
}

LaunchRule LaunchRule::constant(int64_t value) {
  auto node = std::make_shared<Node>();
  node->value = value;
  return LaunchRule(node);
}

static void collect(const LaunchRule::Node &node, std::vector<RuleRef> &out) {
  if (node.op == Op::Ref)
    out.push_back(node.ref);
  if (node.lhs)
    collect(*node.lhs, out);
  if (node.rhs)
    collect(*node.rhs, out);
}

std::vector<RuleRef> LaunchRule::refs() const {
  std::vector<RuleRef> result;
  collect(*root, result);
  return result;
}

/// Floor division and modulo for b > 0.
static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

static Expected<int64_t> evaluateNode(const LaunchRule::Node &node,
                                      const LaunchRule::Lookup &lookup,
                                      const std::string &rule) {
  if (node.op == Op::Number)
    return node.value;
  if (node.op == Op::Ref)
    return lookup(node.ref);
  Expected<int64_t> a = evaluateNode(*node.lhs, lookup, rule);
  if (!a.ok())
    return a;
  Expected<int64_t> b = evaluateNode(*node.rhs, lookup, rule);
  if (!b.ok())
    return b;
  int64_t x = *a, y = *b, r = 0;
  auto overflow = [&] {
    return Status::error("rule '" + rule + "' overflows 64 bits (" +
                         std::to_string(x) + " " + opText(node.op) + " " +
                         std::to_string(y) + ")");
  };
  switch (node.op) {
  case Op::Add:
    if (__builtin_add_overflow(x, y, &r))
      return overflow();
    return r;
  case Op::Sub:
    if (__builtin_sub_overflow(x, y, &r))
      return overflow();
    return r;
  case Op::Mul:
    if (__builtin_mul_overflow(x, y, &r))
      return overflow();
    return r;
  case Op::Eq:
    return int64_t(x == y);
  case Op::Ne:
    return int64_t(x != y);
  case Op::Lt:
    return int64_t(x < y);
  case Op::Le:
    return int64_t(x <= y);
  case Op::Gt:
    return int64_t(x > y);
  case Op::Ge:
    return int64_t(x >= y);
  case Op::Min:
    return x < y ? x : y;
  case Op::Max:
    return x > y ? x : y;
  default:
    break;
  }
  if (y <= 0)
    return Status::error("rule '" + rule + "' divides " + std::to_string(x) +
                         " by " + std::to_string(y) +
                         "; a divisor must be positive");
  if (node.op == Op::Div)
    return floorDiv(x, y);
  if (node.op == Op::Mod)
    return x - floorDiv(x, y) * y;
  // cdiv(x, y) = -floor(-x / y); -x overflows only for INT64_MIN.
  if (x == INT64_MIN)
    return overflow();
  return -floorDiv(-x, y);
}

Expected<int64_t> LaunchRule::evaluate(const Lookup &lookup) const {
  return evaluateNode(*root, lookup, text);
}

std::vector<std::string_view> fa4::runtime::splitRules(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(')
      ++depth;
    else if (text[i] == ')')
      --depth;
    else if (text[i] == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}
