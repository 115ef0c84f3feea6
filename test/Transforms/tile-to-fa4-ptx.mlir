// The tile program of attention through fa4-tile-to-fa4 and fa4-to-llvm to
// PTX: the plan's stages are the PTX's mbarriers. Full barriers (one
// arrival, the producer's expect-tx) number 1 for Q + kv * qk for K + kv for
// V: 7 with the derived plan at head dim 128 (2 kv stages, 2 qk stages), 10
// with --kv-stages=3, 5 with --qk-stages=1 (K whole); empty barriers (256
// consumer arrivals) the same.
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config=head-dim=128 --fa4-tile-to-fa4 --fa4-to-llvm | fa4-translate --emit=ptx > %t.ptx
// RUN: grep -c 'mbarrier.init.shared.b64 \[%r[0-9]*\], 1;' %t.ptx | FileCheck %s --check-prefix=SEVEN
// RUN: grep -c 'mbarrier.init.shared.b64 \[%r[0-9]*\], 256;' %t.ptx | FileCheck %s --check-prefix=SEVEN
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config="head-dim=128 kv-stages=3" --fa4-tile-to-fa4 --fa4-to-llvm | fa4-translate --emit=ptx > %t.kv3.ptx
// RUN: grep -c 'mbarrier.init.shared.b64 \[%r[0-9]*\], 1;' %t.kv3.ptx | FileCheck %s --check-prefix=TEN
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config="head-dim=128 qk-stages=1" --fa4-tile-to-fa4 --fa4-to-llvm | fa4-translate --emit=ptx > %t.qk1.ptx
// RUN: grep -c 'mbarrier.init.shared.b64 \[%r[0-9]*\], 1;' %t.qk1.ptx | FileCheck %s --check-prefix=FIVE
// RUN: FileCheck %s --input-file=%t.ptx
// Row maxima are single max instructions: 2 x 31 in the thread and 2 x 2
// across the quad per block (the first block peeled, then the loop), and the
// running max one max.NaN per row; no compare-and-select expansions.
// RUN: grep -c 'max.ftz.f32' %t.ptx | FileCheck %s --check-prefix=MAXNUM
// RUN: grep -c 'max.ftz.NaN.f32' %t.ptx | FileCheck %s --check-prefix=MAXIMUM
// RUN: not grep 'setp.nan' %t.ptx
// RUN: %if ptxas %{ fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config=head-dim=128 --fa4-tile-to-fa4 --fa4-to-llvm | fa4-translate --emit=cubin -o %t.cubin --ptxas-report=%t.report %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=REPORT < %t.report %}

// TEN: {{^}}10{{$}}
// SEVEN: {{^}}7{{$}}
// FIVE: {{^}}5{{$}}
// MAXNUM: {{^}}132{{$}}
// MAXIMUM: {{^}}2{{$}}

// CHECK: setmaxnreg.dec.sync.aligned.u32 24
// CHECK: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: setmaxnreg.inc.sync.aligned.u32 240
// CHECK: mbarrier.try_wait.parity
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: ex2.approx.ftz.f32
// REPORT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
