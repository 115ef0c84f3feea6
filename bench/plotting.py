"""What bench/plot.py and bench/plot_decode.py share: the command line, the
CSV read into panels of lines, the implementations' styles and a panel's
axes. Needs matplotlib (imported when a picture is drawn)."""

import argparse
import csv
from collections import defaultdict

# Each implementation's line, the same in every picture.
STYLES = {"fa4": dict(color="tab:red", marker="o", linewidth=2.2),
          "cuDNN": dict(color="tab:green", marker="s"),
          "FA2": dict(color="tab:blue", marker="^")}


def parser(doc, title):
    """The command line of a plot script: the CSV, the picture, --title."""
    result = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    result.add_argument("csv")
    result.add_argument("png")
    result.add_argument("--title", default=title)
    return result


def read(path, panel, x, y):
    """figures[panel(row)][impl] = [(x, y), ...] of the CSV at `path`."""
    figures = defaultdict(lambda: defaultdict(list))
    with open(path) as f:
        for row in csv.DictReader(f):
            figures[panel(row)][row["impl"]].append((int(row[x]), float(row[y])))
    return figures


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def finish_axes(ax, xs, labels, title, xlabel, ylabel, top):
    """A panel's x axis (log 2, a tick at each of `xs`), labels, grid, y
    range and legend."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.set_ylim(0, top)
    ax.legend(loc="lower right", fontsize=8)


def save(fig, title, png):
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")
