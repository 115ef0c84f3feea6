//===- CAPI.cpp - libfa4's C interface ------------------------------------===//
//
// fa4.h over the runtime: the kernel an attention call needs is got once
// (KernelSource.h), loaded once per process on the CUDA driver's device 0,
// and launched through a `Launcher` that checks every tensor and scalar
// against the kernel file's description before the launch. Failures leave
// their message in a thread-local string and return non-zero; no C++
// exception leaves the library.
//
//===----------------------------------------------------------------------===//

#include "KernelSource.h"

#include "fa4/KernelFormat/PlanTable.h"
#include "fa4/Runner/Problem.h"
#include "fa4/Runtime/Binding.h"
#include "fa4/Runtime/Driver.h"
#include "fa4/Runtime/Kernel.h"
#include "fa4/fa4.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rt = ::fa4::runtime;

namespace {
thread_local std::string lastError;

int failWith(std::string message) {
  lastError = std::move(message);
  return 1;
}

/// Runs `body`, turning an escaping exception into a failure.
template <typename Body> int guarded(Body &&body) {
  try {
    lastError.clear();
    return body();
  } catch (const std::bad_alloc &) {
    return failWith("out of host memory");
  } catch (const std::exception &error) {
    return failWith(std::string("internal error: ") + error.what());
  }
}

/// Refuses an element type no kernel has.
rt::Status checkDtype(fa4_dtype dtype) {
  if (dtype != FA4_BF16 && dtype != FA4_F16)
    return rt::Status::error("dtype " + std::to_string(int(dtype)) +
                             " is not FA4_BF16 (0) or FA4_F16 (1)");
  return rt::Status::success();
}

/// Refuses a window, a softcap or a softmax scale attention does not have.
rt::Status checkScalars(int32_t windowLeft, int32_t windowRight, float softcap,
                        float scale) {
  if (windowLeft < -1 || windowRight < -1)
    return rt::Status::error(
        "window (" + std::to_string(windowLeft) + ", " +
        std::to_string(windowRight) +
        ") has a negative size; -1 is unbounded, 0 and more keys");
  if (!(softcap >= 0) || std::isinf(softcap))
    return rt::Status::error("softcap " + std::to_string(softcap) +
                             " is not a finite cap of 0 (none) or more");
  if (!(scale >= 0) || std::isinf(scale))
    return rt::Status::error("softmax_scale " + std::to_string(scale) +
                             " is not finite and positive (or 0: 1/sqrt(D))");
  return rt::Status::success();
}

/// The kernel key `args` needs, or a refusal.
rt::Expected<fa4::KernelKey> kernelKey(const fa4_attention_args &args) {
  if (args.struct_size < sizeof(fa4_attention_args))
    return rt::Status::error(
        "fa4_attention_args.struct_size is " +
        std::to_string(args.struct_size) + ", less than the " +
        std::to_string(sizeof(fa4_attention_args)) +
        " bytes of this library's fa4_attention_args");
  if (rt::Status s = checkDtype(args.dtype); !s.ok())
    return s;
  bool varlen = args.cu_seqlens_q != 0;
  int32_t rank = varlen ? 3 : 4;
  for (auto [name, tensor] : {std::pair{"q", &args.q}, {"v", &args.v}})
    if (tensor->rank != rank)
      return rt::Status::error(
          std::string(name) + " has rank " + std::to_string(tensor->rank) +
          "; " +
          (varlen ? "packed sequences take " + std::string(name) +
                        " as [H, T, D]"
                  : "attention takes " + std::string(name) +
                        " as [B, H, S, D]"));
  fa4::KernelKey key;
  key.headDim = args.q.shape[rank - 1];
  int64_t dv = args.v.shape[rank - 1];
  if (dv != key.headDim)
    key.headDimV = dv;
  if (rt::Status s = key.verify(); !s.ok())
    return s;
  if (rt::Status s = checkScalars(args.window_left, args.window_right,
                                  args.softcap, args.softmax_scale);
      !s.ok())
    return s;
  if (args.kv_stages < 0 || args.block_n < 0)
    return rt::Status::error("kv_stages " + std::to_string(args.kv_stages) +
                             " and block_n " + std::to_string(args.block_n) +
                             " must not be negative (0: derived)");
  key.dtype = args.dtype == FA4_F16 ? fa4::DType::F16 : fa4::DType::BF16;
  key.varlen = varlen;
  key.window = args.window_left >= 0 || args.window_right >= 0;
  key.softcap = args.softcap > 0;
  if (args.kv_stages)
    key.plan.kvStages = args.kv_stages;
  if (args.block_n)
    key.plan.blockN = args.block_n;
  if (args.plan)
    if (rt::Status s = key.plan.parse(args.plan); !s.ok())
      return rt::Status::error("plan '" + std::string(args.plan) +
                               "': " + s.message());
  return key;
}

/// A loaded kernel with the launcher of its arguments.
struct Loaded {
  std::string name;
  rt::KernelFile file;
  std::unique_ptr<rt::Kernel> kernel;
  std::unique_ptr<rt::Launcher> launcher;
  /// The arguments last bound: a call with the same bytes (the same
  /// tensors, as a loop that reuses its buffers makes) launches without
  /// binding and checking again.
  std::optional<fa4_attention_args> bound;
};

/// The process's driver and loaded kernels.
struct Process {
  std::mutex mutex;
  std::unique_ptr<rt::Driver> driver;
  std::map<std::string, std::unique_ptr<Loaded>> kernels;
};
Process &process() {
  // Never destroyed: the driver's threads may outlive static destructors.
  static Process *state = new Process;
  return *state;
}

/// A tensor at `address` of `type` with `shape` and, when given, `strides`
/// (empty: contiguous).
rt::TensorArg deviceTensor(uint64_t address, rt::ElementType type,
                           std::vector<int64_t> shape,
                           std::vector<int64_t> strides = {}) {
  rt::TensorArg arg;
  arg.address = CUdeviceptr(address);
  arg.elementType = type;
  arg.shape = std::move(shape);
  arg.strides = std::move(strides);
  return arg;
}

/// The elements of `tensor`'s extents.
int64_t elementCount(const fa4_tensor &tensor) {
  int64_t count = 1;
  for (int32_t i = 0; i < tensor.rank && i < 4; ++i)
    count *= tensor.shape[i];
  return count;
}

/// Success when `tensor`'s strides are those of its extents, outermost
/// first (a workspace the call writes whole).
rt::Status checkContiguous(const char *name, const fa4_tensor &tensor) {
  int64_t expected = 1;
  for (int32_t i = std::min(tensor.rank, 4) - 1; i >= 0; --i) {
    if (tensor.strides[i] != expected && tensor.shape[i] != 1) {
      std::string shape, strides;
      for (int32_t j = 0; j < tensor.rank && j < 4; ++j) {
        shape += (j ? ", " : "") + std::to_string(tensor.shape[j]);
        strides += (j ? ", " : "") + std::to_string(tensor.strides[j]);
      }
      return rt::Status::error(std::string(name) + " [" + shape +
                               "] has strides [" + strides +
                               "]; it must be contiguous");
    }
    expected *= tensor.shape[i];
  }
  return rt::Status::success();
}

rt::TensorArg tensorArg(const fa4_tensor &tensor, rt::ElementType type) {
  rt::TensorArg arg;
  arg.address = CUdeviceptr(tensor.data);
  arg.elementType = type;
  for (int32_t i = 0; i < tensor.rank && i < 4; ++i) {
    arg.shape.push_back(tensor.shape[i]);
    arg.strides.push_back(tensor.strides[i]);
  }
  return arg;
}

/// Binds `args` to `launcher`'s kernel; each refusal names the argument.
rt::Status bind(rt::Launcher &launcher, const fa4_attention_args &args) {
  bool varlen = args.cu_seqlens_q != 0;
  int32_t rank = varlen ? 3 : 4;
  rt::ElementType type =
      args.dtype == FA4_F16 ? rt::ElementType::F16 : rt::ElementType::BF16;
  struct Named {
    const char *name;
    const fa4_tensor *tensor;
    int32_t rank;
    rt::ElementType type;
  };
  std::vector<Named> tensors = {{"q", &args.q, rank, type},
                                {"k", &args.k, rank, type},
                                {"v", &args.v, rank, type},
                                {"o", &args.o, rank, type},
                                {"lse", &args.lse, rank - 1,
                                 rt::ElementType::F32}};
  for (const Named &named : tensors) {
    if (named.tensor->rank != named.rank)
      return rt::Status::error(std::string(named.name) + " has rank " +
                               std::to_string(named.tensor->rank) + ", not " +
                               std::to_string(named.rank));
    if (!named.tensor->data)
      return rt::Status::error(std::string(named.name) +
                               " has no device address");
  }
  // Query heads in groups over the key heads.
  int64_t heads = args.q.shape[rank - 3], kvHeads = args.k.shape[rank - 3];
  if (kvHeads < 1 || heads % kvHeads != 0)
    return rt::Status::error("q has " + std::to_string(heads) +
                             " heads, not a multiple of the " +
                             std::to_string(kvHeads) + " heads of k and v");
  for (const Named &named : tensors)
    if (rt::Status s =
            launcher.setTensor(named.name, tensorArg(*named.tensor, named.type));
        !s.ok())
      return s;
  if (varlen) {
    if (args.batch < 1 || !args.cu_seqlens_k || !args.tiles ||
        args.num_tiles < 0)
      return rt::Status::error(
          "packed sequences need batch >= 1 (" + std::to_string(args.batch) +
          "), cu_seqlens_k, tiles and num_tiles >= 0 (" +
          std::to_string(args.num_tiles) + ")");
    auto offsets = [&](uint64_t address) {
      return deviceTensor(address, rt::ElementType::I32, {args.batch + 1});
    };
    for (auto [name, arg] :
         {std::pair{"cu_seqlens_q", offsets(args.cu_seqlens_q)},
          std::pair{"cu_seqlens_k", offsets(args.cu_seqlens_k)},
          std::pair{"tiles", deviceTensor(args.tiles, rt::ElementType::I32,
                                          {args.num_tiles, 2})}})
      if (rt::Status s = launcher.setTensor(name, arg); !s.ok())
        return s;
  }
  int64_t d = args.q.shape[rank - 1];
  double scale = args.softmax_scale > 0 ? args.softmax_scale
                                        : 1.0 / std::sqrt(double(d));
  std::vector<std::pair<const char *, double>> scalars = {
      {"scale_log2", double(float(scale * M_LOG2E))},
      {"causal", args.causal ? 1 : 0}};
  const rt::KernelFile &file = launcher.binding().file();
  if (file.findParam("window_left")) {
    scalars.push_back({"window_left", double(args.window_left)});
    scalars.push_back({"window_right", double(args.window_right)});
  }
  if (file.findParam("softcap"))
    scalars.push_back({"softcap", double(args.softcap)});
  for (auto [name, value] : scalars)
    if (rt::Status s = launcher.setScalar(name, value); !s.ok())
      return s;
  return rt::Status::success();
}

/// The loaded kernel of `key`, loading the driver and the kernel on first
/// use. The entry lives as long as the process.
rt::Expected<Loaded *> load(const fa4::KernelKey &key) {
  Process &state = process();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.driver) {
    rt::Expected<std::unique_ptr<rt::Driver>> driver = rt::Driver::load();
    if (!driver.ok())
      return driver.status();
    state.driver = driver.take();
  }
  std::string text = key.str();
  if (auto it = state.kernels.find(text); it != state.kernels.end())
    return it->second.get();
  rt::Expected<fa4::capi::SourcedKernel> got = fa4::capi::getKernel(key);
  if (!got.ok())
    return got.status();
  auto entry = std::make_unique<Loaded>();
  entry->name = key.name();
  entry->file = std::move(got->file);
  rt::Expected<rt::Kernel> kernel = rt::Kernel::load(*state.driver, entry->file);
  if (!kernel.ok())
    return kernel.status();
  entry->kernel = std::make_unique<rt::Kernel>(kernel.take());
  rt::Expected<rt::Launcher> launcher =
      rt::Launcher::create(*entry->kernel, entry->file);
  if (!launcher.ok())
    return launcher.status();
  entry->launcher = std::make_unique<rt::Launcher>(launcher.take());
  Loaded *loaded = entry.get();
  state.kernels.emplace(text, std::move(entry));
  return loaded;
}

/// Which of the backward's kernel sets `backwardKeys` gives: the one a
/// launch of the arguments runs, or for preparing both that it may run.
enum class BackwardSets { Launch, Prepare };

/// The keys of the backward's kernels (preprocess, then dQ and dK/dV, or dV
/// and dK apart, or the five products and the postprocess,
/// KernelKey::backwardKernels and fa4/KernelFormat/PlanTable.h)
/// for `args`, or a refusal.
rt::Expected<std::vector<fa4::KernelKey>>
backwardKeys(const fa4_attention_backward_args &args,
             BackwardSets sets = BackwardSets::Launch) {
  if (args.struct_size < sizeof(fa4_attention_backward_args))
    return rt::Status::error(
        "fa4_attention_backward_args.struct_size is " +
        std::to_string(args.struct_size) + ", less than the " +
        std::to_string(sizeof(fa4_attention_backward_args)) +
        " bytes of this library's fa4_attention_backward_args");
  if (rt::Status s = checkDtype(args.dtype); !s.ok())
    return s;
  bool varlen = args.cu_seqlens_q != 0;
  int32_t rank = varlen ? 3 : 4;
  for (auto [name, tensor] :
       {std::pair{"q", &args.q}, {"k", &args.k}, {"v", &args.v}})
    if (tensor->rank != rank)
      return rt::Status::error(
          std::string(name) + " has rank " + std::to_string(tensor->rank) +
          "; the backward takes " + name +
          (varlen ? " of packed sequences as [H, T, D]" : " as [B, H, S, D]"));
  if (rt::Status s = checkScalars(args.window_left, args.window_right,
                                  args.softcap, args.softmax_scale);
      !s.ok())
    return s;
  fa4::KernelKey key;
  key.headDim = args.q.shape[rank - 1];
  if (args.v.shape[rank - 1] != key.headDim)
    key.headDimV = args.v.shape[rank - 1];
  key.dtype = args.dtype == FA4_F16 ? fa4::DType::F16 : fa4::DType::BF16;
  key.window = args.window_left >= 0 || args.window_right >= 0;
  key.softcap = args.softcap > 0;
  key.varlen = varlen;
  fa4::Plan plan;
  if (args.plan)
    if (rt::Status s = plan.parse(args.plan); !s.ok())
      return rt::Status::error("plan '" + std::string(args.plan) +
                               "': " + s.message());
  key.plan = plan;
  // The kernels the table picks for the launch; preparing takes every way
  // a launch of these options may take.
  std::vector<fa4::KernelKey> ways =
      sets == BackwardSets::Launch
          ? fa4::backwardKernelsForLaunch(key, args.k.shape[rank - 2],
                                          args.causal, args.deterministic)
          : fa4::backwardKernelsForAnyLaunch(key, args.deterministic);
  std::vector<fa4::KernelKey> keys;
  for (const fa4::KernelKey &kernel : ways) {
    if (kernel.family == fa4::Family::AttentionBackwardPreprocess &&
        args.delta_ready)
      continue;
    if (rt::Status s = kernel.verify(); !s.ok())
      return s;
    keys.push_back(kernel);
  }
  return keys;
}

/// Whether the launch of `keys` adds dQ's parts into dq_accum.
bool addsIntoAccum(const std::vector<fa4::KernelKey> &keys) {
  return std::any_of(keys.begin(), keys.end(), [](const fa4::KernelKey &key) {
    return key.family == fa4::Family::AttentionBackwardFused;
  });
}

/// Binds the tensors and scalars of `args` that `launcher`'s kernel (one
/// of the backward's) takes, by their names there.
rt::Status bindBackward(rt::Launcher &launcher,
                        const fa4_attention_backward_args &args) {
  rt::ElementType type =
      args.dtype == FA4_F16 ? rt::ElementType::F16 : rt::ElementType::BF16;
  bool varlen = args.cu_seqlens_q != 0;
  int32_t rank = varlen ? 3 : 4;
  struct Named {
    const char *name;
    const fa4_tensor *tensor;
    int32_t rank;
    rt::ElementType type;
  };
  const Named tensors[] = {
      {"q", &args.q, rank, type},
      {"k", &args.k, rank, type},
      {"v", &args.v, rank, type},
      {"o", &args.o, rank, type},
      {"do", &args.dout, rank, type},
      {"dq", &args.dq, rank, type},
      {"dk", &args.dk, rank, type},
      {"dv", &args.dv, rank, type},
      {"lse", &args.lse, rank - 1, rt::ElementType::F32},
      {"delta", &args.delta, rank - 1, rt::ElementType::F32},
      {"dq_accum", &args.dq_accum, 4, rt::ElementType::F32}};
  const rt::KernelFile &file = launcher.binding().file();
  // dq_accum only where the kernel adds into it or reads it.
  bool accum = file.findParam("dq_accum") != nullptr;
  for (const Named &named : tensors) {
    if (named.tensor == &args.dq_accum) {
      if (!accum)
        continue;
      if (!named.tensor->data || named.tensor->rank != 4)
        return rt::Status::error(
            "this backward adds dQ's parts into dq_accum, which has rank " +
            std::to_string(named.tensor->rank) +
            (named.tensor->data ? "" : " and no device address") +
            ": give an f32 [B, H, SQ, D rounded up to 64] workspace "
            "(fa4_attention_backward_dq_accum says when a call needs one), "
            "or ask for deterministic");
    }
    if (named.tensor->rank != named.rank)
      return rt::Status::error(std::string(named.name) + " has rank " +
                               std::to_string(named.tensor->rank) + ", not " +
                               std::to_string(named.rank));
    if (!named.tensor->data)
      return rt::Status::error(std::string(named.name) +
                               " has no device address");
  }
  if (accum) {
    // Zeroed by its extents before any launch: they must be the ones the
    // kernels take.
    const fa4_tensor &a = args.dq_accum;
    int64_t padded = fa4::KernelKey::paddedHeadDim(args.q.shape[3]);
    if (a.shape[0] != args.q.shape[0] || a.shape[1] != args.q.shape[1] ||
        a.shape[2] != args.q.shape[2] || a.shape[3] != padded)
      return rt::Status::error(
          "dq_accum is [" + std::to_string(a.shape[0]) + ", " +
          std::to_string(a.shape[1]) + ", " + std::to_string(a.shape[2]) +
          ", " + std::to_string(a.shape[3]) + "], not q's [B, H, SQ] and " +
          std::to_string(padded) + " columns (the head dim rounded up to 64)");
    if (rt::Status s = checkContiguous("dq_accum", a); !s.ok())
      return s;
  }
  int64_t heads = args.q.shape[rank - 3], kvHeads = args.k.shape[rank - 3];
  if (kvHeads < 1 || heads % kvHeads != 0)
    return rt::Status::error("q has " + std::to_string(heads) +
                             " heads, not a multiple of the " +
                             std::to_string(kvHeads) + " heads of k and v");
  bool offsets = file.findParam("cu_seqlens_q") != nullptr;
  if (varlen) {
    if (args.batch < 1 || !args.cu_seqlens_k || args.max_seqlen_q < 1 ||
        args.max_seqlen_k < 1)
      return rt::Status::error(
          "packed sequences need batch >= 1 (" + std::to_string(args.batch) +
          "), cu_seqlens_k, and max_seqlen_q and max_seqlen_k >= 1 (" +
          std::to_string(args.max_seqlen_q) + ", " +
          std::to_string(args.max_seqlen_k) + ")");
    if (offsets)
      for (auto [name, address] :
           {std::pair{"cu_seqlens_q", args.cu_seqlens_q},
            std::pair{"cu_seqlens_k", args.cu_seqlens_k}})
        if (rt::Status s = launcher.setTensor(
                name,
                deviceTensor(address, rt::ElementType::I32, {args.batch + 1}));
            !s.ok())
          return s;
  }
  for (const Named &named : tensors) {
    if (!file.findParam(named.name))
      continue;
    rt::TensorArg arg = tensorArg(*named.tensor, named.type);
    // The preprocess reads packed sequences as one, [1, H, T(, D)].
    if (varlen && !offsets) {
      int64_t whole = arg.shape[0] * arg.strides[0];
      arg.shape.insert(arg.shape.begin(), 1);
      arg.strides.insert(arg.strides.begin(), whole);
    }
    if (rt::Status s = launcher.setTensor(named.name, arg); !s.ok())
      return s;
  }
  double scale = args.softmax_scale > 0
                     ? args.softmax_scale
                     : 1.0 / std::sqrt(double(args.q.shape[rank - 1]));
  for (auto [name, value] :
       {std::pair{"softmax_scale", double(float(scale))},
        std::pair{"causal", args.causal ? 1.0 : 0.0},
        std::pair{"window_left", double(args.window_left)},
        std::pair{"window_right", double(args.window_right)},
        std::pair{"softcap", double(args.softcap)},
        std::pair{"max_seqlen_q", double(args.max_seqlen_q)},
        std::pair{"max_seqlen_k", double(args.max_seqlen_k)}})
    if (file.findParam(name))
      if (rt::Status s = launcher.setScalar(name, value); !s.ok())
        return s;
  return rt::Status::success();
}

/// The loaded kernel of attention `args`.
rt::Expected<Loaded *> loadFor(const fa4_attention_args &args) {
  rt::Expected<fa4::KernelKey> key = kernelKey(args);
  if (!key.ok())
    return key.status();
  return load(*key);
}

/// Binds `args` to `loaded`'s launcher unless they are the ones bound last.
/// Holds the process lock.
rt::Status bindLocked(Loaded &loaded, const fa4_attention_args &args) {
  if (loaded.bound &&
      std::memcmp(&*loaded.bound, &args, sizeof(fa4_attention_args)) == 0)
    return rt::Status::success();
  loaded.bound.reset();
  if (rt::Status s = bind(*loaded.launcher, args); !s.ok())
    return rt::Status::error("kernel '" + loaded.name + "': " + s.message());
  loaded.bound = args;
  return rt::Status::success();
}

/// The parts' bytes of O and of the LSE.
std::pair<int64_t, int64_t> decodePartBytes(int64_t batch, int64_t heads,
                                            int64_t seqQ, int64_t dv,
                                            int64_t splits) {
  int64_t rows = batch * heads * seqQ;
  return {splits * rows * fa4::KernelKey::paddedHeadDim(dv) * 4,
          rows * fa4::KernelKey::kDecodeMaxSplits * 4};
}

/// The keys of decode's kernels for `args` (main, then the combine of its
/// parts unless there is one: the main kernel then writes O and the LSE),
/// or a refusal.
rt::Expected<std::vector<fa4::KernelKey>>
decodeKeys(const fa4_attention_kvcache_args &args) {
  if (args.struct_size < sizeof(fa4_attention_kvcache_args))
    return rt::Status::error(
        "fa4_attention_kvcache_args.struct_size is " +
        std::to_string(args.struct_size) + ", less than the " +
        std::to_string(sizeof(fa4_attention_kvcache_args)) +
        " bytes of this library's fa4_attention_kvcache_args");
  if (rt::Status s = checkDtype(args.dtype); !s.ok())
    return s;
  for (auto [name, tensor] : {std::pair{"q", &args.q}, {"k_cache", &args.k_cache},
                              {"v_cache", &args.v_cache}, {"o", &args.o}})
    if (tensor->rank != 4)
      return rt::Status::error(std::string(name) + " has rank " +
                               std::to_string(tensor->rank) + "; decode takes " +
                               name + " as [B, H, S, D]");
  if (rt::Status s = checkScalars(args.window_left, args.window_right,
                                  args.softcap, args.softmax_scale);
      !s.ok())
    return s;
  fa4::KernelKey key;
  key.family = fa4::Family::AttentionDecode;
  key.headDim = args.q.shape[3];
  if (args.v_cache.shape[3] != key.headDim)
    key.headDimV = args.v_cache.shape[3];
  key.dtype = args.dtype == FA4_F16 ? fa4::DType::F16 : fa4::DType::BF16;
  key.window = args.window_left >= 0 || args.window_right >= 0;
  key.softcap = args.softcap > 0;
  if (args.plan)
    if (rt::Status s = key.plan.parse(args.plan); !s.ok())
      return rt::Status::error("plan '" + std::string(args.plan) +
                               "': " + s.message());
  // Tiles of 64 rows (one consumer warpgroup) when a KV head's query rows
  // fit in one, unless the plan says: measured on the H200 (bench/RESULTS.md,
  // 2026-12-04), 2-16 % ahead of 128-row tiles at 32 rows; with more rows,
  // 128-row tiles read K and V fewer times.
  int64_t kvHeads = args.k_cache.shape[1];
  if (!key.plan.consumerWarpgroups && kvHeads > 0 &&
      args.q.shape[1] / kvHeads * args.q.shape[2] <= 64)
    key.plan.consumerWarpgroups = 1;
  if (args.block_table) {
    // Key blocks gathered from the pages they span.
    int64_t pageSize = args.k_cache.shape[2];
    key.pageRows = fa4::KernelKey::decodePageRows(pageSize);
    if (!key.pageRows)
      return rt::Status::error("the pages hold " + std::to_string(pageSize) +
                               " keys; a paged cache takes a multiple of 16");
  }
  if (rt::Status s = key.verify(); !s.ok())
    return s;
  if (args.num_splits == 1)
    return std::vector<fa4::KernelKey>{key};
  // The combine knows V's head dim only.
  fa4::KernelKey combine;
  combine.family = fa4::Family::AttentionDecodeCombine;
  combine.headDim = key.valueHeadDim();
  combine.dtype = key.dtype;
  return std::vector<fa4::KernelKey>{key, combine};
}

/// Binds `args` to decode's main kernel (`main`: q, o and the LSE viewed
/// as [B, HKV, G * SQ, ...]) or its combine (o and the LSE read flat), the
/// workspace as the parts.
rt::Status bindDecode(rt::Launcher &launcher,
                      const fa4_attention_kvcache_args &args, bool main) {
  rt::ElementType type =
      args.dtype == FA4_F16 ? rt::ElementType::F16 : rt::ElementType::BF16;
  const fa4_tensor &q = args.q, &o = args.o;
  for (auto [name, tensor] :
       {std::pair{"q", &q}, {"k_cache", &args.k_cache},
        {"v_cache", &args.v_cache}, {"o", &o}, {"lse", &args.lse}})
    if (!tensor->data)
      return rt::Status::error(std::string(name) + " has no device address");
  if (!args.cache_seqlens)
    return rt::Status::error("cache_seqlens has no device address");
  int64_t batch = q.shape[0], heads = q.shape[1], seqQ = q.shape[2];
  int64_t kvHeads = args.k_cache.shape[1], dv = args.v_cache.shape[3];
  if (batch < 1 || heads < 1 || seqQ < 1)
    return rt::Status::error("q [B, H, SQ, D] is [" + std::to_string(batch) +
                             ", " + std::to_string(heads) + ", " +
                             std::to_string(seqQ) +
                             ", ...]; decode needs each at least 1");
  if (kvHeads < 1 || heads % kvHeads != 0)
    return rt::Status::error("q has " + std::to_string(heads) +
                             " heads, not a multiple of the " +
                             std::to_string(kvHeads) +
                             " heads of k_cache and v_cache");
  bool paged = args.block_table != 0;
  if (paged && (args.max_pages < 1 || args.k_cache.shape[0] < 1))
    return rt::Status::error("a paged cache needs max_pages >= 1 (" +
                             std::to_string(args.max_pages) +
                             ") and a page or more (" +
                             std::to_string(args.k_cache.shape[0]) + ")");
  for (auto [name, tensor] : {std::pair{"k_cache", &args.k_cache},
                              {"v_cache", &args.v_cache}})
    if (!paged && tensor->shape[0] != batch)
      return rt::Status::error(std::string(name) + " has batch " +
                               std::to_string(tensor->shape[0]) + ", q " +
                               std::to_string(batch));
  if (o.shape[0] != batch || o.shape[1] != heads || o.shape[2] != seqQ ||
      o.shape[3] != dv)
    return rt::Status::error("o is not [B, H, SQ, Dv] = [" +
                             std::to_string(batch) + ", " +
                             std::to_string(heads) + ", " +
                             std::to_string(seqQ) + ", " + std::to_string(dv) +
                             "]");
  if (o.strides[3] != 1 || o.strides[2] != dv || o.strides[1] != seqQ * dv ||
      o.strides[0] != heads * seqQ * dv)
    return rt::Status::error("o has strides [" + std::to_string(o.strides[0]) +
                             ", " + std::to_string(o.strides[1]) + ", " +
                             std::to_string(o.strides[2]) + ", " +
                             std::to_string(o.strides[3]) +
                             "]; decode writes o [B, H, SQ, Dv] contiguous");
  if (args.lse.rank != 3 || args.lse.shape[0] != batch ||
      args.lse.shape[1] != heads || args.lse.shape[2] != seqQ ||
      args.lse.strides[2] != 1 || args.lse.strides[1] != seqQ ||
      args.lse.strides[0] != heads * seqQ)
    return rt::Status::error("lse is not a contiguous f32 [B, H, SQ] = [" +
                             std::to_string(batch) + ", " +
                             std::to_string(heads) + ", " +
                             std::to_string(seqQ) + "]");
  if (args.num_splits < 1 || args.num_splits > fa4::KernelKey::kDecodeMaxSplits)
    return rt::Status::error("num_splits is " +
                             std::to_string(args.num_splits) +
                             "; it must be in [1, " +
                             std::to_string(fa4::KernelKey::kDecodeMaxSplits) +
                             "] (fa4_attention_kvcache_splits gives fa4's)");
  auto [oBytes, lseBytes] =
      decodePartBytes(batch, heads, seqQ, dv, args.num_splits);
  if (!args.workspace || args.workspace % 16 ||
      args.workspace_bytes < oBytes + lseBytes)
    return rt::Status::error(
        "workspace holds " + std::to_string(args.workspace_bytes) +
        " B at a " + (args.workspace % 16 ? "misaligned" : "16-byte aligned") +
        " address; " + std::to_string(args.num_splits) + " splits need " +
        std::to_string(oBytes + lseBytes) +
        " B, 16-byte aligned (fa4_attention_kvcache_workspace)");
  // The parts, contiguous in the workspace: O's, then the LSE's.
  int64_t width = fa4::KernelKey::paddedHeadDim(dv);
  uint64_t lseAddress = args.workspace + uint64_t(oBytes);
  std::vector<std::pair<const char *, rt::TensorArg>> tensors;
  if (main) {
    // The query heads of a KV head and their tokens as one run of rows:
    // q viewed as [B, HKV, G * SQ, D], the parts as [P * B, HKV, G * SQ,
    // ...].
    if (seqQ > 1 && q.strides[1] != seqQ * q.strides[2])
      return rt::Status::error(
          "q has head stride " + std::to_string(q.strides[1]) +
          " and token stride " + std::to_string(q.strides[2]) +
          "; with SQ = " + std::to_string(seqQ) +
          " > 1 decode needs the head stride SQ times the token stride "
          "((B, H, SQ, D) memory)");
    int64_t group = heads / kvHeads, rows = group * seqQ;
    int64_t partRows = args.num_splits * batch;
    tensors = {
        {"q", deviceTensor(q.data, type, {batch, kvHeads, rows, q.shape[3]},
                           {q.strides[0], group * q.strides[1],
                            seqQ == 1 ? q.strides[1] : q.strides[2], 1})},
        {"k", tensorArg(args.k_cache, type)},
        {"v", tensorArg(args.v_cache, type)},
        {"cache_seqlens",
         deviceTensor(args.cache_seqlens, rt::ElementType::I32, {batch})},
        {"o_partial", deviceTensor(args.workspace, rt::ElementType::F32,
                                   {partRows, kvHeads, rows, width})},
        {"lse_partial", deviceTensor(lseAddress, rt::ElementType::F32,
                                     {batch * kvHeads * rows,
                                      fa4::KernelKey::kDecodeMaxSplits})},
        {"o", deviceTensor(o.data, type, {batch, kvHeads, rows, dv})},
        {"lse", deviceTensor(args.lse.data, rt::ElementType::F32,
                             {batch, kvHeads, rows})}};
    if (paged)
      tensors.push_back(
          {"block_table", deviceTensor(args.block_table, rt::ElementType::I32,
                                       {batch, args.max_pages})});
  } else {
    // The combine reads every row flat: the parts as [P, N, Dv'] and
    // [P, N], O as [N, Dv] and the LSE as [N] (N = B * H * SQ).
    int64_t n = batch * heads * seqQ;
    tensors = {
        {"o_partial", deviceTensor(args.workspace, rt::ElementType::F32,
                                   {args.num_splits, n, width})},
        {"lse_partial", deviceTensor(lseAddress, rt::ElementType::F32,
                                     {n, fa4::KernelKey::kDecodeMaxSplits})},
        {"o", deviceTensor(o.data, type, {n, dv})},
        {"lse", deviceTensor(args.lse.data, rt::ElementType::F32, {n})}};
  }
  for (auto &[name, arg] : tensors)
    if (rt::Status s = launcher.setTensor(name, arg); !s.ok())
      return s;
  if (!main)
    return rt::Status::success();
  double scale = args.softmax_scale > 0
                     ? args.softmax_scale
                     : 1.0 / std::sqrt(double(args.q.shape[3]));
  const rt::KernelFile &file = launcher.binding().file();
  for (auto [name, value] :
       {std::pair{"seq_q", double(seqQ)},
        std::pair{"scale_log2", double(float(scale * M_LOG2E))},
        std::pair{"causal", args.causal ? 1.0 : 0.0},
        std::pair{"window_left", double(args.window_left)},
        std::pair{"window_right", double(args.window_right)},
        std::pair{"softcap", double(args.softcap)}})
    if (file.findParam(name))
      if (rt::Status s = launcher.setScalar(name, value); !s.ok())
        return s;
  return rt::Status::success();
}

/// Gets the kernel of each of `keys` (compiled, from the cache or the
/// kernel directory) without a GPU; `seconds` (may be null) is their time.
int prepareKeys(const std::vector<fa4::KernelKey> &keys, double *seconds) {
  double total = 0;
  for (const fa4::KernelKey &key : keys) {
    rt::Expected<fa4::capi::SourcedKernel> kernel = fa4::capi::getKernel(key);
    if (!kernel.ok())
      return failWith(kernel.status().message());
    total += kernel->seconds;
  }
  if (seconds)
    *seconds = total;
  return 0;
}

/// Loads the kernels of `keys`, binds each with `bind(launcher, i)` (the
/// i-th key's), every one before the first launch, runs `before` (work on
/// the stream ahead of the kernels, such as zeroing a workspace; may be
/// empty) and launches them in order on `stream`. Returns the C status.
template <typename Bind>
int launchKeys(
    const std::vector<fa4::KernelKey> &keys, Bind &&bind, void *stream,
    const std::function<rt::Status(const rt::Driver &)> &before = {}) {
  std::vector<Loaded *> kernels;
  for (const fa4::KernelKey &key : keys) {
    rt::Expected<Loaded *> loaded = load(key);
    if (!loaded.ok())
      return failWith(loaded.status().message());
    kernels.push_back(*loaded);
  }
  std::lock_guard<std::mutex> lock(process().mutex);
  for (size_t i = 0; i < kernels.size(); ++i) {
    kernels[i]->bound.reset();
    if (rt::Status s = bind(*kernels[i]->launcher, i); !s.ok())
      return failWith("kernel '" + kernels[i]->name + "': " + s.message());
  }
  if (before)
    if (rt::Status s = before(*process().driver); !s.ok())
      return failWith(s.message());
  for (Loaded *loaded : kernels)
    if (rt::Status s = loaded->launcher->launch(CUstream(stream)); !s.ok())
      return failWith("kernel '" + loaded->name + "': " + s.message());
  return 0;
}

/// Binds and launches; returns the C status. Holds the process lock.
int launchLocked(Loaded &loaded, const fa4_attention_args &args, void *stream) {
  if (rt::Status s = bindLocked(loaded, args); !s.ok())
    return failWith(s.message());
  if (rt::Status s = loaded.launcher->launch(CUstream(stream)); !s.ok())
    return failWith("kernel '" + loaded.name + "': " + s.message());
  return 0;
}
} // namespace

extern "C" {

const char *fa4_version(void) {
  static const std::string text =
      std::string("fa4 0.1.0 ") + fa4::capi::buildDescription();
  return text.c_str();
}

const char *fa4_last_error(void) { return lastError.c_str(); }

int fa4_attention_kernel_name(const fa4_attention_args *args, char *name,
                              int64_t capacity) {
  return guarded([&] {
    if (!args || !name)
      return failWith("fa4_attention_kernel_name: null argument");
    rt::Expected<fa4::KernelKey> key = kernelKey(*args);
    if (!key.ok())
      return failWith(key.status().message());
    std::string kernel = key->name();
    if (int64_t(kernel.size()) + 1 > capacity)
      return failWith("the kernel name '" + kernel + "' needs " +
                      std::to_string(kernel.size() + 1) + " bytes, not " +
                      std::to_string(capacity));
    std::memcpy(name, kernel.c_str(), kernel.size() + 1);
    return 0;
  });
}

int fa4_prepare_attention(const fa4_attention_args *args, fa4_source *source,
                          double *seconds) {
  return guarded([&] {
    if (!args)
      return failWith("fa4_prepare_attention: null arguments");
    rt::Expected<fa4::KernelKey> key = kernelKey(*args);
    if (!key.ok())
      return failWith(key.status().message());
    rt::Expected<fa4::capi::SourcedKernel> kernel = fa4::capi::getKernel(*key);
    if (!kernel.ok())
      return failWith(kernel.status().message());
    if (source)
      *source = kernel->source;
    if (seconds)
      *seconds = kernel->seconds;
    return 0;
  });
}

int fa4_attention(const fa4_attention_args *args, void *stream) {
  return guarded([&] {
    if (!args)
      return failWith("fa4_attention: null arguments");
    rt::Expected<Loaded *> loaded = loadFor(*args);
    if (!loaded.ok())
      return failWith(loaded.status().message());
    std::lock_guard<std::mutex> lock(process().mutex);
    return launchLocked(**loaded, *args, stream);
  });
}

struct fa4_attention_plan {
  Loaded *loaded;
  fa4_attention_args args;
};

int fa4_attention_plan_create(const fa4_attention_args *args,
                              fa4_attention_plan **plan) {
  return guarded([&] {
    if (!args || !plan)
      return failWith("fa4_attention_plan_create: null argument");
    rt::Expected<Loaded *> loaded = loadFor(*args);
    if (!loaded.ok())
      return failWith(loaded.status().message());
    // Bound once here, so that a plan that cannot launch fails now.
    {
      std::lock_guard<std::mutex> lock(process().mutex);
      if (rt::Status s = bindLocked(**loaded, *args); !s.ok())
        return failWith(s.message());
    }
    *plan = new fa4_attention_plan{*loaded, *args};
    return 0;
  });
}

int fa4_attention_plan_launch(fa4_attention_plan *plan, uint64_t q, uint64_t k,
                              uint64_t v, uint64_t o, uint64_t lse,
                              void *stream) {
  return guarded([&] {
    if (!plan)
      return failWith("fa4_attention_plan_launch: null plan");
    fa4_attention_args args = plan->args;
    args.q.data = q;
    args.k.data = k;
    args.v.data = v;
    args.o.data = o;
    args.lse.data = lse;
    std::lock_guard<std::mutex> lock(process().mutex);
    return launchLocked(*plan->loaded, args, stream);
  });
}

void fa4_attention_plan_destroy(fa4_attention_plan *plan) { delete plan; }

int fa4_prepare_attention_backward(const fa4_attention_backward_args *args,
                                   double *seconds) {
  return guarded([&] {
    if (!args)
      return failWith("fa4_prepare_attention_backward: null arguments");
    rt::Expected<std::vector<fa4::KernelKey>> keys =
        backwardKeys(*args, BackwardSets::Prepare);
    if (!keys.ok())
      return failWith(keys.status().message());
    return prepareKeys(*keys, seconds);
  });
}

int fa4_attention_backward(const fa4_attention_backward_args *args,
                           void *stream) {
  return guarded([&] {
    if (!args)
      return failWith("fa4_attention_backward: null arguments");
    rt::Expected<std::vector<fa4::KernelKey>> keys = backwardKeys(*args);
    if (!keys.ok())
      return failWith(keys.status().message());
    // The five products add dQ's parts into dq_accum from zero.
    bool fused = addsIntoAccum(*keys);
    auto zeroAccum = [&](const rt::Driver &driver) {
      return driver.zeroAsync(CUdeviceptr(args->dq_accum.data),
                              size_t(elementCount(args->dq_accum)) * 4,
                              CUstream(stream));
    };
    return launchKeys(
        *keys,
        [&](rt::Launcher &launcher, size_t) {
          return bindBackward(launcher, *args);
        },
        stream,
        fused ? std::function<rt::Status(const rt::Driver &)>(zeroAccum)
              : nullptr);
  });
}

int fa4_attention_backward_dq_accum(const fa4_attention_backward_args *args,
                                    int32_t *columns) {
  return guarded([&] {
    if (!args || !columns)
      return failWith("fa4_attention_backward_dq_accum: null arguments");
    rt::Expected<std::vector<fa4::KernelKey>> keys = backwardKeys(*args);
    if (!keys.ok())
      return failWith(keys.status().message());
    *columns = addsIntoAccum(*keys)
                   ? int32_t(fa4::KernelKey::paddedHeadDim(args->q.shape[3]))
                   : 0;
    return 0;
  });
}

int fa4_attention_kvcache_splits(int64_t batch, int64_t heads,
                                 int64_t kv_heads, int64_t seq_q,
                                 int64_t max_seq_k, int64_t num_sms,
                                 int32_t *splits) {
  return guarded([&] {
    if (batch < 1 || heads < 1 || kv_heads < 1 || seq_q < 1 ||
        max_seq_k < 0 || num_sms < 1 || !splits || heads % kv_heads)
      return failWith(
          "fa4_attention_kvcache_splits: batch " + std::to_string(batch) +
          ", heads " + std::to_string(heads) + " over " +
          std::to_string(kv_heads) + ", seq_q " + std::to_string(seq_q) +
          ", max_seq_k " + std::to_string(max_seq_k) + ", num_sms " +
          std::to_string(num_sms) +
          ": sizes must be positive (max_seq_k 0 or more), heads a multiple "
          "of kv_heads");
    *splits = int32_t(fa4::KernelKey::decodeSplits(batch, heads, kv_heads,
                                                   seq_q, max_seq_k, num_sms));
    return 0;
  });
}

int64_t fa4_attention_kvcache_workspace(int64_t batch, int64_t heads,
                                        int64_t seq_q, int64_t head_dim_v,
                                        int32_t num_splits) {
  if (batch < 1 || heads < 1 || seq_q < 1 || head_dim_v < 1 || num_splits < 1 ||
      num_splits > fa4::KernelKey::kDecodeMaxSplits)
    return -1;
  auto [oBytes, lseBytes] =
      decodePartBytes(batch, heads, seq_q, head_dim_v, num_splits);
  return oBytes + lseBytes;
}

int fa4_prepare_attention_kvcache(const fa4_attention_kvcache_args *args,
                                  double *seconds) {
  return guarded([&] {
    if (!args)
      return failWith("fa4_prepare_attention_kvcache: null arguments");
    rt::Expected<std::vector<fa4::KernelKey>> keys = decodeKeys(*args);
    if (!keys.ok())
      return failWith(keys.status().message());
    return prepareKeys(*keys, seconds);
  });
}

int fa4_attention_with_kvcache(const fa4_attention_kvcache_args *args,
                               void *stream) {
  return guarded([&] {
    if (!args)
      return failWith("fa4_attention_with_kvcache: null arguments");
    rt::Expected<std::vector<fa4::KernelKey>> keys = decodeKeys(*args);
    if (!keys.ok())
      return failWith(keys.status().message());
    // The main kernel, then the combine (none with one split).
    return launchKeys(
        *keys,
        [&](rt::Launcher &launcher, size_t i) {
          return bindDecode(launcher, *args, i == 0);
        },
        stream);
  });
}

int fa4_gemm(const fa4_gemm_args *args, void *stream) {
  return guarded([&] {
    if (!args)
      return failWith("fa4_gemm: null arguments");
    if (args->struct_size < sizeof(fa4_gemm_args))
      return failWith("fa4_gemm_args.struct_size is " +
                      std::to_string(args->struct_size) + ", less than the " +
                      std::to_string(sizeof(fa4_gemm_args)) +
                      " bytes of this library's fa4_gemm_args");
    rt::Expected<Loaded *> loaded = load(fa4::KernelKey::gemm());
    if (!loaded.ok())
      return failWith(loaded.status().message());
    std::lock_guard<std::mutex> lock(process().mutex);
    rt::Launcher &launcher = *(*loaded)->launcher;
    (*loaded)->bound.reset();
    for (auto [name, tensor] : {std::pair{"a", &args->a}, std::pair{"b", &args->b},
                                std::pair{"c", &args->c}})
      if (rt::Status s =
              launcher.setTensor(name, tensorArg(*tensor, rt::ElementType::BF16));
          !s.ok())
        return failWith("kernel 'gemm': " + s.message());
    if (rt::Status s = launcher.launch(CUstream(stream)); !s.ok())
      return failWith("kernel 'gemm': " + s.message());
    return 0;
  });
}

int fa4_prepare_gemm(fa4_source *source, double *seconds) {
  return guarded([&] {
    rt::Expected<fa4::capi::SourcedKernel> kernel =
        fa4::capi::getKernel(fa4::KernelKey::gemm());
    if (!kernel.ok())
      return failWith(kernel.status().message());
    if (source)
      *source = kernel->source;
    if (seconds)
      *seconds = kernel->seconds;
    return 0;
  });
}

int fa4_varlen_tiles(const int32_t *cu_seqlens_q, const int32_t *cu_seqlens_k,
                     int64_t batch, int32_t causal, int32_t *tiles,
                     int64_t capacity, int64_t *count) {
  return guarded([&] {
    if (!cu_seqlens_q || !cu_seqlens_k || !count || batch < 1 ||
        (capacity > 0 && !tiles))
      return failWith("fa4_varlen_tiles: null offsets or count, or batch " +
                      std::to_string(batch) + " < 1");
    std::vector<uint64_t> lengths[2];
    const int32_t *offsets[2] = {cu_seqlens_q, cu_seqlens_k};
    const char *names[2] = {"cu_seqlens_q", "cu_seqlens_k"};
    for (int side = 0; side < 2; ++side) {
      std::vector<int64_t> cu(offsets[side], offsets[side] + batch + 1);
      rt::Expected<std::vector<uint64_t>> read =
          fa4::runner::lengthsFromOffsets(cu, names[side]);
      if (!read.ok())
        return failWith(read.status().message());
      lengths[side] = read.take();
    }
    fa4::runner::AttentionProblem problem;
    problem.causal = causal != 0;
    if (rt::Status s = fa4::runner::setSequenceLengths(
            problem, std::move(lengths[0]), std::move(lengths[1]));
        !s.ok())
      return failWith(s.message());
    std::vector<int32_t> list = fa4::runner::varlenTiles(problem);
    *count = int64_t(list.size() / 2);
    if (*count > capacity)
      return failWith("the tile list has " + std::to_string(*count) +
                      " pairs, more than the capacity of " +
                      std::to_string(capacity));
    if (!list.empty())
      std::memcpy(tiles, list.data(), list.size() * sizeof(int32_t));
    return 0;
  });
}

} // extern "C"
