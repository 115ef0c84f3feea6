"""Checks that the compiler stands on the kernel format, not on the runtime:
no object of the compiler's libraries (the dialects, the DSL, the passes and
conversions, the target, the compiler API, the kernel format) or of the
compiler-only tools (fa4-opt, fa4-translate, fa4-dsl-programs) includes
cuda.h, and none of those tools links the runtime. It reads the build's own
record: ninja's header dependencies and the tools' link commands. A control
makes sure the check can fail: the runtime's objects do include cuda.h, and
fa4-run links the runtime.

    python3 check-layering.py BUILD_DIR
"""

import os
import subprocess
import sys

COMPILER = ("dialects/", "lib/DSL/", "lib/Transforms/", "lib/Conversion/",
            "lib/Target/", "lib/Compiler/", "lib/InitAll/", "lib/KernelFormat/",
            "tools/fa4-opt/", "tools/fa4-translate/", "test/DSL/")
TOOLS = ("bin/fa4-opt", "bin/fa4-translate", "bin/fa4-dsl-programs")


def ninja(build, *args):
    return subprocess.run(["ninja", "-C", build, "-t"] + list(args), check=True,
                          capture_output=True, text=True).stdout


def main():
    build = sys.argv[1]
    if not os.path.exists(os.path.join(build, "build.ninja")):
        sys.exit("check-layering: %s is not a Ninja build" % build)
    includes = {}
    target = None
    for line in ninja(build, "deps").splitlines():
        if line and not line.startswith(" "):
            target = line.split(":")[0]
            includes[target] = False
        elif target and os.path.basename(line.strip()) == "cuda.h":
            includes[target] = True
    compiler = [t for t in includes
                if any("/%s" % prefix in "/" + t for prefix in COMPILER)]
    runtime = [t for t in includes if "FA4Runtime.dir" in t]
    failures = ["%s includes cuda.h" % t for t in sorted(compiler) if includes[t]]
    for tool in TOOLS:
        link = ninja(build, "commands", tool).splitlines()[-1]
        if "libFA4Runtime.a" in link:
            failures.append("%s links the runtime (libFA4Runtime.a)" % tool)
    # The control: the check sees cuda.h and the runtime where they are.
    if not runtime or not any(includes[t] for t in runtime):
        failures.append("control: no runtime object seen including cuda.h")
    if "libFA4Runtime.a" not in ninja(build, "commands", "bin/fa4-run").splitlines()[-1]:
        failures.append("control: fa4-run does not link libFA4Runtime.a")
    print("%d compiler objects without cuda.h, %d tools without the runtime" %
          (len(compiler) - sum(includes[t] for t in compiler), len(TOOLS)))
    for failure in failures:
        print("error: " + failure)
    sys.exit(1 if failures or len(compiler) < 50 else 0)


if __name__ == "__main__":
    main()
