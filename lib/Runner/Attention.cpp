//===- Attention.cpp - Running attention ----------------------------------===//
//
// Attention under the kernel ABI of Problem.h: random (or given) Q, K and V
// of the kernel's element type, three 3-d tensor maps over the [B·H, S, D]
// views, O and the per-row log-sum-exp (f32) each with a guard of one CTA
// tile of rows after it, the grid of 128-row
// query tiles by heads, and up to kAttentionCheckedRows sampled query rows of
// every (batch, head) compared with the reference.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Random.h"
#include "fa4/Runner/Reference.h"
#include "fa4/Runner/Run.h"

#include "Execution.h"

#include <cmath>

using namespace fa4::runner;
using namespace fa4::runtime;

Expected<RunResult> fa4::runner::run(const Kernel &kernel,
                                     const KernelFile &file,
                                     const AttentionProblem &p,
                                     const RunOptions &options,
                                     const AttentionInputs *given) {
  const Driver &driver = kernel.driver();
  uint64_t heads = p.batch * p.heads, d = p.headDim;
  AttentionInputs drawn;
  if (!given) {
    drawn.q.resize(heads * p.seqQ * d);
    drawn.k.resize(heads * p.seqK * d);
    drawn.v.resize(heads * p.seqK * d);
    fillUniform(drawn.q, p.elementType, options.seed, 0);
    fillUniform(drawn.k, p.elementType, options.seed, 1);
    fillUniform(drawn.v, p.elementType, options.seed, 2);
  }
  const AttentionInputs &inputs = given ? *given : drawn;
  const std::vector<uint16_t> &q = inputs.q, &k = inputs.k, &v = inputs.v;

  std::vector<DeviceBuffer> buffers;
  for (const std::vector<uint16_t> *host : {&q, &k, &v}) {
    Expected<DeviceBuffer> buffer = upload(driver, *host, host->size());
    if (!buffer.ok())
      return buffer.status();
    buffers.push_back(buffer.take());
  }
  uint64_t guardElements = kAttentionTileQ * d;
  Expected<DeviceBuffer> oBuffer = upload(driver, {}, q.size() + guardElements);
  if (!oBuffer.ok())
    return oBuffer.status();
  // The log-sum-exp: one f32 per query row, and a guard of one CTA tile.
  uint64_t lseRows = heads * p.seqQ;
  Expected<DeviceBuffer> lseBuffer =
      DeviceBuffer::allocate(driver, (lseRows + kAttentionTileQ) * 4);
  if (!lseBuffer.ok())
    return lseBuffer.status();

  // [B·H, S, D] is, innermost first, (D, S, B·H) with strides 2·D and 2·S·D.
  const char *names[] = {"q_map", "k_map", "v_map"};
  Execution execution;
  execution.elementType = p.elementType;
  for (unsigned i = 0; i < 3; ++i) {
    uint64_t seq = i == 0 ? p.seqQ : p.seqK;
    Expected<CUtensorMap> map = encodeTensorMap(
        driver,
        tensorMapSpec(file.params[i], {d, seq, heads}, {2 * d, 2 * seq * d}),
        buffers[i].address());
    if (!map.ok())
      return Status::error(std::string(names[i]) + ": " +
                           map.status().message());
    execution.args.addTensorMap(*map);
  }
  execution.args.addPointer(oBuffer->address())
      .addPointer(lseBuffer->address())
      .addI64(int64_t(p.seqQ))
      .addI64(int64_t(p.seqK))
      .addF32(float(p.scale * M_LOG2E))
      .addI32(p.causal ? 1 : 0);
  // A persistent kernel's static order balances the unequal tiles of a
  // causal mask worse than the hardware does: one CTA per tile unless told
  // (bench/RESULTS.md, 2026-12-01).
  Dim3 tiles = {uint32_t((p.seqQ + kAttentionTileQ - 1) / kAttentionTileQ),
                uint32_t(heads), 1};
  setGrid(execution, file, driver, tiles,
          options.ctas || !p.causal ? options.ctas : tiles.count());
  execution.config.block = file.block;
  execution.config.dynamicSharedBytes = file.dynamicSharedBytes;
  execution.output = &*oBuffer;
  execution.outputElements = q.size();
  execution.guardElements = guardElements;
  execution.rowValues = &*lseBuffer;
  execution.rowValueGuard = kAttentionTileQ;
  execution.cols = d;
  for (uint64_t head = 0; head < heads; ++head)
    for (uint64_t row : sampleRows(p.seqQ, kAttentionCheckedRows))
      execution.rows.push_back(head * p.seqQ + row);
  execution.reference = [&] {
    return referenceAttention(p, q, k, v, execution.rows,
                              &execution.rowValueReference);
  };
  uint64_t seqQ = p.seqQ, numHeads = p.heads;
  execution.naming.name = [seqQ, numHeads](uint64_t row) {
    uint64_t head = row / seqQ;
    return "b=" + std::to_string(head / numHeads) +
           " h=" + std::to_string(head % numHeads) + " row " +
           std::to_string(row % seqQ);
  };
  execution.naming.tilePosition = [seqQ](uint64_t row) {
    return row % seqQ % kAttentionTileQ;
  };

  RunResult result;
  result.problem = describe(p);
  result.flops = flops(p);
  return execute(kernel, execution, options, std::move(result));
}
