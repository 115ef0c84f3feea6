# -*- Python -*-
# lit configuration of the fa4 test suite: where the tools are, which
# substitutions tests use, the `gpu` feature that GPU tests require, and the
# `ptxas` feature that tests assembling cubins require.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "fa4"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "consumer"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fa4_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%fa4_src_root", config.fa4_src_root))
config.substitutions.append(("%fa4_obj_root", config.fa4_obj_root))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%linker", config.linker or ""))
# `%exit-status CMD...` runs CMD and prints "exit status N" after its output.
config.substitutions.append(
    ("%exit-status",
     "bash " + os.path.join(config.fa4_src_root, "test", "Inputs",
                            "exit-status.sh")))

llvm_config.with_system_environment(
    ["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "CUDA_PATH"])
llvm_config.use_default_substitutions()
# A build with ASan and UBSan (-DFA4_SANITIZE=ON): the `asan` feature, for
# the tests that load fa4 into a process it was not built for (Python) or
# build other projects against its libraries. Leak checking is off: the
# MLIR-based tools keep their contexts to the end on purpose. So are user
# poisoning and container annotations: LLVM's inline allocator code,
# instrumented here, and Debian's uninstrumented MLIR libraries disagree on
# which bytes are poisoned (false use-after-poison reports in MLIRContext).
if config.fa4_sanitize.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("asan")
    config.environment["ASAN_OPTIONS"] = (
        "detect_leaks=0:allow_user_poisoning=0:detect_container_overflow=0")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
# The compile cache is off in tests, so that each one compiles what it checks;
# the cache's own tests name a directory of their own.
config.environment["FA4_CACHE_DIR"] = ""
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.fa4_tools_dir, append_path=True)

tool_dirs = [config.fa4_tools_dir, config.llvm_tools_dir]
tools = [
    "fa4-opt",
    "fa4-run",
    "fa4-translate",
    ToolSubst("%fa4-dsl-programs", command=os.path.join(
        config.fa4_tools_dir, "fa4-dsl-programs")),
    ToolSubst("%fa4-kernel-format-checks", command=os.path.join(
        config.fa4_tools_dir, "fa4-kernel-format-checks")),
    ToolSubst("%fa4-runner-checks", command=os.path.join(
        config.fa4_tools_dir, "fa4-runner-checks")),
    ToolSubst("%fa4-runtime-checks", command=os.path.join(
        config.fa4_tools_dir, "fa4-runtime-checks")),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)


def gpu_present():
    """A GPU counts only when the driver answers with at least one device."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True,
                             timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if gpu_present():
    config.available_features.add("gpu")


def ptxas_present():
    """ptxas where fa4-translate looks for it: $CUDA_PATH/bin,
    /usr/local/cuda/bin, then PATH."""
    candidates = []
    if os.environ.get("CUDA_PATH"):
        candidates.append(os.path.join(os.environ["CUDA_PATH"], "bin", "ptxas"))
    candidates.append("/usr/local/cuda/bin/ptxas")
    if any(os.path.isfile(c) and os.access(c, os.X_OK) for c in candidates):
        return True
    return shutil.which("ptxas") is not None


if ptxas_present():
    config.available_features.add("ptxas")


def torch_python():
    """A Python that imports torch and numpy (Debian's python3-torch and
    python3-numpy), for the Python package's tests: lit's own first."""
    import sys
    for candidate in (sys.executable, "/usr/bin/python3"):
        try:
            out = subprocess.run([candidate, "-c", "import torch, numpy"],
                                 capture_output=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            continue
        if out.returncode == 0:
            return candidate
    return None


python_with_torch = torch_python()
if python_with_torch:
    config.available_features.add("torch")
    config.substitutions.append(("%torch-python", python_with_torch))
config.substitutions.append(
    ("%libfa4", os.path.join(config.fa4_obj_root, "lib", "libfa4.so")))
