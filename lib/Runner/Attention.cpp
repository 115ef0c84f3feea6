//===- Attention.cpp - Running attention ----------------------------------===//
//
// Attention through the kernel's launch description (Problem.h): random (or
// given) Q, K and V of the kernel's element type, O and the per-row
// log-sum-exp (f32) each with a guard of one CTA tile of rows after it, all
// bound by name, and up to kAttentionCheckedRows sampled query rows of every
// (batch, head) compared with the reference.
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

  // The launch from the kernel's description. A persistent kernel's static
  // order balances the unequal tiles of a causal mask worse than the
  // hardware does: one CTA per tile unless told (bench/RESULTS.md,
  // 2026-12-01).
  Expected<Launcher> launcher = Launcher::create(kernel, file);
  if (!launcher.ok())
    return launcher.status();
  if (Status s = bindProblem(launcher->binding(), p,
                             {buffers[0].address(), buffers[1].address(),
                              buffers[2].address(), oBuffer->address(),
                              lseBuffer->address()});
      !s.ok())
    return s;
  uint64_t tiles =
      (p.seqQ + kAttentionTileQ - 1) / kAttentionTileQ * p.batch * p.heads;
  if (options.ctas || p.causal)
    launcher->setNumSms(int64_t(options.ctas ? options.ctas : tiles));
  Execution execution;
  execution.elementType = p.elementType;
  if (Status s = prepare(*launcher, execution); !s.ok())
    return s;
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
