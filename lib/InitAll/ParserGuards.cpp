//===- ParserGuards.cpp - input MLIR's parser would crash on --------------===//
//
// MLIR 22's parser crashes, instead of reporting an error, on two inputs a
// user can write: a dense array whose element type is neither an integer
// nor a float (parseDenseArrayAttr asks the type for its bit width:
// `module attributes {x = array<index: 1>} {}` is a SIGSEGV in
// mlir::FloatType::getWidth), and an llvm.insertvalue or llvm.extractvalue
// position of 2^32 or more (its bounds check reads the position as 32 bits
// and then indexes the struct with all 64), on the op's line or any line
// before its position list closes. fa4's tools look for both in the text
// before they parse, outside comments and strings (a string ends at the end
// of its line, as MLIR's lexer ends an unterminated one), and refuse them
// with the line and column.
//
//===----------------------------------------------------------------------===//

#include "fa4/InitAll.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// Whether `type`, the element type of a dense array, is one MLIR's parser
/// can size: iN, siN, uiN, or a float type (f16, bf16, f32, f64, ...).
static bool sizedElementType(llvm::StringRef type) {
  for (llvm::StringRef prefix : {"si", "ui", "i"})
    if (type.consume_front(prefix))
      return !type.empty() && llvm::all_of(type, llvm::isDigit);
  return type.starts_with("f") || type.starts_with("bf") ||
         type.starts_with("tf");
}

LogicalResult mlir::fa4::checkParserHazards(const llvm::MemoryBuffer &buffer,
                                            llvm::raw_ostream &os) {
  llvm::StringRef text = buffer.getBuffer();
  unsigned line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '/' && text.substr(i, 2) == "//") {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '"') {
      // A string ends at its closing quote or, as MLIR's lexer ends one, at
      // the end of its line (the lexer reports it and parsing goes on).
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n')
          ++i;
        else if (text[i] == '\n') {
          --i;
          break;
        }
      }
    } else if ((text.substr(i, 16) == "llvm.insertvalue" ||
                text.substr(i, 17) == "llvm.extractvalue")) {
      // The op's positions: every integer from the op's name to the `]`
      // that closes its position list, on however many lines.
      bool insert = text[i + 5] == 'i';
      size_t open = text.find('[', i);
      size_t close =
          open == llvm::StringRef::npos ? open : text.find(']', open);
      size_t end = close == llvm::StringRef::npos ? text.size() : close;
      unsigned digitsLine = line;
      size_t digitsLineStart = lineStart;
      for (size_t j = i; j < end; ++j) {
        if (text[j] == '\n') {
          ++digitsLine;
          digitsLineStart = j + 1;
          continue;
        }
        if (!llvm::isDigit(text[j]) ||
            (llvm::isAlnum(text[j - 1]) || text[j - 1] == '_'))
          continue;
        size_t k = j;
        while (k < end && llvm::isDigit(text[k]))
          ++k;
        llvm::StringRef digits = text.substr(j, k - j);
        uint64_t value = 0;
        if (digits.size() >= 10 &&
            (digits.getAsInteger(10, value) || value >= (uint64_t(1) << 32))) {
          os << buffer.getBufferIdentifier() << ":" << digitsLine << ":"
             << (j - digitsLineStart + 1) << ": error: position " << digits
             << " of " << (insert ? "llvm.insertvalue" : "llvm.extractvalue")
             << " is 2^32 or more; MLIR's parser crashes on such positions, "
                "so fa4's tools refuse them (no struct or array has that "
                "many elements)\n";
          return failure();
        }
        j = k - 1;
      }
      i += 15;
    } else if (text.substr(i, 6) == "array<" &&
               (i == 0 || !(llvm::isAlnum(text[i - 1]) || text[i - 1] == '_' ||
                            text[i - 1] == '.'))) {
      size_t start = i + 6;
      while (start < text.size() && (text[start] == ' ' || text[start] == '\t'))
        ++start;
      size_t end = start;
      while (end < text.size() &&
             (llvm::isAlnum(text[end]) || text[end] == '_' || text[end] == '!' ||
              text[end] == '.'))
        ++end;
      llvm::StringRef type = text.substr(start, end - start);
      if (!type.empty() && !sizedElementType(type)) {
        os << buffer.getBufferIdentifier() << ":" << line << ":"
           << (i - lineStart + 1) << ": error: array<" << type
           << ": ...> is a dense array of '" << type
           << "'; MLIR's parser crashes on dense arrays of anything but "
              "integers and floats, so fa4's tools refuse it (write "
              "array<i64: ...>)\n";
        return failure();
      }
      i = end ? end - 1 : i;
    }
  }
  return success();
}
