#!/usr/bin/env python3
"""The SASS instruction mix of fa4 kernel files, for the GPU machine (it
needs CUDA's cuobjdump, which a toolkit with only ptxas lacks):

    python3 bench/sass_mix.py k/attention-hd128.kernel pers/attention-hd128.kernel

Takes each kernel file's cubin (the bytes after its `binary = N` line),
disassembles it and prints, per function, the instruction count and the
classes that decide an attention kernel's speed: the tensor-core MMAs
(HGMMA), the exponentials (MUFU), the FP32 math, the uniform datapath
(opcodes U*) and the moves into it (R2UR), barriers and mbarrier
operations (BAR, SYNCS), shuffles, shared and global memory, branches.
With --opcodes, every opcode and its count as well; with --loops, the
same classes for each loop with tensor-core MMAs in it (the code between a
backward branch and its target): a kernel's main loop, static instructions
per iteration.
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Opcode (without modifiers) -> class, first match wins.
CLASSES = [
    ("HGMMA", r"^HGMMA$"),
    ("MUFU", r"^MUFU$"),
    ("FP32 math", r"^(FFMA|FMUL|FADD|FMNMX|FSETP|FSEL|FCHK)$"),
    ("convert/pack", r"^(F2F|F2FP|I2F|F2I)$"),
    ("R2UR", r"^R2UR$"),
    ("uniform", r"^U"),
    ("barrier", r"^(BAR|WARPSYNC|BSYNC|BSSY)$"),
    ("mbarrier", r"^SYNCS$"),
    ("shuffle", r"^SHFL$"),
    ("shared mem", r"^(LDS|STS|LDSM|STSM)$"),
    ("global mem", r"^(LDG|STG|UTMALDG|UTMASTG|RED|ATOM|ATOMG)$"),
    ("branch", r"^(BRA|BRX|CALL|RET|EXIT|JMP)$"),
    ("integer/other", r"."),
]


def cubin_of(path):
    """The binary part of a kernel file."""
    data = open(path, "rb").read()
    match = re.search(rb"^binary = (\d+)\n", data, re.M)
    if not match:
        sys.exit("sass_mix.py: %s has no 'binary = N' line" % path)
    start, size = match.end(), int(match.group(1))
    if not data[start:start + 4] == b"\x7fELF":
        sys.exit("sass_mix.py: %s holds PTX, not a cubin; nothing to disassemble"
                 % path)
    return data[start:start + size]


def instructions(sass):
    """function name -> list of (address, opcode, text), from cuobjdump
    -sass output."""
    result, current = collections.OrderedDict(), None
    for line in sass.splitlines():
        name = re.match(r"\s*Function : (\S+)", line)
        if name:
            current = result.setdefault(name.group(1), [])
            continue
        instr = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(.*)", line)
        if instr and current is not None:
            current.append((int(instr.group(1), 16), instr.group(2), instr.group(3)))
    return result


def functions(sass):
    """function name -> list of opcodes, from cuobjdump -sass output."""
    return collections.OrderedDict(
        (name, [op for _, op, _ in listing])
        for name, listing in instructions(sass).items())


def loops(listing):
    """(start, end, opcodes) of each loop with an HGMMA: a backward BRA and
    the instructions from its target to it."""
    found = []
    exits = [a for a, o, _ in listing if o == "EXIT"]
    for address, op, text in listing:
        target = re.match(r"(?:\.\w+)*\s+(0x[0-9a-f]+)", text)
        if op != "BRA" or not target or int(target.group(1), 16) > address:
            continue
        start = int(target.group(1), 16)
        # ptxas puts the retry of a barrier wait after the code, past an
        # EXIT, branching back: not a loop of the program.
        if any(start < a < address for a in exits):
            continue
        body = [o for a, o, _ in listing if start <= a <= address]
        if "HGMMA" in body:
            found.append((start, address, body))
    return found


def classify(opcodes):
    counts = collections.Counter()
    for op in opcodes:
        for name, pattern in CLASSES:
            if re.search(pattern, op):
                counts[name] += 1
                break
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="+", help="kernel files")
    parser.add_argument("--cuobjdump", default=shutil.which("cuobjdump")
                        or "/usr/local/cuda/bin/cuobjdump")
    parser.add_argument("--opcodes", action="store_true",
                        help="also list every opcode with its count")
    parser.add_argument("--loops", action="store_true",
                        help="also the classes of each loop with MMAs in it")
    args = parser.parse_args()
    if not os.path.exists(args.cuobjdump):
        sys.exit("sass_mix.py: no cuobjdump at %s (--cuobjdump PATH)" % args.cuobjdump)
    names = [name for name, _ in CLASSES]
    print("| kernel | function | instructions | " + " | ".join(names) + " |")
    print("|---|---|---:|" + "---:|" * len(names))
    listings = []
    for path in args.kernels:
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(cubin_of(path))
            f.flush()
            sass = subprocess.run([args.cuobjdump, "-sass", f.name], check=True,
                                  capture_output=True, text=True).stdout
        for function, listing in instructions(sass).items():
            opcodes = [op for _, op, _ in listing]
            counts = classify(opcodes)
            print("| %s | %s | %d | %s |" % (
                path, function, len(opcodes),
                " | ".join(str(counts[n]) for n in names)))
            listings.append((path, function, collections.Counter(opcodes)))
            if args.loops:
                for start, end, body in loops(listing):
                    counts = classify(body)
                    print("| %s | %s loop 0x%x-0x%x | %d | %s |" % (
                        path, function, start, end, len(body),
                        " | ".join(str(counts[n]) for n in names)))
    if args.opcodes:
        for path, function, counts in listings:
            print("\n%s %s:" % (path, function))
            for op, n in counts.most_common():
                print("  %-10s %d" % (op, n))


if __name__ == "__main__":
    main()
