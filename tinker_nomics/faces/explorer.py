"""Explorers that work in the static book, with no kernel: the package precomputes a grid, the page's
JavaScript (explorer.js, beside this file, written for this repository; no library, no CDN) only looks values
up and draws them as SVG. No cost formula lives in the JavaScript.

    from tinker_nomics import explorer
    explorer.takeaway_html()        # workload × price snapshot × GPU offer × rollout efficiency × MFU
    explorer.breakeven_html()       # the break-even maps per workload, price snapshot and map
    explorer.planner_html()         # where to run it: workload × model × deadline × budget × spot

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
from ..analysis import bottom_line, breakeven, timeline, uncertainty, where_to_run
from ..model.estimate import estimate, with_efficiencies
from ..model.scenario import DEFAULT_METHOD, Scenario
from ..sources.workloads import get_workload
from . import labels, wording
from .plots.beyond import RATIO_CMAP, RATIO_SPAN

SCRIPT = Path(__file__).with_name("explorer.js")
EFFICIENCIES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.9)   # the fitted one joins them: a reader can try a better stack
MFUS = (0.05, 0.1, 0.2, 0.35, 0.5)


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


# Bills keep this many significant digits: enough that the explorer prints, to the dollar, what the table beside it
# prints (a $1,234,567 bill needs seven).
BILL_DIGITS = 8


@functools.lru_cache(maxsize=None)
def takeaway_data(workloads=timeline.TAKEAWAY_WORKLOADS, snapshot_list=None, gpu: str = "H100 SXM",
                  method: str = DEFAULT_METHOD, start: str | None = None, draws: int = uncertainty.DEFAULT_DRAWS) -> dict:
    """The takeaway comparison on a grid: Tinker's bill per workload × dated snapshot (a retired model billed on its
    successor, cached prefill where the list bills it, as `timeline` does), and the self-hosted cost per workload ×
    GPU offer × rollout efficiency × MFU (one vectorized `estimate` call per workload, on the workload's own
    model), under `method` (default: the package's). The sliders start on each workload's own values: its GPU offer
    and the efficiencies its method uses (the fitted ones under the calibrated method, which the grid includes).

    Tinker's wall-clock (days) per workload × snapshot is the estimate's (model/tinker_wallclock.py), beside the
    self-hosted one per workload × efficiency × MFU. The explorer opens on `start` (default: the first workload) at
    the newest dated list, the state the takeaway table prints. At a workload's own values it prints the page's
    verdict, with the share of `draws` Monte-Carlo draws that agree (analysis.bottom_line.answers; the default method only); elsewhere the point verdict. A
    slider that cannot change the bill of a workload at the other sliders' values (rollout efficiency when
    training sets the pace; MFU when rollout does) is disabled there, with the reason."""
    snaps = list(snapshot_list) if snapshot_list is not None else timeline.dated_snapshots(workloads)
    snaps = snaps[::-1]                       # newest first: the explorer opens where the answer is priced
    offers = gpu_offers(gpu)
    start_values = {}
    for name in workloads:
        preset = with_efficiencies(Scenario.from_workload(name, method=method, gpu=gpu))
        start_values[name] = {"gpu_hourly_usd": float(preset.gpu_hourly_usd),
                              "rollout_efficiency": float(preset.rollout_efficiency), "mfu": float(preset.mfu)}
    efficiencies_grid = sorted(set(EFFICIENCIES) | {v["rollout_efficiency"] for v in start_values.values()})
    mfus_grid = sorted(set(MFUS) | {v["mfu"] for v in start_values.values()})
    prices = np.array([o["usd"] for o in offers])
    grid = np.meshgrid(prices, np.array(efficiencies_grid), np.array(mfus_grid), indexing="ij")
    table = timeline.verdicts(workloads, snaps, method=method)
    tinker, hosted, meta = {}, {}, {}
    for row in table.itertuples():
        tinker[f"{row.workload}|{row.snapshot}"] = {
            "model": row.model, "successor": bool(row.successor), "cached": bool(row.cached_billing),
            "cache_hit_rate": row.cache_hit_rate, "total": _round(row.tinker_usd, BILL_DIGITS),
            "days": _round(row.tinker_wallclock_hours / 24.0, BILL_DIGITS),
            "parts": {name: _round(getattr(row, f"{name}_usd"), BILL_DIGITS) for name in
                      ("sample", "train", "prefill", "sandbox", "storage")},
            "prices": {"prefill": _round(row.prefill_rate), "sample": _round(row.sample_rate),
                       "train": _round(row.train_rate), "cached_prefill": _round(row.cached_prefill_rate)},
        }
    for name in workloads:
        scenario = timeline.scenario_at(name, snaps[0], method=method)[0]
        est = estimate(scenario.replace(gpu=gpu, gpu_hourly_usd=grid[0], rollout_efficiency=grid[1], mfu=grid[2]))
        s = est.self_hosted
        shape = grid[0].shape
        total = np.broadcast_to(s.total_usd, shape)
        days = np.broadcast_to(s.wallclock_hours, shape)[0] / 24.0          # not a function of the GPU price
        hosted[name] = {"model": est.scenario.model,
                        "gpu": _round(np.broadcast_to(s.compute_usd, shape), BILL_DIGITS),
                        "sandbox": _round(np.broadcast_to(s.sandbox_usd, shape), BILL_DIGITS),
                        "total": _round(total, BILL_DIGITS), "days": _round(days),
                        "num_gpus": int(np.max(s.num_gpus)),
                        # does the slider move the bill here? [mfu index] for efficiency, [efficiency index] for MFU
                        "efficiency_matters": [bool(np.ptp(total[0, :, k]) > 1e-9 * total[0, 0, k])
                                               for k in range(len(mfus_grid))],
                        "mfu_matters": [bool(np.ptp(total[0, j, :]) > 1e-9 * total[0, j, 0])
                                        for j in range(len(efficiencies_grid))]}
        preset = get_workload(name)
        offer = next((i for i, o in enumerate(offers) if o["default"] and
                      abs(o["usd"] - start_values[name]["gpu_hourly_usd"]) < 1e-9), None)
        if offer is None:
            offer = min(range(len(offers)), key=lambda i: abs(offers[i]["usd"] - start_values[name]["gpu_hourly_usd"]))
        meta[name] = {"description": preset.description, "model": est.scenario.model,
                      "start": {"offer": offer,
                                "efficiency": efficiencies_grid.index(start_values[name]["rollout_efficiency"]),
                                "mfu": mfus_grid.index(start_values[name]["mfu"])},
                      "answers": _answer_texts(name, snaps, method, draws)}
    return {"workloads": list(workloads), "meta": meta, "method": method, "start": start or workloads[0],
            "snapshots": [{"id": s, "date": timeline.snapshots()[s]} for s in snaps],
            "gpu": gpu, "offers": offers, "efficiencies": efficiencies_grid, "mfus": mfus_grid,
            "tinker": tinker, "hosted": hosted, "tinker_wallclock_basis": wording.tinker_wallclock_basis(),
            "labels": {
                "efficiency": labels.label("rollout_efficiency"), "mfu": labels.label("mfu"),
                "offer": f"{gpu} offer"},
            "reasons": {"efficiency": "training sets the pace of this run here: the rollout finishes first, so its "
                                      "efficiency does not change the bill",
                        "mfu": "rollout sets the pace of this run here: training finishes first, so its MFU does "
                               "not change the bill"},
            "colors": {"sample": "#4C72B0", "train": "#DD8452", "prefill": "#55A868", "sandbox": "#8172B3",
                       "storage": "#937860", "gpu": "#C44E52"}}


def _answer_texts(workload: str, snaps, method: str, draws: int) -> dict:
    """The page's verdict sentence per snapshot, at the workload's own values (the default method only; other
    methods draw nothing here and the explorer prints the point verdict)."""
    if method != DEFAULT_METHOD:
        return {}
    out = {}
    for snap in snaps:
        found = [a for a in bottom_line.answers((workload,), snap, draws) if a.workload == workload]
        if found:
            out[snap] = wording.verdict(found[0].verdict, capital=True)
    return out


def takeaway_html(**kwargs) -> str:
    method = kwargs.get("method", DEFAULT_METHOD)
    title = f"Tinker versus self-hosted, explorable ({method} method)"
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
    return {"model": m.model, "snapshot": m.snapshot, "x_label": labels.axis(m.x_field),
            "y_label": labels.axis(m.y_field), "title": map_title(m),
            "x": ticks, "y": ylabels, "y_short": [y.split(" · ")[0] for y in ylabels],
            "ratio": _round(m.ratio, 3), "tinker": _round(m.tinker_usd, BILL_DIGITS),
            "hosted": _round(m.self_hosted_usd, BILL_DIGITS), "color": _color_indices(m.ratio).tolist(),
            "boundary": [_round(line, 4) for line in m.boundary(index=True)],
            "preset": _preset_index(m), "tinker_share": m.tinker_share}


def map_title(m: breakeven.Map) -> str:
    """What a break-even map shows, for its title and its alt text."""
    return (f"{m.workload} on {m.model.split('/')[-1]} at the {m.snapshot} prices: self-hosted ÷ Tinker over "
            f"{labels.label(m.x_field, symbol=False)} and {labels.label(m.y_field, symbol=False)}")


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
    if field_name in ("completion_tokens", "output_per_turn"):   # 256, 724, 2K, 5.7K, 16K
        return f"{value / 1024:.2g}K" if value >= 1024 else f"{value:g}"
    if field_name == "gpu_hourly_usd":
        return fmt.usd(value)
    return f"{value:g}"


MAP_KINDS = {"length_group": "length × group size", "turns_model": "turns × model",
             "price_efficiency": "GPU price × rollout efficiency"}


@functools.lru_cache(maxsize=None)
def breakeven_data(workloads=timeline.TAKEAWAY_WORKLOADS, snapshot_list=None, start: str | None = None,
                   start_map: str = "length_group") -> dict:
    """Every break-even map per workload and snapshot (default: the oldest and newest dated snapshots), on the grids
    of the chapter's figures, under the package's default method. The explorer opens on `start` (default: the first
    workload), the newest list and `start_map`: the chapter's first figure."""
    dated = timeline.dated_snapshots(workloads)
    snaps = list(snapshot_list) if snapshot_list is not None else [dated[0], dated[-1]]
    maps: dict = {}
    for snap in snaps:
        for name in workloads:
            entry = maps.setdefault(snap, {}).setdefault(name, {})
            entry["length_group"] = _map_data(breakeven.length_group_map(name, snapshot=snap))
            if breakeven.is_multi_turn(name):
                entry["turns_model"] = _map_data(breakeven.turns_model_map(name, snapshot=snap))
            entry["price_efficiency"] = _map_data(breakeven.price_efficiency_map(name, snapshot=snap))
    legend = [{"label": f"{2.0 ** t:g}×", "color": c} for t, c in
              zip(range(-int(RATIO_SPAN), int(RATIO_SPAN) + 1),
                  _colors(2.0 ** np.arange(-RATIO_SPAN, RATIO_SPAN + 1)))]
    return {"workloads": list(workloads), "snapshots": snaps, "kinds": MAP_KINDS, "maps": maps,
            "start": {"workload": start or workloads[0], "snapshot": snaps[-1], "map": start_map},
            "legend": legend, "palette": palette()}


def breakeven_html(**kwargs) -> str:
    return _fragment("breakeven", breakeven_data(**kwargs), "Break-even maps, explorable")


def display(fragment: str):
    """Show an explorer in a notebook (the book renders the same HTML)."""
    from IPython.display import HTML
    return HTML(fragment)


# ----------------------------------------------------------------------------------------------- where to run it

PLANNER_DEADLINES = (12.0, 24.0, 72.0, 168.0, 336.0)        # hours: the explorer's deadline choices
PLANNER_BUDGETS = (None, 1000.0, 10000.0)                   # dollars (None: no budget)
PLANNER_SPOTS = (("both", None, "on demand and spot"), ("demand", False, "on demand only"))
PLANNER_ALTERNATE = "meta-llama/Llama-3.1-70B"              # a 70B model beside each preset's own
PLANNER_KINDS = {"tinker": ("Tinker", "#4C72B0"), "managed": ("managed GPUs", "#DD8452"),
                 "rented": ("rented, on demand", "#8C8C8C"), "spot": ("rented, spot", "#55A868"),
                 "service": ("managed service", "#8172B3"), "given": ("your rate", "#937860")}
PLANNER_TOP = 8


def planner_models(workload: str, alternate: str = PLANNER_ALTERNATE) -> list[str]:
    """The models the explorer offers for a preset: its own, and the 70B alternate."""
    own = sources.resolve_model(get_workload(workload).fields["model"])
    return list(dict.fromkeys([own, sources.resolve_model(alternate)]))


def planner_evaluation(workload: str, model: str, deadlines=PLANNER_DEADLINES, draws: int = 300, seed: int = 0,
                       prices: str = "latest"):
    """The evaluation behind one workload and model of the explorer (the chapter's tables use the same one)."""
    own = planner_models(workload)[0]
    return where_to_run.evaluation(workload, model=None if model == own else model, deadlines=tuple(deadlines),
                                   prices=prices, draws=draws, seed=seed)


def _log_position(values, low, high):
    return [None if v is None or not np.isfinite(v) else round(float((np.log(v) - np.log(low))
                                                                     / (np.log(high) - np.log(low))), 4)
            for v in values]


def _log_ticks(low, high, candidates, label):
    ticks = [c for c in candidates if low <= c <= high]
    return [[p, label(c)] for p, c in zip(_log_position(ticks, low, high), ticks)]


HOUR_TICKS = (1 / 6, 0.5, 1, 3, 6, 12, 24, 72, 168, 336, 720, 2160)
USD_TICKS = tuple(m * 10.0 ** e for e in range(-1, 7) for m in (1, 3))


def _hour_tick(h: float) -> str:
    return f"{h * 60:.0f} min" if h < 1 else (f"{h:g} h" if h < 24 else f"{h / 24:g} d")


@functools.lru_cache(maxsize=None)
def planner_data(workloads=timeline.TAKEAWAY_WORKLOADS, deadlines=PLANNER_DEADLINES, budgets=PLANNER_BUDGETS,
                 draws: int = 300, seed: int = 0, prices: str = "latest", opening: str = "math_rl",
                 opening_deadline: float = 168.0, top: int = PLANNER_TOP) -> dict:
    """Every state of the planner explorer, precomputed: for each workload × model × deadline × budget × spot choice,
    the best option and the ranked rows (the text of where_to_run.listed_table, as the chapter prints them), and
    for the figure each shown option's position on log axes and the frontier. The page only looks them up.

    Per workload and model, `options` holds each option shown in any state once (its where, GPUs, cost and
    wall-clock text, kind and position); a state's rows name an option and add what depends on the state (rank,
    share on time, note)."""
    states, plots = {}, {}
    models = {w: planner_models(w) for w in workloads}
    columns = None
    for w in workloads:
        for mi, model in enumerate(models[w]):
            ev = planner_evaluation(w, model, deadlines, draws, seed, prices)
            options: dict = {}     # where -> [index, where, GPUs, cost text, wall text, kind, wall, cost]

            def option(row: dict, text: dict | None = None) -> int:
                key = row["where"]
                if key not in options:
                    t = text or {"where": where_to_run.where_text(row), "GPUs": where_to_run.gpus_text(row),
                                 "cost (P10–P90)": where_to_run.money_span(row),
                                 "wall-clock (P10–P90)": where_to_run.hours_span(row)}
                    kind = "spot" if bool(row["spot"]) else str(row["kind"])
                    options[key] = [len(options), t["where"], t["GPUs"], t["cost (P10–P90)"],
                                    t["wall-clock (P10–P90)"], kind, _finite(row["wall_hours"]),
                                    _finite(row["cost_usd"])]
                return options[key][0]

            frontiers = {}
            for sid, spot, _ in PLANNER_SPOTS:
                for j, hours in enumerate(deadlines):
                    for k, budget in enumerate(budgets):
                        p = ev.plan(hours, budget, spot)
                        table = where_to_run.listed_table(p, top)
                        columns = list(table.columns)
                        shown = where_to_run.planner.listed(p.options, top).to_dict("records")
                        rows = [[option(r, t), t["rank"], t["on time"], t["note"]]
                                for r, t in zip(shown, table.to_dict("records"))]
                        states[f"{w}|{mi}|{j}|{k}|{sid}"] = {"rows": rows, "best": _best_text(p),
                                                             "over": _over_text(p)}
                        if j == 0 and k == 0:
                            front = p.pareto.sort_values("wall_hours").to_dict("records")
                            frontiers[sid] = [option(r) for r in front]
            listed = sorted(options.values(), key=lambda v: v[0])
            walls = [v[6] for v in listed if v[6] is not None] + list(deadlines)
            costs = [v[7] for v in listed if v[7] is not None]
            xlo, xhi = min(walls) / 1.6, max(walls) * 1.6
            ylo, yhi = (min(costs) / 1.6, max(costs) * 1.6) if costs else (1.0, 10.0)
            xs = _log_position([v[6] for v in listed], xlo, xhi)
            ys = _log_position([v[7] for v in listed], ylo, yhi)
            plots[f"{w}|{mi}"] = {
                "options": [[v[1], v[2], v[3], v[4], v[5], x, y] for v, x, y in zip(listed, xs, ys)],
                "frontier": frontiers, "deadline_x": _log_position(list(deadlines), xlo, xhi),
                "x_ticks": _log_ticks(xlo, xhi, HOUR_TICKS, _hour_tick),
                "y_ticks": _log_ticks(ylo, yhi, USD_TICKS, lambda c: fmt.usd(c, cents=c < 1))}
    opening_scenario = planner_evaluation(opening, models[opening][0], deadlines, draws, seed, prices).scenario
    return {"workloads": list(workloads), "models": {w: [m.split("/")[-1] for m in ms] for w, ms in models.items()},
            "deadlines": [where_to_run.deadline_label(h) for h in deadlines],
            "budgets": ["no budget" if b is None else fmt.usd(b, cents=False) for b in budgets],
            "spots": [label for _, _, label in PLANNER_SPOTS], "spot_ids": [sid for sid, _, _ in PLANNER_SPOTS],
            "opening": {"workload": opening, "model": 0, "deadline": list(deadlines).index(opening_deadline),
                        "budget": 0, "spot": PLANNER_SPOTS[0][0]},
            "columns": columns, "states": states, "plots": plots,
            "kinds": {k: {"label": label, "color": color} for k, (label, color) in PLANNER_KINDS.items()},
            "note": f"{draws:,} draws per option; calibrated method; Tinker at the {opening_scenario.prices} list; "
                    f"GPU offers: SkyPilot catalog read {', '.join(where_to_run.catalog_counts()['recorded'])}"}


def planner_rows(data: dict, state: str) -> list[list[str]]:
    """A state's table as the page shows it (the same columns and text as where_to_run.listed_table)."""
    w, mi = state.split("|")[:2]
    options = data["plots"][f"{w}|{mi}"]["options"]
    return [[str(rank), options[i][0], options[i][1], options[i][2], options[i][3], on_time, note]
            for i, rank, on_time, note in data["states"][state]["rows"]]


def _finite(value):
    return float(value) if value is not None and np.isfinite(float(value)) else None


def _best_text(p) -> str:
    b = p.best
    if b is None:
        return (f"No option fits, finishes in {where_to_run.deadline_label(p.deadline_hours)} in "
                f"{fmt.pct(p.confidence, 0)} of the draws" + ("" if p.budget_usd is None else " and meets the budget")
                + ".")
    return (f"Best: {where_to_run.where_text(b)} ({where_to_run.gpus_text(b)}), {where_to_run.money_span(b)}, "
            f"wall-clock {where_to_run.hours_span(b)}.")


def _over_text(p) -> str | None:
    o = p.cheapest_over_budget
    if o is None:
        return None
    return (f"Over budget: the cheapest option on time, {where_to_run.where_text(o)}, costs "
            f"{fmt.usd(o['cost_usd'])}.")


def planner_html(**kwargs) -> str:
    return _fragment("planner", planner_data(**kwargs), "Where to run it, explorable")
