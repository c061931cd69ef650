"""Figures of the accuracy chapter: predicted against measured, by method."""
from __future__ import annotations

import matplotlib.ticker
import numpy as np

from .common import SMALL, WIDTH, axes

METHOD_STYLES = {  # method -> (colour, marker, filled)
    "seed": ("#8172B3", "s", True), "exact": ("#4C72B0", "o", False), "roofline": ("#C44E52", "x", True),
}


def predicted_vs_measured(frame, labels=None, ax=None, title=None, unit="output tokens/s"):
    """Log-log scatter of `predicted` against `measured` (columns of a tinker_nomics.accuracy frame), one
    colour and marker per `method`, with the y = x line and 2× bands. Points above the line: predicted more
    than measured (positive signed error; optimistic for a throughput, pessimistic for a time)."""
    fig, ax = axes(ax, size=(WIDTH, 5.8))
    values = np.concatenate([np.asarray(frame["predicted"], float), np.asarray(frame["measured"], float)])
    low, high = np.nanmin(values) / 1.6, np.nanmax(values) * 1.6
    line = np.array([low, high])
    ax.fill_between(line, line / 2, line * 2, color="#DDDDDD", alpha=0.45, lw=0, label="within 2×")
    ax.plot(line, line, color="#333333", lw=1, label="predicted = measured")
    spare = iter([("#DD8452", "^", True), ("#55A868", "D", False), ("#937860", "v", True), ("#555555", "o", True)])
    for method, group in frame.groupby("method", sort=False):
        colour, marker, filled = METHOD_STYLES.get(method) or next(spare)
        label = (labels or {}).get(method, method)
        paint = {"c": colour} if marker in ("x", "+") else \
            {"facecolors": colour if filled else "none", "edgecolors": colour}
        ax.scatter(group["measured"], group["predicted"], s=26, marker=marker, linewidths=1.1,
                   label=f"{label} ({len(group)})", alpha=0.85, zorder=3, **paint)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    ax.set_aspect("equal")
    ax.set_xlabel(f"measured {unit}")
    ax.set_ylabel(f"predicted {unit}")
    # below the axes, never over the points (a legend in a corner hides the cases that sit there)
    if fig.get_layout_engine() is not None:
        fig.legend(fontsize=SMALL, frameon=False, loc="outside lower center")
    else:
        ax.legend(fontsize=SMALL, frameon=False, loc="upper left")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Predicted against measured", fontsize=10, loc="left")
    return fig


LOSO_COLOURS = ["#8172B3", "#4C72B0", "#55A868", "#C44E52"]
METHOD_COLOURS = {"seed": "#8172B3", "exact": "#4C72B0", "exact, one efficiency (LOSO)": "#55A868",
                  "calibrated (LOSO)": "#C44E52"}     # the same colour for a method in every figure


def errors_by_source(table, quantity: str, ax=None, title=None):
    """Horizontal bars: the median |signed error| of each source (rows) under each method (one bar each), from
    an analysis.calibration.comparison_table; the 'all sources' row last, on a log scale."""
    rows = table[table["quantity"] == quantity]
    methods = list(dict.fromkeys(rows["method"]))
    sources = [s for s in dict.fromkeys(rows["source"]) if s != "all sources"] + ["all sources"]
    fig, ax = axes(ax, size=(WIDTH, 0.55 * len(sources) + 1.4))
    height = 0.8 / len(methods)
    y = np.arange(len(sources))
    shown = np.asarray(rows["median_abs_error"], float) * 100
    lo, hi = np.nanmin(shown), np.nanmax(shown)
    for i, method in enumerate(methods):
        values = rows[rows["method"] == method].set_index("source").reindex(sources)["median_abs_error"]
        ax.barh(y + (i - (len(methods) - 1) / 2) * height, np.asarray(values, float) * 100, height,
                label=method, color=METHOD_COLOURS.get(method, LOSO_COLOURS[i % len(LOSO_COLOURS)]))
    ax.set_yticks(y, sources, fontsize=SMALL)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("median |signed error|, % (log scale)")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xticks([t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000) if lo / 1.5 <= t <= hi * 1.5])
    fig.legend(fontsize=SMALL, frameon=False, loc="outside lower center", ncols=2)   # under the axis, clear of the bars
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or quantity, fontsize=10, loc="left")
    return fig


REGIME_ORDER = ("weight_only", "moe", "tp4plus", "long_context", "batch1", "throughput", "compute_poor", "lora")
REGIME_COLOURS = {"weight_only": "#8172B3", "moe": "#DD8452", "tp4plus": "#C44E52", "long_context": "#55A868",
                  "batch1": "#4C72B0", "throughput": "#64B5CD", "compute_poor": "#937860", "lora": "#DA8BC3",
                  "other": "#8C8C8C"}


def primary_regime(regimes: str) -> str:
    """The regime a case is drawn in: the first of REGIME_ORDER it belongs to ('other' when none)."""
    names = set(str(regimes).split())
    return next((r for r in REGIME_ORDER if r in names), "other")


def by_method_and_regime(frame, methods, labels, regime_labels, unit: str, title: str):
    """Predicted against measured, one panel per method (stacked, so the figure reads on a phone), each case
    coloured by its regime, with the y = x line and the 2× band: the default method's held-out predictions under
    the seed's and exact's."""
    import matplotlib.pyplot as plt

    fig, axs = plt.subplots(len(methods), 1, figsize=(4.8, 3.1 * len(methods) + 1.0), sharex=True, sharey=True,
                            layout="constrained")
    values = np.concatenate([np.asarray(frame["predicted"], float), np.asarray(frame["measured"], float)])
    low, high = np.nanmin(values) / 1.6, np.nanmax(values) * 1.6
    line = np.array([low, high])
    shown = set()
    for ax, method in zip(np.atleast_1d(axs), methods):
        part = frame[frame["method"] == method]
        ax.fill_between(line, line / 2, line * 2, color="#DDDDDD", alpha=0.45, lw=0)
        ax.plot(line, line, color="#333333", lw=1)
        for regime, group in part.groupby(part["regimes"].map(primary_regime), sort=False):
            ax.scatter(group["measured"], group["predicted"], s=16, color=REGIME_COLOURS[regime], alpha=0.85,
                       label=regime_labels.get(regime, regime) if regime not in shown else None, zorder=3)
            shown.add(regime)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
        ax.set_title(labels.get(method, method), loc="left")
        ax.set_ylabel(f"predicted {unit}")
        ax.spines[["top", "right"]].set_visible(False)
    np.atleast_1d(axs)[-1].set_xlabel(f"measured {unit}")
    fig.legend(frameon=False, loc="outside lower center", ncols=2)
    fig.suptitle(title, x=0.01, ha="left")
    return fig
