// Which stage a one-tile plan's TMA store stages O in: a tile loaded once
// whose readers each take their own warpgroup's rows (an MMA's A operand),
// never one an MMA reads whole as B (the other warpgroup may still be
// reading it while this one writes its rows of O).
// RUN: fa4-opt %s --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma | FileCheck %s

// CHECK-LABEL: func.func @a_not_b
// CHECK: %[[A:.*]] = fa4.consumer.wait %{{.*}} : !fa4.pipeline<q, {{.*}}> -> memref<128x128xbf16, 3>
// CHECK: %[[W:.*]] = fa4.consumer.wait
// CHECK-NOT: fa4.shared_buffer
// CHECK: fa4.tma_store %{{.*}}, %[[A]][%{{.*}}]
func.func @a_not_b(%a: !tile.desc<128x128xbf16>, %w: !tile.desc<128x128xbf16>, %o: !tile.desc<128x128xbf16>) {
  %c0 = arith.constant 0 : index
  %at = tile.load %a[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %wt = tile.load %w[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %wtt = tile.trans %wt : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %s = tile.dot %at, %wtt, %zero : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
  %sb = arith.truncf %s : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %sb, %o[%c0, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}
