//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// The .npy format: the magic "\x93NUMPY", a major and a minor version byte, a
// little-endian header length (2 bytes in 1.0, 4 in 2.0), then an ASCII
// Python dict literal with 'descr', 'fortran_order' and 'shape', padded with
// spaces to a 64-byte boundary and ended by '\n', then the data. The header
// is parsed by a small recursive-descent reader of exactly those literals.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Npy.h"

#include "fa4/KernelFormat/Files.h"
#include "fa4/Runner/Element.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

using namespace fa4::runner;
using fa4::runtime::ElementType;
using fa4::runtime::Expected;
using fa4::runtime::Status;

/// The magic that starts every .npy file.
static constexpr std::string_view kMagic = "\x93NUMPY";

/// Bytes of one element of `type`.
static uint64_t itemSize(NpyType type) {
  switch (type) {
  case NpyType::BF16Bits:
  case NpyType::F16:
    return 2;
  case NpyType::F32:
  case NpyType::I32:
    return 4;
  case NpyType::I64:
    return 8;
  }
  return 2;
}

const char *fa4::runner::npyDescr(NpyType type) {
  switch (type) {
  case NpyType::BF16Bits:
    return "<u2";
  case NpyType::F16:
    return "<f2";
  case NpyType::F32:
    return "<f4";
  case NpyType::I32:
    return "<i4";
  case NpyType::I64:
    return "<i8";
  }
  return "";
}

uint64_t NpyArray::elements() const {
  uint64_t count = 1;
  for (uint64_t dim : shape)
    count *= dim;
  return count;
}

std::string NpyArray::shapeText() const {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

namespace {
/// The values of the header dict that fa4-run reads.
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<uint64_t>> shape;
};

/// A reader of the header's Python dict literal.
class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string &name)
      : text(text), name(name) {}

  /// Parses the whole header into `header`.
  Status parse(Header &header) {
    skipSpace();
    if (!consume('{'))
      return expected("'{'");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (Status s = string(key); !s.ok())
        return s;
      skipSpace();
      if (!consume(':'))
        return expected("':'");
      skipSpace();
      Status s = Status::success();
      if ((key == "descr" && header.descr) ||
          (key == "fortran_order" && header.fortranOrder) ||
          (key == "shape" && header.shape))
        return Status::error(name + ": key '" + key +
                             "' appears twice in the .npy header");
      if (key == "descr")
        s = string(header.descr.emplace());
      else if (key == "fortran_order")
        s = boolean(header.fortranOrder.emplace());
      else if (key == "shape")
        s = tuple(header.shape.emplace());
      else
        return Status::error(name + ": unexpected key '" + key +
                             "' in the .npy header");
      if (!s.ok())
        return s;
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (!consume('}'))
        return expected("',' or '}'");
      break;
    }
    skipSpace();
    if (pos != text.size())
      return expected("the end of the header");
    return Status::success();
  }

private:
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\t' || text[pos] == '\r'))
      ++pos;
  }
  bool consume(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  Status expected(const char *what) {
    return Status::error(name + ": malformed .npy header: expected " + what +
                         " at byte " + std::to_string(pos) + " of the header");
  }
  /// A quoted string without escapes.
  Status string(std::string &value) {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return expected("a quoted string");
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string_view::npos)
      return expected("a closing quote");
    value = std::string(text.substr(pos, end - pos));
    pos = end + 1;
    return Status::success();
  }
  Status boolean(bool &value) {
    for (auto [word, meaning] : {std::pair{"True", true}, {"False", false}})
      if (text.substr(pos, std::strlen(word)) == word) {
        pos += std::strlen(word);
        value = meaning;
        return Status::success();
      }
    return expected("True or False");
  }
  /// A tuple of non-negative integers: "()", "(5,)", "(2, 3)".
  Status tuple(std::vector<uint64_t> &values) {
    if (!consume('('))
      return expected("'('");
    while (true) {
      skipSpace();
      if (consume(')'))
        return Status::success();
      if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
        return expected("a dimension");
      // Python's literal 01 is a syntax error; so it is here.
      if (text[pos] == '0' && pos + 1 < text.size() && text[pos + 1] >= '0' &&
          text[pos + 1] <= '9')
        return Status::error(name + ": malformed .npy header: the dimension "
                                    "at byte " +
                             std::to_string(pos) +
                             " of the header has a leading zero");
      uint64_t value = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (value > (uint64_t(1) << 40))
          return Status::error(name + ": a dimension of the shape exceeds "
                                      "2^40");
        value = value * 10 + uint64_t(text[pos++] - '0');
      }
      values.push_back(value);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (!consume(')'))
        return expected("',' or ')'");
      return Status::success();
    }
  }

  std::string_view text;
  const std::string &name;
  size_t pos = 0;
};
} // namespace

/// The little-endian unsigned integer of `size` bytes at `bytes`.
static uint64_t littleEndian(std::string_view bytes, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i)
    value |= uint64_t(uint8_t(bytes[i])) << (8 * i);
  return value;
}

Expected<NpyArray> fa4::runner::parseNpy(std::string_view bytes,
                                         const std::string &name) {
  if (bytes.substr(0, kMagic.size()) != kMagic)
    return Status::error(name + ": bad magic: not a .npy file");
  if (bytes.size() < kMagic.size() + 2)
    return Status::error(name + ": truncated: the file ends in the .npy "
                                "preamble");
  unsigned major = uint8_t(bytes[6]), minor = uint8_t(bytes[7]);
  if ((major != 1 && major != 2) || minor != 0)
    return Status::error(name + ": unsupported .npy version " +
                         std::to_string(major) + "." + std::to_string(minor) +
                         "; fa4-run reads 1.0 and 2.0");
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t start = 8 + lengthBytes;
  if (bytes.size() < start)
    return Status::error(name + ": truncated: the file ends in the .npy "
                                "preamble");
  uint64_t headerLength = littleEndian(bytes.substr(8), lengthBytes);
  if (bytes.size() - start < headerLength)
    return Status::error(name + ": truncated: the header needs " +
                         std::to_string(headerLength) + " bytes, " +
                         std::to_string(bytes.size() - start) + " follow");
  Header header;
  if (Status s =
          HeaderParser(bytes.substr(start, headerLength), name).parse(header);
      !s.ok())
    return s;
  if (!header.descr || !header.fortranOrder || !header.shape)
    return Status::error(name + ": the .npy header lacks '" +
                         std::string(!header.descr          ? "descr"
                                     : !header.fortranOrder ? "fortran_order"
                                                            : "shape") +
                         "'");
  NpyArray array;
  if (*header.descr == "<u2")
    array.type = NpyType::BF16Bits;
  else if (*header.descr == "<f2")
    array.type = NpyType::F16;
  else if (*header.descr == "<f4")
    array.type = NpyType::F32;
  else if (*header.descr == "<i4")
    array.type = NpyType::I32;
  else if (*header.descr == "<i8")
    array.type = NpyType::I64;
  else
    return Status::error(name + ": unsupported dtype '" + *header.descr +
                         "'; fa4-run reads '<u2' (bf16 bits), '<f2', '<f4', "
                         "'<i4' and '<i8'");
  if (*header.fortranOrder)
    return Status::error(name + ": fortran_order is True; fa4-run reads "
                                "C-order arrays only");
  array.shape = *header.shape;
  // Each dimension is at most 2^40; stop before the product overflows.
  uint64_t elements = 1;
  for (uint64_t dim : array.shape) {
    if (dim != 0 && elements > (uint64_t(1) << 60) / dim)
      return Status::error(name + ": shape " + array.shapeText() +
                           " is too large");
    elements *= dim;
  }
  uint64_t need = elements * itemSize(array.type);
  uint64_t have = bytes.size() - start - headerLength;
  std::string what = "shape " + array.shapeText() + " of '" +
                     npyDescr(array.type) + "' needs " + std::to_string(need) +
                     " bytes of data";
  if (have < need)
    return Status::error(name + ": truncated: " + what + ", the file has " +
                         std::to_string(have));
  if (have > need)
    return Status::error(name + ": " + what + ", the file has " +
                         std::to_string(have));
  array.data = std::string(bytes.substr(start + headerLength));
  return array;
}

Expected<NpyArray> fa4::runner::readNpy(const std::string &path) {
  // Bounded by the file's size; a larger input than this is not one the
  // host could hold beside its reference.
  constexpr uint64_t kMaxNpyBytes = 64ull << 30;
  Expected<std::string> bytes =
      runtime::readRegularFile(path, ".npy file", kMaxNpyBytes);
  if (!bytes.ok())
    return bytes.status();
  return parseNpy(*bytes, path);
}

std::vector<uint16_t> fa4::runner::toWords(const NpyArray &array,
                                           ElementType type) {
  uint64_t count = array.elements();
  std::vector<uint16_t> words(count);
  uint64_t size = itemSize(array.type);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t bits = littleEndian(std::string_view(array.data).substr(i * size),
                                 size_t(size));
    float value;
    if (array.type == NpyType::F32) {
      uint32_t word = uint32_t(bits);
      std::memcpy(&value, &word, sizeof(value));
    } else if (array.type == NpyType::I32) {
      value = float(int32_t(uint32_t(bits)));
    } else if (array.type == NpyType::I64) {
      value = float(int64_t(bits));
    } else {
      ElementType from =
          array.type == NpyType::F16 ? ElementType::F16 : ElementType::BF16;
      value = fromWord(from, uint16_t(bits));
    }
    words[i] = toWord(type, value);
  }
  return words;
}

Expected<std::vector<int64_t>>
fa4::runner::toIntegers(const NpyArray &array, const std::string &name) {
  if (array.type != NpyType::I32 && array.type != NpyType::I64)
    return Status::error(name + ": dtype '" + npyDescr(array.type) +
                         "' is not an integer one ('<i4' or '<i8')");
  uint64_t size = itemSize(array.type), count = array.elements();
  std::vector<int64_t> values(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t bits = littleEndian(std::string_view(array.data).substr(i * size),
                                 size_t(size));
    values[i] = array.type == NpyType::I32 ? int64_t(int32_t(uint32_t(bits)))
                                           : int64_t(bits);
  }
  return values;
}

/// A version 1.0 .npy header of `descr` and `shape` followed by `data`.
static std::string npyBytes(const char *descr,
                            const std::vector<uint64_t> &shape,
                            const std::string &data) {
  NpyArray array;
  array.shape = shape;
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " +
                       array.shapeText() + ", }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  size_t total = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string bytes(kMagic);
  bytes += char(1);
  bytes += char(0);
  bytes += char(header.size() & 0xff);
  bytes += char(header.size() >> 8);
  bytes += header;
  return bytes + data;
}

std::string fa4::runner::serializeNpy(ElementType type,
                                      const std::vector<uint64_t> &shape,
                                      const std::vector<uint16_t> &words) {
  std::string data;
  for (uint16_t word : words) {
    data += char(word & 0xff);
    data += char(word >> 8);
  }
  return npyBytes(
      npyDescr(type == ElementType::F16 ? NpyType::F16 : NpyType::BF16Bits),
      shape, data);
}

std::string fa4::runner::serializeNpy(const std::vector<uint64_t> &shape,
                                      const std::vector<float> &values) {
  std::string data;
  for (float value : values) {
    uint32_t word;
    std::memcpy(&word, &value, sizeof(word));
    for (unsigned byte = 0; byte < 4; ++byte)
      data += char((word >> (8 * byte)) & 0xff);
  }
  return npyBytes(npyDescr(NpyType::F32), shape, data);
}

/// Writes `bytes` to the file at `path`.
static Status writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return Status::error("cannot write '" + path +
                         "': " + std::strerror(errno));
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  if (!out)
    return Status::error("cannot write '" + path + "'");
  return Status::success();
}

Status fa4::runner::writeNpy(const std::string &path, ElementType type,
                             const std::vector<uint64_t> &shape,
                             const std::vector<uint16_t> &words) {
  return writeFile(path, serializeNpy(type, shape, words));
}

Status fa4::runner::writeNpy(const std::string &path,
                             const std::vector<uint64_t> &shape,
                             const std::vector<float> &values) {
  return writeFile(path, serializeNpy(shape, values));
}

Status fa4::runner::writeNpy(const std::string &path,
                             const std::vector<uint64_t> &shape,
                             const std::vector<int32_t> &values) {
  std::string data;
  for (int32_t value : values)
    for (unsigned byte = 0; byte < 4; ++byte)
      data += char((uint32_t(value) >> (8 * byte)) & 0xff);
  return writeFile(path, npyBytes(npyDescr(NpyType::I32), shape, data));
}
