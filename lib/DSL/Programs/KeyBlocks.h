//===- KeyBlocks.h - the key blocks a block of query rows sees --*- C++ -*-===//
//
// Which key blocks a block of query rows visits, and the mask of their
// scores, under FlashAttention's bottom-right causal mask and sliding
// window: one owner for the forward's program and the backward's dQ
// program, which visit the same blocks.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_DSL_PROGRAMS_KEYBLOCKS_H
#define FA4_LIB_DSL_PROGRAMS_KEYBLOCKS_H

#include "fa4/DSL/DSL.h"

#include <limits>

namespace fa4::dsl {

/// The key blocks of `bn` rows that query rows [m0, m0 + bm) see, row m0's
/// diagonal key being `diagonal` (m0 + seqK - seqQ): row i sees the keys
/// before seqK up to its diagonal i + seqK - seqQ when causal and, with a
/// window, those from i + seqK - seqQ - left to that plus right (right 0
/// when causal; -1, unbounded). The blocks visited are all, or when causal
/// those up to the last row's diagonal; with a window, from the one holding
/// row m0's first key to the one holding the last row's last key (the
/// blocks outside the window are skipped, not masked).
class KeyBlocks {
public:
  KeyBlocks(Program &p, int64_t bm, int64_t bn, Index seqK, Index diagonal,
            Bool causal, bool window, Index windowLeft, Index windowRight)
      : p(p), bm(bm), bn(bn), seqK(seqK), diagonal(diagonal), causal(causal),
        window(window), windowLeft(windowLeft), hasRight(causal) {
    end = ceilDiv(seqK, bn);
    if (!window) {
      end = select(causal, min(end, ceilDiv(max(0, diagonal + bm), bn)), end);
      return;
    }
    hasLeft = windowLeft >= 0;
    hasRight = causal || windowRight >= 0;
    right = select(causal, 0, windowRight);
    end = select(hasRight,
                 min(end, ceilDiv(max(0, diagonal + bm + right), bn)), end);
    first = select(hasLeft, max(0, diagonal - windowLeft) / bn, 0);
  }

  /// The first block visited, and the end of the blocks visited (the
  /// caller may narrow it, as packed sequences do past a sequence's end).
  IndexArg start() const { return window ? IndexArg(first) : IndexArg(0); }
  Index end;

  /// The scores `s` of block `j` with the keys the rows do not see at
  /// -inf, masked only in the blocks that reach past seqK, the diagonal or
  /// a window's edge. Row i may see the block's columns start_i <= c <
  /// end_i: worked out per row, it leaves one compare and one select per
  /// score (two compares with a left bound).
  Tile mask(const Index &j, const Tile &s) const {
    const double inf = std::numeric_limits<double>::infinity();
    Index key0 = j * bn;
    Bool needsMask =
        window ? key0 + bn > seqK ||
                     (hasRight && key0 + (bn - 1) > diagonal + right) ||
                     (hasLeft && key0 < diagonal + (bm - 1) - windowLeft)
               : key0 + bn > seqK || (causal && key0 + (bn - 1) > diagonal);
    return p.ifElse(
        needsMask,
        [&] {
          Index rightEnd =
              window ? select(hasRight, diagonal + right - key0 + 1, bn)
                     : select(causal, diagonal - key0 + 1, bn);
          Tile rows = p.iota({bm}, 0);
          Tile end = min(rows + rightEnd, splat(seqK - key0, {bm}));
          Tile cols = p.iota({bm, bn}, 1);
          Tile valid = cols < end.col();
          if (window) {
            Index leftStart =
                select(hasLeft, diagonal - windowLeft - key0, -bm);
            valid = valid && cols >= (rows + leftStart).col();
          }
          return where(valid, s, -inf);
        },
        [&] { return s; });
  }

private:
  Program &p;
  int64_t bm, bn;
  Index seqK, diagonal;
  Bool causal;
  bool window;
  Index windowLeft;
  Bool hasLeft, hasRight;
  Index right, first;
};

} // namespace fa4::dsl

#endif // FA4_LIB_DSL_PROGRAMS_KEYBLOCKS_H
