# -*- Python -*-
# lit configuration of the fa4 test suite: where the tools are, which
# substitutions tests use, and the `gpu` feature that GPU tests require.

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

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.fa4_tools_dir, append_path=True)

tool_dirs = [config.fa4_tools_dir, config.llvm_tools_dir]
tools = [
    "fa4-opt",
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
