//===- CompileStub.cpp - fa4-run built without the compiler ---------------===//
//
// The compile hook of an fa4-run built with -DFA4_ENABLE_COMPILER=OFF: it can
// only run kernel files.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

bool fa4::run::hasCompiler() { return false; }

fa4::runtime::Expected<fa4::run::CompiledKernel>
fa4::run::compileShipped(const KernelKey &key, const std::string &,
                         const std::string &, bool) {
  return runtime::Status::error(
      "--kernel FILE is required: this fa4-run was built without the compiler "
      "and cannot compile '" +
      key.name() + "' (compile it with fa4-translate --emit=kernel)");
}
