"""The "Where to run it" chapter's arithmetic: the planner (analysis/plan.py) on the five presets, and the tables
and sweeps the chapter, its kernel-free explorer and its panel show. Each function returns a DataFrame of the
values (and, for the tables a reader sees, their formatted text), so the notebook holds no formula and the
explorer shows exactly what the chapter's table shows.

    evals = where_to_run.evaluations(("math_rl", "swe_rl"), deadlines=(24, 168))
    where_to_run.best_table(evals, (24, 168))          # the best option per preset and deadline, and Tinker's
    where_to_run.listed_table(evals["math_rl"].plan(168))   # the ranked options as the chapter lists them
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from .. import fmt
from ..model.scenario import Scenario
from ..sources import get_gpu
from ..sources.offers import offers
from ..sources.services import managed_services
from . import plan as planner
from .timeline import TAKEAWAY_WORKLOADS

PRESETS = TAKEAWAY_WORKLOADS
KIND_LABELS = {"tinker": "Tinker", "service": "managed service", "managed": "managed GPUs", "rented": "rented GPUs",
               "given": "your rate"}


def deadline_label(hours) -> str:
    """'no deadline', '12 hours', '1 day', '7 days' (whole days from 24 hours up)."""
    if hours is None:
        return "no deadline"
    if hours >= 24 and float(hours / 24).is_integer():
        days = int(hours // 24)
        return f"{days} day{'s' * (days != 1)}"
    return f"{hours:g} hour{'s' * (hours != 1)}"


@functools.lru_cache(maxsize=None)
def evaluation(workload: str, model: str | None = None, deadlines=(None,), prices: str | None = None,
               draws: int = planner.DEFAULT_DRAWS, seed: int = 0, max_gpus: int = planner.DEFAULT_MAX_GPUS
               ) -> planner.Evaluation:
    """One preset (optionally with another model) planned for several deadlines; cached, so the chapter's
    tables, its figure and its explorer share one evaluation."""
    overrides = {"model": model} if model else {}
    if prices and prices != "latest":
        overrides["prices"] = prices
    scenario = Scenario.from_workload(workload, **overrides)
    return planner.evaluate(scenario, workload=workload, deadlines=tuple(deadlines), draws=draws, seed=seed,
                            max_gpus=max_gpus)


def evaluations(workloads=PRESETS, deadlines=(24, 168), **kwargs) -> dict[str, planner.Evaluation]:
    return {w: evaluation(w, deadlines=tuple(deadlines), **kwargs) for w in workloads}


# ----------------------------------------------------------------------------------------------- text for tables


def money_span(row) -> str:
    """'$14.20 (8.24–23.17)': the model's answer (estimate's), then the draws' P10–P90 in the same unit."""
    if row is None or pd.isna(row.get("cost_usd")):
        return "—"
    def bare(x):
        return fmt.usd(x).lstrip("$")
    return f"{fmt.usd(row['cost_usd'])} ({bare(row['cost_usd_p10'])}–{bare(row['cost_usd_p90'])})"


def hours_span(row) -> str:
    """'36 min (21–58)': the model's answer, then the draws' P10–P90, the unit said once when all three share it."""
    if row is None or pd.isna(row.get("wall_hours")):
        return "—"
    texts = [fmt.duration(row[k]) for k in ("wall_hours", "wall_hours_p10", "wall_hours_p90")]
    units = {t.split(" ", 1)[-1] for t in texts}
    if len(units) == 1 and all(" " in t for t in texts):
        return f"{texts[0]} ({texts[1].split(' ')[0]}–{texts[2].split(' ')[0]})"
    return f"{texts[0]} ({texts[1]}–{texts[2]})"


def cost_text(row, beside=None) -> str:
    """The cost in dollars; with cents when `beside` (another row) would print the same whole dollars for a
    different cost, so two options the text compares never read as one figure."""
    if row is None or pd.isna(row.get("cost_usd")):
        return "—"
    x = float(row["cost_usd"])
    other = None if beside is None or pd.isna(beside.get("cost_usd")) else float(beside["cost_usd"])
    same_text = other is not None and other != x and fmt.usd(other) == fmt.usd(x)
    return fmt.usd(x, cents=True if same_text else None)


def wall_text(row) -> str:
    return "—" if row is None or pd.isna(row.get("wall_hours")) else fmt.duration(row["wall_hours"])


def gpus_text(row) -> str:
    if row is None or not isinstance(row.get("gpu"), str):
        return "—"
    return f"{row['num_gpus']:g} × {row['gpu']}"


def on_time_text(row) -> str:
    p = None if row is None else row.get("p_meets_deadline")
    return "—" if p is None or pd.isna(p) else uncertainty_text(p)


def uncertainty_text(p: float) -> str:
    from .uncertainty import probability_text
    return probability_text(p)


def where_text(row) -> str:
    return planner.option_name(row)


def listed_table(p: planner.Plan, top: int = 8) -> pd.DataFrame:
    """The ranked options a reader scans (each offer at its best count, then Tinker and the services), as text:
    the table the chapter shows and the explorer's rows."""
    rows = []
    for rank, row in planner.listed(p.options, top).iterrows():   # the best is the ranking's first row
        row = row.to_dict()
        caveat = row.get("caveat") if isinstance(row.get("caveat"), str) else ""
        listed = row.get("listed_prices")
        # (several instances show in `where` as "× N"; the chapter says their network is not modelled)
        flags = [x for x in ("best" if p.best is not None and rank == 0 else "",
                             "frontier" if row.get("frontier") else "",
                             "auction-style price" if planner.AUCTION in caveat else "",
                             f"cheapest of {listed:,.0f} listed prices" if listed == listed and listed > 1 else "",
                             row["dropped_because"] if isinstance(row["dropped_because"], str) else "") if x]
        rows.append({"rank": f"{int(rank) + 1:,}", "where": where_text(row), "GPUs": gpus_text(row),
                     "cost (P10–P90)": money_span(row), "wall-clock (P10–P90)": hours_span(row),
                     "on time": on_time_text(row), "note": "; ".join(flags)})
    return pd.DataFrame(rows)


def tinker_row(p: planner.Plan) -> dict:
    return p.options[p.options["kind"] == "tinker"].iloc[0].to_dict()


def tinker_status(p: planner.Plan) -> str:
    """What Tinker offers for the plan's run: its cost and wall-clock, or why it cannot take it."""
    t = tinker_row(p)
    if isinstance(t["dropped_because"], str) and pd.isna(t["cost_usd"]):
        return t["dropped_because"].split(": ", 1)[-1]
    return f"{cost_text(t)}, done in {wall_text(t)}"


def fewest_gpus(p: planner.Plan, gpu: str) -> int | None:
    """The fewest GPUs of one type among the plan's options that hold the model."""
    fits = p.options[(p.options["gpu"] == gpu) & p.options["feasible"].astype(bool)]
    return None if fits.empty else int(fits["num_gpus"].min())


# ----------------------------------------------------------------------------------------------- the presets


def best_table(evals: dict, deadlines) -> pd.DataFrame:
    """Per preset and deadline: the best option (cheapest on time at the confidence), its cost and wall-clock,
    and Tinker's at its list, as values and as text."""
    rows = []
    for workload, ev in evals.items():
        for hours in deadlines:
            p = ev.plan(hours)
            tinker = p.options[p.options["kind"] == "tinker"].iloc[0].to_dict()
            best = p.best
            rows.append({
                "workload": workload, "deadline_hours": hours, "deadline": deadline_label(hours),
                "best_where": None if best is None else where_text(best),
                "best_kind": None if best is None else KIND_LABELS[best["kind"]],
                "best_gpus": gpus_text(best), "best_cost_usd": None if best is None else best["cost_usd"],
                "best_wall_hours": None if best is None else best["wall_hours"],
                "best_cost": money_span(best), "best_wall": hours_span(best),
                "best_cost_text": cost_text(best, beside=tinker), "best_wall_text": wall_text(best),
                "tinker_cost_usd": tinker["cost_usd"], "tinker_wall_hours": tinker["wall_hours"],
                "tinker_on_time": tinker["p_meets_deadline"], "tinker_cost": money_span(tinker),
                "tinker_wall": hours_span(tinker), "tinker_on_time_text": on_time_text(tinker),
                "tinker_cost_text": cost_text(tinker, beside=best), "tinker_wall_text": wall_text(tinker),
                "tinker_dropped": tinker["dropped_because"] if isinstance(tinker["dropped_because"], str) else None,
                "model": p.scenario.model, "prices": p.scenario.prices})
    return pd.DataFrame(rows)


def deadline_sweep(evals: dict, deadlines) -> pd.DataFrame:
    """The best option's cost and kind per preset as the deadline moves (NaN: nothing is on time)."""
    rows = []
    for workload, ev in evals.items():
        for hours in deadlines:
            best = ev.plan(hours).best
            rows.append({"workload": workload, "deadline_hours": hours, "deadline": deadline_label(hours),
                         "best_cost_usd": np.nan if best is None else best["cost_usd"],
                         "best_wall_hours": np.nan if best is None else best["wall_hours"],
                         "best_kind": None if best is None else KIND_LABELS[best["kind"]],
                         "best_where": None if best is None else where_text(best),
                         "best_gpus": gpus_text(best), "spot": None if best is None else bool(best["spot"])})
    return pd.DataFrame(rows)


def sweep_table(sweep: pd.DataFrame, workloads, deadlines) -> pd.DataFrame:
    """The best option per preset (rows) and deadline (columns), short: what it runs on and its cost."""
    def cell(r) -> str:
        if r["best_kind"] is None:
            return "nothing on time"
        what = "Tinker" if r["best_kind"] == "Tinker" else r["best_gpus"] + (" spot" if r["spot"] else "")
        return f"{what}, {fmt.usd(r['best_cost_usd'])}"
    texts = sweep.assign(cell=[cell(r) for r in sweep.to_dict("records")])
    return texts.pivot(index="workload", columns="deadline", values="cell").reindex(
        index=list(workloads), columns=[deadline_label(h) for h in deadlines])


def at_count(p: planner.Plan, num_gpus: int) -> pd.DataFrame:
    """For each GPU type, the cheapest option of exactly `num_gpus` GPUs that fits: its wall-clock and cost."""
    frame = p.options
    pick = frame[(frame["num_gpus"] == num_gpus) & frame["feasible"] & frame["cost_usd"].notna()
                 & ~frame["spot"].astype(bool)]
    pick = pick.sort_values("cost_usd").drop_duplicates("gpu")
    pick = pick.sort_values("wall_hours")
    return pd.DataFrame({"gpu": pick["gpu"].to_numpy(), "where": [where_text(r) for r in pick.to_dict("records")],
                         "wall_hours": pick["wall_hours"].to_numpy(),
                         "wall_hours_p10": pick["wall_hours_p10"].to_numpy(),
                         "wall_hours_p90": pick["wall_hours_p90"].to_numpy(),
                         "cost_usd": pick["cost_usd"].to_numpy(),
                         "wall-clock (P10–P90)": [hours_span(r) for r in pick.to_dict("records")],
                         "cost (P10–P90)": [money_span(r) for r in pick.to_dict("records")]})


# ----------------------------------------------------------------------------------------------- the sources


def offer_summary() -> pd.DataFrame:
    """Per registry GPU in the committed offers: providers, offers, the cheapest and median on-demand $/GPU-hour
    and the cheapest spot one (the suspect rows left out), and whether the planner can time the GPU at all."""
    rows = [o for o in offers() if o.gpu and "on_demand_below_spot" not in o.flags]
    frame = pd.DataFrame({"gpu": [o.gpu for o in rows], "provider": [o.provider for o in rows],
                          "rate": [o.usd_per_gpu_hour for o in rows],
                          "spot": [np.nan if o.spot_usd_per_gpu_hour is None else o.spot_usd_per_gpu_hour
                                   for o in rows]})
    grouped = frame.groupby("gpu")
    out = pd.DataFrame({"providers": grouped["provider"].nunique(), "offers": grouped.size(),
                        "cheapest": grouped["rate"].min(), "median": grouped["rate"].median(),
                        "cheapest spot": grouped["spot"].min()})
    out["planned"] = ["yes" if get_gpu(n).bf16_dense_tflops else "no: no BF16 peak"
                      for n in out.index]
    order = [g for g in (get_gpu(n).gpu for n in out.index)]
    return out.loc[order].sort_values("offers", ascending=False)


def catalog_counts() -> dict:
    """How many offers, providers, mapped and unmapped offers, suspect rows the committed table holds."""
    rows = offers()
    return {"offers": len(rows), "providers": len({o.provider for o in rows}),
            "mapped": sum(1 for o in rows if o.gpu), "unmapped": sum(1 for o in rows if not o.gpu),
            "unmapped_names": sorted({o.accelerator for o in rows if not o.gpu}),
            "suspect": sum(1 for o in rows if "on_demand_below_spot" in o.flags),
            "auction": sum(1 for o in rows if "spot_equals_on_demand" in o.flags),
            "with_spot": sum(1 for o in rows if o.spot_usd_per_hour is not None),
            "gpus_per_instance": (min(o.accelerator_count for o in rows if o.gpu),
                                  max(o.accelerator_count for o in rows if o.gpu)),
            "recorded": sorted({o.recorded for o in rows})}


def services_table() -> pd.DataFrame:
    """The managed services registry as the chapter lists it: one row per service (its models or GPUs joined)."""
    groups: dict = {}
    services = managed_services()
    shorts: dict = {}
    for s in services:
        if s.model:
            shorts.setdefault((s.service, s.model.split("/")[-1]), set()).add(s.model)

    def name(s) -> str:   # the short name, or the whole id where two of a service's models share it
        short = s.model.split("/")[-1]
        return short if len(shorts[(s.service, short)]) == 1 else s.model

    for s in services:
        g = groups.setdefault(s.service, {"service": s.service, "billing": s.billing.replace("_", " ") or "—",
                                          "status": s.status.replace("_", " "), "what": [], "read": s.recorded})
        if s.billing == "gpu_hour" and s.usd_per_gpu_hour is not None:
            g["what"].append(f"{s.gpu} {fmt.usd(s.usd_per_gpu_hour)}/GPU-h")
        elif s.billing == "training_hour" and s.usd_per_training_hour is not None:
            g["what"].append(f"{s.model}: {fmt.usd(s.usd_per_training_hour)}/training hour")
        elif s.complete and s.prefill_usd_per_m == s.sample_usd_per_m == s.train_usd_per_m == 0:
            g["what"].append(f"{name(s)} listed at 0 (free)")
        elif s.complete:
            g["what"].append(f"{name(s)} {s.prefill_usd_per_m:g}/{s.sample_usd_per_m:g}/{s.train_usd_per_m:g}")
        elif s.model:
            meter = next(m for m in ("prefill", "sample", "train") if getattr(s, f"{m}_usd_per_m") is not None)
            g["what"].append(f"{s.model} {meter} {getattr(s, f'{meter}_usd_per_m'):g}")
    rows = []
    for g in groups.values():
        rows.append({"service": g["service"], "billing": g["billing"], "status": g["status"],
                     "rates": "; ".join(g["what"]) or "none published"})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------- for the prose


def versus_tinker(table: pd.DataFrame) -> pd.Series:
    """Tinker's cost over the best option's, per row of `best_table` (NaN where either is missing)."""
    best = pd.to_numeric(table["best_cost_usd"], errors="coerce")
    tinker = pd.to_numeric(table["tinker_cost_usd"], errors="coerce")
    return tinker / best


def without_option(table: pd.DataFrame, hours) -> list[str]:
    """The presets no option finishes by the deadline (at the confidence)."""
    rows = table[(table["deadline_hours"] == hours) & table["best_where"].isna()]
    return list(rows["workload"])


def sizing_table(frame: pd.DataFrame, deadline_index: int = 0) -> pd.DataFrame:
    """`plan.sizing` as text: GPUs, whether they hold the model, wall-clock (P10–P90), GPU-hours, on time."""
    rows = []
    for r in frame.to_dict("records"):
        rows.append({"GPUs": f"{r['num_gpus']}", "holds the model": "yes" if r["feasible"] else "no",
                     "wall-clock (P10–P90)": hours_span(r) if r["feasible"] else "—",
                     "GPU-hours": "—" if pd.isna(r["gpu_hours"]) else f"{r['gpu_hours']:,.0f}",
                     "on time": "—" if pd.isna(r[f"p_meets@{deadline_index}"]) else
                     uncertainty_text(r[f"p_meets@{deadline_index}"])})
    return pd.DataFrame(rows)


def fewest_on_time(frame: pd.DataFrame, confidence: float = planner.DEFAULT_CONFIDENCE,
                   deadline_index: int = 0) -> int | None:
    """The fewest GPUs of a `plan.sizing` table that finish on time in at least `confidence` of the draws."""
    ok = frame[frame["feasible"] & (frame[f"p_meets@{deadline_index}"] >= confidence)]
    return None if ok.empty else int(ok["num_gpus"].min())


def on_time_share(frame: pd.DataFrame, num_gpus: int, deadline_index: int = 0) -> str:
    """The share of draws in which `num_gpus` GPUs of a `plan.sizing` table finish on time, as its table prints it."""
    row = frame[frame["num_gpus"] == num_gpus].iloc[0]
    return uncertainty_text(row[f"p_meets@{deadline_index}"])


def fewest_that_fit(frame: pd.DataFrame) -> int | None:
    ok = frame[frame["feasible"]]
    return None if ok.empty else int(ok["num_gpus"].min())
