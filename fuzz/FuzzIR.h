//===- FuzzIR.h - parsing a fuzz input as fa4 IR ----------------*- C++ -*-===//
//
// What the IR fuzz targets share: a context with every dialect fa4's tools
// register, its diagnostics dropped, and the input parsed (after the guards
// fa4's tools run first) and verified.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_FUZZ_FUZZIR_H
#define FA4_FUZZ_FUZZIR_H

#include "fa4/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace fa4::fuzz {

/// A context for the fuzz inputs, made once: every dialect, diagnostics
/// discarded, threading off.
inline mlir::MLIRContext &context(
    void (*registerMore)(mlir::DialectRegistry &) = nullptr) {
  static mlir::MLIRContext *ctx = [&] {
    mlir::DialectRegistry registry;
    mlir::fa4::registerAllDialects(registry);
    if (registerMore)
      registerMore(registry);
    auto *c = new mlir::MLIRContext(registry,
                                    mlir::MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    c->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
    return c;
  }();
  return *ctx;
}

/// The input parsed and verified, or null.
inline mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &ctx,
                                               const uint8_t *data,
                                               size_t size) {
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "input");
  std::string ignored;
  llvm::raw_string_ostream os(ignored);
  if (mlir::failed(mlir::fa4::checkParserHazards(*buffer, os)))
    return nullptr;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &ctx);
  if (!module || mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

} // namespace fa4::fuzz

#endif // FA4_FUZZ_FUZZIR_H
