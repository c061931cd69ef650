"""Figures of the cost model and FLOP chapters: bills by meter, sweeps, decode throughput, memory."""
from __future__ import annotations

import textwrap

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np

from ... import fmt
from .common import COLORS, SMALL, WIDTH, axes, dollar_axis, styled_lines


def cost_breakdown(est, ax=None, title=None):
    """Two stacked bars: Tinker's meters, and self-hosted GPU time plus sandbox."""
    fig, ax = axes(ax)
    t = est.tinker
    tinker_parts = [] if est.tinker_not_offered else [
        ("sample", t.sample_usd), ("train", t.train_usd), ("prefill", t.prefill_usd), ("sandbox", t.sandbox_usd),
        ("storage", t.storage_usd)]
    rows = [("Tinker", tinker_parts)]
    if est.self_hosted is not None:
        s = est.self_hosted
        rows.append(("Self-hosted", [("GPU time", s.compute_usd), ("sandbox", s.sandbox_usd)]))
    used = set()
    for y, (label, parts) in enumerate(reversed(rows)):
        left = 0.0
        for name, value in parts:
            value = float(value)
            if value <= 0:
                continue
            ax.barh(y, value, left=left, color=COLORS[name], label=None if name in used else name, height=0.55)
            used.add(name)
            left += value
        ax.text(left, y, "  " + (fmt.usd(left) if parts else "not offered"), va="center", fontsize=9)
    ax.set_yticks(range(len(rows)), [label for label, _ in reversed(rows)])
    dollar_axis(ax)
    ax.set_xlim(0, ax.get_xlim()[1] * 1.22)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=SMALL, ncols=3, frameon=False)   # clear of the bars
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Where the money goes", fontsize=10, loc="left")
    return fig


def workload_comparison(names, tinker_usd, hosted_usd, tinker_cached_usd=None, ax=None, title=None,
                        cached_label="Tinker, cached prefill", tinker_range=None, hosted_range=None):
    """Grouped bars per workload on a log scale: Tinker, Tinker with cached prefill, self-hosted. `tinker_range`
    and `hosted_range` ((low, high) per workload, e.g. P10 and P90) draw each bill's spread as a whisker; the
    bar's label then sits above the whisker."""
    fig, ax = axes(ax, size=(WIDTH, 3.8))
    x = np.arange(len(names))
    series = [("Tinker", tinker_usd, COLORS["tinker"], tinker_range)]
    if tinker_cached_usd is not None:
        series.append((cached_label, tinker_cached_usd, COLORS["cached prefill"], None))
    series.append(("Self-hosted", hosted_usd, COLORS["self-hosted"], hosted_range))
    width = 0.8 / len(series)
    for i, (label, values, color, spread) in enumerate(series):
        values = np.asarray(values, dtype=float)
        at = x + (i - (len(series) - 1) / 2) * width
        bars = ax.bar(at, values, width, label=label, color=color)
        tops = values
        if spread is not None:
            low, high = (np.asarray([r[k] for r in spread], dtype=float) for k in (0, 1))
            ax.errorbar(at, values, yerr=[values - low, high - values], fmt="none", ecolor="black", elinewidth=1,
                        capsize=3)
            tops = np.fmax(values, high)
        for bar, v, top in zip(bars, values, tops):
            if np.isfinite(v):
                ax.text(bar.get_x() + bar.get_width() / 2, top * 1.08, fmt.usd(v, cents=False), ha="center",
                        va="bottom", fontsize=SMALL, rotation=90)
    ax.set_yscale("log")
    finite = np.concatenate([np.asarray(v, dtype=float) for _, v, _, _ in series]
                            + [np.asarray([r[1] for r in spread], dtype=float) for *_, spread in series if spread])
    finite = finite[np.isfinite(finite) & (finite > 0)]
    if finite.size:        # room above the tallest bar for its rotated label
        ax.set_ylim(top=float(finite.max()) * 12)
    dollar_axis(ax, "y")
    ax.set_xticks(x, names)
    ax.legend(fontsize=SMALL, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Tinker versus self-hosted, by workload", fontsize=10, loc="left")
    return fig


def rollout_share(lengths, rollout_seconds, train_seconds, ax=None, title=None, legend=True):
    """Each step's split between rollout and training against completion length, as shares of the step on a
    linear axis (every segment visible at every length), the rollout share labelled in its segment and the step
    time written above each bar. `legend=False` leaves the legend to another panel of the same figure."""
    fig, ax = axes(ax)
    lengths = np.asarray(lengths, dtype=float)
    rollout, train = np.asarray(rollout_seconds, dtype=float), np.asarray(train_seconds, dtype=float)
    step = rollout + train
    share = rollout / step
    x = np.arange(len(lengths))
    ax.bar(x, share, color=COLORS["rollout"], label="rollout (decode)")
    ax.bar(x, 1 - share, bottom=share, color=COLORS["training"], label="training")
    for xi, r, total in zip(x, share, step):
        ax.text(xi, r / 2, fmt.pct(r, 0), ha="center", va="center", fontsize=SMALL, color="white")
        ax.text(xi, 1.02, fmt.seconds(total), ha="center", va="bottom", fontsize=SMALL, rotation=90)
    ax.set_xticks(x, [f"{int(v):,}" for v in lengths])
    ax.set_xlabel("completion length (tokens)")
    ax.set_ylabel("share of the step")
    ax.set_ylim(0, 1.32)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.yaxis.set_major_formatter(fmt.axis_tick("pct"))
    if legend:
        ax.figure.legend(*ax.get_legend_handles_labels(), fontsize=SMALL, frameon=False, ncols=2,
                         loc="outside lower center")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Each step's split by completion length (step time above each bar)", fontsize=10,
                 loc="left")
    return fig


def prefill_vs_turns(turns, raw_prefill, cached_prefill=None, output=None, ax=None, title=None, mark_turns=None,
                     cache_label="prefill not served by cache"):
    """Prompt tokens per rollout as turns grow: the quadratic resend, and what a prefix cache leaves;
    `mark_turns` draws a vertical line (e.g. at a preset's turn count)."""
    fig, ax = axes(ax)
    ax.plot(turns, raw_prefill, color=COLORS["prefill"], label="prefill billed (history resent every turn)")
    if cached_prefill is not None:
        ax.plot(turns, cached_prefill, color=COLORS["cached prefill"], ls="--", label=cache_label)
    if output is not None:
        ax.plot(turns, output, color=COLORS["sample"], label="sampled tokens")
    if mark_turns is not None:
        ax.axvline(float(mark_turns), color="0.6", lw=0.8)
        ax.text(float(mark_turns), ax.get_ylim()[1], f" {float(mark_turns):g} turns", va="top", fontsize=SMALL,
                color="0.3")
    ax.set_xlabel("turns per rollout")
    ax.set_ylabel("tokens per rollout")
    ax.yaxis.set_major_formatter(fmt.axis_tick("tokens"))
    ax.legend(fontsize=SMALL, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Prompt tokens grow with the square of the turns", fontsize=10, loc="left")
    return fig


def sweep(x, series: dict, xlabel: str, ylabel: str = "USD", ax=None, title=None, logx=False, logy=False,
          money=True):
    """Lines of one or more results against one swept input (e.g. cost against completion length)."""
    fig, ax = axes(ax)
    for label, values in series.items():
        ax.plot(x, values, label=label, color=COLORS.get(label.lower()))
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if money:
        dollar_axis(ax, "y")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=SMALL, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return fig


def cost_breakdowns(estimates: dict, title=None):
    """One `cost_breakdown` panel per named estimate, stacked, each on its own dollar scale."""
    n = len(estimates)
    fig, axes = plt.subplots(n, 1, figsize=(WIDTH, 1.9 * n + 0.4), layout="constrained", squeeze=False)
    for ax, (label, est) in zip(axes[:, 0], estimates.items()):
        cost_breakdown(est, ax=ax, title=label)
    if title:
        fig.suptitle(title, fontsize=10, x=0.02, ha="left")
    return fig


def decode_throughput(batch, series: dict, critical_batch=None, ax=None, title=None):
    """Decode tokens/s per GPU against sequences decoded at once (log-log), with the critical batch marked."""
    fig, ax = axes(ax, size=(WIDTH, 3.4))
    styled_lines(ax, batch, series)
    if critical_batch is not None:
        ax.axvline(float(critical_batch), color="0.5", lw=0.8)
        # at the top of the line, on a white ground so a curve passing behind it does not cross the words
        ax.text(float(critical_batch), 0.97, f" critical batch ≈ {float(critical_batch):.0f}", va="top",
                fontsize=SMALL, color="0.3", transform=ax.get_xaxis_transform(),
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0})
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(fmt.axis_tick("tokens"))
    ax.set_xlabel("sequences decoded at once, per GPU")
    ax.set_ylabel("tokens/s per GPU")
    ax.legend(fontsize=SMALL, frameon=False, loc="upper left", bbox_to_anchor=(0.0, 0.9))
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Batched decode: weights are read once per step, KV once per sequence", fontsize=10,
                 loc="left")
    return fig


def async_speedups(names, off_policy, speedups, literature=None, ax=None, title=None):
    """Grouped bars: the model's wall-clock speed-up over synchronous RL for each k, per workload;
    `literature` = {label: (low, high)} draws the quoted ranges as shaded bands."""
    fig, ax = axes(ax, size=(WIDTH, 3.2))
    x = np.arange(len(names))
    ks = list(off_policy)
    width = 0.8 / len(ks)
    if literature:
        for i, (label, (low, high)) in enumerate(literature.items()):
            if high > low:
                ax.axhspan(low, high, color=f"C{i + 3}", alpha=0.15, lw=0)
            else:
                ax.axhline(low, color=f"C{i + 3}", lw=1, ls="--")
            ax.text(len(names) - 0.45, high, " " + label, fontsize=SMALL, va="bottom", color=f"C{i + 3}")
    speedups = np.asarray(speedups, dtype=float)   # rows: workloads, columns: k
    for j, k in enumerate(ks):
        ax.bar(x + (j - (len(ks) - 1) / 2) * width, speedups[:, j], width, label=f"k = {k:g}", color=f"C{j}")
    ax.axhline(1.0, color="0.3", lw=0.8)
    ax.set_xticks(x, names)
    ax.set_ylabel("× faster than synchronous")
    ax.legend(fontsize=SMALL, frameon=False, ncols=len(ks), loc="upper left")
    ax.set_xlim(-0.6, len(names) + 0.6)
    top = max([float(np.nanmax(speedups))] + [high for _, high in (literature or {}).values()])
    ax.set_ylim(0, top * 1.15)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Async RL speed-up: the model versus the literature", fontsize=10, loc="left")
    return fig


def grouped_barh(labels, series: dict, xlabel: str, value_format=None, logx=False, ax=None, title=None,
                 money=False, colors=None):
    """Horizontal bars, one group per label and one bar per series (e.g. the seed's heuristic next to the
    architecture), each bar labelled with `value_format(value)`. With one series, `colors` may give one
    colour per bar; `money` formats the axis in dollars."""
    labels = list(labels)
    fig, ax = axes(ax, size=(WIDTH, max(2.6, 0.17 * len(labels) * max(len(series), 1) + 1.1)))
    y = np.arange(len(labels))
    height = 0.8 / len(series)
    for i, (name, values) in enumerate(series.items()):
        values = np.asarray(values, dtype=float)
        pos = y - 0.4 + height * (i + 0.5)
        color = colors if (colors is not None and len(series) == 1) else COLORS.get(name.lower(), f"C{i}")
        ax.barh(pos, values, height, label=name, color=color)
        if value_format is not None:
            for p, v in zip(pos, values):
                if np.isfinite(v) and v > 0:
                    ax.text(v, p, " " + value_format(v), va="center", fontsize=SMALL)
    ax.set_yticks(y, [textwrap.fill(str(label), 26) for label in labels])   # long labels wrap: a phone is narrow
    ax.invert_yaxis()
    if logx:
        ax.set_xscale("log")
    ax.set_xlim(right=ax.get_xlim()[1] * (3.0 if logx else 1.2))
    ax.set_xlabel(xlabel)
    if money:
        dollar_axis(ax)
    if len(series) > 1:
        ax.legend(fontsize=SMALL, frameon=False, loc="lower right")
    ax.spines[["top", "right"]].set_visible(False)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return fig


def cache_per_sequence(contexts, series: dict, budget_bytes=None, ax=None, title=None):
    """Cache bytes one sequence holds against its length, one line per model (log-log); a constant state
    shows as a flat start. `budget_bytes` draws the line where a single sequence fills the budget."""
    fig, ax = axes(ax, size=(WIDTH, 4.4))
    styled_lines(ax, contexts, series)
    if budget_bytes is not None:
        ax.axhline(float(budget_bytes), color="0.6", lw=0.8)
        ax.text(np.max(contexts), float(budget_bytes), f"one GPU's memory ({fmt.gb(budget_bytes)}) ", va="bottom",
                ha="right", fontsize=SMALL, color="0.3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(fmt.axis_tick("tokens"))
    ax.yaxis.set_major_formatter(fmt.axis_tick("bytes"))
    ax.set_xlabel("tokens in the sequence")
    ax.set_ylabel("cache per sequence")
    fig.legend(fontsize=SMALL, frameon=False, loc="outside lower center", ncols=1)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Cache memory per sequence by attention design", fontsize=10, loc="left")
    return fig


def meters_side_by_side(meters, first_usd, second_usd, labels=("predicted", "measured"), ax=None, title=None):
    """Dollars per meter, two bars each (e.g. a prediction and the bill of the logged tokens)."""
    fig, ax = axes(ax)
    x = np.arange(len(meters))
    width = 0.38
    for offset, values, label, hatch in ((-width / 2, first_usd, labels[0], "//"),
                                         (width / 2, second_usd, labels[1], None)):
        bars = ax.bar(x + offset, values, width, label=label, hatch=hatch, edgecolor="white",
                      color=[COLORS.get(m, "#6A6A6A") for m in meters])
        for bar, v in zip(bars, values):
            ax.text(bar.get_x() + bar.get_width() / 2, float(v), fmt.usd(v), ha="center", va="bottom", fontsize=SMALL)
    ax.set_xticks(x, meters)
    dollar_axis(ax, "y")
    ax.legend(fontsize=SMALL, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return fig
