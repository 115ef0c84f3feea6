//===- Attention.cpp - Running attention ----------------------------------===//
//
// Attention through the kernel's launch description (Problem.h): random (or
// given) Q, K and V of the kernel's element type (V and O with V's head dim),
// (B, H, S, D) on the host
// and in the problem's layout on the device ((T, H, D) both for packed
// sequences, with their offsets), O and the per-row log-sum-exp
// (f32) each with a guard of one CTA tile of rows after it, all bound by
// name, and up to kAttentionCheckedRows sampled query rows of every (batch,
// head) compared with the reference.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Random.h"
#include "fa4/Runner/Reference.h"
#include "fa4/Runner/Run.h"

#include "Execution.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace fa4::runner;
using namespace fa4::runtime;

std::vector<uint16_t>
fa4::runner::swapHeadsAndRows(const std::vector<uint16_t> &words, uint64_t b,
                              uint64_t x, uint64_t y, uint64_t d) {
  std::vector<uint16_t> swapped(words.size());
  for (uint64_t i = 0; i < b; ++i)
    for (uint64_t j = 0; j < x; ++j)
      for (uint64_t k = 0; k < y; ++k)
        std::copy_n(&words[((i * x + j) * y + k) * d], d,
                    &swapped[((i * y + k) * x + j) * d]);
  return swapped;
}

Expected<RunResult> fa4::runner::run(const Kernel &kernel,
                                     const KernelFile &file,
                                     const AttentionProblem &p,
                                     const RunOptions &options,
                                     const AttentionInputs *given) {
  const Driver &driver = kernel.driver();
  uint64_t d = p.headDim, dv = p.valueHeadDim();
  AttentionInputs drawn;
  if (!given) {
    drawn.q.resize(p.totalQ() * p.heads * d);
    drawn.k.resize(p.totalK() * p.keyHeads() * d);
    drawn.v.resize(p.totalK() * p.keyHeads() * dv);
    fillUniform(drawn.q, p.elementType, options.seed, 0);
    fillUniform(drawn.k, p.elementType, options.seed, 1);
    fillUniform(drawn.v, p.elementType, options.seed, 2);
  }
  const AttentionInputs &inputs = given ? *given : drawn;
  const std::vector<uint16_t> &q = inputs.q, &k = inputs.k, &v = inputs.v;

  // The host tensors are (B, H, S, D), or (T, H, D) for packed sequences;
  // the device ones in the problem's layout.
  bool varlen = p.isVarlen();
  bool bshd = !varlen && p.layout == AttentionLayout::BSHD;
  std::vector<DeviceBuffer> buffers;
  for (auto [host, h, seq, dim] : {std::tuple{&q, p.heads, p.seqQ, d},
                                   {&k, p.keyHeads(), p.seqK, d},
                                   {&v, p.keyHeads(), p.seqK, dv}}) {
    std::vector<uint16_t> swapped;
    if (bshd)
      swapped = swapHeadsAndRows(*host, p.batch, h, seq, dim);
    const std::vector<uint16_t> &device = bshd ? swapped : *host;
    Expected<DeviceBuffer> buffer = upload(driver, device, device.size());
    if (!buffer.ok())
      return buffer.status();
    buffers.push_back(buffer.take());
  }
  // O: a row of Dv per query row, and a guard of one CTA tile.
  uint64_t queryRows = p.totalQ() * p.heads;
  uint64_t outputElements = queryRows * dv,
           guardElements = kAttentionTileQ * dv;
  Expected<DeviceBuffer> oBuffer =
      upload(driver, {}, outputElements + guardElements);
  if (!oBuffer.ok())
    return oBuffer.status();
  // The log-sum-exp: one f32 per query row, and a guard of one CTA tile.
  Expected<DeviceBuffer> lseBuffer =
      DeviceBuffer::allocate(driver, (queryRows + kAttentionTileQ) * 4);
  if (!lseBuffer.ok())
    return lseBuffer.status();
  // Packed sequences: their offsets and the blocks to compute, i32.
  std::vector<uint64_t> startsQ = p.offsetsQ(), startsK = p.offsetsK();
  std::vector<DeviceBuffer> offsetBuffers;
  if (varlen)
    for (std::vector<int32_t> words :
         {std::vector<int32_t>(startsQ.begin(), startsQ.end()),
          std::vector<int32_t>(startsK.begin(), startsK.end()),
          varlenTiles(p)}) {
      Expected<DeviceBuffer> buffer =
          DeviceBuffer::allocate(driver, words.size() * 4);
      if (!buffer.ok())
        return buffer.status();
      if (Status s = buffer->copyFromHost(words.data(), words.size() * 4);
          !s.ok())
        return s;
      offsetBuffers.push_back(buffer.take());
    }

  // The launch from the kernel's description; a persistent kernel on one
  // CTA per SM unless told (its folded order balances a causal mask's
  // unequal tiles).
  Expected<Launcher> launcher = Launcher::create(kernel, file);
  if (!launcher.ok())
    return launcher.status();
  AttentionAddresses addresses = {buffers[0].address(), buffers[1].address(),
                                  buffers[2].address(), oBuffer->address(),
                                  lseBuffer->address()};
  if (varlen) {
    addresses.cuSeqlensQ = offsetBuffers[0].address();
    addresses.cuSeqlensK = offsetBuffers[1].address();
    addresses.tiles = offsetBuffers[2].address();
  }
  if (Status s = bindProblem(launcher->binding(), p, addresses); !s.ok())
    return s;
  if (options.ctas)
    launcher->setNumSms(int64_t(options.ctas));
  Execution execution;
  execution.elementType = p.elementType;
  if (Status s = prepare(*launcher, execution); !s.ok())
    return s;
  execution.output = &*oBuffer;
  execution.outputElements = outputElements;
  execution.guardElements = guardElements;
  execution.rowValues = &*lseBuffer;
  execution.rowValueGuard = kAttentionTileQ;
  execution.cols = dv;
  RunResult result;
  result.problem = describe(p);
  result.flops = flops(p);
  uint64_t seqQ = p.seqQ, numHeads = p.heads;
  if (varlen) {
    // Rows t·H + h of O as [TQ·H, Dv] (token t, head h), the host's layout
    // too; up to kAttentionCheckedRows / 4 sampled rows of every sequence
    // and head; the log-sum-exp [H, TQ].
    uint64_t totalQ = p.totalQ();
    for (uint64_t b = 0; b < p.batch; ++b)
      for (uint64_t h = 0; h < numHeads; ++h)
        for (uint64_t i : sampleRows(p.seqlensQ[b], kAttentionCheckedRows / 4)) {
          execution.rows.push_back((startsQ[b] + i) * numHeads + h);
          execution.rowValueRows.push_back(h * totalQ + startsQ[b] + i);
        }
    execution.reference = [&] {
      return referenceAttention(p, q, k, v, execution.rows,
                                &execution.rowValueReference);
    };
    // Sequence b and its row of a token.
    auto locate = [=](uint64_t row) {
      uint64_t token = row / numHeads;
      uint64_t b = uint64_t(std::upper_bound(startsQ.begin() + 1,
                                             startsQ.end(), token) -
                            startsQ.begin() - 1);
      return std::pair{b, token - startsQ[b]};
    };
    execution.naming.name = [=](uint64_t row) {
      auto [b, i] = locate(row);
      return "sequence " + std::to_string(b) +
             " h=" + std::to_string(row % numHeads) + " row " +
             std::to_string(i);
    };
    execution.naming.tilePosition = [=](uint64_t row) {
      return locate(row).second % kAttentionTileQ;
    };
    return execute(kernel, execution, options, std::move(result));
  }
  // The checked rows, as (B, H, SQ) rows for the reference and the
  // log-sum-exp, and as rows of O in its layout.
  uint64_t heads = p.batch * p.heads;
  std::vector<uint64_t> logicalRows;
  for (uint64_t head = 0; head < heads; ++head)
    for (uint64_t row : sampleRows(p.seqQ, kAttentionCheckedRows))
      logicalRows.push_back(head * p.seqQ + row);
  auto deviceRow = [=](uint64_t row) {
    uint64_t head = row / seqQ, b = head / numHeads, h = head % numHeads;
    return bshd ? (b * seqQ + row % seqQ) * numHeads + h : row;
  };
  for (uint64_t row : logicalRows)
    execution.rows.push_back(deviceRow(row));
  if (bshd)
    execution.rowValueRows = logicalRows;
  execution.reference = [&, logicalRows] {
    return referenceAttention(p, q, k, v, logicalRows,
                              &execution.rowValueReference);
  };
  if (bshd)
    execution.toLogical = [&](const std::vector<uint16_t> &words) {
      return swapHeadsAndRows(words, p.batch, p.seqQ, p.heads, dv);
    };
  // A row of O in its layout, named as (batch, head, query row).
  execution.naming.name = [=](uint64_t row) {
    uint64_t b, h, i;
    if (bshd) {
      b = row / (seqQ * numHeads);
      i = row / numHeads % seqQ;
      h = row % numHeads;
    } else {
      b = row / seqQ / numHeads;
      h = row / seqQ % numHeads;
      i = row % seqQ;
    }
    return "b=" + std::to_string(b) + " h=" + std::to_string(h) + " row " +
           std::to_string(i);
  };
  execution.naming.tilePosition = [=](uint64_t row) {
    uint64_t i = bshd ? row / numHeads % seqQ : row % seqQ;
    return i % kAttentionTileQ;
  };

  return execute(kernel, execution, options, std::move(result));
}
