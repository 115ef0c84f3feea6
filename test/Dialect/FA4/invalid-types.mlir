// Every verifier message of the fa4 types, one case each. (A pipeline with no
// tile cannot be written in the syntax; its check guards C++ builders.)
// RUN: fa4-opt %s --split-input-file --verify-diagnostics

// expected-error @below {{a pipeline needs at least one kv and one qk stage, got kv = 0, qk = 1}}
func.func @f(%p: !fa4.pipeline<k, kv = 0, qk = 1, memref<128x64xbf16, 3>>) { return }

// -----

// expected-error @below {{V pipelines are loaded complete: qk stages must be 1, got 2}}
func.func @f(%p: !fa4.pipeline<v, kv = 2, qk = 2, memref<128x64xbf16, 3>>) { return }

// -----

// expected-error @below {{pipeline tile 'memref<128x64xbf16>' must be a statically shaped 2-d memref in shared memory (address space 3)}}
func.func @f(%p: !fa4.pipeline<k, kv = 2, qk = 2, memref<128x64xbf16>>) { return }

// -----

// expected-error @below {{tensor map element type 'i1' must be an integer or float of 8 bits or more}}
func.func @f(%m: !fa4.tensor_map<i1, box = [128, 64], swizzle = 128>) { return }

// -----

// expected-error @below {{tensor map box has rank 6; TMA takes rank 1 to 5}}
func.func @f(%m: !fa4.tensor_map<bf16, box = [1, 1, 1, 1, 1, 64], swizzle = 128>) { return }

// -----

// expected-error @below {{TMA box dimension 300 is outside [1, 256]}}
func.func @f(%m: !fa4.tensor_map<bf16, box = [300, 64], swizzle = 128>) { return }

// -----

// expected-error @below {{swizzle 16 B is not one of 0, 32, 64 or 128}}
func.func @f(%m: !fa4.tensor_map<bf16, box = [128, 64], swizzle = 16>) { return }

// -----

// expected-error @below {{TMA box inner extent 24 B is not a multiple of 16 B}}
func.func @f(%m: !fa4.tensor_map<bf16, box = [128, 12], swizzle = 0>) { return }

// -----

// expected-error @below {{TMA box inner extent 256 B exceeds the 128 B swizzle span}}
func.func @f(%m: !fa4.tensor_map<bf16, box = [128, 128], swizzle = 128>) { return }

// -----

// expected-error @below {{a schedule pipeline carries i32 slots in one qk stage, got qk = 2 and stage types 'i32'}}
func.func @f(%p: !fa4.pipeline<schedule, kv = 2, qk = 2, i32>) { return }

// -----

// expected-error @below {{a schedule pipeline carries i32 slots in one qk stage, got qk = 1 and stage types 'memref<128x64xbf16, 3>'}}
func.func @f(%p: !fa4.pipeline<schedule, kv = 2, qk = 1, memref<128x64xbf16, 3>>) { return }

// -----

// expected-error @below {{pipeline tile 'i32' must be a statically shaped 2-d memref in shared memory (address space 3)}}
func.func @f(%p: !fa4.pipeline<q, kv = 2, qk = 1, i32>) { return }
