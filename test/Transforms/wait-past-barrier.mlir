// fa4-pipeline-tma moves an MMA's wait down past the named barriers and the
// shared-memory store of a staged operand when nothing its block stores is
// read by an MMA issued before the wait. In @past, dK's MMA (dS from
// registers against Q) runs on while dS goes to shared memory for dQ's MMA:
// its wait lands after dQ's MMA, one group more in flight. In @held, a
// second staged tile follows a dot that reads the first staging buffer:
// the other warpgroup, let through the second pair of barriers, could
// overwrite that buffer in its next step while this one's MMA still reads
// it, so dK's wait stays before the barriers.
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-tile-to-fa4 | FileCheck %s

// CHECK-LABEL: func.func @past
// CHECK: fa4.role consumer
// CHECK: %[[DK:.*]] = fa4.mma.async %{{.*}}, %{{.*}} b_mn_major : tensor<64x64xbf16, #fa4.acc>, memref<64x128xbf16, 3>, tensor<64x128xf32, #fa4.acc>
// CHECK-NEXT: fa4.named_barrier.sync id(11) threads(256)
// CHECK-NEXT: fa4.shared_store
// CHECK-NEXT: fa4.named_barrier.sync id(11) threads(256)
// CHECK: %[[DQ:.*]] = fa4.mma.async %{{.*}}, %{{.*}} b_mn_major a_mn_major
// CHECK-NEXT: fa4.mma.wait %[[DK]] pending(1)
// CHECK: fa4.mma.wait %[[DQ]] pending(0)
func.func @past(%k: !tile.desc<128x128xbf16>, %q: !tile.desc<64x128xbf16>, %dq: !tile.desc<64x128xf32>, %dk: !tile.desc<128x128xbf16>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %kt = tile.load %k[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.desc<64x128xbf16> -> tensor<64x128xbf16>
  %qtt = tile.trans %qt : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %kt, %qtt, %z : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  %sb = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xbf16>
  %z1 = arith.constant dense<0.0> : tensor<128x128xf32>
  %dkv = tile.dot %sb, %qt, %z1 : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  %st = tile.trans %sb : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<64x128xf32>
  %p = tile.dot %st, %kt, %z2 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
  tile.store %p, %dq[%c0, %c0] add : tensor<64x128xf32>, !tile.desc<64x128xf32>
  %dkb = arith.truncf %dkv : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %dkb, %dk[%c0, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @held
// CHECK: fa4.role consumer
// CHECK: fa4.mma.async %{{.*}}, %{{.*}} b_mn_major a_mn_major
// CHECK: %[[DK:.*]] = fa4.mma.async %{{.*}}, %{{.*}} b_mn_major : tensor<64x64xbf16, #fa4.acc>, memref<64x128xbf16, 3>, tensor<64x128xf32, #fa4.acc>
// CHECK-NEXT: fa4.mma.wait %[[DK]] pending(0)
// CHECK: fa4.named_barrier.sync id(11) threads(256)
// CHECK-NEXT: fa4.shared_store
func.func @held(%k: !tile.desc<128x128xbf16>, %q: !tile.desc<64x128xbf16>, %dq: !tile.desc<64x128xf32>, %dq2: !tile.desc<64x128xf32>, %dk: !tile.desc<128x128xbf16>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %kt = tile.load %k[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.desc<64x128xbf16> -> tensor<64x128xbf16>
  %qtt = tile.trans %qt : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %kt, %qtt, %z : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  %sb = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xbf16>
  %st = tile.trans %sb : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<64x128xf32>
  %p = tile.dot %st, %kt, %z2 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
  tile.store %p, %dq[%c0, %c0] add : tensor<64x128xf32>, !tile.desc<64x128xf32>
  %z1 = arith.constant dense<0.0> : tensor<128x128xf32>
  %dkv = tile.dot %sb, %qt, %z1 : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  %two = arith.constant dense<2.0> : tensor<128x64xf32>
  %s2 = arith.mulf %s, %two : tensor<128x64xf32>
  %sb2 = arith.truncf %s2 : tensor<128x64xf32> to tensor<128x64xbf16>
  %st2 = tile.trans %sb2 : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %p2 = tile.dot %st2, %kt, %z2 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
  tile.store %p2, %dq2[%c0, %c0] add : tensor<64x128xf32>, !tile.desc<64x128xf32>
  %dkb = arith.truncf %dkv : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %dkb, %dk[%c0, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}
