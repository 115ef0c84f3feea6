"""libfa4 through ctypes: the structs of fa4.h and the library's functions.

The library is found at $FA4_LIBRARY, else in the build directory of the
checkout this package lies in (build/lib/libfa4.so, where scripts/setup.sh
builds it), else wherever the dynamic loader finds libfa4.so. It is loaded on
first use, so that the argument checks work without it.
"""

import ctypes
import ctypes.util
import os
import threading

FA4_BF16 = 0
FA4_F16 = 1

SOURCES = {0: "compiled", 1: "cache", 2: "process", 3: "kernel-dir"}


class Tensor(ctypes.Structure):
    """fa4_tensor: a device address, extents and strides (in elements)."""

    _fields_ = [
        ("data", ctypes.c_uint64),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * 4),
        ("strides", ctypes.c_int64 * 4),
    ]


class AttentionArgs(ctypes.Structure):
    """fa4_attention_args, field for field."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("dtype", ctypes.c_int),
        ("q", Tensor),
        ("k", Tensor),
        ("v", Tensor),
        ("o", Tensor),
        ("lse", Tensor),
        ("causal", ctypes.c_int32),
        ("window_left", ctypes.c_int32),
        ("window_right", ctypes.c_int32),
        ("softcap", ctypes.c_float),
        ("softmax_scale", ctypes.c_float),
        ("cu_seqlens_q", ctypes.c_uint64),
        ("cu_seqlens_k", ctypes.c_uint64),
        ("tiles", ctypes.c_uint64),
        ("batch", ctypes.c_int64),
        ("num_tiles", ctypes.c_int64),
        ("kv_stages", ctypes.c_int32),
        ("block_n", ctypes.c_int32),
        ("plan", ctypes.c_char_p),
    ]

    def __init__(self):
        super().__init__()
        self.struct_size = ctypes.sizeof(AttentionArgs)
        self.window_left = -1
        self.window_right = -1


class BackwardArgs(ctypes.Structure):
    """fa4_attention_backward_args, field for field."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("dtype", ctypes.c_int),
        ("q", Tensor),
        ("k", Tensor),
        ("v", Tensor),
        ("o", Tensor),
        ("lse", Tensor),
        ("dout", Tensor),
        ("dq", Tensor),
        ("dk", Tensor),
        ("dv", Tensor),
        ("delta", Tensor),
        ("causal", ctypes.c_int32),
        ("window_left", ctypes.c_int32),
        ("window_right", ctypes.c_int32),
        ("softcap", ctypes.c_float),
        ("softmax_scale", ctypes.c_float),
        ("delta_ready", ctypes.c_int32),
        ("plan", ctypes.c_char_p),
        ("deterministic", ctypes.c_int32),
        ("dq_accum", Tensor),
        ("cu_seqlens_q", ctypes.c_uint64),
        ("cu_seqlens_k", ctypes.c_uint64),
        ("batch", ctypes.c_int64),
        ("max_seqlen_q", ctypes.c_int64),
        ("max_seqlen_k", ctypes.c_int64),
    ]

    def __init__(self):
        super().__init__()
        self.struct_size = ctypes.sizeof(BackwardArgs)
        self.window_left = -1
        self.window_right = -1


class KvcacheArgs(ctypes.Structure):
    """fa4_attention_kvcache_args, field for field."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("dtype", ctypes.c_int),
        ("q", Tensor),
        ("k_cache", Tensor),
        ("v_cache", Tensor),
        ("o", Tensor),
        ("lse", Tensor),
        ("cache_seqlens", ctypes.c_uint64),
        ("causal", ctypes.c_int32),
        ("window_left", ctypes.c_int32),
        ("window_right", ctypes.c_int32),
        ("softcap", ctypes.c_float),
        ("softmax_scale", ctypes.c_float),
        ("num_splits", ctypes.c_int32),
        ("workspace", ctypes.c_uint64),
        ("workspace_bytes", ctypes.c_int64),
        ("plan", ctypes.c_char_p),
        ("block_table", ctypes.c_uint64),
        ("max_pages", ctypes.c_int64),
    ]

    def __init__(self):
        super().__init__()
        self.struct_size = ctypes.sizeof(KvcacheArgs)
        self.window_left = -1
        self.window_right = -1


class GemmArgs(ctypes.Structure):
    """fa4_gemm_args."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("a", Tensor),
        ("b", Tensor),
        ("c", Tensor),
    ]

    def __init__(self):
        super().__init__()
        self.struct_size = ctypes.sizeof(GemmArgs)


class Fa4Error(RuntimeError):
    """A refusal or failure reported by libfa4, with its message."""


_library = None
_lock = threading.Lock()


def candidates():
    """The paths tried for libfa4.so, in order."""
    paths = []
    if os.environ.get("FA4_LIBRARY"):
        paths.append(os.environ["FA4_LIBRARY"])
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.environ.get("FA4_BUILD_DIR") or os.path.join(here, "..", "..", "build")
    paths.append(os.path.normpath(os.path.join(build, "lib", "libfa4.so")))
    found = ctypes.util.find_library("fa4")
    if found:
        paths.append(found)
    return paths


def library():
    """The loaded libfa4, loading it on the first call."""
    global _library
    with _lock:
        if _library is not None:
            return _library
        tried = []
        for path in candidates():
            if os.path.sep in path and not os.path.exists(path):
                tried.append(path + " (missing)")
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as error:
                tried.append("%s (%s)" % (path, error))
                continue
            _declare(lib)
            _library = lib
            return lib
        raise Fa4Error(
            "libfa4.so not found: tried " + ", ".join(tried) +
            "; build it with scripts/setup.sh or name it in FA4_LIBRARY")


def _declare(lib):
    args = ctypes.POINTER(AttentionArgs)
    lib.fa4_version.restype = ctypes.c_char_p
    lib.fa4_version.argtypes = []
    lib.fa4_last_error.restype = ctypes.c_char_p
    lib.fa4_last_error.argtypes = []
    lib.fa4_attention_kernel_name.restype = ctypes.c_int
    lib.fa4_attention_kernel_name.argtypes = [args, ctypes.c_char_p, ctypes.c_int64]
    lib.fa4_prepare_attention.restype = ctypes.c_int
    lib.fa4_prepare_attention.argtypes = [
        args, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double)]
    lib.fa4_attention.restype = ctypes.c_int
    # The arguments as their bytes (a packed fa4_attention_args), the stream
    # as an integer.
    lib.fa4_attention.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    lib.fa4_attention_plan_create.restype = ctypes.c_int
    lib.fa4_attention_plan_create.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.fa4_attention_plan_launch.restype = ctypes.c_int
    lib.fa4_attention_plan_launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint64] * 5 + [
        ctypes.c_void_p]
    lib.fa4_attention_plan_destroy.restype = None
    lib.fa4_attention_plan_destroy.argtypes = [ctypes.c_void_p]
    backward = ctypes.POINTER(BackwardArgs)
    lib.fa4_prepare_attention_backward.restype = ctypes.c_int
    lib.fa4_prepare_attention_backward.argtypes = [backward, ctypes.POINTER(ctypes.c_double)]
    lib.fa4_attention_backward.restype = ctypes.c_int
    lib.fa4_attention_backward.argtypes = [backward, ctypes.c_void_p]
    lib.fa4_attention_backward_dq_accum.restype = ctypes.c_int
    lib.fa4_attention_backward_dq_accum.argtypes = [backward, ctypes.POINTER(ctypes.c_int32)]
    kvcache = ctypes.POINTER(KvcacheArgs)
    lib.fa4_attention_kvcache_splits.restype = ctypes.c_int
    lib.fa4_attention_kvcache_splits.argtypes = [ctypes.c_int64] * 6 + [
        ctypes.POINTER(ctypes.c_int32)]
    lib.fa4_attention_kvcache_workspace.restype = ctypes.c_int64
    lib.fa4_attention_kvcache_workspace.argtypes = [ctypes.c_int64] * 4 + [ctypes.c_int32]
    lib.fa4_prepare_attention_kvcache.restype = ctypes.c_int
    lib.fa4_prepare_attention_kvcache.argtypes = [kvcache, ctypes.POINTER(ctypes.c_double)]
    lib.fa4_attention_with_kvcache.restype = ctypes.c_int
    lib.fa4_attention_with_kvcache.argtypes = [kvcache, ctypes.c_void_p]
    lib.fa4_gemm.restype = ctypes.c_int
    lib.fa4_gemm.argtypes = [ctypes.POINTER(GemmArgs), ctypes.c_void_p]
    lib.fa4_prepare_gemm.restype = ctypes.c_int
    lib.fa4_prepare_gemm.argtypes = [
        ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double)]
    lib.fa4_varlen_tiles.restype = ctypes.c_int
    lib.fa4_varlen_tiles.argtypes = [
        ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int32),
        ctypes.c_int64, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32),
        ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]


def check(status):
    """Raises Fa4Error with the library's message for a non-zero status."""
    if status != 0:
        raise Fa4Error(library().fa4_last_error().decode())
