#!/usr/bin/env python3
"""Draw bench/attention.py's figures as a picture: TFLOP/s against sequence
length, one panel per head dim and mask, each implementation a line.

    python3 bench/plot.py figures.csv bench/attention-h200.png \\
        [--title "..."] [--only fa4,cuDNN,FA2]

The CSV is what `bench/attention.py --csv` writes (d, s, b, causal, impl,
tflops). Needs matplotlib.
"""

import sys

from plotting import STYLES, finish_axes, parser, pyplot, read, save


def main():
    cli = parser(__doc__, "Forward attention on one H200, bf16, 16 heads, "
                          "batch x sequence = 16384")
    cli.add_argument("--only", help="comma-separated implementations to draw "
                                    "(default: all in the file)")
    args = cli.parse_args()
    plt = pyplot()

    # figures[(d, causal)][impl] = [(s, tflops), ...]
    figures = read(args.csv, lambda row: (int(row["d"]), row["causal"] == "1"),
                   "s", "tflops")
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
    for i, d in enumerate(dims):
        for j, causal in enumerate((False, True)):
            ax = axes[i][j]
            for impl, points in sorted(figures[(d, causal)].items()):
                if only and impl not in only:
                    continue
                points.sort()
                ax.plot([s for s, _ in points], [t for _, t in points],
                        label=impl, **STYLES.get(impl, dict(marker=".", linestyle="--")))
                for s, t in points if impl == "fa4" else []:
                    ax.annotate(f"{t:.0f}", (s, t), textcoords="offset points",
                                xytext=(0, 6), ha="center", fontsize=7)
            seqs = sorted({s for points in figures[(d, causal)].values() for s, _ in points})
            finish_axes(ax, seqs, [str(s) for s in seqs],
                        f"head dim {d}, {'causal' if causal else 'not causal'}",
                        "sequence length", "TFLOP/s" if j == 0 else None, top)
    save(fig, args.title, args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
