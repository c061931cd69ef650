"""Figures for the "Where to run it" chapter: every option's cost against its wall-clock with the frontier, and
how the best option moves with the deadline. They take the planner's results and only arrange them."""
from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd

from ... import fmt
from .beyond import WORKLOAD_COLORS
from .common import COLORS

KIND_STYLE = {  # kind -> (label, colour, marker, size)
    "rented": ("rented GPUs, on demand", "0.55", "o", 9),
    "spot": ("rented GPUs, spot", "#8DCB9B", "v", 11),
    "managed": ("managed GPUs (per GPU-hour)", "#DD8452", "s", 16),
    "tinker": ("Tinker (per token)", COLORS["tinker"], "*", 150),
}


HOUR_TICKS = (1 / 6, 0.5, 1, 3, 6, 12, 24, 72, 168, 336, 720, 2160)
USD_TICKS = tuple(m * 10.0 ** e for e in range(-1, 7) for m in (1, 3))


def _hour_label(hours: float) -> str:
    hours = float(hours)
    return f"{hours * 60:.0f} min" if hours < 1 else (f"{hours:g} h" if hours < 24 else
                                                      f"{hours / 24:g} day{'' if hours == 24 else 's'}")


def _log_axes(ax, hours_axis="x"):
    """Log axes with ticks a reader can say: 10 min … 14 days, and $1, $3, $10, …"""
    lo, hi = (ax.get_xlim() if hours_axis == "x" else ax.get_ylim())
    hour_axis, usd_axis = (ax.xaxis, ax.yaxis) if hours_axis == "x" else (ax.yaxis, ax.xaxis)
    hour_axis.set_major_locator(matplotlib.ticker.FixedLocator([t for t in HOUR_TICKS if lo <= t <= hi]))
    hour_axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: _hour_label(v)))
    hour_axis.set_minor_locator(matplotlib.ticker.NullLocator())
    lo, hi = (ax.get_ylim() if hours_axis == "x" else ax.get_xlim())
    usd_axis.set_major_locator(matplotlib.ticker.FixedLocator([t for t in USD_TICKS if lo <= t <= hi]))
    usd_axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: fmt.usd(v, cents=v < 1)))
    usd_axis.set_minor_locator(matplotlib.ticker.NullLocator())


# A cloud of more markers than this is drawn as one image inside the SVG (text and lines stay text and lines): the
# rented offers are thousands of points, 2.4 MB of SVG markup that a live panel sends on every redraw.
RASTERIZE_ABOVE = 200


def pareto(p, ax=None, title: str | None = None):
    """One marker per option that fits and can be bought (wall-clock across, cost up, both log: the model's answer, as `estimate` gives it), the
    frontier drawn through the options no other beats on both, the deadline as a line, the best ringed."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 4.2), layout="constrained")
    fig = ax.figure
    frame = p.options
    shown = frame[frame["feasible"] & frame["cost_usd"].notna() & frame["wall_hours"].notna()
                  & np.isfinite(frame["wall_hours"].astype(float))]
    kind = np.where(shown["spot"].astype(bool), "spot", shown["kind"].astype(str))
    for name, (label, color, marker, size) in KIND_STYLE.items():
        part = shown[kind == name]
        if len(part):
            ax.scatter(part["wall_hours"], part["cost_usd"], s=size, c=color, marker=marker, label=label,
                       alpha=0.9 if name == "tinker" else 0.55, lw=0, zorder=3 if name == "tinker" else 2,
                       rasterized=len(part) > RASTERIZE_ABOVE)
    front = p.pareto.sort_values("wall_hours")
    if len(front):
        ax.step(front["wall_hours"], front["cost_usd"], where="post", color="#C44E52", lw=1.4,
                label="frontier", zorder=4)
    if p.deadline_hours is not None:
        ax.axvline(p.deadline_hours, color="0.2", ls="--", lw=1)
        ax.text(p.deadline_hours, 1.01, f" deadline {_hour_label(p.deadline_hours)}",
                transform=ax.get_xaxis_transform(), fontsize=8, va="bottom")
    if p.best is not None:
        ax.scatter([p.best["wall_hours"]], [p.best["cost_usd"]], s=140, facecolors="none",
                   edgecolors="black", lw=1.5, zorder=5, label="best")
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_axes(ax)
    ax.set_xlabel("wall-clock")
    ax.set_ylabel("cost")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper right", framealpha=0.9)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return fig


def best_by_deadline(sweep: pd.DataFrame, ax=None, title: str | None = None):
    """Each preset's best (cheapest on time) cost against the deadline; the marker says what kind of option
    it is, a gap that nothing finishes in time."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 3.8), layout="constrained")
    fig = ax.figure
    markers = {"Tinker": "*", "rented GPUs": "o", "managed GPUs": "s", "managed service": "D", "your rate": "^"}
    for name, rows in sweep.groupby("workload", sort=False):
        color = WORKLOAD_COLORS.get(name, "0.3")
        ax.plot(rows["deadline_hours"], rows["best_cost_usd"], color=color, lw=1.3, label=name)
        for hours, cost, kind, spot in zip(rows["deadline_hours"], rows["best_cost_usd"], rows["best_kind"],
                                           rows["spot"]):
            if kind is None or pd.isna(cost):
                continue
            ax.plot(hours, cost, markers.get(kind, "o"), color=color, ms=9 if kind == "Tinker" else 6,
                    mfc="white" if spot else color)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_axes(ax)
    ax.set_xticks(sorted(sweep["deadline_hours"].unique()))
    ax.set_xlabel("deadline")
    ax.set_ylabel("cost of the best option")
    ax.grid(True, which="major", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    extra = [plt.Line2D([], [], ls="", marker=m, color="0.3", label=k) for k, m in markers.items()
             if k in set(sweep["best_kind"].dropna())]
    extra.append(plt.Line2D([], [], ls="", marker="o", color="0.3", mfc="white", label="on spot"))
    # below the axes, not on them: a point at the top (swe_rl's Tinker bill) was hidden behind it
    fig.legend(handles + extra, labels + [h.get_label() for h in extra], fontsize=8, loc="outside lower center",
               ncol=4, frameon=False)
    ax.margins(y=0.08)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return fig
