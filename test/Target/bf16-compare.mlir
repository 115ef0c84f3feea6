// A bf16 value tested against 0 in a function whose f32 denormals flush to
// zero (every fa4 kernel): LLVM's optimizer narrows the f32 compare of the
// widened value to a bf16 one, which the NVPTX backend prints as
// `setp.lt.ftz.bf16`, an instruction ptxas refuses. fa4-translate widens
// bf16 compares back to f32 after the optimizer, so the PTX assembles.
// RUN: fa4-translate %s --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: fa4-translate %s --emit=ptx | FileCheck %s
// RUN: %if ptxas %{ fa4-translate %s --emit=cubin -o %t.cubin %}

// LLVM-LABEL: define ptx_kernel void @sign(
// LLVM-NOT: fcmp {{.*}} bfloat
// LLVM: fcmp olt float
// LLVM-NOT: fcmp {{.*}} bfloat

// CHECK-LABEL: .entry sign(
// CHECK-NOT: setp.{{.*}}bf16
// CHECK: setp.lt.ftz.f32
// CHECK-NOT: setp.{{.*}}bf16
llvm.func @sign(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, denormal_fp_math_f32 = "preserve-sign"} {
  %zero = llvm.mlir.constant(0.0 : f32) : f32
  %one = llvm.mlir.constant(1.0 : f32) : f32
  %x = llvm.load %in : !llvm.ptr<1> -> bf16
  %w = llvm.fpext %x : bf16 to f32
  %neg = llvm.fcmp "olt" %w, %zero : f32
  %r = llvm.select %neg, %zero, %one : i1, f32
  llvm.store %r, %out : f32, !llvm.ptr<1>
  llvm.return
}
