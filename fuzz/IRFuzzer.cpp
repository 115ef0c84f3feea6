//===- IRFuzzer.cpp - the fa4/tile IR parser and verifier under libFuzzer -===//
//
// Any text as IR: the guards, the parser and the verifiers of every dialect
// fa4's tools register; an accepted module is printed and parsed again.
//
//===----------------------------------------------------------------------===//

#include "FuzzIR.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &ctx = fa4::fuzz::context();
  mlir::OwningOpRef<mlir::ModuleOp> module = fa4::fuzz::parse(ctx, data, size);
  if (!module)
    return 0;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  // What the printer writes, the parser reads.
  if (!fa4::fuzz::parse(ctx, reinterpret_cast<const uint8_t *>(text.data()),
                        text.size()))
    std::abort();
  return 0;
}
