#!/usr/bin/env python3
"""Draw bench/decode.py's figures as a picture: the K and V read rate (TB/s)
against the context, one panel per batch, fa4 (contiguous and paged) beside
cuDNN and FlashAttention-2 and the card's read bandwidth.

    python3 bench/plot_decode.py figures.csv bench/decode-h200.png [--title "..."]

The CSV is what `bench/decode.py --csv` writes (b, s, impl, us, tbps).
Needs matplotlib.
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
    parser.add_argument("--title", default="Decode on one H200: one query token, 32 query "
                                           "heads over 8 KV heads, d128, bf16, CUDA graphs")
    args = parser.parse_args()

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # figures[b][impl] = [(s, tbps), ...]
    figures = defaultdict(lambda: defaultdict(list))
    with open(args.csv) as f:
        for row in csv.DictReader(f):
            figures[int(row["b"])][row["impl"]].append((int(row["s"]), float(row["tbps"])))
    # Batches with one context draw no line.
    batches = sorted(b for b, impls in figures.items()
                     if len({s for points in impls.values() for s, _ in points}) > 1)
    if not batches:
        print(f"plot_decode.py: no figures in {args.csv}", file=sys.stderr)
        return 1
    styles = {"fa4": dict(color="tab:red", marker="o", linewidth=2.2),
              "fa4 paged": dict(color="tab:red", marker="o", linestyle="--"),
              "cuDNN": dict(color="tab:green", marker="s"),
              "FA2": dict(color="tab:blue", marker="^"),
              "read": dict(color="gray", linestyle=":", label="read bandwidth")}
    top = 1.1 * max(t for b in batches for points in figures[b].values() for _, t in points)
    fig, axes = plt.subplots(1, len(batches), figsize=(4.2 * len(batches), 3.8), squeeze=False)
    for ax, b in zip(axes[0], batches):
        for impl in ["read", "FA2", "cuDNN", "fa4 paged", "fa4"]:
            points = sorted(figures[b].get(impl, []))
            if not points:
                continue
            style = dict(styles.get(impl, dict(marker=".")))
            label = style.pop("label", impl)
            ax.plot([s for s, _ in points], [t for _, t in points], label=label, **style)
        ax.set_xscale("log", base=2)
        contexts = sorted({s for points in figures[b].values() for s, _ in points})
        ax.set_xticks(contexts)
        ax.set_xticklabels([f"{s // 1024}k" for s in contexts])
        ax.set_title(f"batch {b}")
        ax.set_xlabel("context (keys per sequence)")
        ax.set_ylabel("K and V read, TB/s")
        ax.set_ylim(0, top)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    fig.suptitle(args.title, fontsize=11)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
