//===- KernelFile.cpp - Compiled kernel files -----------------------------===//
//
// Writing and reading the compiled-kernel file format documented in
// KernelFile.h: a line-oriented text header, verified field by field with
// line numbers in the errors, followed by the raw binary.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runtime/KernelFile.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
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

Status fa4::runtime::verifyKernelFile(const KernelFile &file) {
  if (Status s = checkToken("entry", file.entry); !s.ok())
    return s;
  if (Status s = checkToken("target", file.target); !s.ok())
    return s;
  if (Status s = checkDims("block", file.block); !s.ok())
    return s;
  if (file.grid)
    if (Status s = checkDims("grid", *file.grid); !s.ok())
      return s;

  std::set<std::string> names;
  const KernelParam plain;
  for (size_t i = 0; i < file.params.size(); ++i) {
    const KernelParam &param = file.params[i];
    if (Status s =
            checkToken("name of parameter " + std::to_string(i), param.name);
        !s.ok())
      return s;
    if (!names.insert(param.name).second)
      return Status::error("parameter " + std::to_string(i) +
                           " repeats the name '" + param.name + "'");
    if (param.kind != ParamKind::TensorMap) {
      if (param.tensor != plain.tensor || param.boxDims != plain.boxDims ||
          param.elementType != plain.elementType ||
          param.swizzle != plain.swizzle)
        return Status::error("parameter '" + param.name + "' has kind " +
                             paramKindName(param.kind) +
                             " and cannot have tensor-map attributes");
      continue;
    }
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
  }

  for (const auto &[key, value] : file.metadata) {
    if (Status s = checkToken("metadata key", key); !s.ok())
      return s;
    if (value != trim(value) || value.find('\n') != std::string::npos)
      return Status::error("metadata value of '" + key +
                           "' must not contain a newline or start or end "
                           "with whitespace");
  }
  if (file.binary.empty())
    return Status::error("the kernel binary is empty");
  return Status::success();
}

static std::string dimsText(const Dim3 &dims) {
  return std::to_string(dims.x) + " " + std::to_string(dims.y) + " " +
         std::to_string(dims.z);
}

static std::string paramText(const KernelParam &param) {
  std::string text = std::string(paramKindName(param.kind)) + " " + param.name;
  if (param.kind != ParamKind::TensorMap)
    return text;
  text += " tensor=" + param.tensor;
  text += std::string(" type=") + elementTypeName(param.elementType);
  text += " box=";
  for (size_t d = 0; d < param.boxDims.size(); ++d)
    text += (d ? "," : "") + std::to_string(param.boxDims[d]);
  text += " swizzle=" + std::to_string(swizzleBytes(param.swizzle));
  return text;
}

Expected<std::string>
fa4::runtime::serializeKernelFile(const KernelFile &file) {
  if (Status s = verifyKernelFile(file); !s.ok())
    return s;
  std::ostringstream os;
  os << kMagic << " " << kKernelFileVersion << "\n";
  os << "entry = " << file.entry << "\n";
  os << "target = " << file.target << "\n";
  os << "format = " << binaryFormatName(file.format) << "\n";
  os << "block = " << dimsText(file.block) << "\n";
  if (file.grid)
    os << "grid = " << dimsText(*file.grid) << "\n";
  os << "dynamic-shared-bytes = " << file.dynamicSharedBytes << "\n";
  for (const KernelParam &param : file.params)
    os << "param = " << paramText(param) << "\n";
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

/// Checks the first line, the magic and the version.
static Status checkMagic(std::string_view firstLine) {
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
  if (*version != kKernelFileVersion)
    return Status::error("fa4 kernel file version " + std::to_string(*version) +
                         " is not supported; this runtime reads version " +
                         std::to_string(kKernelFileVersion));
  return Status::success();
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
    size_t eq = attr.find('=');
    std::string_view key = attr.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view() : attr.substr(eq + 1);
    if (eq == std::string_view::npos || value.empty())
      return Status::error("tensor-map attribute '" + std::string(attr) +
                           "' is not of the form key=value");
    if (!seen.insert(key).second)
      return Status::error("tensor-map attribute '" + std::string(key) +
                           "' appears twice");
    if (key == "tensor") {
      param.tensor = value;
    } else if (key == "type") {
      std::optional<ElementType> type = parseElementType(value);
      if (!type)
        return Status::error("unknown element type '" + std::string(value) +
                             "' (expected bf16, f16 or f32)");
      param.elementType = *type;
    } else if (key == "box") {
      param.boxDims.clear();
      size_t pos = 0;
      while (true) {
        size_t comma = value.find(',', pos);
        std::optional<uint32_t> dim =
            parseInteger<uint32_t>(value.substr(pos, comma - pos));
        if (!dim)
          return Status::error("box '" + std::string(value) +
                               "' is not a comma-separated list of integers");
        param.boxDims.push_back(*dim);
        if (comma == std::string_view::npos)
          break;
        pos = comma + 1;
      }
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

static Expected<KernelParam> parseParam(std::string_view text) {
  std::vector<std::string_view> parts = words(text);
  if (parts.size() < 2)
    return Status::error("'param' needs a kind and a name");
  std::optional<ParamKind> kind = parseParamKind(parts[0]);
  if (!kind)
    return Status::error("unknown parameter kind '" + std::string(parts[0]) +
                         "' (expected pointer, tensor_map, i32, i64 or f32)");
  KernelParam param;
  param.kind = *kind;
  param.name = parts[1];
  std::vector<std::string_view> attrs(parts.begin() + 2, parts.end());
  if (*kind != ParamKind::TensorMap) {
    if (!attrs.empty())
      return Status::error(
          "parameter '" + param.name + "' of kind " + paramKindName(*kind) +
          " takes no attributes, got '" + std::string(attrs.front()) + "'");
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
  } else if (key == "block" || key == "grid") {
    std::optional<Dim3> dims = parseDims(value);
    if (!dims)
      return Status::error("'" + std::string(key) +
                           "' needs three integers, got '" +
                           std::string(value) + "'");
    if (key == "block")
      file.block = *dims;
    else
      file.grid = *dims;
  } else if (key == "dynamic-shared-bytes") {
    std::optional<uint32_t> bytes = parseInteger<uint32_t>(value);
    if (!bytes)
      return Status::error("'dynamic-shared-bytes' needs an integer, got '" +
                           std::string(value) + "'");
    file.dynamicSharedBytes = *bytes;
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
  if (Status s = checkMagic(contents.substr(0, firstEnd)); !s.ok())
    return s;

  KernelFile file;
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

    if (key != "param" && key != "meta") {
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
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot open kernel file '" + path +
                         "': " + std::strerror(errno));
  std::string contents((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
  if (in.bad())
    return Status::error("cannot read kernel file '" + path +
                         "': " + std::strerror(errno));
  Expected<KernelFile> file = parseKernelFile(contents);
  if (!file.ok())
    return Status::error(path + ": " + file.status().message());
  return file;
}
