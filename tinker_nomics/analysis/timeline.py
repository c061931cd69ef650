"""The takeaway's verdicts under every dated Tinker price snapshot, and why they change.

Three things changed after January 2026 (reference/prices-sources.md):
- the 2026-07-17 repricing (prefill and sample ×1.5, train ×1.1 on the models that stayed);
- cached prefill billed at 20% of the prefill rate (prompt tokens that hit the sampler's prefix cache);
- the lineup: some preset models were retired. A retired model is evaluated on its successor from
  data/models/successors.csv, and every row says so.

Cached prefill is applied wherever the snapshot has a cached rate, with the preset's own cache hit share
(`cache_hit_rate`, the same share the self-hosted side's prefix cache skips).

Everything runs under the package's default method (the takeaway's answer) unless a `method` override names
another; only Tinker's side moves to a successor: the self-hosted side always runs the workload's own model.

    from tinker_nomics import timeline
    timeline.verdicts()            # one row per workload × snapshot (a pandas DataFrame)
    timeline.drivers()             # January → newest, step by step, per workload
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import TinkerNomicsError
from ..model.estimate import estimate
from ..model.scenario import Scenario
from ..sources.architectures import resolve_model
from ..sources.price_list import priced_models, resolve_snapshot, snapshots
from ..sources.prices import get_price
from ..sources.successors import Successor, is_priced, model_for, snapshot_dating
from ..sources.workloads import get_workload

# The workloads of the seed's takeaway table, in its order.
TAKEAWAY_WORKLOADS = ("math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl")
METERS = ("prefill", "sample", "train")


def advantage(ratio):
    """How many times cheaper the cheaper side is, from `ratio` = self-hosted / Tinker: max(ratio, 1 / ratio),
    at least 1 (a ratio of 0.39 and one of 2.6 are both a 2.6× advantage, for opposite sides)."""
    ratio = np.asarray(ratio, dtype=float)
    out = np.maximum(ratio, 1.0 / ratio)
    return float(out) if out.ndim == 0 else out


def workload_successors(workloads=TAKEAWAY_WORKLOADS, snapshot: str | None = None) -> dict[str, Successor]:
    """The successors the workloads are billed on at `snapshot` (default: the newest): retired preset model ->
    its Successor, in workload order, only for the workloads' own models (successors.csv also covers models
    the bundled runs use)."""
    snap = resolve_snapshot(snapshot)
    out = {}
    for name in workloads:
        _, successor = model_for(get_workload(name).fields["model"], snap)
        if successor is not None:
            out.setdefault(successor.retired, successor)
    return out


def dated_snapshots(workloads=TAKEAWAY_WORKLOADS) -> list[str]:
    """Snapshots, oldest first, that a source dates (at least to the month) and that price every workload's
    model or its successor with all three meters."""
    usable = []
    for snap in snapshots():
        if snapshot_dating().get(snap, "").startswith("undated"):
            continue
        try:
            for name in workloads:
                model_for(get_workload(name).fields["model"], snap)
        except TinkerNomicsError:
            continue
        usable.append(snap)
    return usable


def undated_snapshots() -> list[str]:
    """Snapshots left out of the timeline because their source gives no date."""
    return [s for s in snapshots() if snapshot_dating().get(s, "").startswith("undated")]


def scenario_at(workload: str, snapshot: str, cached: bool = False, **overrides) -> tuple[Scenario, Successor | None]:
    """The workload at `snapshot` under the default method (or `overrides`' method), cached prefill as given. The
    scenario keeps the workload's own model, which the self-hosted side runs; `estimate` bills Tinker's side on
    the successor the snapshot names when it no longer prices that model (returned here, else None)."""
    preset = get_workload(workload).fields
    model = overrides.pop("model", preset["model"])
    _, successor = model_for(model, snapshot)
    scenario = Scenario.from_workload(workload, model=model, prices=snapshot, tinker_cached_prefill=cached,
                                      **overrides)
    return scenario, successor


def has_cached_rate(model: str, snapshot: str) -> bool:
    """Whether `snapshot` bills cache hits for `model`: at the model's own rates, or its successor's when retired."""
    return get_price(model_for(model, snapshot)[0], snapshot).cached_prefill is not None


def _row(workload: str, snapshot: str, **overrides) -> dict:
    """One workload at one snapshot: the bill with cached prefill where the snapshot has it, and without."""
    scenario, successor = scenario_at(workload, snapshot, cached=False, **overrides)
    cached = has_cached_rate(scenario.model, snapshot)
    plain = estimate(scenario)
    billed = estimate(scenario.replace(tinker_cached_prefill=True)) if cached else plain
    t, s = billed.tinker, billed.self_hosted
    tinker, hosted = float(t.total_usd), float(s.total_usd)
    price = billed.price                # the model Tinker bills: the preset's, or its successor
    return {
        "workload": workload, "snapshot": snapshot, "date": snapshots()[snapshot],
        "preset_model": resolve_model(get_workload(workload).fields["model"]), "model": price.model,
        "method": billed.scenario.method,
        "successor": successor is not None, "cached_billing": cached,
        "cache_hit_rate": float(billed.scenario.cache_hit_rate),
        "tinker_usd": tinker, "tinker_uncached_usd": float(plain.tinker.total_usd),
        "sample_usd": float(t.sample_usd), "train_usd": float(t.train_usd), "prefill_usd": float(t.prefill_usd),
        "prefill_uncached_usd": float(plain.tinker.prefill_usd),
        "sandbox_usd": float(t.sandbox_usd), "storage_usd": float(t.storage_usd),
        "self_hosted_usd": hosted, "ratio": hosted / tinker, "factor": advantage(hosted / tinker),
        "tinker_wallclock_hours": float(billed.tinker_time.wallclock_hours),
        "cheaper": "tinker" if tinker <= hosted else "self_hosted",
        "prefill_rate": price.prefill, "sample_rate": price.sample, "train_rate": price.train,
        "cached_prefill_rate": price.cached_prefill,
        "price_notes": "; ".join(price.notes),
    }


def verdicts(workloads=TAKEAWAY_WORKLOADS, snapshot_list=None, **overrides) -> pd.DataFrame:
    """One row per workload × dated snapshot: both totals, the meters, the model billed, and the verdict.
    `ratio` is self-hosted / Tinker (above 1: Tinker is cheaper), `factor` how many times cheaper the cheaper side
    is. Overrides apply to every scenario."""
    snaps = list(snapshot_list) if snapshot_list is not None else dated_snapshots(workloads)
    rows = [_row(w, resolve_snapshot(s), **overrides) for w in workloads for s in snaps]
    return pd.DataFrame(rows)


def flips(table: pd.DataFrame, first: str | None = None, last: str | None = None) -> pd.DataFrame:
    """Workloads whose cheaper side differs between two snapshots (default: the oldest and newest in `table`)."""
    order = sorted(table["snapshot"].unique(), key=lambda s: snapshots()[s])
    first, last = first or order[0], last or order[-1]
    a = table[table.snapshot == first].set_index("workload")
    b = table[table.snapshot == last].set_index("workload")
    out = pd.DataFrame({"before": a["cheaper"], "after": b["cheaper"], "ratio_before": a["ratio"],
                        "ratio_after": b["ratio"]})
    out["flipped"] = out["before"] != out["after"]
    return out


def same_totals(table: pd.DataFrame, snapshot_list) -> bool:
    """Whether every snapshot in `snapshot_list` gives the same Tinker and self-hosted totals for every workload
    of `table` (to the micro-dollar): the price lists then differ in models the workloads do not use."""
    def totals(snapshot):
        rows = table[table.snapshot == snapshot].sort_values("workload")
        return rows[["workload", "tinker_usd", "self_hosted_usd"]].round(6).values.tolist()
    snapshot_list = list(snapshot_list)
    return all(totals(s) == totals(snapshot_list[0]) for s in snapshot_list[1:])


def repricing_factors(before: str = "2026-01-05", after: str | None = None) -> pd.DataFrame:
    """Per-meter price ratio after/before for every model priced (all meters) in both snapshots: the
    repricing measured on the models that stayed in the lineup."""
    before, after = resolve_snapshot(before), resolve_snapshot(after)
    rows = []
    for model in priced_models():
        if not (is_priced(model, before) and is_priced(model, after)):
            continue
        p0, p1 = get_price(model, before), get_price(model, after)
        rows.append({"model": model, **{m: getattr(p1, m) / getattr(p0, m) for m in METERS}})
    return pd.DataFrame(rows)


def typical_repricing(before: str = "2026-01-05", after: str | None = None) -> dict[str, float]:
    """The median per-meter factor over the models priced in both snapshots (one outlier does not move it)."""
    table = repricing_factors(before, after)
    if table.empty:
        raise TinkerNomicsError(f"no model is priced in both {before} and {after}")
    return {m: float(np.median(table[m])) for m in METERS}


def repricing_outliers(before: str = "2026-01-05", after: str | None = None, tolerance: float = 1e-9) -> pd.DataFrame:
    """The rows of `repricing_factors` whose factor differs from the typical (median) one on some meter: the
    models the repricing treated differently from the rest."""
    table = repricing_factors(before, after)
    typical = typical_repricing(before, after)
    off = np.zeros(len(table), dtype=bool)
    for meter in METERS:
        off |= np.abs(table[meter].to_numpy() - typical[meter]) > tolerance
    return table[off]


@dataclass(frozen=True)
class Drivers:
    """One workload from the first snapshot to the last, one change at a time (USD, Tinker then self-hosted).

    steps: (label, tinker_usd, self_hosted_usd) in order:
      1. the first snapshot as listed (the takeaway);
      2. the same model repriced by the typical factors measured on the models that stayed (a counterfactual
         for retired models, which were never repriced: it separates the repricing from the model change);
      3. the model billed at the last snapshot (the successor where retired), list prices, no cache discount;
      4. cached prefill at the last snapshot's cached rate for the preset's hit share (when it has one).
    """
    workload: str
    first: str
    last: str
    preset_model: str
    model: str
    successor: bool
    cache_hit_rate: float
    prefill_share_first: float       # prefill / Tinker total at the first snapshot
    prefill_share_last: float        # prefill (before the cache discount) / Tinker total at the last snapshot
    rate_change: dict                # meter -> last rate / first rate (model change and repricing together)
    repricing: dict                  # meter -> typical factor
    model_change: dict               # meter -> rate_change / repricing
    steps: tuple

    @property
    def verdicts(self) -> list[str]:
        return ["tinker" if t <= s else "self_hosted" for _, t, s in self.steps]

    def factor(self, step: int) -> float:
        """How many times cheaper the cheaper side is at `step` (0-based index into `steps`)."""
        _, tinker, hosted = self.steps[step]
        return advantage(hosted / tinker)

    @property
    def cached_saving_usd(self) -> float:
        """What the cached-prefill discount takes off Tinker's bill at the last snapshot (step 3 − step 4)."""
        return self.steps[2][1] - self.steps[3][1]


def drivers(workload: str, first: str = "2026-01-05", last: str | None = None) -> Drivers:
    first, last = resolve_snapshot(first), resolve_snapshot(last)
    factors = typical_repricing(first, last)
    start = _row(workload, first)
    end_scenario, successor = scenario_at(workload, last, cached=False)
    end_plain = estimate(end_scenario)
    cached = has_cached_rate(end_scenario.model, last)
    end = estimate(end_scenario.replace(tinker_cached_prefill=True)) if cached else end_plain
    p0, p1 = get_price(start["model"], first), end_plain.price
    rate_change = {m: getattr(p1, m) / getattr(p0, m) for m in METERS}
    others = start["sandbox_usd"] + start["storage_usd"]
    repriced = sum(start[f"{m}_usd"] * factors[m] for m in METERS) + others
    t_end_plain = float(end_plain.tinker.total_usd)
    steps = (
        (f"{first} list prices", start["tinker_usd"], start["self_hosted_usd"]),
        ("same model, repriced ×" + "/×".join(f"{factors[m]:g}" for m in METERS), repriced,
         start["self_hosted_usd"]),
        (f"{last} list prices" + (f", on {end_plain.price.model}" if successor else ""), t_end_plain,
         float(end_plain.self_hosted.total_usd)),
        (f"{last} with cached prefill" if cached else f"{last} (no cached rate)", float(end.tinker.total_usd),
         float(end.self_hosted.total_usd)),
    )
    return Drivers(workload, first, last, start["preset_model"], end_plain.price.model, successor is not None,
                   float(end_scenario.resolved().cache_hit_rate), start["prefill_usd"] / start["tinker_usd"],
                   float(end_plain.tinker.prefill_usd) / t_end_plain, rate_change, factors,
                   {m: rate_change[m] / factors[m] for m in METERS}, steps)


def drivers_table(workloads=TAKEAWAY_WORKLOADS, first: str = "2026-01-05", last: str | None = None) -> pd.DataFrame:
    """`drivers` for every workload as one table (one row per workload and step)."""
    rows = []
    for name in workloads:
        d = drivers(name, first, last)
        for index, ((label, tinker, hosted), verdict) in enumerate(zip(d.steps, d.verdicts)):
            rows.append({"workload": name, "step": index + 1, "label": label, "tinker_usd": tinker,
                         "self_hosted_usd": hosted, "ratio": hosted / tinker, "factor": d.factor(index),
                         "cheaper": verdict})
    return pd.DataFrame(rows)
