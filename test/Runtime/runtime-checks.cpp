//===- runtime-checks.cpp - Checks of the fa4 runtime ---------------------===//
//
// The driver behind the runtime lit tests. Each subcommand exercises one part
// of the runtime and prints one line per case ("<case>: ok" or
// "<case>: error: <message>") for FileCheck. All but `gpu` run without a GPU:
// the TMA rules, the kernel-file format, the target, shared-memory and
// argument checks, and driver loading (which reports the device, or why there
// is none, and must not crash either way).
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/HangReport.h"
#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/Runtime/Binding.h"
#include "fa4/Runtime/Buffer.h"
#include "fa4/Runtime/Driver.h"
#include "fa4/Runtime/Kernel.h"
#include "fa4/Runtime/Launch.h"
#include "fa4/Runtime/TensorMap.h"

// The raw driver entry points, to time cuLaunchKernelEx itself.
#include "DriverApi.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace fa4::runtime;

static void report(const char *name, const Status &status) {
  if (status.ok())
    std::printf("%s: ok\n", name);
  else
    std::printf("%s: error: %s\n", name, status.message().c_str());
}

//===----------------------------------------------------------------------===//
// tma: the TMA rules of checkTensorMap
//===----------------------------------------------------------------------===//

/// A valid bf16 tile view of a row-major 4096 x 128 matrix: 128-column rows
/// of 256 B, 64 x 64 boxes (128 B inner extent) with the 128 B swizzle.
static TensorMapSpec matrixSpec() {
  TensorMapSpec spec;
  spec.elementType = ElementType::BF16;
  spec.globalDims = {128, 4096};
  spec.globalStrides = {256};
  spec.boxDims = {64, 64};
  spec.swizzle = Swizzle::B128;
  return spec;
}

static int runTma() {
  constexpr uint64_t address = 0x7f0000010000;
  struct Case {
    const char *name;
    std::function<void(TensorMapSpec &, uint64_t &)> change;
  } cases[] = {
      {"valid-2d", [](TensorMapSpec &, uint64_t &) {}},
      // A B x S x H x D tensor viewed as (D, S, H, B): the strides are not
      // monotonic, but no dimension overlaps another.
      {"valid-bshd-view",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.globalDims = {128, 4096, 16, 2};
         spec.globalStrides = {4096, 256, 16777216};
         spec.boxDims = {64, 128, 1, 1};
       }},
      // One KV head of a (B, S, H, D) tensor: the head dimension (extent 1)
      // has the stride of a row, inside the sequence's extent, and no
      // second index to collide with.
      {"valid-one-head-bshd-view",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.globalDims = {128, 4096, 1, 2};
         spec.globalStrides = {256, 256, 1048576};
         spec.boxDims = {64, 128, 1, 1};
       }},
      {"misaligned-address",
       [](TensorMapSpec &, uint64_t &addr) { addr += 8; }},
      {"stride-not-multiple-of-16",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.globalDims = {100, 64};
         spec.globalStrides = {200};
       }},
      {"stride-too-large",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.globalStrides = {uint64_t(1) << 40};
       }},
      {"overlapping-rows",
       [](TensorMapSpec &spec, uint64_t &) { spec.globalStrides = {128}; }},
      {"overlapping-outer-dims",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.globalDims = {128, 4096, 16};
         spec.globalStrides = {256, 4096};
         spec.boxDims = {64, 64, 1};
       }},
      {"box-dim-300",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.boxDims = {64, 300};
       }},
      {"inner-box-256B-swizzle-128B",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.boxDims = {128, 64};
       }},
      {"inner-box-64B-swizzle-32B",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.elementType = ElementType::F32;
         spec.globalStrides = {512};
         spec.boxDims = {16, 8};
         spec.swizzle = Swizzle::B32;
       }},
      {"inner-box-not-multiple-of-16B",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.boxDims = {12, 64};
         spec.swizzle = Swizzle::None;
       }},
      {"zero-dim",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.globalDims = {128, 0};
       }},
      {"dim-above-2^32",
       [](TensorMapSpec &spec, uint64_t &) {
         spec.globalDims = {128, (uint64_t(1) << 32) + 1};
       }},
      {"rank-6", [](TensorMapSpec &spec,
                    uint64_t &) { spec.globalDims = {128, 2, 2, 2, 2, 2}; }},
      {"missing-box-dim",
       [](TensorMapSpec &spec, uint64_t &) { spec.boxDims = {64}; }},
  };
  for (const Case &c : cases) {
    TensorMapSpec spec = matrixSpec();
    uint64_t addr = address;
    c.change(spec, addr);
    report(c.name, checkTensorMap(spec, addr));
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// kernel-file: writing, reading and rejecting kernel files
//===----------------------------------------------------------------------===//

static const char kSamplePtx[] = ".version 8.0\n"
                                 ".target sm_90a\n"
                                 ".address_size 64\n"
                                 ".visible .entry fa4_attention()\n"
                                 "{\n  ret;\n}\n";

static KernelFile sampleKernelFile() {
  KernelFile file;
  file.entry = "fa4_attention";
  file.target = "sm_90a";
  file.format = BinaryFormat::PTX;
  file.block = {384, 1, 1};
  file.grid = {"cdiv(seq_len,128)", "16", "1"};
  file.dynamicSharedBytes = 200704;
  KernelTensor qTensor;
  qTensor.name = "q";
  qTensor.rank = 2;
  KernelTensor oTensor;
  oTensor.name = "o";
  oTensor.access = TensorAccess::Output;
  oTensor.rank = 2;
  oTensor.shape = {"q.dim0", "q.dim1"};
  oTensor.contiguous = true;
  file.tensors = {qTensor, oTensor};
  KernelParam q;
  q.kind = ParamKind::TensorMap;
  q.name = "q_map";
  q.tensor = "q";
  q.elementType = ElementType::BF16;
  q.boxDims = {64, 128};
  q.swizzle = Swizzle::B128;
  q.mapDims = {1, 0};
  KernelParam o;
  o.kind = ParamKind::Pointer;
  o.name = "o";
  o.tensor = "o";
  KernelParam seqLen;
  seqLen.kind = ParamKind::I32;
  seqLen.name = "seq_len";
  seqLen.value = "q.dim0";
  KernelParam scale;
  scale.kind = ParamKind::F32;
  scale.name = "scale";
  file.params = {q, o, seqLen, scale};
  file.metadata = {{"head_dim", "128"}, {"problem", "b=2 h=16 s=4096 causal"}};
  file.binary = kSamplePtx;
  return file;
}

static bool writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  return bool(out);
}

/// Parses `contents` and reports the outcome as case `name`.
static void reportParse(const char *name, const std::string &contents) {
  report(name, parseKernelFile(contents).status());
}

/// `text` with the first occurrence of `from` replaced by `to`.
static std::string replaced(std::string text, const std::string &from,
                            const std::string &to) {
  size_t pos = text.find(from);
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to);
  return text;
}

static int runKernelFile(const std::string &path) {
  KernelFile file = sampleKernelFile();
  report("write", writeKernelFile(file, path));
  Expected<KernelFile> read = readKernelFile(path);
  report("read", read.status());
  if (read.ok()) {
    std::printf("read back: entry %s, target %s, %zu params, %zu metadata, "
                "%zu B %s binary\n",
                read->entry.c_str(), read->target.c_str(), read->params.size(),
                read->metadata.size(), read->binary.size(),
                binaryFormatName(read->format));
    std::printf("round trip: %s\n", *read == file ? "identical" : "DIFFERENT");
  }

  // Every byte value survives in a cubin-format binary.
  KernelFile cubin = file;
  cubin.format = BinaryFormat::Cubin;
  cubin.grid.clear();
  cubin.binary.clear();
  for (int i = 0; i < 256; ++i)
    cubin.binary += char(i);
  Expected<std::string> bytes = serializeKernelFile(cubin);
  Expected<KernelFile> parsed = bytes.ok()
                                    ? parseKernelFile(*bytes)
                                    : Expected<KernelFile>(bytes.status());
  report("binary-round-trip", parsed.status());
  if (parsed.ok())
    std::printf("binary round trip: %s\n",
                *parsed == cubin ? "identical" : "DIFFERENT");

  std::string good = *serializeKernelFile(file);
  std::string truncatedPath = path + ".truncated";
  writeBytes(truncatedPath, good.substr(0, good.size() - 10));
  report("truncated-binary", readKernelFile(truncatedPath).status());
  writeBytes(truncatedPath, good.substr(0, good.find("param =")));
  report("truncated-header", readKernelFile(truncatedPath).status());
  reportParse("empty", "");
  reportParse("bad-magic", replaced(good, "fa4-kernel 2", "fa5-kernel 2"));
  reportParse("elf-file", std::string("\x7f"
                                      "ELF\x02\x01\x01\0\0\0",
                                      10));
  reportParse("bad-version", replaced(good, "fa4-kernel 2", "fa4-kernel 4"));
  reportParse("missing-target", replaced(good, "target = sm_90a\n", ""));
  reportParse("repeated-field",
              replaced(good, "format = ptx\n", "format = ptx\nentry = b\n"));
  reportParse("unknown-field", replaced(good, "grid", "grd"));
  reportParse("bad-block", replaced(good, "block = 384 1 1", "block = 384 1"));
  reportParse("bad-param-kind", replaced(good, "pointer o", "ptr o"));
  reportParse("tensor-map-without-box", replaced(good, " box=64,128", ""));
  reportParse("bad-swizzle", replaced(good, "swizzle=128", "swizzle=48"));
  reportParse("trailing-bytes", good + "xyz");
  reportParse("undeclared-map-tensor",
              replaced(good, "tensor=q ", "tensor=x "));
  reportParse("map-rank", replaced(good, "box=64,128 ", "box=64,128,1 "));
  reportParse("map-dims", replaced(good, "dims=1,0", "dims=1,1"));
  reportParse("map-type", replaced(good, "type=bf16 box", "type=f16 box"));
  reportParse("bad-rule", replaced(good, "value=q.dim0", "value=q.dim0+"));
  reportParse("rule-beyond-rank",
              replaced(good, "value=q.dim0", "value=q.dim2"));
  reportParse("rule-unknown-name",
              replaced(good, "value=q.dim0", "value=rows"));
  reportParse("rule-reads-f32", replaced(good, "value=q.dim0", "value=scale"));
  reportParse("rule-cycle", replaced(good, "value=q.dim0", "value=seq_len+1"));
  reportParse("shape-rule-count",
              replaced(good, "shape=q.dim0,q.dim1", "shape=q.dim0"));
  reportParse("grid-rules", replaced(good, ", 16, 1", ", 16"));
  reportParse("tensor-on-scalar",
              replaced(good, "f32 scale", "f32 scale tensor=q"));
  reportParse("tensor-twice",
              replaced(good, "tensor = o output", "tensor = q output"));
  reportParse("bad-access", replaced(good, "o output", "o writes"));

  // A version 1 file: no tensor lines, a grid of integers, the tensor maps'
  // tensors taken from the maps.
  std::string v1 = "fa4-kernel 1\nentry = k\ntarget = sm_90a\nformat = ptx\n"
                   "block = 128 1 1\ngrid = 4 2 1\ndynamic-shared-bytes = 0\n"
                   "param = tensor_map a tensor=a type=f16 box=64,64 "
                   "swizzle=128\nparam = i64 n\nbinary = 3\nabc";
  Expected<KernelFile> old = parseKernelFile(v1);
  report("version-1", old.status());
  if (old.ok())
    std::printf("version 1: version %u, grid %s %s %s, %zu tensor %s rank %u "
                "%s\n",
                old->version, old->grid[0].c_str(), old->grid[1].c_str(),
                old->grid[2].c_str(), old->tensors.size(),
                old->tensors[0].name.c_str(), old->tensors[0].rank,
                elementTypeName(old->tensors[0].elementType));

  // A programmatic launch: written as version 3 with its line, read back
  // identical; the line needs version 3 and takes one value.
  KernelFile programmatic = file;
  programmatic.programmaticLaunch = true;
  Expected<std::string> v3 = serializeKernelFile(programmatic);
  Expected<KernelFile> v3read =
      v3.ok() ? parseKernelFile(*v3) : Expected<KernelFile>(v3.status());
  report("programmatic", v3read.status());
  if (v3read.ok())
    std::printf(
        "programmatic: %s, version %u, launch line %s\n",
        *v3read == programmatic ? "identical" : "DIFFERENT", v3read->version,
        v3->find("\nlaunch = programmatic\n") != std::string::npos ? "written"
                                                                   : "MISSING");
  std::string v3text = v3.ok() ? *v3 : std::string();
  reportParse("launch-in-version-2",
              replaced(v3text, "fa4-kernel 3", "fa4-kernel 2"));
  reportParse("bad-launch",
              replaced(v3text, "launch = programmatic", "launch = early"));

  KernelFile spaced = file;
  spaced.params[1].name = "my output";
  report("write-bad-name", serializeKernelFile(spaced).status());
  return 0;
}

//===----------------------------------------------------------------------===//
// target, shared memory and arguments: checks made before a load or launch
//===----------------------------------------------------------------------===//

/// An H200 as the driver describes it.
static DeviceInfo h200() {
  DeviceInfo device;
  device.name = "NVIDIA H200";
  device.computeMajor = 9;
  device.computeMinor = 0;
  device.smCount = 132;
  device.maxSharedPerBlockOptin = 232448;
  device.driverVersion = 13000;
  return device;
}

static int runLaunchChecks() {
  DeviceInfo device = h200();
  std::string entry = "fa4_attention";
  report("sm_90a-ptx", checkTarget(entry, "sm_90a", BinaryFormat::PTX, device));
  report("sm_80-ptx", checkTarget(entry, "sm_80", BinaryFormat::PTX, device));
  report("sm_80-cubin",
         checkTarget(entry, "sm_80", BinaryFormat::Cubin, device));
  report("sm_100a-cubin",
         checkTarget(entry, "sm_100a", BinaryFormat::Cubin, device));
  report("sm_100f-ptx",
         checkTarget(entry, "sm_100f", BinaryFormat::PTX, device));
  report("bad-target", checkTarget(entry, "gfx942", BinaryFormat::PTX, device));

  report("shared-at-limit", checkSharedMemory(entry, 232448, 0, device));
  report("shared-over-limit", checkSharedMemory(entry, 229376, 4096, device));

  std::vector<KernelParam> params = sampleKernelFile().params;
  CUtensorMap map = {};
  KernelArgs args;
  args.addTensorMap(map).addPointer(0x1000).addI32(4096).addF32(0.125f);
  report("args-match", checkArguments(entry, params, args));
  KernelArgs fewer;
  fewer.addTensorMap(map).addPointer(0x1000);
  report("args-too-few", checkArguments(entry, params, fewer));
  KernelArgs swapped;
  swapped.addTensorMap(map).addI32(4096).addPointer(0x1000).addF32(0.125f);
  report("args-wrong-kind", checkArguments(entry, params, swapped));
  std::vector<void *> pointers = args.pointers();
  bool aligned =
      reinterpret_cast<uintptr_t>(pointers[0]) % alignof(CUtensorMap) == 0;
  float scale = 0;
  std::memcpy(&scale, pointers[3], sizeof(scale));
  std::printf("args: %zu slots, tensor map %s, scale %g\n", pointers.size(),
              aligned ? "aligned" : "MISALIGNED", scale);
  return 0;
}

//===----------------------------------------------------------------------===//
// driver: loading libcuda, with or without a GPU
//===----------------------------------------------------------------------===//

static int runDriver(const std::string &library) {
  Expected<std::unique_ptr<Driver>> driver = Driver::load(library);
  if (!driver.ok()) {
    std::printf("driver: unavailable: %s\n", driver.status().message().c_str());
    return 0;
  }
  const DeviceInfo &device = (*driver)->device();
  std::printf("driver: loaded\n");
  std::printf("device: %s\n", device.name.c_str());
  std::printf("compute capability: %d.%d (%s)\n", device.computeMajor,
              device.computeMinor, device.archName().c_str());
  std::printf("sms: %d\n", device.smCount);
  std::printf("max opt-in shared memory per block: %d B\n",
              device.maxSharedPerBlockOptin);
  std::printf("driver version: %d\n", device.driverVersion);
  return 0;
}

//===----------------------------------------------------------------------===//
// gpu: load, encode, launch and time on a real device
//===----------------------------------------------------------------------===//

/// Two sm_90 kernels. `fa4_check_params` copies its by-value tensor map, its
/// i32 and its f32 parameters to `out`. `fa4_check_tma` loads one 64 x 8 bf16
/// box at (c0, c1) with TMA into dynamic shared memory (128 B swizzle) and
/// copies the 1024 B of shared memory to `out`.
static const char kCheckPtx[] = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry fa4_check_params(
  .param .align 64 .b8 map[128],
  .param .u64 out,
  .param .u32 n,
  .param .f32 scale)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 8;
  mov.u64 %rd4, map;
  add.u64 %rd5, %rd4, %rd3;
  ld.param.u64 %rd6, [%rd5];
  add.u64 %rd7, %rd2, %rd3;
  st.global.u64 [%rd7], %rd6;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u32 %r2, [n];
  st.global.u32 [%rd2+128], %r2;
  ld.param.f32 %f1, [scale];
  st.global.f32 [%rd2+132], %f1;
DONE:
  ret;
}

.extern .shared .align 1024 .b8 smem[];

.visible .entry fa4_check_tma(
  .param .align 64 .b8 tma_map[128],
  .param .u64 tma_out,
  .param .u32 c0,
  .param .u32 c1)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, smem;
  add.u32 %r3, %r2, 1024;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra INITIALIZED;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  fence.mbarrier_init.release.cluster;
INITIALIZED:
  bar.sync 0;
  @!%p1 bra WAIT;
  mov.u64 %rd1, tma_map;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u32 %r4, [c0];
  ld.param.u32 %r5, [c1];
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 1024;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd2, {%r4, %r5}], [%r3];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  @!%p2 bra WAIT;
  shl.b32 %r6, %r1, 4;
  add.u32 %r7, %r2, %r6;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r7];
  ld.param.u64 %rd3, [tma_out];
  cvta.to.global.u64 %rd4, %rd3;
  mul.wide.u32 %rd5, %r1, 16;
  add.u64 %rd6, %rd4, %rd5;
  st.global.v4.u32 [%rd6], {%r8, %r9, %r10, %r11};
  ret;
}
)";

/// Prints the failure of `status` under `name` and says whether it failed.
static bool failed(const char *name, const Status &status) {
  if (status.ok())
    return false;
  report(name, status);
  return true;
}

/// Runs fa4_check_params from a kernel file: a tensor map, an i32 and an f32
/// must arrive byte for byte.
static bool checkParams(const Driver &driver, const DeviceBuffer &tensor) {
  KernelFile file;
  file.entry = "fa4_check_params";
  file.target = "sm_90";
  file.format = BinaryFormat::PTX;
  file.block = {32, 1, 1};
  KernelParam map, out, n, scale;
  map.kind = ParamKind::TensorMap;
  map.name = "map";
  map.tensor = "x";
  map.boxDims = {64, 64};
  map.swizzle = Swizzle::B128;
  out.name = "out";
  n.kind = ParamKind::I32;
  n.name = "n";
  scale.kind = ParamKind::F32;
  scale.name = "scale";
  file.params = {map, out, n, scale};
  KernelTensor x;
  x.name = "x";
  x.rank = 2;
  file.tensors = {x};
  file.binary = kCheckPtx;
  Expected<std::string> bytes = serializeKernelFile(file);
  Expected<KernelFile> reread = bytes.ok()
                                    ? parseKernelFile(*bytes)
                                    : Expected<KernelFile>(bytes.status());
  if (failed("params-file", reread.status()))
    return false;
  Expected<Kernel> kernel = Kernel::load(driver, *reread);
  if (failed("params-load", kernel.status()))
    return false;
  report("params-load", Status::success());

  Expected<CUtensorMap> tmap =
      encodeTensorMap(driver, matrixSpec(), tensor.address());
  Expected<DeviceBuffer> result = DeviceBuffer::allocate(driver, 256);
  if (failed("params-encode", tmap.status()) ||
      failed("params-alloc", result.status()) ||
      failed("params-poison", result->fill8(0xff)))
    return false;

  KernelArgs wrong;
  wrong.addPointer(result->address());
  report("params-wrong-args",
         launch(*kernel, {{1, 1, 1}, {32, 1, 1}, 0, nullptr}, wrong));
  report("params-wrong-block",
         launch(*kernel, {{1, 1, 1}, {64, 1, 1}, 0, nullptr}, wrong));

  KernelArgs args;
  args.addTensorMap(*tmap)
      .addPointer(result->address())
      .addI32(4096)
      .addF32(0.125f);
  unsigned char host[256];
  if (failed("params-launch",
             launch(*kernel, {{1, 1, 1}, {32, 1, 1}, 0, nullptr}, args)) ||
      failed("params-sync", driver.synchronize()) ||
      failed("params-copy", result->copyToHost(host, sizeof(host))))
    return false;
  int32_t n32 = 0;
  float f32 = 0;
  std::memcpy(&n32, host + 128, 4);
  std::memcpy(&f32, host + 132, 4);
  bool same = std::memcmp(host, &*tmap, sizeof(CUtensorMap)) == 0;
  std::printf("params: tensor map %s, i32 %d, f32 %g\n",
              same ? "identical" : "DIFFERENT", n32, f32);

  // The same launch from the description: x bound as the 4096 x 128 matrix
  // gives the same map, n its rule's value.
  KernelFile described = *reread;
  described.grid = {"1", "1", "1"};
  described.params[1].tensor = "out";
  described.params[2].value = "x.dim0";
  KernelTensor outTensor;
  outTensor.name = "out";
  outTensor.access = TensorAccess::Output;
  outTensor.elementType = ElementType::F32;
  outTensor.rank = 1;
  outTensor.shape = {"64"};
  outTensor.contiguous = true;
  described.tensors.push_back(outTensor);
  Expected<Launcher> launcher = Launcher::create(*kernel, described);
  if (failed("binding-create", launcher.status()) ||
      failed("binding-x",
             launcher->setTensor("x", {tensor.address(), ElementType::BF16,
                                       {4096, 128}, {}})) ||
      failed("binding-out", launcher->setTensor("out", {result->address(),
                                                        ElementType::F32,
                                                        {64},
                                                        {}})) ||
      failed("binding-scale", launcher->setScalar("scale", 0.25)) ||
      failed("binding-poison", result->fill8(0xff)) ||
      failed("binding-launch", launcher->launch()) ||
      failed("binding-sync", driver.synchronize()) ||
      failed("binding-copy", result->copyToHost(host, sizeof(host))))
    return false;
  std::memcpy(&n32, host + 128, 4);
  std::memcpy(&f32, host + 132, 4);
  same = std::memcmp(host, &*tmap, sizeof(CUtensorMap)) == 0;
  std::printf("binding: tensor map %s, i32 %d, f32 %g, grid %s, %llu map "
              "encoded\n",
              same ? "identical" : "DIFFERENT", n32, f32,
              launcher->config().grid.str().c_str(),
              (unsigned long long)launcher->mapsEncoded());
  return true;
}

/// Runs fa4_check_tma on a 16 x 128 bf16 matrix whose element (r, c) holds
/// r * 128 + c, loading the box at column 64, row 12: rows 16 and beyond are
/// out of bounds and must read as zero.
static bool checkTma(const Driver &driver) {
  constexpr unsigned rows = 16, cols = 128, boxCols = 64, boxRows = 8;
  constexpr unsigned c0 = 64, c1 = 12;
  constexpr uint32_t dynamicShared = 100 * 1024;
  std::vector<uint16_t> input(rows * cols);
  for (unsigned i = 0; i < input.size(); ++i)
    input[i] = uint16_t(i);
  Expected<DeviceBuffer> tensor =
      DeviceBuffer::allocate(driver, input.size() * 2);
  Expected<DeviceBuffer> result = DeviceBuffer::allocate(driver, 1024);
  if (failed("tma-alloc", tensor.status()) ||
      failed("tma-alloc", result.status()) ||
      failed("tma-upload",
             tensor->copyFromHost(input.data(), input.size() * 2)) ||
      failed("tma-poison", result->fill16(0xffff)))
    return false;

  TensorMapSpec spec;
  spec.elementType = ElementType::BF16;
  spec.globalDims = {cols, rows};
  spec.globalStrides = {cols * 2};
  spec.boxDims = {boxCols, boxRows};
  spec.swizzle = Swizzle::B128;
  Expected<CUtensorMap> map = encodeTensorMap(driver, spec, tensor->address());
  Expected<Kernel> kernel = Kernel::load(driver, BinaryFormat::PTX, kCheckPtx,
                                         "fa4_check_tma", dynamicShared);
  if (failed("tma-encode", map.status()) || failed("tma-load", kernel.status()))
    return false;
  std::printf("tma kernel: %d registers, %d B local, %d B static shared\n",
              kernel->info().registers, kernel->info().localBytes,
              kernel->info().staticSharedBytes);

  KernelArgs args;
  args.addTensorMap(*map).addPointer(result->address()).addI32(c0).addI32(c1);
  LaunchConfig config{{1, 1, 1}, {64, 1, 1}, dynamicShared, nullptr};
  std::vector<uint16_t> output(512);
  if (failed("tma-launch", launch(*kernel, config, args)) ||
      failed("tma-sync", driver.synchronize()) ||
      failed("tma-copy", result->copyToHost(output.data(), 1024)))
    return false;

  // The 128 B swizzle permutes the 16 B chunks of each 128 B row by XOR with
  // the row index modulo 8.
  unsigned mismatches = 0;
  for (unsigned r = 0; r < boxRows; ++r)
    for (unsigned c = 0; c < boxCols; ++c) {
      unsigned byte = c * 2;
      unsigned swizzled = r * 128 + (((byte / 16) ^ (r % 8)) * 16) + byte % 16;
      unsigned row = c1 + r, col = c0 + c;
      uint16_t expected = row < rows ? uint16_t(row * cols + col) : 0;
      mismatches += output[swizzled / 2] != expected;
    }
  std::printf("tma: %u of %u elements differ\n", mismatches, boxRows * boxCols);

  report("tma-over-shared-limit",
         Kernel::load(driver, BinaryFormat::PTX, kCheckPtx, "fa4_check_tma",
                      uint32_t(driver.device().maxSharedPerBlockOptin) + 1024)
             .status());
  config.dynamicSharedBytes = dynamicShared + 16;
  report("tma-launch-over-loaded-shared", launch(*kernel, config, args));
  config.dynamicSharedBytes = dynamicShared;
  Expected<float> ms = timeLaunches(*kernel, config, args, 100);
  if (failed("tma-time", ms.status()))
    return false;
  std::printf("timed 100 launches: %s\n",
              *ms > 0 ? "positive" : "NOT POSITIVE");
  return true;
}

static int runGpu() {
  Expected<std::unique_ptr<Driver>> loaded = Driver::load();
  if (failed("gpu-driver", loaded.status()))
    return 1;
  const Driver &driver = **loaded;

  report("bad-ptx", Kernel::load(driver, BinaryFormat::PTX,
                                 ".version 8.0\n.target sm_90\nnonsense\n",
                                 "fa4_nonsense", 0)
                        .status());
  report("missing-entry",
         Kernel::load(driver, BinaryFormat::PTX, kCheckPtx, "fa4_missing", 0)
             .status());
  KernelFile wrongTarget;
  wrongTarget.entry = "fa4_check_tma";
  wrongTarget.target =
      driver.device().computeMajor == 10 ? "sm_90a" : "sm_100a";
  wrongTarget.format = BinaryFormat::Cubin;
  wrongTarget.binary = kCheckPtx;
  report("wrong-target", Kernel::load(driver, wrongTarget).status());

  Expected<DeviceBuffer> tensor = DeviceBuffer::allocate(driver, 4096 * 256);
  if (failed("gpu-alloc", tensor.status()))
    return 1;
  report("copy-overrun", tensor->copyFromHost(nullptr, 4096 * 256 + 1));
  TensorMapSpec bad = matrixSpec();
  bad.boxDims = {64, 300};
  report("encode-bad-box",
         encodeTensorMap(driver, bad, tensor->address()).status());

  if (!checkParams(driver, *tensor) || !checkTma(driver))
    return 1;
  return 0;
}

//===----------------------------------------------------------------------===//
// launch-overhead: host time of one launch, raw and through the launcher
//===----------------------------------------------------------------------===//

/// The median over `rounds` of the host microseconds per call of `call`,
/// made `batch` times between two synchronizations (which are not timed),
/// so that the launch queue never fills.
static double hostMicroseconds(const Driver &driver,
                               const std::function<bool()> &call) {
  constexpr int rounds = 41, batch = 256;
  std::vector<double> perCall;
  for (int round = 0; round < rounds; ++round) {
    if (!driver.synchronize().ok())
      return -1;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i)
      if (!call())
        return -1;
    auto stop = std::chrono::steady_clock::now();
    perCall.push_back(std::chrono::duration<double, std::micro>(stop - start)
                          .count() /
                      batch);
  }
  std::sort(perCall.begin(), perCall.end());
  return perCall[rounds / 2];
}

/// Host cost of a launch of fa4_check_params (one tensor map, a pointer, an
/// i32, an f32): cuLaunchKernelEx called directly, `launch` (its checks),
/// and `Launcher::launch` with the tensor map cached, after rebinding the
/// same tensor (checks again, map reused), and after binding another
/// address each time (map encoded again).
static int runLaunchOverhead() {
  Expected<std::unique_ptr<Driver>> loaded = Driver::load();
  if (failed("overhead-driver", loaded.status()))
    return 1;
  const Driver &driver = **loaded;
  Expected<DeviceBuffer> tensor = DeviceBuffer::allocate(driver, 4096 * 256 * 2);
  Expected<DeviceBuffer> result = DeviceBuffer::allocate(driver, 256);
  if (failed("overhead-alloc", tensor.status()) ||
      failed("overhead-alloc", result.status()))
    return 1;
  std::string text =
      "fa4-kernel 2\nentry = fa4_check_params\ntarget = sm_90\nformat = ptx\n"
      "block = 32 1 1\ngrid = 1, 1, 1\ndynamic-shared-bytes = 0\n"
      "tensor = x input type=bf16 rank=2 align=16\n"
      "tensor = out output type=f32 rank=1 align=16 shape=64 contiguous\n"
      "param = tensor_map map tensor=x type=bf16 box=64,64 swizzle=128\n"
      "param = pointer out tensor=out\nparam = i32 n value=x.dim0\n"
      "param = f32 scale\nbinary = " +
      std::to_string(std::strlen(kCheckPtx)) + "\n" + kCheckPtx;
  Expected<KernelFile> file = parseKernelFile(text);
  if (failed("overhead-file", file.status()))
    return 1;
  Expected<Kernel> kernel = Kernel::load(driver, *file);
  Expected<Launcher> launcher = kernel.ok()
                                    ? Launcher::create(*kernel, *file)
                                    : Expected<Launcher>(kernel.status());
  if (failed("overhead-load", launcher.status()))
    return 1;
  TensorArg x{tensor->address(), ElementType::BF16, {4096, 128}, {}};
  TensorArg xOther{tensor->address() + 4096 * 256, ElementType::BF16,
                   {4096, 128}, {}};
  if (failed("overhead-bind", launcher->setTensor("x", x)) ||
      failed("overhead-bind",
             launcher->setTensor(
                 "out", {result->address(), ElementType::F32, {64}, {}})) ||
      failed("overhead-bind", launcher->setScalar("scale", 0.5)) ||
      failed("overhead-prepare", launcher->prepare()))
    return 1;
  const KernelArgs &args = launcher->args();
  LaunchConfig config = launcher->config();
  CUlaunchConfig raw = {};
  raw.gridDimX = raw.gridDimY = raw.gridDimZ = 1;
  raw.blockDimX = 32;
  raw.blockDimY = raw.blockDimZ = 1;
  std::vector<void *> pointers = args.pointers();
  CUfunction function = kernel->function();
  double rawUs = hostMicroseconds(driver, [&] {
    return driver.api().cuLaunchKernelExFn(&raw, function, pointers.data(),
                                           nullptr) == CUDA_SUCCESS;
  });
  double checkedUs = hostMicroseconds(
      driver, [&] { return launch(*kernel, config, args).ok(); });
  double cachedUs =
      hostMicroseconds(driver, [&] { return launcher->launch().ok(); });
  double rebindUs = hostMicroseconds(driver, [&] {
    return launcher->setTensor("x", x).ok() && launcher->launch().ok();
  });
  bool flip = false;
  double encodeUs = hostMicroseconds(driver, [&] {
    flip = !flip;
    return launcher->setTensor("x", flip ? xOther : x).ok() &&
           launcher->launch().ok();
  });
  if (rawUs < 0 || checkedUs < 0 || cachedUs < 0 || rebindUs < 0 ||
      encodeUs < 0) {
    std::printf("overhead: a launch failed\n");
    return 1;
  }
  std::printf("host us per launch (median of 41 x 256): raw cuLaunchKernelEx "
              "%.2f, launch() %.2f (+%.2f), Launcher cached %.2f (+%.2f), "
              "rebind same tensor %.2f (+%.2f), new address (encode) %.2f "
              "(+%.2f)\n",
              rawUs, checkedUs, checkedUs - rawUs, cachedUs, cachedUs - rawUs,
              rebindUs, rebindUs - rawUs, encodeUs, encodeUs - rawUs);
  return driver.synchronize().ok() ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// rules: parsing, printing and evaluating launch rules
//===----------------------------------------------------------------------===//

static int runRules() {
  // q is 6 x 300 x 64 with row-major strides; seq is 300; num_sms 132.
  LaunchRule::Lookup lookup = [](const RuleRef &ref) -> Expected<int64_t> {
    if (ref.kind == RuleRef::Dim && ref.name == "q" && ref.index < 3)
      return int64_t(std::vector<int64_t>{6, 300, 64}[ref.index]);
    if (ref.kind == RuleRef::Stride && ref.name == "q" && ref.index < 3)
      return int64_t(std::vector<int64_t>{19200, 64, 1}[ref.index]);
    if (ref.kind == RuleRef::Name && ref.name == "seq")
      return int64_t(300);
    if (ref.kind == RuleRef::Name && ref.name == "num_sms")
      return int64_t(132);
    return Status::error("no value for '" + ref.str() + "'");
  };
  const char *rules[] = {
      "cdiv(q.dim1, 128)",
      "q.dim0 * q.dim1",
      "min(num_sms, 3*cdiv(seq,128))",
      "(seq - 1) / 128 + 1",
      "seq - (q.dim0 - 1)",
      "seq - q.dim0 - 1",
      "max(q.stride0, 7) % 1000",
      "-5 / 2",
      "0 - 5 / 2",
      "seq / (q.dim0 * 2)",
      "cdiv(0 - 7, 2)",
      "9223372036854775807 + 1",
      "seq / (q.dim0 - 6)",
      "k.dim0",
      "q.dim",
      "cdiv(seq)",
      "seq +",
      "(seq",
      "q.size0",
      "99999999999999999999",
      "seq $ 2",
      "seq % 128 == 0",
      "q.dim2 * 2 >= 128",
      "seq < q.dim0 + 1",
      "(seq == 300) + 1",
      "seq == 300 == 1",
  };
  for (const char *text : rules) {
    Expected<LaunchRule> rule = LaunchRule::parse(text);
    if (!rule.ok()) {
      std::printf("'%s': error: %s\n", text, rule.status().message().c_str());
      continue;
    }
    Expected<LaunchRule> again = LaunchRule::parse(rule->str());
    bool stable = again.ok() && again->str() == rule->str();
    Expected<int64_t> value = rule->evaluate(lookup);
    if (value.ok())
      std::printf("'%s': %s = %lld%s\n", text, rule->str().c_str(),
                  (long long)*value, stable ? "" : " (UNSTABLE)");
    else
      std::printf("'%s': %s: error: %s\n", text, rule->str().c_str(),
                  value.status().message().c_str());
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// binding: binding tensors and scalars by name, and resolving a launch
//===----------------------------------------------------------------------===//

/// The description of an attention kernel: Q, K, V as [B*H, S, D] viewed by
/// tensor maps, O and LSE written through pointers, the sizes from Q and K.
static KernelFile attentionDescription() {
  std::string text =
      "fa4-kernel 2\nentry = attention\ntarget = sm_90a\nformat = ptx\n"
      "block = 384 1 1\ngrid = cdiv(q.dim1,128), q.dim0, 1\n"
      "dynamic-shared-bytes = 1024\n"
      "tensor = q input type=bf16 rank=3 align=16\n"
      "tensor = k input type=bf16 rank=3 align=16 shape=q.dim0,*,q.dim2\n"
      "tensor = v input type=bf16 rank=3 align=16 shape=q.dim0,k.dim1,q.dim2\n"
      "tensor = o output type=bf16 rank=3 align=16 "
      "shape=q.dim0,q.dim1,v.dim2 contiguous\n"
      "tensor = lse output type=f32 rank=2 align=16 shape=q.dim0,q.dim1 "
      "contiguous\n"
      "param = tensor_map q tensor=q type=bf16 box=64,128,1 swizzle=128 "
      "dims=2,1,0\n"
      "param = tensor_map k tensor=k type=bf16 box=64,128,1 swizzle=128\n"
      "param = tensor_map v tensor=v type=bf16 box=64,128,1 swizzle=128\n"
      "param = pointer o tensor=o\nparam = pointer lse tensor=lse\n"
      "param = i64 seq_q value=q.dim1\nparam = i64 seq_k value=k.dim1\n"
      "param = f32 scale_log2\nparam = i32 causal\n"
      "require = q.dim2%8 == 0\n"
      "binary = 3\nabc";
  Expected<KernelFile> file = parseKernelFile(text);
  if (!file.ok()) {
    std::printf("attention description: error: %s\n",
                file.status().message().c_str());
    std::exit(1);
  }
  return file.take();
}

static int runBinding() {
  const KernelFile file = attentionDescription();
  const DeviceInfo device = h200();
  constexpr CUdeviceptr base = 0x7f0000000000;
  auto tensor = [&](int which, std::vector<int64_t> shape,
                    ElementType type = ElementType::BF16) {
    return TensorArg{
        base + CUdeviceptr(which) * 0x10000000, type, std::move(shape), {}};
  };
  // A valid attention of 6 heads, 300 queries, 200 keys, head dim 64.
  auto bindAll = [&](Binding &b) {
    (void)b.setTensor("q", tensor(0, {6, 300, 64}));
    (void)b.setTensor("k", tensor(1, {6, 200, 64}));
    (void)b.setTensor("v", tensor(2, {6, 200, 64}));
    (void)b.setTensor("o", tensor(3, {6, 300, 64}));
    (void)b.setTensor("lse", tensor(4, {6, 300}, ElementType::F32));
    (void)b.setScalar("scale_log2", 0.18);
    (void)b.setScalar("causal", 1);
  };
  {
    Binding b = Binding::create(file).take();
    bindAll(b);
    Expected<ResolvedLaunch> launch = b.resolve(device);
    report("valid", launch.status());
    if (launch.ok()) {
      const ResolvedLaunch &l = *launch;
      std::printf("grid %s; seq_q %lld seq_k %lld causal %lld scale %.2f; "
                  "q map dims %llu,%llu,%llu strides %llu,%llu; k map dims "
                  "%llu,%llu,%llu\n",
                  l.grid.str().c_str(), (long long)l.params[5].integer,
                  (long long)l.params[6].integer,
                  (long long)l.params[8].integer, l.params[7].real,
                  (unsigned long long)l.params[0].map.globalDims[0],
                  (unsigned long long)l.params[0].map.globalDims[1],
                  (unsigned long long)l.params[0].map.globalDims[2],
                  (unsigned long long)l.params[0].map.globalStrides[0],
                  (unsigned long long)l.params[0].map.globalStrides[1],
                  (unsigned long long)l.params[1].map.globalDims[0],
                  (unsigned long long)l.params[1].map.globalDims[1],
                  (unsigned long long)l.params[1].map.globalDims[2]);
    }
  }
  // Q laid out (S, H, D) and bound as the [H, S, D] view through strides.
  {
    Binding b = Binding::create(file).take();
    bindAll(b);
    TensorArg q = tensor(0, {6, 300, 64});
    q.strides = {64, 6 * 64, 1};
    report("strided-q", b.setTensor("q", q));
    Expected<ResolvedLaunch> launch = b.resolve(device);
    report("strided-q-resolve", launch.status());
    if (launch.ok())
      std::printf("strided q map strides %llu,%llu\n",
                  (unsigned long long)launch->params[0].map.globalStrides[0],
                  (unsigned long long)launch->params[0].map.globalStrides[1]);
  }
  struct Case {
    const char *name;
    std::function<Status(Binding &)> change;
  } cases[] = {
      {"unknown-tensor",
       [&](Binding &b) { return b.setTensor("x", tensor(0, {1})); }},
      {"wrong-type",
       [&](Binding &b) {
         return b.setTensor("q", tensor(0, {6, 300, 64}, ElementType::F16));
       }},
      {"wrong-rank",
       [&](Binding &b) {
         return b.setTensor("q", tensor(0, {6, 300}));
       }},
      {"zero-extent",
       [&](Binding &b) {
         return b.setTensor("q", tensor(0, {6, 0, 64}));
       }},
      {"misaligned",
       [&](Binding &b) {
         TensorArg q = tensor(0, {6, 300, 64});
         q.address += 8;
         return b.setTensor("q", q);
       }},
      {"null-address",
       [&](Binding &b) {
         TensorArg q = tensor(0, {6, 300, 64});
         q.address = 0;
         return b.setTensor("q", q);
       }},
      {"negative-stride",
       [&](Binding &b) {
         TensorArg q = tensor(0, {6, 300, 64});
         q.strides = {19200, -64, 1};
         return b.setTensor("q", q);
       }},
      {"strides-count",
       [&](Binding &b) {
         TensorArg q = tensor(0, {6, 300, 64});
         q.strides = {64, 1};
         return b.setTensor("q", q);
       }},
      {"not-contiguous",
       [&](Binding &b) {
         TensorArg o = tensor(3, {6, 300, 64});
         o.strides = {64, 6 * 64, 1};
         return b.setTensor("o", o);
       }},
      {"scalar-with-rule",
       [&](Binding &b) { return b.setScalar("seq_q", 300); }},
      {"scalar-unknown", [&](Binding &b) { return b.setScalar("sm", 1); }},
      {"scalar-not-integer",
       [&](Binding &b) { return b.setScalar("causal", 0.5); }},
      {"scalar-out-of-range",
       [&](Binding &b) { return b.setScalar("causal", 3e9); }},
      {"scalar-is-pointer", [&](Binding &b) { return b.setScalar("o", 1); }},
      {"pointer-of-tensor",
       [&](Binding &b) { return b.setPointer("o", base); }},
      {"shape-mismatch",
       [&](Binding &b) {
         (void)b.setTensor("o", tensor(3, {6, 299, 64}));
         return b.resolve(device).status();
       }},
      {"shape-mismatch-k",
       [&](Binding &b) {
         (void)b.setTensor("k", tensor(1, {5, 200, 64}));
         return b.resolve(device).status();
       }},
      {"map-inner-stride",
       [&](Binding &b) {
         TensorArg k = tensor(1, {6, 200, 64});
         k.strides = {200 * 64 * 2, 64 * 2, 2};
         (void)b.setTensor("k", k);
         (void)b.setTensor("v", tensor(2, {6, 200, 64}));
         return b.resolve(device).status();
       }},
      {"tma-stride",
       [&](Binding &b) {
         // Rows of 60 elements (120 B): not a multiple of 16 B.
         TensorArg k = tensor(1, {6, 200, 64});
         k.strides = {200 * 60, 60, 1};
         return b.setTensor("k", k).ok() ? b.resolve(device).status()
                                         : Status::error("bind failed");
       }},
      {"requirement",
       [&](Binding &b) {
         for (const char *name : {"q", "k", "v", "o"})
           (void)b.setTensor(name, tensor(0, {6, 300, 60}));
         return b.resolve(device).status();
       }},
      {"grid-y-limit",
       [&](Binding &b) {
         (void)b.setTensor("q", tensor(0, {70000, 128, 64}));
         (void)b.setTensor("k", tensor(1, {70000, 128, 64}));
         (void)b.setTensor("v", tensor(2, {70000, 128, 64}));
         (void)b.setTensor("o", tensor(3, {70000, 128, 64}));
         (void)b.setTensor("lse", tensor(4, {70000, 128}, ElementType::F32));
         return b.resolve(device).status();
       }},
  };
  for (const Case &c : cases) {
    Binding b = Binding::create(file).take();
    bindAll(b);
    report(c.name, c.change(b));
  }
  {
    Binding b = Binding::create(file).take();
    (void)b.setTensor("q", tensor(0, {6, 300, 64}));
    report("unbound-tensor", b.resolve(device).status());
    bindAll(b);
    Binding fresh = Binding::create(file).take();
    for (const char *name : {"q", "k", "v", "o"})
      (void)fresh.setTensor(name, tensor(0, {6, 300, 64}));
    (void)fresh.setTensor("lse", tensor(4, {6, 300}, ElementType::F32));
    report("unbound-scalar", fresh.resolve(device).status());
  }
  {
    // A persistent launch: the grid from num_sms, which the caller may set.
    std::string text = *serializeKernelFile(file);
    text = replaced(text, "grid = cdiv(q.dim1,128), q.dim0, 1",
                    "grid = min(num_sms,grid_x*grid_y), 1, 1");
    text =
        replaced(text, "param = i32 causal\n",
                 "param = i32 causal\nparam = i64 grid_x "
                 "value=cdiv(q.dim1,128)\nparam = i64 grid_y value=q.dim0\n");
    Expected<KernelFile> persistent = parseKernelFile(text);
    report("persistent-file", persistent.status());
    if (persistent.ok()) {
      Binding b = Binding::create(*persistent).take();
      bindAll(b);
      Expected<ResolvedLaunch> launch = b.resolve(device);
      report("persistent", launch.status());
      if (launch.ok())
        std::printf("persistent grid %s, grid_x %lld grid_y %lld\n",
                    launch->grid.str().c_str(),
                    (long long)launch->params[9].integer,
                    (long long)launch->params[10].integer);
      b.setNumSms(4);
      launch = b.resolve(device);
      if (launch.ok())
        std::printf("persistent grid with num_sms 4: %s\n",
                    launch->grid.str().c_str());
    }
  }
  {
    // A dynamic schedule's tile counter: a pointer the launcher gives
    // (resolved as 0 until then) unless the caller binds one; never a
    // scalar.
    std::string text = *serializeKernelFile(file);
    text = replaced(text, "param = i32 causal\n",
                    "param = i32 causal\nparam = counter tile_counter\n");
    Expected<KernelFile> dynamic = parseKernelFile(text);
    report("counter-file", dynamic.status());
    if (dynamic.ok()) {
      std::printf("counter param: %s %s\n",
                  paramKindName(dynamic->params.back().kind),
                  dynamic->params.back().name.c_str());
      std::printf("counter round trip: %s\n",
                  *serializeKernelFile(*dynamic) == text ? "identical"
                                                         : "different");
      Binding b = Binding::create(*dynamic).take();
      bindAll(b);
      Expected<ResolvedLaunch> launch = b.resolve(device);
      report("counter-unbound", launch.status());
      if (launch.ok())
        std::printf("counter resolved to %#llx\n",
                    (unsigned long long)launch->params.back().address);
      report("counter-bound", b.setPointer("tile_counter", 0x7f0000000100));
      launch = b.resolve(device);
      if (launch.ok())
        std::printf("counter resolved to %#llx\n",
                    (unsigned long long)launch->params.back().address);
      report("counter-as-scalar", b.setScalar("tile_counter", 0));
      report("two-counters",
             parseKernelFile(replaced(text, "param = counter tile_counter\n",
                                      "param = counter tile_counter\n"
                                      "param = counter other\n"))
                 .status());
    }
  }
  {
    KernelFile noGrid = file;
    noGrid.grid.clear();
    noGrid.version = 1;
    report("no-description", Binding::create(noGrid).status());
  }
  return 0;
}

// hang-report: the site table a kernel built with debug_hangs carries and
// the message made from a record, for well-formed and damaged inputs.
static int runHangReport() {
  using namespace fa4::runtime;
  std::string table =
      formatHangSite({"producer", 0, "the v pipeline's empty barrier", true,
                      "Attention.cpp:149"}) +
      '\0' +
      formatHangSite({"consumer", 128, "named barrier 1 (256 threads)", false,
                      "Attention.cpp|179"}) +
      '\0' + '\0';
  std::optional<std::vector<HangSite>> sites = parseHangSites(table);
  std::printf("sites: %zu\n", sites ? sites->size() : 0);
  for (const HangSite &site : *sites)
    std::printf("site: %s\n", formatHangSite(site).c_str());
  for (std::string_view bad :
       {std::string_view("consumer|x|b|1|l"), std::string_view("consumer|1|b|2|l"),
        std::string_view("consumer|1|b|1"), std::string_view("|1|b|1|l"),
        std::string_view("consumer|1|b|1|l\0oops", 22)})
    std::printf("damaged table: %s\n",
                parseHangSites(bad) ? "accepted" : "refused");
  uint32_t record[kHangWords] = {};
  record[kHangSiteWord] = 0;
  record[kHangStageWord] = 1;
  record[kHangPhaseWord] = 0;
  record[kHangBlockXWord] = 3;
  record[kHangBlockYWord] = 2;
  record[kHangBlockZWord] = 1;
  record[kHangThreadWord] = 5;
  record[kHangCyclesLowWord] = 0x40000010;
  record[kHangCyclesHighWord] = 1;
  std::optional<std::string> text = describeHang(record, *sites);
  std::printf("no magic: %s\n", text ? text->c_str() : "no report");
  record[kHangMagicWord] = kHangMagic;
  std::printf("producer: %s\n", describeHang(record, *sites)->c_str());
  record[kHangSiteWord] = 1;
  record[kHangThreadWord] = 300;
  std::printf("named: %s\n", describeHang(record, *sites)->c_str());
  record[kHangSiteWord] = 7;
  std::printf("unknown site: %s\n", describeHang(record, *sites)->c_str());
  return 0;
}

int main(int argc, char **argv) {
  std::string command = argc > 1 ? argv[1] : "";
  if (command == "tma" && argc == 2)
    return runTma();
  if (command == "kernel-file" && argc == 3)
    return runKernelFile(argv[2]);
  if (command == "launch-overhead" && argc == 2)
    return runLaunchOverhead();
  if (command == "rules" && argc == 2)
    return runRules();
  if (command == "binding" && argc == 2)
    return runBinding();
  if (command == "launch-checks" && argc == 2)
    return runLaunchChecks();
  if (command == "driver" && argc == 2)
    return runDriver("libcuda.so.1");
  if (command == "driver" && argc == 4 && std::string(argv[2]) == "--library")
    return runDriver(argv[3]);
  if (command == "gpu" && argc == 2)
    return runGpu();
  if (command == "hang-report" && argc == 2)
    return runHangReport();
  std::fprintf(
      stderr,
      "usage: fa4-runtime-checks tma | kernel-file <path> | rules | binding | "
      "launch-checks | driver [--library <libcuda>] | gpu | "
                       "launch-overhead | hang-report\n");
  return 2;
}
