#!/usr/bin/env python3
"""Draw bench/attention.py's figures as a picture: TFLOP/s against sequence
length, one panel per head dim and mask, each implementation a line.

    python3 bench/plot.py figures.csv bench/attention-h200.png \\
        [--title "..."] [--only fa4,cuDNN,FA2]

The CSV is what `bench/attention.py --csv` writes (d, s, b, causal, impl,
tflops). Needs matplotlib.
"""

import argparse
import csv
import sys
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--title", default="Forward attention on one H200, bf16, "
                                           "16 heads, batch x sequence = 16384")
    parser.add_argument("--only", help="comma-separated implementations to draw "
                                       "(default: all in the file)")
    args = parser.parse_args()

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # figures[(d, causal)][impl] = [(s, tflops), ...]
    figures = defaultdict(lambda: defaultdict(list))
    with open(args.csv) as f:
        for row in csv.DictReader(f):
            figures[(int(row["d"]), row["causal"] == "1")][row["impl"]].append(
                (int(row["s"]), float(row["tflops"])))
    if not figures:
        print(f"plot.py: no figures in {args.csv}", file=sys.stderr)
        return 1
    only = args.only.split(",") if args.only else None
    dims = sorted({d for d, _ in figures})
    fig, axes = plt.subplots(len(dims), 2, figsize=(11, 3.6 * len(dims)),
                             squeeze=False)
    top = 1.12 * max(t for impls in figures.values()
                     for impl, points in impls.items()
                     if not only or impl in only for _, t in points)
    styles = {"fa4": dict(color="tab:red", marker="o", linewidth=2.2),
              "cuDNN": dict(color="tab:green", marker="s"),
              "FA2": dict(color="tab:blue", marker="^")}
    for i, d in enumerate(dims):
        for j, causal in enumerate((False, True)):
            ax = axes[i][j]
            for impl, points in sorted(figures[(d, causal)].items()):
                if only and impl not in only:
                    continue
                points.sort()
                ax.plot([s for s, _ in points], [t for _, t in points],
                        label=impl, **styles.get(impl, dict(marker=".", linestyle="--")))
                for s, t in points if impl == "fa4" else []:
                    ax.annotate(f"{t:.0f}", (s, t), textcoords="offset points",
                                xytext=(0, 6), ha="center", fontsize=7)
            ax.set_xscale("log", base=2)
            seqs = sorted({s for points in figures[(d, causal)].values() for s, _ in points})
            ax.set_xticks(seqs)
            ax.set_xticklabels([str(s) for s in seqs])
            ax.set_title(f"head dim {d}, {'causal' if causal else 'not causal'}")
            ax.set_xlabel("sequence length")
            if j == 0:
                ax.set_ylabel("TFLOP/s")
            ax.grid(True, alpha=0.3)
            ax.set_ylim(0, top)
            ax.legend(loc="lower right", fontsize=8)
    fig.suptitle(args.title, fontsize=11)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
