//===- Types.cpp - Runtime vocabulary -------------------------------------===//
//
// Sizes and names of the runtime's value types. The names are the spellings
// used in kernel files, so changing one is a kernel-file format change.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/Types.h"

using namespace fa4::runtime;

unsigned fa4::runtime::elementSize(ElementType type) {
  switch (type) {
  case ElementType::BF16:
  case ElementType::F16:
    return 2;
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  }
  return 0;
}

const char *fa4::runtime::elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::BF16:
    return "bf16";
  case ElementType::F16:
    return "f16";
  case ElementType::F32:
    return "f32";
  case ElementType::I32:
    return "i32";
  }
  return "?";
}

std::optional<ElementType>
fa4::runtime::parseElementType(std::string_view name) {
  for (ElementType type :
       {ElementType::BF16, ElementType::F16, ElementType::F32, ElementType::I32})
    if (name == elementTypeName(type))
      return type;
  return std::nullopt;
}

unsigned fa4::runtime::swizzleBytes(Swizzle swizzle) {
  switch (swizzle) {
  case Swizzle::None:
    return 0;
  case Swizzle::B32:
    return 32;
  case Swizzle::B64:
    return 64;
  case Swizzle::B128:
    return 128;
  }
  return 0;
}

std::optional<Swizzle> fa4::runtime::swizzleFromBytes(unsigned bytes) {
  for (Swizzle swizzle :
       {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128})
    if (swizzleBytes(swizzle) == bytes)
      return swizzle;
  return std::nullopt;
}

const char *fa4::runtime::paramKindName(ParamKind kind) {
  switch (kind) {
  case ParamKind::Pointer:
    return "pointer";
  case ParamKind::TensorMap:
    return "tensor_map";
  case ParamKind::I32:
    return "i32";
  case ParamKind::I64:
    return "i64";
  case ParamKind::F32:
    return "f32";
  case ParamKind::Counter:
    return "counter";
  }
  return "?";
}

std::optional<ParamKind> fa4::runtime::parseParamKind(std::string_view name) {
  for (ParamKind kind :
       {ParamKind::Pointer, ParamKind::TensorMap, ParamKind::I32,
        ParamKind::I64, ParamKind::F32, ParamKind::Counter})
    if (name == paramKindName(kind))
      return kind;
  return std::nullopt;
}

size_t fa4::runtime::paramKindSize(ParamKind kind) {
  switch (kind) {
  case ParamKind::Pointer:
  case ParamKind::Counter:
  case ParamKind::I64:
    return 8;
  case ParamKind::TensorMap:
    return 128;
  case ParamKind::I32:
  case ParamKind::F32:
    return 4;
  }
  return 0;
}

const char *fa4::runtime::binaryFormatName(BinaryFormat format) {
  switch (format) {
  case BinaryFormat::Cubin:
    return "cubin";
  case BinaryFormat::PTX:
    return "ptx";
  }
  return "?";
}

std::optional<BinaryFormat>
fa4::runtime::parseBinaryFormat(std::string_view name) {
  for (BinaryFormat format : {BinaryFormat::Cubin, BinaryFormat::PTX})
    if (name == binaryFormatName(format))
      return format;
  return std::nullopt;
}

std::string Dim3::str() const {
  return std::to_string(x) + " x " + std::to_string(y) + " x " +
         std::to_string(z);
}

const char *fa4::runtime::oobFillName(OobFill fill) {
  return fill == OobFill::Zero ? "zero" : "nan";
}

std::optional<OobFill> fa4::runtime::parseOobFill(std::string_view name) {
  for (OobFill fill : {OobFill::Zero, OobFill::NaN})
    if (name == oobFillName(fill))
      return fill;
  return std::nullopt;
}

std::string fa4::runtime::shapeText(const std::vector<int64_t> &shape) {
  std::string text;
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? "x" : "") + std::to_string(shape[d]);
  return text.empty() ? "()" : text;
}
