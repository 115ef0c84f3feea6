//===- Gemm.cpp - Running the GEMM ----------------------------------------===//
//
// The GEMM under the kernel ABI of Problem.h: random A and B (bf16 or f16), the
// two 2-d tensor maps, C with a guard of one CTA tile of rows after it, the
// grid of 128 x 128 tiles of C, and up to kGemmCheckedRows sampled rows of C
// compared with the reference.
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

  // Row-major [rows, K] is, innermost first, (K, rows) with a row stride of
  // 2·K bytes.
  Expected<CUtensorMap> aMap = encodeTensorMap(
      driver, tensorMapSpec(file.params[0], {p.k, p.m}, {2 * p.k}),
      aBuffer->address());
  if (!aMap.ok())
    return Status::error("a_map: " + aMap.status().message());
  Expected<CUtensorMap> bMap = encodeTensorMap(
      driver, tensorMapSpec(file.params[1], {p.k, p.n}, {2 * p.k}),
      bBuffer->address());
  if (!bMap.ok())
    return Status::error("b_map: " + bMap.status().message());

  Execution execution;
  execution.elementType = p.elementType;
  execution.args.addTensorMap(*aMap)
      .addTensorMap(*bMap)
      .addPointer(cBuffer->address())
      .addI64(int64_t(p.m))
      .addI64(int64_t(p.n))
      .addI64(int64_t(p.k));
  setGrid(execution, file, kernel.driver(),
          {uint32_t((p.m + kGemmTileM - 1) / kGemmTileM),
           uint32_t(p.n / kGemmTileN), 1},
          options.ctas);
  execution.config.block = file.block;
  execution.config.dynamicSharedBytes = file.dynamicSharedBytes;
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
