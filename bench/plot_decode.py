#!/usr/bin/env python3
"""Draw bench/decode.py's figures as a picture: the K and V read rate (TB/s)
against the context, one panel per batch, fa4 (contiguous and paged) beside
cuDNN and FlashAttention-2 and the card's read bandwidth.

    python3 bench/plot_decode.py figures.csv bench/decode-h200.png [--title "..."]

The CSV is what `bench/decode.py --csv` writes (b, s, impl, us, tbps).
Needs matplotlib.
"""

import sys

from plotting import STYLES, finish_axes, parser, pyplot, read, save


def main():
    args = parser(__doc__, "Decode on one H200: one query token, 32 query heads "
                           "over 8 KV heads, d128, bf16, CUDA graphs").parse_args()
    plt = pyplot()

    # figures[b][impl] = [(s, tbps), ...]
    figures = read(args.csv, lambda row: int(row["b"]), "s", "tbps")
    # Batches with one context draw no line.
    batches = sorted(b for b, impls in figures.items()
                     if len({s for points in impls.values() for s, _ in points}) > 1)
    if not batches:
        print(f"plot_decode.py: no figures in {args.csv}", file=sys.stderr)
        return 1
    styles = dict(STYLES, **{
        "fa4 paged": dict(color="tab:red", marker="o", linestyle="--"),
        "read": dict(color="gray", linestyle=":", label="read bandwidth")})
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
        contexts = sorted({s for points in figures[b].values() for s, _ in points})
        finish_axes(ax, contexts, [f"{s // 1024}k" for s in contexts], f"batch {b}",
                    "context (keys per sequence)", "K and V read, TB/s", top)
    save(fig, args.title, args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
