"""What every figure shares: the meter colours, the default panel size, line series and dollar axes."""
from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker

from ... import fmt

# One colour per meter, used everywhere in the book.
COLORS = {
    "sample": "#4C72B0", "train": "#DD8452", "prefill": "#55A868", "cached prefill": "#8DCB9B",
    "sandbox": "#8172B3", "storage": "#937860", "GPU time": "#C44E52", "rollout": "#4C72B0",
    "training": "#DD8452", "tinker": "#4C72B0", "self-hosted": "#C44E52",
}


def axes(ax, size=(7.5, 3.2)):
    if ax is not None:
        return ax.figure, ax
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    return fig, ax


def styled_lines(ax, x, series: dict):
    """One line per series, told apart by colour and dash, so they stay distinct in greyscale."""
    styles = ["-", "--", ":", "-."]
    for i, (label, values) in enumerate(series.items()):
        ax.plot(x, values, label=label, ls=styles[i % len(styles)], color=f"C{i}")


def dollar_axis(ax, axis="x"):
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(fmt.axis_tick("usd"))
