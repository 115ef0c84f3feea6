// fa4-pipeline-tma's waits pass the stores into shared memory and the
// barriers between them when no MMA issued before the wait reads what they
// touch (FlashAttention-3's backward order): the MMA that reads a register
// tile runs while another tile is staged for a transposed operand, and the
// MMA issued after the staging runs while its neighbour's product goes out
// through a TMA store. A staging that reads the registers of an MMA still
// in flight (its A operand) keeps the wait before it: the PTX ISA leaves
// any access to them before `wgmma.wait_group` undefined.
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma | FileCheck %s

// CHECK-LABEL: func.func @overlap
// CHECK: %[[S:.*]] = fa4.mma.wait %{{.*}} pending(0)
// CHECK: %[[E:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32, #fa4.acc> to tensor<64x64xbf16, #fa4.acc>
// CHECK: %[[SB:.*]] = arith.truncf %[[S]]
// CHECK: %[[V:.*]] = fa4.mma.async %[[E]], %{{.*}} b_mn_major
// CHECK-NOT: fa4.mma.wait
// CHECK: fa4.named_barrier.sync id(11) threads(256)
// CHECK-NEXT: fa4.shared_store %[[SB]], %[[BUF:.*]][%{{.*}}]
// CHECK-NEXT: fa4.named_barrier.sync id(11) threads(256)
// CHECK: %[[P:.*]] = fa4.mma.async %[[BUF]], %{{.*}} b_mn_major a_mn_major
// CHECK-NEXT: %[[VW:.*]] = fa4.mma.wait %[[V]] pending(1)
// CHECK-NEXT: %[[W:.*]] = fa4.mma.async %[[SB]], %{{.*}}, %[[VW]] b_mn_major
// CHECK-NEXT: %[[PW:.*]] = fa4.mma.wait %[[P]] pending(1)
// CHECK: fa4.tma_store %[[PW]], {{.*}} add
// CHECK-NEXT: fa4.mma.wait %[[W]] pending(0)
func.func @overlap(%k: !tile.desc<128x128xbf16>, %q: !tile.desc<64x128xbf16>, %dq: !tile.desc<64x128xf32>, %o: !tile.desc<128x128xbf16>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %kt = tile.load %k[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.desc<64x128xbf16> -> tensor<64x128xbf16>
  %qtt = tile.trans %qt : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %kt, %qtt, %z : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  %e = tile.exp2 %s : tensor<128x64xf32>
  %eb = arith.truncf %e : tensor<128x64xf32> to tensor<128x64xbf16>
  %sb = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xbf16>
  %z3 = arith.constant dense<0.0> : tensor<128x128xf32>
  %v = tile.dot %eb, %qt, %z3 : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  %st = tile.trans %sb : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<64x128xf32>
  %p = tile.dot %st, %kt, %z2 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
  %w = tile.dot %sb, %qt, %v : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  tile.store %p, %dq[%c0, %c0] add : tensor<64x128xf32>, !tile.desc<64x128xf32>
  %wb = arith.truncf %w : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %wb, %o[%c0, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

// -----

// The MMA that takes the staged tile's registers as its A operand is issued
// before the staging: its wait stays before the first barrier.
// CHECK-LABEL: func.func @reads_registers
// CHECK: %[[SB:.*]] = arith.truncf
// CHECK: %[[W:.*]] = fa4.mma.async %[[SB]], %{{.*}} b_mn_major
// CHECK-NEXT: fa4.mma.wait %[[W]] pending(0)
// CHECK-NOT: fa4.mma
// CHECK: fa4.named_barrier.sync id(11) threads(256)
// CHECK-NEXT: fa4.shared_store %[[SB]]
func.func @reads_registers(%k: !tile.desc<128x128xbf16>, %q: !tile.desc<64x128xbf16>, %dq: !tile.desc<64x128xf32>, %o: !tile.desc<128x128xbf16>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %kt = tile.load %k[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.desc<64x128xbf16> -> tensor<64x128xbf16>
  %qtt = tile.trans %qt : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %kt, %qtt, %z : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  %sb = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xbf16>
  %z3 = arith.constant dense<0.0> : tensor<128x128xf32>
  %w = tile.dot %sb, %qt, %z3 : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  %st = tile.trans %sb : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<64x128xf32>
  %p = tile.dot %st, %kt, %z2 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
  tile.store %p, %dq[%c0, %c0] add : tensor<64x128xf32>, !tile.desc<64x128xf32>
  %wb = arith.truncf %w : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %wb, %o[%c0, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}
