//===- KernelFile.cpp - Compiled kernel files -----------------------------===//
//
// Writing and reading the compiled-kernel file format documented in
// KernelFile.h: a line-oriented text header, verified field by field with
// line numbers in the errors, followed by the raw binary.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/KernelFile.h"

#include "fa4/KernelFormat/Files.h"
#include "fa4/KernelFormat/TmaRules.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

using namespace fa4::runtime;

static constexpr std::string_view kMagic = "fa4-kernel";

/// The header fields that appear exactly once; `grid` is the optional one.
static constexpr const char *kRequiredFields[] = {
    "entry", "target", "format", "block", "dynamic-shared-bytes"};

static bool isSpace(char c) { return std::isspace((unsigned char)c); }

static std::string_view trim(std::string_view text) {
  while (!text.empty() && isSpace(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back()))
    text.remove_suffix(1);
  return text;
}

/// Splits `text` at runs of whitespace.
static std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> result;
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && isSpace(text[pos]))
      ++pos;
    size_t start = pos;
    while (pos < text.size() && !isSpace(text[pos]))
      ++pos;
    if (pos > start)
      result.push_back(text.substr(start, pos - start));
  }
  return result;
}

/// Whether `text` can stand as one word of a header line.
static bool isToken(std::string_view text) {
  if (text.empty())
    return false;
  for (char c : text)
    if (isSpace(c) || c == '=')
      return false;
  return true;
}

static Status checkToken(const std::string &what, std::string_view text) {
  if (isToken(text))
    return Status::success();
  return Status::error(what + " '" + std::string(text) +
                       "' must be non-empty, without whitespace or '='");
}

/// A decimal integer that fits in `T`, and nothing else.
template <typename T>
static std::optional<T> parseInteger(std::string_view text) {
  T value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    return std::nullopt;
  return value;
}

static Status checkDims(const char *what, const Dim3 &dims) {
  if (dims.x > 0 && dims.y > 0 && dims.z > 0)
    return Status::success();
  return Status::error(std::string(what) + " " + dims.str() +
                       " has a zero dimension");
}

const char *fa4::runtime::tensorAccessName(TensorAccess access) {
  switch (access) {
  case TensorAccess::Input:
    return "input";
  case TensorAccess::Output:
    return "output";
  case TensorAccess::InOut:
    return "inout";
  }
  return "input";
}

std::optional<TensorAccess>
fa4::runtime::parseTensorAccess(std::string_view name) {
  for (TensorAccess access :
       {TensorAccess::Input, TensorAccess::Output, TensorAccess::InOut})
    if (name == tensorAccessName(access))
      return access;
  return std::nullopt;
}

std::vector<unsigned> KernelParam::tensorDims() const {
  if (!mapDims.empty())
    return mapDims;
  std::vector<unsigned> dims;
  for (size_t d = boxDims.size(); d-- > 0;)
    dims.push_back(unsigned(d));
  return dims;
}

const KernelTensor *KernelFile::findTensor(std::string_view name) const {
  for (const KernelTensor &tensor : tensors)
    if (tensor.name == name)
      return &tensor;
  return nullptr;
}

const KernelParam *KernelFile::findParam(std::string_view name) const {
  for (const KernelParam &param : params)
    if (param.name == name)
      return &param;
  return nullptr;
}

static bool isScalarKind(ParamKind kind) {
  return kind == ParamKind::I32 || kind == ParamKind::I64 ||
         kind == ParamKind::F32;
}

/// Checks that rule `text` (what it is: `what`) parses and reads only
/// tensor dimensions of `file` below their rank, its i32 and i64
/// parameters, and `num_sms`.
static Status checkRule(const KernelFile &file, const std::string &what,
                        const std::string &text) {
  Expected<LaunchRule> rule = LaunchRule::parse(text);
  if (!rule.ok())
    return Status::error(what + ": " + rule.status().message());
  for (const RuleRef &ref : rule->refs()) {
    if (ref.kind == RuleRef::Name) {
      if (ref.name == kNumSmsName)
        continue;
      const KernelParam *param = file.findParam(ref.name);
      if (!param)
        return Status::error(what + " (" + text + ") reads '" + ref.name +
                             "', which is no tensor dimension, parameter or "
                             "built-in (num_sms)");
      if (param->kind != ParamKind::I32 && param->kind != ParamKind::I64)
        return Status::error(what + " (" + text + ") reads parameter '" +
                             ref.name + "' of kind " +
                             paramKindName(param->kind) +
                             "; rules read i32 and i64 parameters");
      continue;
    }
    const KernelTensor *tensor = file.findTensor(ref.name);
    if (!tensor)
      return Status::error(what + " (" + text + ") reads '" + ref.str() +
                           "' of an undeclared tensor '" + ref.name + "'");
    if (ref.index >= tensor->rank)
      return Status::error(what + " (" + text + ") reads '" + ref.str() +
                           "' but tensor '" + ref.name + "' has rank " +
                           std::to_string(tensor->rank));
  }
  return Status::success();
}

/// Checks that the value rules of the scalar parameters do not depend on
/// themselves.
static Status checkRuleCycles(const KernelFile &file) {
  // 0 unvisited, 1 on the path, 2 done.
  std::map<std::string, int> state;
  std::function<Status(const KernelParam &)> visit =
      [&](const KernelParam &param) -> Status {
    int &mark = state[param.name];
    if (mark == 2 || param.value.empty())
      return Status::success();
    if (mark == 1)
      return Status::error("the value rule of parameter '" + param.name +
                           "' depends on itself");
    mark = 1;
    Expected<LaunchRule> rule = LaunchRule::parse(param.value);
    if (rule.ok())
      for (const RuleRef &ref : rule->refs())
        if (ref.kind == RuleRef::Name)
          if (const KernelParam *next = file.findParam(ref.name))
            if (Status s = visit(*next); !s.ok())
              return s;
    state[param.name] = 2;
    return Status::success();
  };
  for (const KernelParam &param : file.params)
    if (Status s = visit(param); !s.ok())
      return s;
  return Status::success();
}

static Status checkTensor(const KernelTensor &tensor) {
  if (Status s = checkToken("tensor name", tensor.name); !s.ok())
    return s;
  if (tensor.name == kNumSmsName)
    return Status::error("a tensor cannot be named '" +
                         std::string(kNumSmsName) + "', the built-in");
  if (tensor.rank < 1 || tensor.rank > kMaxTensorRank)
    return Status::error(
        "tensor '" + tensor.name + "' has rank " + std::to_string(tensor.rank) +
        "; the rank must be in [1, " + std::to_string(kMaxTensorRank) + "]");
  if (tensor.alignment == 0 || (tensor.alignment & (tensor.alignment - 1)))
    return Status::error("tensor '" + tensor.name + "' has alignment " +
                         std::to_string(tensor.alignment) +
                         "; it must be a power of two");
  if (!tensor.shape.empty() && tensor.shape.size() != tensor.rank)
    return Status::error("tensor '" + tensor.name + "' of rank " +
                         std::to_string(tensor.rank) + " has a shape of " +
                         std::to_string(tensor.shape.size()) + " rules");
  return Status::success();
}

/// The entry, the target and the launch shape.
static Status checkLaunch(const KernelFile &file) {
  if (Status s = checkToken("entry", file.entry); !s.ok())
    return s;
  if (Status s = checkToken("target", file.target); !s.ok())
    return s;
  if (Status s = checkDims("block", file.block); !s.ok())
    return s;
  // CUDA's limits on a block, and the most shared memory a block can have
  // on any architecture fa4 targets (sm_90 and sm_100: 227 KB); the device's
  // own limit is checked again when the kernel is loaded.
  uint64_t threads = uint64_t(file.block.x) * file.block.y * file.block.z;
  if (file.block.x > 1024 || file.block.y > 1024 || file.block.z > 64 ||
      threads > 1024)
    return Status::error("block " + file.block.str() + " has " +
                         std::to_string(threads) +
                         " threads; a CUDA block has at most 1024 (x and y "
                         "at most 1024, z at most 64)");
  constexpr uint32_t kMaxSharedBytes = 232448;
  if (file.dynamicSharedBytes > kMaxSharedBytes)
    return Status::error("dynamic shared memory of " +
                         std::to_string(file.dynamicSharedBytes) +
                         " B exceeds the " + std::to_string(kMaxSharedBytes) +
                         " B a block can have on sm_90 and sm_100");
  if (!file.grid.empty() && file.grid.size() != 3)
    return Status::error("the grid has " + std::to_string(file.grid.size()) +
                         " rules; it needs one each for x, y and z");
  return Status::success();
}

/// Each tensor well formed, and declared once.
static Status checkTensors(const KernelFile &file) {
  std::set<std::string> tensorNames;
  for (const KernelTensor &tensor : file.tensors) {
    if (Status s = checkTensor(tensor); !s.ok())
      return s;
    if (!tensorNames.insert(tensor.name).second)
      return Status::error("tensor '" + tensor.name + "' is declared twice");
  }
  return Status::success();
}

/// A tensor-map parameter: its box, its element type and rank those of
/// the declared tensor it views, its dims an order of that tensor's.
static Status checkTensorMap(const KernelFile &file, const KernelParam &param) {
  if (!param.value.empty())
    return Status::error("tensor map '" + param.name +
                         "' cannot have a value rule");
  if (Status s = checkToken("tensor of parameter '" + param.name + "'",
                            param.tensor);
      !s.ok())
    return s;
  if (param.boxDims.empty() || param.boxDims.size() > 5)
    return Status::error("tensor map '" + param.name +
                         "' has a box of rank " +
                         std::to_string(param.boxDims.size()) +
                         "; the rank must be in [1, 5]");
  for (size_t d = 0; d < param.boxDims.size(); ++d)
    if (param.boxDims[d] == 0)
      return Status::error("box dim " + std::to_string(d) +
                           " of tensor map '" + param.name + "' is 0");
  if (Status s = checkTensorMapBox(param.elementType, param.boxDims,
                                   param.swizzle);
      !s.ok())
    return Status::error("tensor map '" + param.name + "': " + s.message());
  const KernelTensor *tensor = file.findTensor(param.tensor);
  if (!tensor)
    return Status::error("tensor map '" + param.name +
                         "' views an undeclared tensor '" + param.tensor +
                         "'");
  if (tensor->elementType != param.elementType)
    return Status::error("tensor map '" + param.name + "' of " +
                         elementTypeName(param.elementType) +
                         " views tensor '" + tensor->name + "' of " +
                         elementTypeName(tensor->elementType));
  if (tensor->rank != param.boxDims.size())
    return Status::error(
        "tensor map '" + param.name + "' has a box of rank " +
        std::to_string(param.boxDims.size()) + " over tensor '" +
        tensor->name + "' of rank " + std::to_string(tensor->rank));
  if (!param.mapDims.empty()) {
    std::vector<bool> seen(tensor->rank, false);
    bool permutation = param.mapDims.size() == tensor->rank;
    for (unsigned dim : param.mapDims) {
      permutation = permutation && dim < tensor->rank && !seen[dim];
      if (dim < tensor->rank)
        seen[dim] = true;
    }
    if (!permutation)
      return Status::error("the dims of tensor map '" + param.name +
                           "' are not an order of the " +
                           std::to_string(tensor->rank) +
                           " dimensions of "
                           "tensor '" +
                           tensor->name + "'");
  }
  return Status::success();
}

/// Each parameter named once, at most one counter, and only the
/// attributes its kind has.
static Status checkParams(const KernelFile &file) {
  std::set<std::string> names;
  const KernelParam plain;
  const KernelParam *counter = nullptr;
  for (size_t i = 0; i < file.params.size(); ++i) {
    const KernelParam &param = file.params[i];
    // One counter a launch: the runtime keeps one per stream.
    if (param.kind == ParamKind::Counter) {
      if (counter)
        return Status::error("parameters '" + counter->name + "' and '" +
                             param.name +
                             "' are both counters; a kernel takes at most one");
      counter = &param;
    }
    if (Status s =
            checkToken("name of parameter " + std::to_string(i), param.name);
        !s.ok())
      return s;
    if (!names.insert(param.name).second)
      return Status::error("parameter " + std::to_string(i) +
                           " repeats the name '" + param.name + "'");
    if (param.name == kNumSmsName)
      return Status::error("a parameter cannot be named '" +
                           std::string(kNumSmsName) + "', the built-in");
    if (param.kind != ParamKind::TensorMap) {
      if (param.boxDims != plain.boxDims ||
          param.elementType != plain.elementType ||
          param.swizzle != plain.swizzle || param.mapDims != plain.mapDims ||
          param.fill != plain.fill)
        return Status::error("parameter '" + param.name + "' has kind " +
                             paramKindName(param.kind) +
                             " and cannot have tensor-map attributes");
      if (!param.tensor.empty() && param.kind != ParamKind::Pointer)
        return Status::error("parameter '" + param.name + "' has kind " +
                             paramKindName(param.kind) +
                             "; only pointers and tensor maps name a tensor");
      if (!param.tensor.empty() && !file.findTensor(param.tensor))
        return Status::error("pointer '" + param.name +
                             "' points to an undeclared tensor '" +
                             param.tensor + "'");
      if (!param.value.empty() && param.kind != ParamKind::I32 &&
          param.kind != ParamKind::I64)
        return Status::error("parameter '" + param.name + "' has kind " +
                             paramKindName(param.kind) +
                             "; only i32 and i64 parameters have a value rule");
      continue;
    }
    if (Status s = checkTensorMap(file, param); !s.ok())
      return s;
  }
  return Status::success();
}

/// Every launch rule (shapes, values, requirements, grid) well formed and
/// free of cycles.
static Status checkRules(const KernelFile &file) {
  for (const KernelTensor &tensor : file.tensors)
    for (size_t d = 0; d < tensor.shape.size(); ++d)
      if (tensor.shape[d] != "*")
        if (Status s = checkRule(file,
                                 "shape rule " + std::to_string(d) +
                                     " of tensor '" + tensor.name + "'",
                                 tensor.shape[d]);
            !s.ok())
          return s;
  for (const KernelParam &param : file.params)
    if (!param.value.empty())
      if (Status s = checkRule(file, "the value rule of '" + param.name + "'",
                               param.value);
          !s.ok())
        return s;
  for (const std::string &rule : file.requirements)
    if (Status s = checkRule(file, "the requirement", rule); !s.ok())
      return s;
  for (size_t d = 0; d < file.grid.size(); ++d)
    if (Status s = checkRule(file, std::string("grid ") + "xyz"[d] + " rule",
                             file.grid[d]);
        !s.ok())
      return s;
  if (Status s = checkRuleCycles(file); !s.ok())
    return s;
  return Status::success();
}

/// The metadata keys fa4 knows, or a caller's own ("x-"), with values
/// on one line.
static Status checkMetadata(const KernelFile &file) {
  for (const auto &[key, value] : file.metadata) {
    if (Status s = checkToken("metadata key", key); !s.ok())
      return s;
    // The keys fa4 writes and reads; a caller's own start with "x-".
    static const char *const kKnownKeys[] = {"head_dim", "head_dim_v",
                                             "problem"};
    bool known = key.rfind("x-", 0) == 0;
    for (const char *name : kKnownKeys)
      known |= key == name;
    if (!known)
      return Status::error("unknown metadata key '" + key +
                           "' (fa4's are head_dim, head_dim_v and problem; "
                           "a caller's own start with 'x-')");
    if ((key == "head_dim" || key == "head_dim_v") &&
        (value.empty() || value.size() > 4 ||
         value.find_first_not_of("0123456789") != std::string::npos))
      return Status::error("metadata " + key + " = '" + value +
                           "' is not a head dim");
    if (value != trim(value) || value.find('\n') != std::string::npos)
      return Status::error("metadata value of '" + key +
                           "' must not contain a newline or start or end "
                           "with whitespace");
  }
  return Status::success();
}

Status fa4::runtime::verifyDescription(const KernelFile &file) {
  for (Status (*check)(const KernelFile &) :
       {checkLaunch, checkTensors, checkParams, checkRules, checkMetadata})
    if (Status s = check(file); !s.ok())
      return s;
  return Status::success();
}

Status fa4::runtime::verifyKernelFile(const KernelFile &file) {
  if (Status s = verifyDescription(file); !s.ok())
    return s;
  if (file.binary.empty())
    return Status::error("the kernel binary is empty");
  return Status::success();
}

static std::string dimsText(const Dim3 &dims) {
  return std::to_string(dims.x) + " " + std::to_string(dims.y) + " " +
         std::to_string(dims.z);
}

static std::string joined(const std::vector<std::string> &items,
                          const char *separator) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? separator : "") + items[i];
  return text;
}

static std::string paramText(const KernelParam &param) {
  std::string text = std::string(paramKindName(param.kind)) + " " + param.name;
  if (param.kind == ParamKind::Pointer && !param.tensor.empty())
    text += " tensor=" + param.tensor;
  if (!param.value.empty())
    text += " value=" + param.value;
  if (param.kind != ParamKind::TensorMap)
    return text;
  text += " tensor=" + param.tensor;
  text += std::string(" type=") + elementTypeName(param.elementType);
  text += " box=";
  for (size_t d = 0; d < param.boxDims.size(); ++d)
    text += (d ? "," : "") + std::to_string(param.boxDims[d]);
  text += " swizzle=" + std::to_string(swizzleBytes(param.swizzle));
  if (!param.mapDims.empty()) {
    text += " dims=";
    for (size_t d = 0; d < param.mapDims.size(); ++d)
      text += (d ? "," : "") + std::to_string(param.mapDims[d]);
  }
  text += std::string(" fill=") + oobFillName(param.fill);
  return text;
}

static std::string tensorText(const KernelTensor &tensor) {
  std::string text = tensor.name + " " + tensorAccessName(tensor.access) +
                     " type=" + elementTypeName(tensor.elementType) +
                     " rank=" + std::to_string(tensor.rank) +
                     " align=" + std::to_string(tensor.alignment);
  if (!tensor.shape.empty())
    text += " shape=" + joined(tensor.shape, ",");
  if (tensor.contiguous)
    text += " contiguous";
  return text;
}

Expected<std::string>
fa4::runtime::serializeKernelFile(const KernelFile &file) {
  if (Status s = verifyKernelFile(file); !s.ok())
    return s;
  std::ostringstream os;
  // The lowest version that holds the file's fields.
  os << kMagic << " " << (file.programmaticLaunch ? 3 : 2) << "\n";
  os << "entry = " << file.entry << "\n";
  os << "target = " << file.target << "\n";
  os << "format = " << binaryFormatName(file.format) << "\n";
  os << "block = " << dimsText(file.block) << "\n";
  if (!file.grid.empty())
    os << "grid = " << joined(file.grid, ", ") << "\n";
  os << "dynamic-shared-bytes = " << file.dynamicSharedBytes << "\n";
  if (file.programmaticLaunch)
    os << "launch = programmatic\n";
  for (const KernelTensor &tensor : file.tensors)
    os << "tensor = " << tensorText(tensor) << "\n";
  for (const KernelParam &param : file.params)
    os << "param = " << paramText(param) << "\n";
  for (const std::string &rule : file.requirements)
    os << "require = " << rule << "\n";
  for (const auto &[key, value] : file.metadata)
    os << "meta = " << key << (value.empty() ? "" : " ") << value << "\n";
  os << "binary = " << file.binary.size() << "\n";
  os << file.binary;
  return os.str();
}

/// `text` with everything but printable ASCII shown as '?', at most 24 chars.
static std::string printable(std::string_view text) {
  std::string result;
  for (char c : text.substr(0, 24))
    result += std::isprint((unsigned char)c) ? c : '?';
  return result;
}

/// Checks the first line, the magic and the version, and returns the
/// version.
static Expected<unsigned> checkMagic(std::string_view firstLine) {
  std::string expected =
      std::string(kMagic) + " " + std::to_string(kKernelFileVersion);
  std::vector<std::string_view> parts = words(firstLine);
  if (parts.size() != 2 || parts[0] != kMagic)
    return Status::error("not an fa4 kernel file: it starts with '" +
                         printable(firstLine) + "' instead of '" + expected +
                         "'");
  std::optional<unsigned> version = parseInteger<unsigned>(parts[1]);
  if (!version)
    return Status::error("not an fa4 kernel file: bad version '" +
                         printable(parts[1]) + "' after '" +
                         std::string(kMagic) + "'");
  if (*version < 1 || *version > kKernelFileVersion)
    return Status::error("fa4 kernel file version " + std::to_string(*version) +
                         " is not supported; this runtime reads versions 1 "
                         "to " +
                         std::to_string(kKernelFileVersion));
  return *version;
}

/// A comma-separated list of unsigned integers.
template <typename T>
static std::optional<std::vector<T>> parseList(std::string_view value) {
  std::vector<T> items;
  size_t pos = 0;
  while (true) {
    size_t comma = value.find(',', pos);
    std::optional<T> item = parseInteger<T>(value.substr(pos, comma - pos));
    if (!item)
      return std::nullopt;
    items.push_back(*item);
    if (comma == std::string_view::npos)
      return items;
    pos = comma + 1;
  }
}

/// `text` as a rule in canonical form, or the parser's error.
static Expected<std::string> canonicalRule(std::string_view text) {
  Expected<LaunchRule> rule = LaunchRule::parse(text);
  if (!rule.ok())
    return rule.status();
  return rule->str();
}

/// Splits `attr` into key and value at its first '='.
static Status splitAttribute(std::string_view attr, const char *what,
                             std::string_view &key, std::string_view &value) {
  size_t eq = attr.find('=');
  key = attr.substr(0, eq);
  value =
      eq == std::string_view::npos ? std::string_view() : attr.substr(eq + 1);
  if (eq == std::string_view::npos || value.empty())
    return Status::error(std::string(what) + " attribute '" +
                         std::string(attr) + "' is not of the form key=value");
  return Status::success();
}

static Expected<KernelTensor> parseTensor(std::string_view text) {
  std::vector<std::string_view> parts = words(text);
  if (parts.size() < 2)
    return Status::error("'tensor' needs a name and input, output or inout");
  KernelTensor tensor;
  tensor.name = parts[0];
  std::optional<TensorAccess> access = parseTensorAccess(parts[1]);
  if (!access)
    return Status::error("tensor '" + tensor.name + "' is '" +
                         std::string(parts[1]) +
                         "'; expected input, output or inout");
  tensor.access = *access;
  std::set<std::string_view> seen;
  for (size_t i = 2; i < parts.size(); ++i) {
    std::string_view attr = parts[i];
    if (attr == "contiguous") {
      tensor.contiguous = true;
      continue;
    }
    std::string_view key, value;
    if (Status s = splitAttribute(attr, "tensor", key, value); !s.ok())
      return s;
    if (!seen.insert(key).second)
      return Status::error("tensor attribute '" + std::string(key) +
                           "' appears twice");
    if (key == "type") {
      std::optional<ElementType> type = parseElementType(value);
      if (!type)
        return Status::error("unknown element type '" + std::string(value) +
                             "' (expected bf16, f16, f32 or i32)");
      tensor.elementType = *type;
    } else if (key == "rank" || key == "align") {
      std::optional<unsigned> number = parseInteger<unsigned>(value);
      if (!number)
        return Status::error("tensor attribute '" + std::string(key) +
                             "' needs an integer, got '" + std::string(value) +
                             "'");
      (key == "rank" ? tensor.rank : tensor.alignment) = *number;
    } else if (key == "shape") {
      for (std::string_view item : splitRules(value)) {
        if (trim(item) == "*") {
          tensor.shape.push_back("*");
          continue;
        }
        Expected<std::string> rule = canonicalRule(item);
        if (!rule.ok())
          return Status::error("shape of tensor '" + tensor.name +
                               "': " + rule.status().message());
        tensor.shape.push_back(rule.take());
      }
    } else {
      return Status::error("unknown tensor attribute '" + std::string(key) +
                           "'");
    }
  }
  for (const char *required : {"type", "rank"})
    if (!seen.count(required))
      return Status::error("tensor '" + tensor.name +
                           "' lacks the attribute '" + required + "'");
  return tensor;
}

static std::optional<Dim3> parseDims(std::string_view text) {
  std::vector<std::string_view> parts = words(text);
  if (parts.size() != 3)
    return std::nullopt;
  auto x = parseInteger<uint32_t>(parts[0]);
  auto y = parseInteger<uint32_t>(parts[1]);
  auto z = parseInteger<uint32_t>(parts[2]);
  if (!x || !y || !z)
    return std::nullopt;
  return Dim3{*x, *y, *z};
}

/// Parses the attributes of a tensor_map parameter into `param`.
static Status
parseTensorMapAttributes(const std::vector<std::string_view> &attrs,
                         KernelParam &param) {
  std::set<std::string_view> seen;
  for (std::string_view attr : attrs) {
    std::string_view key, value;
    if (Status s = splitAttribute(attr, "tensor-map", key, value); !s.ok())
      return s;
    if (!seen.insert(key).second)
      return Status::error("tensor-map attribute '" + std::string(key) +
                           "' appears twice");
    if (key == "tensor") {
      param.tensor = value;
    } else if (key == "type") {
      std::optional<ElementType> type = parseElementType(value);
      if (!type)
        return Status::error("unknown element type '" + std::string(value) +
                             "' (expected bf16, f16, f32 or i32)");
      param.elementType = *type;
    } else if (key == "box") {
      std::optional<std::vector<uint32_t>> box = parseList<uint32_t>(value);
      if (!box)
        return Status::error("box '" + std::string(value) +
                             "' is not a comma-separated list of integers");
      param.boxDims = *box;
    } else if (key == "dims") {
      std::optional<std::vector<unsigned>> dims = parseList<unsigned>(value);
      if (!dims)
        return Status::error("dims '" + std::string(value) +
                             "' is not a comma-separated list of integers");
      param.mapDims = *dims;
    } else if (key == "fill") {
      std::optional<OobFill> fill = parseOobFill(value);
      if (!fill)
        return Status::error("fill '" + std::string(value) +
                             "' is not zero or nan");
      param.fill = *fill;
    } else if (key == "swizzle") {
      std::optional<unsigned> bytes = parseInteger<unsigned>(value);
      std::optional<Swizzle> swizzle =
          bytes ? swizzleFromBytes(*bytes) : std::nullopt;
      if (!swizzle)
        return Status::error("swizzle '" + std::string(value) +
                             "' is not 0, 32, 64 or 128");
      param.swizzle = *swizzle;
    } else {
      return Status::error("unknown tensor-map attribute '" + std::string(key) +
                           "'");
    }
  }
  for (const char *required : {"tensor", "type", "box", "swizzle"})
    if (!seen.count(required))
      return Status::error("tensor map '" + param.name +
                           "' lacks the attribute '" + required + "'");
  return Status::success();
}

/// The attribute of a pointer (tensor=) or an integer scalar (value=).
static Status parsePlainAttribute(std::string_view attr, KernelParam &param) {
  std::string_view key, value;
  if (Status s = splitAttribute(attr, "parameter", key, value); !s.ok())
    return s;
  if (param.kind == ParamKind::Pointer && key == "tensor" &&
      param.tensor.empty()) {
    param.tensor = value;
    return Status::success();
  }
  bool integer = param.kind == ParamKind::I32 || param.kind == ParamKind::I64;
  if (integer && key == "value" && param.value.empty()) {
    Expected<std::string> rule = canonicalRule(value);
    if (!rule.ok())
      return Status::error("value of '" + param.name +
                           "': " + rule.status().message());
    param.value = rule.take();
    return Status::success();
  }
  return Status::error(
      "parameter '" + param.name + "' of kind " + paramKindName(param.kind) +
      " takes " +
      (param.kind == ParamKind::Pointer ? "tensor="
       : integer                        ? "value="
                                        : "no attributes") +
      (param.kind == ParamKind::F32 || param.kind == ParamKind::Counter
           ? ""
           : " once") +
      ", got '" + std::string(attr) + "'");
}

static Expected<KernelParam> parseParam(std::string_view text) {
  std::vector<std::string_view> parts = words(text);
  if (parts.size() < 2)
    return Status::error("'param' needs a kind and a name");
  std::optional<ParamKind> kind = parseParamKind(parts[0]);
  if (!kind)
    return Status::error("unknown parameter kind '" + std::string(parts[0]) +
                         "' (expected pointer, tensor_map, i32, i64, f32 or "
                         "counter)");
  KernelParam param;
  param.kind = *kind;
  param.name = parts[1];
  std::vector<std::string_view> attrs(parts.begin() + 2, parts.end());
  if (*kind != ParamKind::TensorMap) {
    for (std::string_view attr : attrs)
      if (Status s = parsePlainAttribute(attr, param); !s.ok())
        return s;
    return param;
  }
  if (Status s = parseTensorMapAttributes(attrs, param); !s.ok())
    return s;
  return param;
}

/// Parses one `key = value` header line other than `binary` into `file`.
static Status parseField(std::string_view key, std::string_view value,
                         KernelFile &file) {
  if (key == "entry") {
    file.entry = value;
  } else if (key == "target") {
    file.target = value;
  } else if (key == "format") {
    std::optional<BinaryFormat> format = parseBinaryFormat(value);
    if (!format)
      return Status::error("unknown binary format '" + std::string(value) +
                           "' (expected ptx or cubin)");
    file.format = *format;
  } else if (key == "block" || (key == "grid" && file.version == 1)) {
    std::optional<Dim3> dims = parseDims(value);
    if (!dims)
      return Status::error("'" + std::string(key) +
                           "' needs three integers, got '" +
                           std::string(value) + "'");
    if (key == "block")
      file.block = *dims;
    else
      file.grid = {std::to_string(dims->x), std::to_string(dims->y),
                   std::to_string(dims->z)};
  } else if (key == "grid") {
    std::vector<std::string_view> rules = splitRules(value);
    if (rules.size() != 3)
      return Status::error("'grid' needs three rules separated by commas, "
                           "got '" +
                           std::string(value) + "'");
    for (std::string_view text : rules) {
      Expected<std::string> rule = canonicalRule(text);
      if (!rule.ok())
        return Status::error("grid: " + rule.status().message());
      file.grid.push_back(rule.take());
    }
  } else if (key == "require" && file.version >= 2) {
    Expected<std::string> rule = canonicalRule(value);
    if (!rule.ok())
      return Status::error("require: " + rule.status().message());
    file.requirements.push_back(rule.take());
  } else if (key == "tensor" && file.version >= 2) {
    Expected<KernelTensor> tensor = parseTensor(value);
    if (!tensor.ok())
      return tensor.status();
    file.tensors.push_back(tensor.take());
  } else if (key == "dynamic-shared-bytes") {
    std::optional<uint32_t> bytes = parseInteger<uint32_t>(value);
    if (!bytes)
      return Status::error("'dynamic-shared-bytes' needs an integer, got '" +
                           std::string(value) + "'");
    file.dynamicSharedBytes = *bytes;
  } else if (key == "launch" && file.version >= 3) {
    if (value != "programmatic")
      return Status::error("'launch' takes 'programmatic', got '" +
                           std::string(value) + "'");
    file.programmaticLaunch = true;
  } else if (key == "param") {
    Expected<KernelParam> param = parseParam(value);
    if (!param.ok())
      return param.status();
    file.params.push_back(param.take());
  } else if (key == "meta") {
    size_t split = 0;
    while (split < value.size() && !isSpace(value[split]))
      ++split;
    if (split == 0)
      return Status::error("'meta' needs a key");
    std::string metaKey(value.substr(0, split));
    if (!file.metadata.emplace(metaKey, trim(value.substr(split))).second)
      return Status::error("metadata key '" + metaKey + "' appears twice");
  } else {
    return Status::error("unknown field '" + std::string(key) + "'");
  }
  return Status::success();
}

Expected<KernelFile> fa4::runtime::parseKernelFile(std::string_view contents) {
  if (contents.empty())
    return Status::error("kernel file is empty");
  size_t firstEnd = contents.find('\n');
  Expected<unsigned> version = checkMagic(contents.substr(0, firstEnd));
  if (!version.ok())
    return version.status();

  KernelFile file;
  file.version = *version;
  std::map<std::string, unsigned, std::less<>> fieldLines;
  size_t pos =
      firstEnd == std::string_view::npos ? contents.size() : firstEnd + 1;
  for (unsigned lineNo = 2;; ++lineNo) {
    size_t end = contents.find('\n', pos);
    if (end == std::string_view::npos)
      return Status::error("kernel file is truncated: the header stops after "
                           "line " +
                           std::to_string(lineNo - 1) +
                           " without a 'binary = <bytes>' line");
    std::string_view line = contents.substr(pos, end - pos);
    pos = end + 1;
    std::string where = "line " + std::to_string(lineNo) + ": ";

    size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      return Status::error(where + "expected 'key = value', got '" +
                           printable(line) + "'");
    std::string_view key = trim(line.substr(0, eq));
    std::string_view value = trim(line.substr(eq + 1));

    if (key != "param" && key != "meta" && key != "tensor" &&
        key != "require") {
      auto [it, inserted] = fieldLines.emplace(std::string(key), lineNo);
      if (!inserted)
        return Status::error(where + "'" + std::string(key) +
                             "' repeats line " + std::to_string(it->second));
    }
    if (key != "binary") {
      if (Status s = parseField(key, value, file); !s.ok())
        return Status::error(where + s.message());
      continue;
    }

    std::optional<uint64_t> size = parseInteger<uint64_t>(value);
    if (!size)
      return Status::error(where + "'binary' needs a byte count, got '" +
                           std::string(value) + "'");
    for (const char *field : kRequiredFields)
      if (!fieldLines.count(field))
        return Status::error(std::string("kernel file lacks the required "
                                         "field '") +
                             field + "'");
    uint64_t available = contents.size() - pos;
    if (available < *size)
      return Status::error(
          "kernel file is truncated: 'binary = " + std::to_string(*size) +
          "' announces " + std::to_string(*size) + " B but " +
          std::to_string(available) + " B follow");
    if (available > *size)
      return Status::error("kernel file has " +
                           std::to_string(available - *size) + " B after the " +
                           std::to_string(*size) + " B binary");
    file.binary = contents.substr(pos);
    break;
  }
  // A version 1 file names the tensors of its maps without declaring them.
  if (file.version == 1)
    for (const KernelParam &param : file.params)
      if (param.kind == ParamKind::TensorMap && !param.tensor.empty() &&
          !file.findTensor(param.tensor)) {
        KernelTensor tensor;
        tensor.name = param.tensor;
        tensor.elementType = param.elementType;
        tensor.rank = unsigned(param.boxDims.size());
        file.tensors.push_back(tensor);
      }
  if (Status s = verifyKernelFile(file); !s.ok())
    return s;
  return file;
}

Status fa4::runtime::writeKernelFile(const KernelFile &file,
                                     const std::string &path) {
  Expected<std::string> bytes = serializeKernelFile(file);
  if (!bytes.ok())
    return Status::error("cannot write kernel file '" + path +
                         "': " + bytes.status().message());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes->data(), std::streamsize(bytes->size()));
  out.close();
  if (!out)
    return Status::error("cannot write kernel file '" + path +
                         "': " + std::strerror(errno));
  return Status::success();
}

Expected<KernelFile> fa4::runtime::readKernelFile(const std::string &path) {
  // Far more than any kernel file: a cubin of a few hundred KB and its text.
  constexpr uint64_t kMaxKernelFileBytes = 256ull << 20;
  Expected<std::string> contents =
      readRegularFile(path, "kernel file", kMaxKernelFileBytes);
  if (!contents.ok())
    return contents.status();
  Expected<KernelFile> file = parseKernelFile(*contents);
  if (!file.ok())
    return Status::error(path + ": " + file.status().message());
  if (Status s = verifyKernelBinary(*file); !s.ok())
    return Status::error(path + ": " + s.message());
  return file;
}
