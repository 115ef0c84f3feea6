"""Breaks one synchronisation of an fa4-level kernel (stdin to stdout), for
the hang-diagnosis tests:

  drop-release PIPE   delete the first fa4.consumer.release on pipeline PIPE
                      (k, v or q): a missing arrive on its empty barrier
  arrivals PIPE N     make pipeline PIPE's empty barriers expect N consumer
                      arrivals: a wrong arrival count
  drop-arrive ID      delete the first fa4.named_barrier.arrive on barrier ID

Exits 1 when the input has nothing to break, so that a test of a kernel
that changed shape fails instead of running an unbroken kernel.
"""
import re
import sys

mode, args = sys.argv[1], sys.argv[2:]
lines = sys.stdin.read().split("\n")
if mode == "drop-release":
    pattern = re.compile(r"fa4\.consumer\.release .*!fa4\.pipeline<%s," % args[0])
elif mode == "arrivals":
    pattern = re.compile(r"fa4\.pipeline\.create consumers\(\d+\) : !fa4\.pipeline<%s," % args[0])
elif mode == "drop-arrive":
    pattern = re.compile(r"fa4\.named_barrier\.arrive id\(%s\)" % args[0])
else:
    sys.exit("break-pipeline.py: unknown mode '%s'" % mode)
for i, line in enumerate(lines):
    if pattern.search(line):
        if mode == "arrivals":
            lines[i] = re.sub(r"consumers\(\d+\)", "consumers(%s)" % args[1], line)
        else:
            del lines[i]
        break
else:
    sys.exit("break-pipeline.py: nothing to break for %s %s" % (mode, " ".join(args)))
sys.stdout.write("\n".join(lines))
