//===- Base2.h - the programs' natural-log <-> base-2 constants -*- C++ -*-===//
//
// The programs' exponentials and logarithms are base 2 (ex2 and lg2 on
// the hardware) where their arguments and results are natural: softmax
// scales, softcaps and the LSE in and out, and the DSL's own `exp` and
// `log`. One owner for those and the forward's, the backward's, decode's and
// the row softmax's programs.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_DSL_PROGRAMS_BASE2_H
#define FA4_LIB_DSL_PROGRAMS_BASE2_H

namespace fa4::dsl {

/// log2(e): natural units to base 2.
inline constexpr double kLog2e = 1.4426950408889634;
/// ln(2): base 2 to natural units (an LSE the programs return), as f32
/// rounds it.
inline constexpr double kLn2 = 0.693147182;

} // namespace fa4::dsl

#endif // FA4_LIB_DSL_PROGRAMS_BASE2_H
