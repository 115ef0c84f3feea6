//===- KernelBinary.cpp - the binary part of a kernel file, checked -------===//
//
// What the description says about the binary, checked against the binary
// before a driver sees it: a cubin is a 64-bit little-endian CUDA ELF for the
// SM of the file's target, with the entry as a function symbol and, where
// its .nv.info section lists them, parameters of the sizes the description
// gives in that order; PTX is text whose .target is the file's and that
// defines the entry. A broken or foreign binary is a refusal with the
// reason, not a CUDA error at load or a wrong launch.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/KernelFile.h"

#include <cstring>
#include <map>
#include <string_view>

using namespace fa4::runtime;

namespace {
/// ELF constants this file reads.
constexpr uint16_t kMachineCuda = 190;
constexpr uint8_t kOsAbiCuda = 0x41;
constexpr uint32_t kSectionSymtab = 2;
constexpr uint8_t kSymbolFunction = 2;
/// .nv.info attributes: a parameter's ordinal and size.
constexpr uint8_t kInfoFormatSized = 4;
constexpr uint8_t kInfoParamInfo = 0x17;

template <typename T> T read(std::string_view bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

/// The NUL-terminated string at `offset` of `table`, or nothing.
std::optional<std::string_view> stringAt(std::string_view table,
                                         uint64_t offset) {
  if (offset >= table.size())
    return std::nullopt;
  size_t end = table.find('\0', size_t(offset));
  if (end == std::string_view::npos)
    return std::nullopt;
  return table.substr(size_t(offset), end - size_t(offset));
}

/// The SM number of a target such as sm_90a, sm_100f or sm_90; 0 if none.
unsigned smOf(const std::string &target) {
  if (target.rfind("sm_", 0) != 0)
    return 0;
  unsigned sm = 0;
  size_t i = 3;
  for (; i < target.size() && target[i] >= '0' && target[i] <= '9'; ++i)
    sm = sm * 10 + unsigned(target[i] - '0');
  bool suffix = i == target.size() ||
                (i + 1 == target.size() && (target[i] == 'a' || target[i] == 'f'));
  return i > 3 && suffix ? sm : 0;
}

/// The bytes a parameter of `kind` takes in the kernel's parameter space.
uint32_t paramBytes(ParamKind kind) {
  switch (kind) {
  case ParamKind::TensorMap:
    return 128;
  case ParamKind::Pointer:
  case ParamKind::Counter:
  case ParamKind::I64:
    return 8;
  case ParamKind::I32:
  case ParamKind::F32:
    return 4;
  }
  return 0;
}

struct Section {
  std::string_view name;
  uint32_t type = 0;
  std::string_view contents;
  uint32_t link = 0;
};

Status checkCubin(const KernelFile &file) {
  std::string_view bytes = file.binary;
  std::string kernel = "the cubin of kernel file entry '" + file.entry + "'";
  if (bytes.size() < 64 || bytes.substr(0, 4) != "\x7f"
                                                 "ELF")
    return Status::error(kernel + " is not an ELF file (" +
                         std::to_string(bytes.size()) + " bytes" +
                         (bytes.size() >= 4 ? ", no \\x7fELF magic" : "") +
                         ")");
  if (bytes[4] != 2 || bytes[5] != 1)
    return Status::error(kernel + " is not a 64-bit little-endian ELF");
  uint16_t machine = read<uint16_t>(bytes, 18);
  if (machine != kMachineCuda)
    return Status::error(kernel + " is an ELF for machine " +
                         std::to_string(machine) + ", not CUDA (" +
                         std::to_string(kMachineCuda) + ")");
  unsigned target = smOf(file.target);
  if (!target)
    return Status::error("target '" + file.target +
                         "' is not an architecture such as sm_90a");
  uint32_t flags = read<uint32_t>(bytes, 48);
  unsigned abiVersion = uint8_t(bytes[8]);
  unsigned sm = uint8_t(bytes[7]) == kOsAbiCuda && abiVersion >= 8
                    ? (flags >> 8) & 0xff
                    : flags & 0xff;
  if (sm != target)
    return Status::error("the kernel file says target " + file.target +
                         "; its cubin is for sm_" + std::to_string(sm));

  uint64_t sectionOffset = read<uint64_t>(bytes, 0x28);
  uint16_t entrySize = read<uint16_t>(bytes, 0x3a);
  uint16_t count = read<uint16_t>(bytes, 0x3c);
  uint16_t namesIndex = read<uint16_t>(bytes, 0x3e);
  if (entrySize != 64 || count == 0 || namesIndex >= count ||
      sectionOffset > bytes.size() ||
      (bytes.size() - sectionOffset) / 64 < count)
    return Status::error(kernel + " has a broken section table (" +
                         std::to_string(count) + " sections of " +
                         std::to_string(entrySize) + " bytes at " +
                         std::to_string(sectionOffset) + " in " +
                         std::to_string(bytes.size()) + " bytes)");
  std::vector<Section> sections(count);
  std::vector<std::pair<uint32_t, uint64_t>> nameOffsets(count);
  for (uint16_t i = 0; i < count; ++i) {
    size_t at = size_t(sectionOffset) + size_t(i) * 64;
    uint64_t offset = read<uint64_t>(bytes, at + 24);
    uint64_t size = read<uint64_t>(bytes, at + 32);
    sections[i].type = read<uint32_t>(bytes, at + 4);
    sections[i].link = read<uint32_t>(bytes, at + 40);
    nameOffsets[i] = {i, read<uint32_t>(bytes, at)};
    // SHT_NOBITS (8) occupies no bytes of the file.
    if (sections[i].type != 8) {
      if (offset > bytes.size() || size > bytes.size() - offset)
        return Status::error(kernel + ": section " + std::to_string(i) +
                             " lies outside the file");
      sections[i].contents = bytes.substr(size_t(offset), size_t(size));
    }
  }
  for (auto [i, nameOffset] : nameOffsets)
    sections[i].name =
        stringAt(sections[namesIndex].contents, nameOffset).value_or("");

  // The entry, a function symbol.
  std::vector<std::string> functions;
  bool found = false;
  for (const Section &section : sections) {
    if (section.type != kSectionSymtab || section.link >= count)
      continue;
    std::string_view names = sections[section.link].contents;
    for (size_t at = 0; at + 24 <= section.contents.size(); at += 24) {
      uint8_t info = uint8_t(section.contents[at + 4]);
      if ((info & 0xf) != kSymbolFunction)
        continue;
      std::optional<std::string_view> name =
          stringAt(names, read<uint32_t>(section.contents, at));
      if (!name)
        continue;
      functions.push_back(std::string(*name));
      found |= *name == file.entry;
    }
  }
  if (!found) {
    std::string list;
    for (const std::string &name : functions)
      list += (list.empty() ? "" : ", ") + name;
    return Status::error(kernel + " has no kernel '" + file.entry +
                         "' (its functions: " +
                         (list.empty() ? std::string("none") : list) + ")");
  }

  // The parameters, where the cubin lists them.
  std::map<uint32_t, uint32_t> sizes;
  for (const Section &section : sections) {
    if (section.name != ".nv.info." + file.entry)
      continue;
    std::string_view info = section.contents;
    for (size_t at = 0; at + 4 <= info.size();) {
      uint8_t format = uint8_t(info[at]), attribute = uint8_t(info[at + 1]);
      uint16_t value = read<uint16_t>(info, at + 2);
      at += 4;
      if (format != kInfoFormatSized)
        continue;
      if (value > info.size() - at)
        return Status::error(kernel + ": its .nv.info section is truncated");
      if (attribute == kInfoParamInfo && value >= 12) {
        uint16_t ordinal = read<uint16_t>(info, at + 4);
        uint32_t word = read<uint32_t>(info, at + 8);
        sizes[ordinal] = word >> 18;
      }
      at += value;
    }
  }
  if (sizes.empty())
    return Status::success();
  if (sizes.size() != file.params.size() ||
      sizes.rbegin()->first + 1 != sizes.size())
    return Status::error("the kernel file declares " +
                         std::to_string(file.params.size()) +
                         " parameters; the cubin's kernel '" + file.entry +
                         "' takes " + std::to_string(sizes.size()));
  for (size_t i = 0; i < file.params.size(); ++i) {
    const KernelParam &param = file.params[i];
    if (sizes[uint32_t(i)] != paramBytes(param.kind))
      return Status::error(
          "parameter " + std::to_string(i) + " '" + param.name + "' is a " +
          paramKindName(param.kind) + " of " +
          std::to_string(paramBytes(param.kind)) +
          " bytes; the cubin's parameter " + std::to_string(i) + " has " +
          std::to_string(sizes[uint32_t(i)]));
  }
  return Status::success();
}

Status checkPtx(const KernelFile &file) {
  std::string_view text = file.binary;
  if (text.find('\0') != std::string_view::npos)
    return Status::error("the PTX of kernel file entry '" + file.entry +
                         "' is not text (it holds a NUL byte)");
  size_t target = text.find(".target");
  if (target == std::string_view::npos)
    return Status::error("the PTX of kernel file entry '" + file.entry +
                         "' has no .target directive");
  size_t start = text.find_first_not_of(" \t", target + 7);
  size_t end = start == std::string_view::npos
                   ? std::string_view::npos
                   : text.find_first_of(" \t\n,", start);
  std::string_view named =
      start == std::string_view::npos ? "" : text.substr(start, end - start);
  if (named != file.target)
    return Status::error("the kernel file says target " + file.target +
                         "; its PTX is for " + std::string(named));
  for (size_t at = text.find(".entry"); at != std::string_view::npos;
       at = text.find(".entry", at + 6)) {
    size_t name = text.find_first_not_of(" \t", at + 6);
    if (name != std::string_view::npos &&
        text.substr(name, file.entry.size()) == file.entry) {
      size_t after = name + file.entry.size();
      if (after == text.size() || text[after] == '(' || text[after] == ' ' ||
          text[after] == '\n' || text[after] == '\t')
        return Status::success();
    }
  }
  return Status::error("the PTX of kernel file entry '" + file.entry +
                       "' defines no .entry " + file.entry);
}
} // namespace

Status fa4::runtime::verifyKernelBinary(const KernelFile &file) {
  if (file.binary.empty())
    return Status::error("the kernel binary is empty");
  return file.format == BinaryFormat::Cubin ? checkCubin(file)
                                            : checkPtx(file);
}
