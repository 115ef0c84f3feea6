// fa4-distribute-register-tiles converts positions to f32 once a thread: a
// score's key minus its query (ALiBi's distance) is, in each thread, its
// first column minus its first row plus a constant for each value, so the
// conversion to f32 takes that scalar and adds the constants in f32
// (exact below 2^24) instead of converting each of the 64 values. A vector
// that is not built that way (one loaded) is converted value by value.
// A repeated scalar times such a vector (a slope times the distance) is one
// FMA a value, and so is one times it times another. Divisions, remainders and shifts of such vectors by one amount
// are done once for each distinct value.
// RUN: fa4-opt %s --fa4-distribute-register-tiles | FileCheck %s

!Acc = tensor<64x128xf32, #fa4.acc>
!Index = tensor<64x128xi32, #fa4.acc>

// CHECK-LABEL: func.func @distance
// CHECK-SAME: (%[[S:.*]]: vector<64xf32>, %[[Q0:.*]]: i32, %[[K0:.*]]: i32, %[[SLOPE:.*]]: f32)
// CHECK-NOT: arith.sitofp %{{.*}} : vector<64xi32>
// CHECK: %[[ONE:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT: %[[REPEATED:.*]] = vector.broadcast %[[ONE]] : f32 to vector<64xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, -8.000000e+00, -7.000000e+00, 8.000000e+00, 9.000000e+00, 0.000000e+00, 1.000000e+00
// The slope times the distance, slope * (x + c), is fma(c, slope, x * slope):
// one instruction a distinct constant, and a sum the score's add takes.
// CHECK-NOT: arith.sitofp
// CHECK-NOT: arith.addf
// CHECK: %[[SLOPES:.*]] = vector.broadcast %[[SLOPE]] : f32 to vector<64xf32>
// CHECK: %[[XY:.*]] = arith.mulf %[[REPEATED]], %[[SLOPES]] : vector<64xf32>
// CHECK-NEXT: %[[BIAS:.*]] = math.fma %[[C]], %[[SLOPES]], %[[XY]] : vector<64xf32>
// CHECK-NEXT: arith.addf %[[S]], %[[BIAS]] : vector<64xf32>
func.func @distance(%s: !Acc, %q0: i32, %k0: i32, %slope: f32) -> !Acc {
  %rows = tile.iota axis 0 : !Index
  %q = tile.splat %q0 : !Index
  %query = arith.addi %rows, %q : !Index
  %cols = tile.iota axis 1 : !Index
  %k = tile.splat %k0 : !Index
  %key = arith.addi %cols, %k : !Index
  %distance = arith.subi %key, %query : !Index
  %d = arith.sitofp %distance : !Index to !Acc
  %m = tile.splat %slope : !Acc
  %bias = arith.mulf %m, %d : !Acc
  %r = arith.addf %s, %bias : !Acc
  return %r : !Acc
}

// Repeated factors after the slope's product join the slope (a bias divided
// by the softmax scale, the score MMA's start): fma(c, slope * inverse,
// x * (slope * inverse)), no multiply a value.
// CHECK-LABEL: func.func @distance_over_scale
// CHECK-SAME: (%[[Q0:.*]]: i32, %[[K0:.*]]: i32, %[[SLOPE:.*]]: f32, %[[INVERSE:.*]]: f32)
// CHECK: %[[ONE:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT: %[[REPEATED:.*]] = vector.broadcast %[[ONE]] : f32 to vector<64xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<
// CHECK-DAG: %[[SLOPES:.*]] = vector.broadcast %[[SLOPE]] : f32 to vector<64xf32>
// CHECK-DAG: %[[INVERSES:.*]] = vector.broadcast %[[INVERSE]] : f32 to vector<64xf32>
// CHECK: %[[Y:.*]] = arith.mulf %[[SLOPES]], %[[INVERSES]] fastmath<contract> : vector<64xf32>
// CHECK-NEXT: %[[XY:.*]] = arith.mulf %[[REPEATED]], %[[Y]] fastmath<contract> : vector<64xf32>
// CHECK-NEXT: %[[BIAS:.*]] = math.fma %[[C]], %[[Y]], %[[XY]] fastmath<contract> : vector<64xf32>
// CHECK-NEXT: return %[[BIAS]] : vector<64xf32>
func.func @distance_over_scale(%q0: i32, %k0: i32, %slope: f32, %inverse: f32) -> !Acc {
  %rows = tile.iota axis 0 : !Index
  %q = tile.splat %q0 : !Index
  %query = arith.addi %rows, %q : !Index
  %cols = tile.iota axis 1 : !Index
  %k = tile.splat %k0 : !Index
  %key = arith.addi %cols, %k : !Index
  %distance = arith.subi %key, %query : !Index
  %d = arith.sitofp %distance : !Index to !Acc
  %m = tile.splat %slope : !Acc
  %bias = arith.mulf %m, %d fastmath<contract> : !Acc
  %i = tile.splat %inverse : !Acc
  %r = arith.mulf %bias, %i fastmath<contract> : !Acc
  return %r : !Acc
}

// A factor that differs between values (a score) multiplies the distance
// as it is.
// CHECK-LABEL: func.func @distance_times_score
// CHECK: %[[D:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<64xf32>
// CHECK-NEXT: arith.mulf %{{.*}}, %[[D]] fastmath<contract> : vector<64xf32>
// CHECK-NOT: math.fma
func.func @distance_times_score(%s: !Acc, %q0: i32) -> !Acc {
  %rows = tile.iota axis 0 : !Index
  %q = tile.splat %q0 : !Index
  %query = arith.addi %rows, %q : !Index
  %d = arith.sitofp %query : !Index to !Acc
  %r = arith.mulf %s, %d fastmath<contract> : !Acc
  return %r : !Acc
}

// CHECK-LABEL: func.func @loaded
// CHECK: arith.sitofp %{{.*}} : vector<64xi32> to vector<64xf32>
func.func @loaded(%x: !Index) -> !Acc {
  %cols = tile.iota axis 1 : !Index
  %y = arith.addi %x, %cols : !Index
  %f = arith.sitofp %y : !Index to !Acc
  return %f : !Acc
}

// A score's query divided by a chunk length (chunked attention's mask):
// the thread's query rows take two values of its 64, so it divides those
// two and a shuffle spreads them; the key columns take 32, divided once
// each. The comparison stays one a score.
// CHECK-LABEL: func.func @chunks
// CHECK: arith.divsi %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 0, 1, 1, 0, 0, 1, 1,
// CHECK: arith.divsi %{{.*}}, %{{.*}} : vector<32xi32>
// CHECK: %[[KEYS:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 0, 1, 2, 3, 2, 3,
// CHECK-NOT: arith.divsi
// CHECK: arith.cmpi eq, %{{.*}}, %[[KEYS]] : vector<64xi32>
func.func @chunks(%q0: i32, %k0: i32) -> tensor<64x128xi1, #fa4.acc> {
  %rows = tile.iota axis 0 : !Index
  %q = tile.splat %q0 : !Index
  %query = arith.addi %rows, %q : !Index
  %cols = tile.iota axis 1 : !Index
  %k = tile.splat %k0 : !Index
  %key = arith.addi %cols, %k : !Index
  %chunk = arith.constant dense<100> : !Index
  %qc = arith.divsi %query, %chunk : !Index
  %kc = arith.divsi %key, %chunk : !Index
  %same = arith.cmpi eq, %qc, %kc : !Index
  return %same : tensor<64x128xi1, #fa4.acc>
}

// A division by a vector of several amounts stays one a value.
// CHECK-LABEL: func.func @amounts
// CHECK: arith.divsi %{{.*}}, %{{.*}} : vector<64xi32>
func.func @amounts(%q0: i32, %by: !Index) -> !Index {
  %rows = tile.iota axis 0 : !Index
  %q = tile.splat %q0 : !Index
  %query = arith.addi %rows, %q : !Index
  %r = arith.divsi %query, %by : !Index
  return %r : !Index
}
