//===- DSL.h - the Triton-style C++ DSL of fa4 ------------------*- C++ -*-===//
//
// The fa4 DSL: C++ that reads like a Triton kernel and builds a tile-level
// kernel (the `tile` dialect with arith, math, scf and func). A program is a
// `Program` (Program.h) whose arguments give handles (Values.h) that the
// functions and operators of Ops.h combine:
//
//   Program p(context, "scale");
//   Desc x = p.desc("x", {128, 64}, f32);
//   Scalar factor = p.f32("factor");
//   Index block = p.programId(0);
//   store(x, {block, 0}, load(x, {block, 0}) * factor);
//   OwningOpRef<ModuleOp> module = p.finish();
//
// Locations. Every DSL function takes a trailing `SourceLoc` defaulted to
// `SourceLoc::current()`, whose own defaulted builtins (`__builtin_FILE`,
// `__builtin_LINE`, `__builtin_COLUMN`) evaluate at the author's call; the
// ops the call builds carry that position as a `FileLineColLoc`. Overloaded
// operators take their location from an operand wrapper (`Operand`,
// `IndexArg`, `BoolArg`, ...) whose converting constructor has the defaulted
// `SourceLoc`: the conversion runs at the author's operand, so `s - m.col()`
// is located at `m.col()`. Errors, the DSL's and the tile verifiers', print
// as `FILE:LINE:COL: error: ...` at the author's line.
//
// Broadcasts. A 1-d tile combines with a 2-d one only as a column
// (`m.col()`, Triton's `m[:, None]`, repeated along axis 1) or a row
// (`v.row()`, `v[None, :]`, repeated along axis 0); `broadcast` says it
// explicitly.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_DSL_DSL_H
#define FA4_DSL_DSL_H

#include "fa4/DSL/Ops.h"
#include "fa4/DSL/Program.h"
#include "fa4/DSL/Values.h"

#endif // FA4_DSL_DSL_H
