"""Figures of the empirical validation chapter. They arrange what tinker_nomics.experiments computed."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import fmt
from .common import COLORS, SMALL, WIDTH, dollar_axis

SERIES = {"predicted": ("cost model (preset)", "#B0B0B0"), "measured": ("from the logged tokens", None)}
MINUTE_TICKS = (5, 10, 30, 60, 120, 240)
USD_TICKS = (5, 10, 20, 50, 100, 200)
SYSTEM_STYLE = {   # marker, colour, filled
    "Tinker": ("o", COLORS["tinker"], True),
    "veRL": ("s", COLORS["self-hosted"], True),
    "veRL (projected)": ("s", COLORS["self-hosted"], False),
    "model, default MFU": ("^", "#555555", True),
    "model, measured MFU": ("v", "#555555", True),
    "seed's printed prediction": ("D", "#555555", False),
}


def meters_predicted_vs_actual(frame, bills: dict, labels: dict, title=None):
    """One panel per experiment: per meter, the preset's predicted dollars beside the dollars of the logged
    tokens (token counts on the bars), then the totals and Tinker's real bill.
    `frame` is experiments.meter_frame(); `bills` maps experiment -> billed USD."""
    names = list(dict.fromkeys(frame["experiment"]))
    fig, axes = plt.subplots(len(names), 1, figsize=(WIDTH, 3.0 * len(names) + 0.6), layout="constrained",
                             sharey=False)
    axes = np.atleast_1d(axes)
    width = 0.38
    for ax, name in zip(axes, names):
        rows = frame[frame["experiment"] == name].set_index("meter")
        meters = list(rows.index)
        x = np.arange(len(meters))
        for offset, (key, (label, colour)) in zip((-width / 2, width / 2), SERIES.items()):
            usd = rows[f"{key}_usd"].to_numpy(dtype=float)
            toks = rows[f"{key}_tokens"].to_numpy(dtype=float)
            colours = [colour or COLORS.get(m, "#6A6A6A") for m in meters]
            bars = ax.bar(x + offset, usd, width, color=colours, edgecolor="white", label=label,
                          hatch=None if key == "measured" else "//")
            for bar, t in zip(bars, toks):
                ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), fmt.tokens(t), ha="center",
                        va="bottom", fontsize=SMALL, rotation=90)
        bill = float(bills[name])
        ax.hlines(bill, len(meters) - 1 - width, len(meters) - 1 + width, color="black", lw=1.5,
                  label="Tinker's real bill")
        ax.set_xticks(x, meters)
        dollar_axis(ax, "y")
        ax.set_ylim(0, ax.get_ylim()[1] * 1.22)
        ax.spines[["top", "right"]].set_visible(False)
        ax.set_title(labels.get(name, name), fontsize=10, loc="left")
    for ax in axes:
        ax.set_ylabel("USD at the run's list rates")
    handles, names_ = axes[-1].get_legend_handles_labels()
    fig.legend(handles, names_, loc="outside lower center", ncols=2, fontsize=SMALL, frameon=False)
    if title:
        fig.suptitle(title, fontsize=11, x=0.01, ha="left")
    return fig


def cost_vs_wallclock(comparisons: dict, labels: dict, printed: dict | None = None, title=None):
    """One panel per experiment: wall-clock minutes against dollars for Tinker, veRL and the cost model.
    `comparisons` maps experiment -> experiments.VerlComparison; `printed` maps experiment -> (minutes, USD)
    of a prediction the seed printed, drawn hollow."""
    names = list(comparisons)
    fig, axes = plt.subplots(len(names), 1, figsize=(WIDTH, 3.2 * len(names) + 0.6), layout="constrained")
    axes = np.atleast_1d(axes)
    for ax, name in zip(axes, names):
        c = comparisons[name]
        points = [(r.system, r.minutes, r.usd) for r in c.rows.itertuples()]
        if printed and name in printed:
            points.append(("seed's printed prediction", *printed[name]))
        for system, minutes, usd in points:
            marker, colour, filled = SYSTEM_STYLE[system]
            ax.scatter([minutes], [usd], marker=marker, s=70, color=colour if filled else "none",
                       edgecolors=colour, linewidths=1.5, label=system, zorder=3)
            left = system == "seed's printed prediction"
            ax.annotate(f"{minutes:,.0f} min, {fmt.usd(usd)}", (minutes, usd), textcoords="offset points",
                        xytext=(-8 if left else 7, -3), ha="right" if left else "left", fontsize=SMALL)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(MINUTE_TICKS, [fmt.hours(m / 60).replace(".00 h", " h").replace(".0 min", " min")
                                     for m in MINUTE_TICKS])
        ax.set_yticks(USD_TICKS, [fmt.usd(u, cents=False) for u in USD_TICKS])
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.yaxis.set_minor_formatter(plt.NullFormatter())
        lo_x, hi_x = ax.get_xlim()
        ax.set_xlim(lo_x / 1.3, hi_x * 2.4)
        lo_y, hi_y = ax.get_ylim()
        ax.set_ylim(lo_y / 1.3, hi_y * 1.3)
        ax.set_xlabel("wall-clock (log scale)")
        ax.grid(True, which="major", alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
        ax.set_title(f"{labels.get(name, name)}: {c.num_gpus:g} × {c.gpu} at {fmt.usd(c.gpu_hourly_usd)}/GPU-h",
                     fontsize=9, loc="left")
    for ax in axes:
        ax.set_ylabel("USD (log scale)")
    handles = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=2, fontsize=SMALL, frameon=False)
    if title:
        fig.suptitle(title, fontsize=11, x=0.01, ha="left")
    return fig
