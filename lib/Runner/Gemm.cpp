//===- Gemm.cpp - Running the GEMM ----------------------------------------===//
//
// The GEMM through the kernel's launch description (Problem.h): random A and
// B (bf16 or f16) and C with a guard of one CTA tile of rows after it, bound
// by name, and up to kGemmCheckedRows sampled rows of C compared with the
// reference.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Random.h"
#include "fa4/Runner/Reference.h"
#include "fa4/Runner/Run.h"

#include "Execution.h"

using namespace fa4::runner;
using namespace fa4::runtime;

Expected<RunResult> fa4::runner::run(const Kernel &kernel,
                                     const KernelFile &file,
                                     const GemmProblem &p,
                                     const RunOptions &options) {
  const Driver &driver = kernel.driver();
  std::vector<uint16_t> a(p.m * p.k), b(p.n * p.k);
  fillUniform(a, p.elementType, options.seed, 0);
  fillUniform(b, p.elementType, options.seed, 1);

  Expected<DeviceBuffer> aBuffer = upload(driver, a, a.size());
  if (!aBuffer.ok())
    return aBuffer.status();
  Expected<DeviceBuffer> bBuffer = upload(driver, b, b.size());
  if (!bBuffer.ok())
    return bBuffer.status();
  uint64_t guardElements = kGemmTileM * p.n;
  Expected<DeviceBuffer> cBuffer =
      upload(driver, {}, p.m * p.n + guardElements);
  if (!cBuffer.ok())
    return cBuffer.status();

  Expected<Launcher> launcher = Launcher::create(kernel, file);
  if (!launcher.ok())
    return launcher.status();
  if (Status s = bindProblem(
          launcher->binding(), p,
          {aBuffer->address(), bBuffer->address(), cBuffer->address()});
      !s.ok())
    return s;
  if (options.ctas)
    launcher->setNumSms(int64_t(options.ctas));
  Execution execution;
  execution.elementType = p.elementType;
  if (Status s = prepare(*launcher, execution); !s.ok())
    return s;
  execution.output = &*cBuffer;
  execution.outputElements = p.m * p.n;
  execution.guardElements = guardElements;
  execution.cols = p.n;
  execution.rows = sampleRows(p.m, kGemmCheckedRows);
  execution.reference = [&] { return referenceGemm(p, a, b, execution.rows); };
  execution.naming.name = [](uint64_t row) {
    return "row " + std::to_string(row);
  };
  execution.naming.tilePosition = [](uint64_t row) { return row % kGemmTileM; };

  RunResult result;
  result.problem = describe(p);
  result.flops = flops(p);
  return execute(kernel, execution, options, std::move(result));
}
