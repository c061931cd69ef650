"""Explorers that work in the static book, with no kernel: the package precomputes a grid, the page's
JavaScript (explorer.js, beside this file, written for this repository; no library, no CDN) only looks values
up and draws them as SVG. No cost formula lives in the JavaScript.

    from tinker_nomics import explorer
    explorer.takeaway_html()        # workload × price snapshot × GPU offer × rollout efficiency × MFU
    explorer.breakeven_html()       # the break-even maps per workload, price snapshot and map

Each function returns an HTML fragment: a container, its data as an embedded JSON block, and the script
(included once per fragment; it runs once per page and draws every explorer found).
"""
from __future__ import annotations

import functools
import html
import json
from pathlib import Path

import matplotlib
import numpy as np

from .. import fmt, sources
from ..analysis import breakeven, timeline
from ..model.estimate import estimate
from ..sources import calibration
from ..sources.workloads import get_workload
from .plots.beyond import RATIO_CMAP, RATIO_SPAN

SCRIPT = Path(__file__).with_name("explorer.js")
EFFICIENCIES = (0.3, 0.4, 0.5, 0.6, 0.7)
MFUS = (0.05, 0.1, 0.2, 0.35)


def _round(values, digits: int = 4):
    """Significant digits only: the page needs what it prints, not float noise."""
    array = np.asarray(values, dtype=float)
    out = np.vectorize(lambda v: float(f"{v:.{digits}g}") if np.isfinite(v) else None, otypes=[object])(array)
    return out.tolist()


def gpu_offers(gpu: str = "H100 SXM") -> list[dict]:
    """The sourced $/GPU-hour listings for one GPU (data/hardware/gpu_prices.csv), cheapest first."""
    offers = [{"label": f"{p.provider} · {p.date or 'undated'}", "usd": p.usd_per_gpu_hour,
               "default": p.default}
              for p in sources.gpu_prices() if p.gpu == gpu]
    return sorted(offers, key=lambda o: o["usd"])


def _script() -> str:
    return SCRIPT.read_text(encoding="utf-8")


def _fragment(kind: str, data: dict, title: str) -> str:
    # "</" must not appear inside the JSON script block; \u003c keeps it valid JSON.
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False).replace("</", "<\\u002f")
    # tex2jax_ignore/mathjax_ignore: no MathJax (JupyterLab's or the book's) may read "$99.20 … $28.49" as math;
    # data-lm-suppress-shortcuts: JupyterLab's keyboard shortcuts stay out of the controls.
    return (f'<div class="tn-explorer tex2jax_ignore mathjax_ignore" data-lm-suppress-shortcuts="true" '
            f'data-kind="{kind}" aria-label="{html.escape(title)}">'
            f'<script type="application/json" class="tn-data">{payload}</script>'
            f'<noscript>This explorer needs JavaScript.</noscript></div>'
            f'<script>{_script()}</script>')


@functools.lru_cache(maxsize=None)
def takeaway_data(workloads=timeline.TAKEAWAY_WORKLOADS, snapshot_list=None, gpu: str = "H100 SXM",
                  method: str = "seed") -> dict:
    """The takeaway comparison on a grid: Tinker's bill per workload × dated snapshot (successor models and
    cached prefill as in `timeline`), and the self-hosted cost per workload × model × GPU offer × rollout
    efficiency × MFU (one vectorized `estimate` call per workload and model), under `method`. For the seed and
    exact methods the sliders are the efficiencies the method takes as inputs (presets at the seed's); for the
    calibrated method they override its fitted decode bandwidth efficiency and its update (at an MFU), which the
    grid includes and the sliders start at (the fitted efficiency, data/calibration/parameters.csv, and the
    update's achieved MFU)."""
    snaps = list(snapshot_list) if snapshot_list is not None else timeline.dated_snapshots(workloads)
    if method != "seed":   # the takeaway's own explorer opens on the newest list, where its answer is priced
        snaps = snaps[::-1]
    offers = gpu_offers(gpu)
    efficiencies_grid, mfus_grid, fitted = list(EFFICIENCIES), list(MFUS), {}
    if method == "calibrated":
        bandwidth = calibration.parameters().decode_bandwidth_efficiency
        for name in workloads:
            # the fitted bandwidth efficiency and the update's achieved MFU (exact, not rounded): the sliders start
            # on them, and there the grid holds the estimate itself
            point = estimate(timeline.scenario_at(name, snaps[0], method=method)[0].replace(gpu=gpu))
            fitted[name] = {"rollout_efficiency": float(bandwidth), "mfu": float(np.max(point.self_hosted.train_mfu))}
        efficiencies_grid = sorted(set(efficiencies_grid) | {f["rollout_efficiency"] for f in fitted.values()})
        mfus_grid = sorted(set(mfus_grid) | {f["mfu"] for f in fitted.values()})
    prices = np.array([o["usd"] for o in offers])
    grid = np.meshgrid(prices, np.array(efficiencies_grid), np.array(mfus_grid), indexing="ij")
    table = timeline.verdicts(workloads, snaps, method=method)
    tinker, hosted, meta = {}, {}, {}
    for row in table.itertuples():
        tinker[f"{row.workload}|{row.snapshot}"] = {
            "model": row.model, "successor": bool(row.successor), "cached": bool(row.cached_billing),
            "cache_hit_rate": row.cache_hit_rate, "total": _round(row.tinker_usd),
            "parts": {name: _round(getattr(row, f"{name}_usd")) for name in
                      ("sample", "train", "prefill", "sandbox", "storage")},
            "prices": {"prefill": _round(row.prefill_rate), "sample": _round(row.sample_rate),
                       "train": _round(row.train_rate), "cached_prefill": _round(row.cached_prefill_rate)},
        }
        key = f"{row.workload}|{row.model}"
        if key in hosted:
            continue
        scenario = timeline.scenario_at(row.workload, row.snapshot, method=method)[0]
        est = estimate(scenario.replace(gpu=gpu, gpu_hourly_usd=grid[0], rollout_efficiency=grid[1], mfu=grid[2]))
        s = est.self_hosted
        shape = grid[0].shape
        hosted[key] = {"gpu": _round(np.broadcast_to(s.compute_usd, shape)),
                       "sandbox": _round(np.broadcast_to(s.sandbox_usd, shape)),
                       "total": _round(np.broadcast_to(s.total_usd, shape)),
                       "gpu_hours": _round(np.broadcast_to(s.gpu_hours, shape)),
                       "num_gpus": int(np.max(s.num_gpus))}
    for name in workloads:
        preset = get_workload(name)
        start = {key: _round(preset.fields.get(key, np.nan)) for key in ("gpu_hourly_usd", "rollout_efficiency", "mfu")}
        start.update(fitted.get(name, {}))
        meta[name] = {"description": preset.description, "preset": start}
    return {"workloads": list(workloads), "meta": meta, "method": method,
            "snapshots": [{"id": s, "date": timeline.snapshots()[s]} for s in snaps],
            "gpu": gpu, "offers": offers, "efficiencies": efficiencies_grid, "mfus": mfus_grid,
            "tinker": tinker, "hosted": hosted,
            "colors": {"sample": "#4C72B0", "train": "#DD8452", "prefill": "#55A868", "sandbox": "#8172B3",
                       "storage": "#937860", "gpu": "#C44E52"}}


def takeaway_html(**kwargs) -> str:
    title = "Tinker versus self-hosted, explorable"
    if kwargs.get("method", "seed") != "seed":
        title += f" ({kwargs['method']} method)"
    return _fragment("takeaway", takeaway_data(**kwargs), title)


def _colors(ratio: np.ndarray) -> list:
    """Cell colours from the same colour map and scale as the static maps (plots.beyond.breakeven_map)."""
    cmap = matplotlib.colormaps[RATIO_CMAP]
    norm = matplotlib.colors.Normalize(-RATIO_SPAN, RATIO_SPAN)
    rgba = cmap(norm(np.log2(ratio)))
    return np.apply_along_axis(matplotlib.colors.to_hex, -1, rgba).tolist()


def _color_indices(ratio: np.ndarray) -> np.ndarray:
    """Each cell's entry in PALETTE (the colour map sampled at its 256 levels), so the page stores small
    integers instead of colour strings."""
    norm = matplotlib.colors.Normalize(-RATIO_SPAN, RATIO_SPAN, clip=True)
    return np.round(norm(np.log2(ratio)) * 255).astype(int)


def palette() -> list[str]:
    cmap = matplotlib.colormaps[RATIO_CMAP]
    return [matplotlib.colors.to_hex(cmap(i / 255)) for i in range(256)]


def _map_data(m: breakeven.Map) -> dict:
    ticks = [breakeven_tick(m.x_field, v) for v in m.x]
    ylabels = list(m.y_labels) if m.y_labels else [breakeven_tick(m.y_field, v) for v in m.y]
    return {"model": m.model, "snapshot": m.snapshot, "x_label": m.x_label, "y_label": m.y_label,
            "x": ticks, "y": ylabels, "ratio": _round(m.ratio, 3), "tinker": _round(m.tinker_usd, 3),
            "hosted": _round(m.self_hosted_usd, 3), "color": _color_indices(m.ratio).tolist(),
            "boundary": [_round(line, 4) for line in m.boundary(index=True)],
            "preset": _preset_index(m), "tinker_share": round(m.tinker_share, 3)}


def _preset_index(m: breakeven.Map):
    """The preset's position in grid-index coordinates (interpolated on a log axis where the axis is log)."""
    out = []
    for axis, value in ((m.x, m.preset[0]), (m.y, m.preset[1])):
        if m.y_field == "model" and axis is m.y:
            out.append(value if np.isfinite(value) else None)
            continue
        log = axis.min() > 0 and axis.max() / axis.min() > 8
        a, v = (np.log(axis), np.log(value)) if log else (axis, value)
        out.append(float(np.interp(v, a, np.arange(axis.size))) if a.min() <= v <= a.max() else None)
    return out


def breakeven_tick(field_name: str, value: float) -> str:
    if field_name in ("completion_tokens", "output_per_turn"):
        return f"{value / 1024:g}K" if value >= 1024 else f"{value:g}"
    if field_name == "gpu_hourly_usd":
        return fmt.usd(value)
    return f"{value:g}"


# The explorer's GPU price × efficiency grid is coarser than the book's figure (a smaller page).
EXPLORER_GPU_PRICES = np.arange(1.0, 8.01, 0.5)
EXPLORER_EFFICIENCIES = np.round(np.arange(0.1, 1.001, 0.1), 2)

MAP_KINDS = {"length_group": "length × group size", "turns_model": "turns × model",
             "price_efficiency": "GPU price × rollout efficiency"}


@functools.lru_cache(maxsize=None)
def breakeven_data(workloads=timeline.TAKEAWAY_WORKLOADS, snapshot_list=None) -> dict:
    """Every break-even map per workload and snapshot (default: the oldest and newest dated snapshots)."""
    dated = timeline.dated_snapshots(workloads)
    snaps = list(snapshot_list) if snapshot_list is not None else [dated[0], dated[-1]]
    maps: dict = {}
    for snap in snaps:
        for name in workloads:
            entry = maps.setdefault(snap, {}).setdefault(name, {})
            entry["length_group"] = _map_data(breakeven.length_group_map(name, snapshot=snap))
            if breakeven.is_multi_turn(name):
                entry["turns_model"] = _map_data(breakeven.turns_model_map(name, snapshot=snap))
            entry["price_efficiency"] = _map_data(breakeven.price_efficiency_map(
                name, gpu_prices=EXPLORER_GPU_PRICES, efficiencies=EXPLORER_EFFICIENCIES, snapshot=snap))
    legend = [{"label": f"{2.0 ** t:g}×", "color": c} for t, c in
              zip(range(-int(RATIO_SPAN), int(RATIO_SPAN) + 1),
                  _colors(2.0 ** np.arange(-RATIO_SPAN, RATIO_SPAN + 1)))]
    return {"workloads": list(workloads), "snapshots": snaps, "kinds": MAP_KINDS, "maps": maps,
            "legend": legend, "palette": palette()}


def breakeven_html(**kwargs) -> str:
    return _fragment("breakeven", breakeven_data(**kwargs), "Break-even maps, explorable")


def display(fragment: str):
    """Show an explorer in a notebook (the book renders the same HTML)."""
    from IPython.display import HTML
    return HTML(fragment)
