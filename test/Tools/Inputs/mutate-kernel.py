"""Writes a mutated copy of a kernel file: mutate-kernel.py IN OUT MUTATION.

The mutations are what a damaged or forged kernel file looks like: the
binary replaced (zeros, a host ELF), a header line changed (target, entry,
block, shared memory, a tensor map's box or swizzle, a metadata key), or two
parameter lines swapped."""

import re
import sys

src, dst, mutation = sys.argv[1:4]
data = open(src, "rb").read()
at = data.index(b"\nbinary = ") + 1
header = data[:at].decode()
binary = data[data.index(b"\n", at) + 1:]


def sub(pattern, replacement):
    global header
    new, count = re.subn(pattern, replacement, header, count=1, flags=re.M)
    assert count == 1, pattern
    header = new


if mutation == "zeros":
    binary = bytes(len(binary))
elif mutation == "host-elf":
    binary = b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x02\x00\x3e\x00" + bytes(len(binary) - 20)
elif mutation == "target":
    sub(r"^target = .*$", "target = sm_80")
elif mutation == "entry":
    sub(r"^entry = .*$", "entry = not_there")
elif mutation == "block":
    sub(r"^block = .*$", "block = 2048 1 1")
elif mutation == "shared":
    sub(r"^dynamic-shared-bytes = .*$", "dynamic-shared-bytes = 300000")
elif mutation == "box257":
    sub(r"box=(\d+),(\d+)", r"box=\1,257")
elif mutation == "swizzle":
    sub(r"swizzle=128", "swizzle=32")
elif mutation == "meta":
    header += "meta = surprise 1\n"
elif mutation == "swap":
    lines = header.split("\n")
    params = [i for i, line in enumerate(lines) if line.startswith("param = ")]
    kinds = [lines[i].split()[2] for i in params]
    j = next(k for k in range(1, len(params)) if kinds[k] != kinds[0])
    lines[params[0]], lines[params[j]] = lines[params[j]], lines[params[0]]
    header = "\n".join(lines)
else:
    sys.exit("unknown mutation " + mutation)
open(dst, "wb").write(header.encode() + b"binary = %d\n" % len(binary) + binary)
