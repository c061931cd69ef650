"""Figures for the "Beyond the original" chapters: verdicts over time, Monte-Carlo intervals, break-even maps.
Like plots.py, these take package results and only arrange them."""
from __future__ import annotations

import textwrap

import matplotlib
import matplotlib.dates
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd

from ... import fmt
from ...analysis.uncertainty import probability_text
from .. import labels
from .common import COLORS, SMALL, WIDTH

WORKLOAD_COLORS = {"math_rl": "C0", "code_rl": "C1", "harbor_rl": "C2", "swe_rl": "C3", "osworld_rl": "C4"}
RATIO_CMAP = "RdBu"      # red: your GPUs are cheaper; blue: Tinker is
RATIO_SPAN = 3.0         # colour scale from 1/8× to 8× (log2 ±3)


def _whole_dollar_axis(ax, axis="y"):
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(fmt.axis_tick("usd"))


def _binary_tokens(value, _=None) -> str:
    """Power-of-two token counts as 512, 1K, 32K."""
    return f"{value / 1024:g}K" if value >= 1024 else f"{value:g}"


def _ratio_axis(ax, axis="y"):
    formatter = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}×")
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(formatter)
    target.set_minor_formatter(matplotlib.ticker.NullFormatter())


def verdict_timeline(table: pd.DataFrame, repricing_date: str | None = None, ax=None, title=None):
    """Self-hosted / Tinker per workload at each dated snapshot (log scale); hollow markers where the preset's
    model was retired and its successor is billed. The values are in the chapter's table, not on the lines."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(WIDTH, 3.8), layout="constrained")
    fig = ax.figure
    for name, rows in table.groupby("workload", sort=False):
        dates = pd.to_datetime(rows["date"])
        color = WORKLOAD_COLORS.get(name, "0.3")
        ax.step(dates, rows["ratio"], where="post", color=color, lw=1.4, label=name)
        for date, ratio, successor in zip(dates, rows["ratio"], rows["successor"]):
            ax.plot(date, ratio, "o", ms=5, color=color, mfc="white" if successor else color)
    ax.axhline(1.0, color="0.2", lw=0.9)
    ax.set_yscale("log")
    _ratio_axis(ax)
    low, high = float(table["ratio"].min()), float(table["ratio"].max())      # ticks that span the data
    ax.set_yticks([t for t in (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50) if low / 2.5 <= t <= high * 2.5])
    ax.text(0.005, 1.06, "↑ Tinker cheaper", transform=ax.get_yaxis_transform(), fontsize=SMALL, va="bottom",
            color=COLORS["tinker"])
    ax.text(0.005, 0.94, "↓ self-hosted cheaper", transform=ax.get_yaxis_transform(), fontsize=SMALL, va="top",
            color=COLORS["self-hosted"])
    if repricing_date:
        when = pd.Timestamp(repricing_date)
        ax.axvline(when, color="0.6", lw=0.8, ls="--")
        ax.text(when, ax.get_ylim()[1], " repricing + cached prefill", fontsize=SMALL, va="top", color="0.4")
    ax.xaxis.set_major_locator(matplotlib.dates.MonthLocator(bymonth=(1, 3, 5, 7, 9, 11)))
    ax.xaxis.set_major_formatter(matplotlib.dates.DateFormatter("%b %Y"))
    ax.set_ylabel("self-hosted ÷ Tinker")
    fig.legend(fontsize=SMALL, frameon=False, loc="outside lower center", ncols=3)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Which side is cheaper, at each dated price list (hollow: successor model)",
                 fontsize=10, loc="left")
    return fig


def driver_steps(table: pd.DataFrame, title=None):
    """One panel per workload: Tinker's bill at each step of `timeline.drivers_table` (bars) against the
    self-hosted cost (line), each on its own dollar scale."""
    names = list(dict.fromkeys(table["workload"]))
    ncols = 2
    nrows = int(np.ceil(len(names) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(WIDTH, 2.3 * nrows + 0.5), layout="constrained", squeeze=False)
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    short = ["first list", "repriced", "new list", "cached"]
    for ax, name in zip(axes.flat, names):
        rows = table[table.workload == name]
        x = np.arange(len(rows))
        ax.bar(x, rows["tinker_usd"], color=COLORS["tinker"], width=0.65, label="Tinker")
        ax.plot(x, rows["self_hosted_usd"], "o-", color=COLORS["self-hosted"], ms=4, lw=1.2, label="self-hosted")
        ax.set_xticks(x, short[:len(rows)], rotation=90, fontsize=SMALL)
        ax.set_ylim(0, max(rows["tinker_usd"].max(), rows["self_hosted_usd"].max()) * 1.15)
        _whole_dollar_axis(ax, "y")
        ax.tick_params(axis="y", labelsize=SMALL)
        ax.set_title(name, fontsize=9)
        ax.spines[["top", "right"]].set_visible(False)
    handles, names_ = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names_, fontsize=SMALL, frameon=False, loc="outside lower center", ncols=2)
    fig.suptitle(title or "January → now, one change at a time", fontsize=10, x=0.01, ha="left")
    return fig


def mc_intervals(summary: pd.DataFrame, ax=None, title=None):
    """P10–P90 of both sides per workload (log dollars), P50 as a dot, the preset's point estimate as a tick,
    and P(Tinker cheaper) written beside each workload."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(WIDTH, 0.75 * len(summary) + 0.9), layout="constrained")
    fig = ax.figure
    for i, row in enumerate(summary.itertuples()):
        y = len(summary) - 1 - i
        for side, offset, color in (("tinker", 0.15, COLORS["tinker"]), ("self_hosted", -0.15, COLORS["self-hosted"])):
            low, mid, high = (getattr(row, f"{side}_p{p}") for p in (10, 50, 90))
            ax.plot([low, high], [y + offset] * 2, color=color, lw=3, solid_capstyle="butt", alpha=0.75)
            ax.plot(mid, y + offset, "o", color=color, ms=5)
            ax.plot(getattr(row, f"{side}_point"), y + offset, "|", color="black", ms=9, mew=1.2)
    ax.set_yticks(range(len(summary)), [f"{row.workload}\nTinker cheaper\nin {probability_text(row.p_tinker_cheaper)}"
                                         for row in summary.itertuples()][::-1])
    ax.set_xscale("log")
    _whole_dollar_axis(ax, "x")
    ax.plot([], [], color=COLORS["tinker"], lw=3, label="Tinker P10–P90")
    ax.plot([], [], color=COLORS["self-hosted"], lw=3, label="self-hosted P10–P90")
    ax.plot([], [], "o", color="0.3", label="P50")
    ax.plot([], [], "|", color="black", ms=9, label="preset (point estimate)")
    fig.legend(fontsize=SMALL, frameon=False, ncols=2, loc="outside lower center")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "What the run costs, 80% intervals", fontsize=10, loc="left")
    return fig


def mc_ratio_histograms(results: dict, title=None):
    """The distribution of self-hosted / Tinker per workload (log scale), shaded by which side wins."""
    names = list(results)
    fig, axes = plt.subplots(len(names), 1, figsize=(WIDTH, 0.95 * len(names) + 0.7), layout="constrained",
                             sharex=True, squeeze=False)
    all_ratios = np.concatenate([np.asarray(results[n].ratio) for n in names])
    edges = np.geomspace(max(all_ratios.min(), 1e-3) * 0.95, all_ratios.max() * 1.05, 90)
    for ax, name in zip(axes[:, 0], names):
        ratio = np.asarray(results[name].ratio)
        counts, _ = np.histogram(ratio, edges)
        share = counts / counts.sum()
        centers = np.sqrt(edges[:-1] * edges[1:])
        colors = np.where(centers >= 1.0, COLORS["tinker"], COLORS["self-hosted"])
        ax.bar(edges[:-1], share, width=np.diff(edges), align="edge", color=colors, lw=0)
        ax.axvline(1.0, color="0.2", lw=0.8)
        ax.set_yticks([])
        ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=SMALL)
        ax.spines[["top", "right", "left"]].set_visible(False)
    axes[-1, 0].set_xscale("log")
    _ratio_axis(axes[-1, 0], "x")
    axes[-1, 0].set_xlabel("self-hosted ÷ Tinker (right of 1×: Tinker is cheaper)")
    fig.suptitle(title or "How often each side wins", fontsize=10, x=0.01, ha="left")
    return fig


def influence_chart(influence: pd.DataFrame, ax=None, title=None):
    """Rank correlation of each uncertain input with log(self-hosted / Tinker), per workload (a heat table)."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(WIDTH, 0.55 * len(influence.index) + 1.6), layout="constrained")
    fig = ax.figure
    values = influence.to_numpy(dtype=float)
    image = ax.imshow(values, cmap="PuOr", vmin=-1, vmax=1, aspect="auto")
    for (i, j), v in np.ndenumerate(values):
        if np.isfinite(v):
            ax.text(j, i, fmt.signed(v), ha="center", va="center", fontsize=SMALL,
                    color="white" if abs(v) > 0.6 else "black")
    ax.set_xticks(range(values.shape[1]), influence.columns, fontsize=SMALL, rotation=30, ha="right")
    ax.set_yticks(range(values.shape[0]), [textwrap.fill(labels.label(name), 22) for name in influence.index],
                  fontsize=SMALL)
    bar = fig.colorbar(image, ax=ax, shrink=0.8, location="bottom", aspect=30)
    bar.set_label("← toward your GPUs · toward Tinker →", fontsize=SMALL)
    ax.set_title(title or "Which input moves the verdict (Spearman rank correlation)", fontsize=10, loc="left")
    return fig


def breakeven_map(m, ax=None, title=None, colorbar=True, offers=None):
    """A break-even map: log2(self-hosted / Tinker) as colour, the ratio = 1 boundary in black, the preset
    as a star. `offers` = {label: $/GPU-hour} marks sourced GPU prices on a GPU-price axis."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(WIDTH, 3.8), layout="constrained")
    fig = ax.figure
    z = np.log2(m.ratio)
    image = ax.pcolormesh(m.x, m.y, z, cmap=RATIO_CMAP, vmin=-RATIO_SPAN, vmax=RATIO_SPAN, shading="nearest")
    for line in m.boundary():
        ax.plot(line[:, 0], line[:, 1], color="black", lw=1.6)
    ax.plot(*m.preset, marker="*", ms=13, color="gold", mec="black", mew=0.8, ls="none")
    if m.x_field in ("completion_tokens", "output_per_turn"):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_binary_tokens))
    if m.y_field == "group_size":
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    if m.y_field == "model":
        ax.set_yticks(m.y, m.y_labels, fontsize=SMALL)
    if m.x_field == "gpu_hourly_usd":
        ax.xaxis.set_major_formatter(fmt.axis_tick("usd"))
        for label, price in (offers or {}).items():
            if m.x.min() <= price <= m.x.max():
                ax.axvline(price, color="0.35", lw=0.5, ls=":")
    ax.set_xlabel(labels.axis(m.x_field), fontsize=SMALL)
    ax.set_ylabel(labels.axis(m.y_field) if m.y_field != "model" else "", fontsize=SMALL)
    ax.tick_params(labelsize=SMALL)
    ax.set_title(title or f"{m.workload} · {m.model.split('/')[-1]} · prices {m.snapshot}", fontsize=9, loc="left")
    if colorbar:
        bar = fig.colorbar(image, ax=ax, shrink=0.85)
        ticks = np.arange(-RATIO_SPAN, RATIO_SPAN + 1)
        bar.set_ticks(ticks, labels=[f"{2.0 ** t:g}×" for t in ticks])
        bar.set_label("self-hosted ÷ Tinker (blue: Tinker cheaper)", fontsize=SMALL)
        bar.ax.tick_params(labelsize=SMALL)
    return fig


def breakeven_maps(maps: list, ncols: int = 1, title=None, offers=None, height: float = 2.6):
    """Several break-even maps side by side on one shared colour scale."""
    nrows = int(np.ceil(len(maps) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(WIDTH, height * nrows + 0.5), layout="constrained",
                             squeeze=False)
    for ax, m in zip(axes.flat, maps):
        breakeven_map(m, ax=ax, colorbar=False, offers=offers,
                      title=f"{m.workload} · {m.model.split('/')[-1]}")
    for ax in list(axes.flat)[len(maps):]:
        ax.set_visible(False)
    mappable = matplotlib.cm.ScalarMappable(norm=matplotlib.colors.Normalize(-RATIO_SPAN, RATIO_SPAN),
                                            cmap=RATIO_CMAP)
    bar = fig.colorbar(mappable, ax=axes, shrink=0.6, aspect=30)
    ticks = np.arange(-RATIO_SPAN, RATIO_SPAN + 1)
    bar.set_ticks(ticks, labels=[f"{2.0 ** t:g}×" for t in ticks])
    bar.set_label("self-hosted ÷ Tinker (blue: Tinker cheaper; black line: equal)", fontsize=SMALL)
    if title:
        fig.suptitle(title, fontsize=10, x=0.01, ha="left")
    return fig
