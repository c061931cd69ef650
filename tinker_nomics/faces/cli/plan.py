"""`tinker-nomics plan`: every way to run one workload (Tinker, other managed services, every rented-GPU offer),
its cost and wall-clock with their spread, ranked; the cheapest option on time; the cost/wall-clock frontier."""
from __future__ import annotations

import math

from ... import fmt
from ...errors import TinkerNomicsError
from ...sources.workloads import get_workload
from .common import add_format, add_on_off, number, table, to_json
from .estimate import add_scenario_arguments, given_inputs, in_flags, scenario_from_args

DEFAULT_TOP = 15
# The planner's own defaults, repeated here so `tinker-nomics --help` and the other verbs need not import pandas
# (analysis.plan loads only when `plan` runs); tests/test_plan.py checks they are the planner's.
DEFAULT_CONFIDENCE, DEFAULT_MAX_GPUS, DEFAULT_DRAWS = 0.8, 64, 1000


def add_parser(sub) -> None:
    p = sub.add_parser(
        "plan", help="every way to run one workload, ranked: Tinker, other managed services, rented GPUs",
        description="Plan one RL run: Tinker at its price list, other managed RL services, and every rented-GPU "
                    "offer of the SkyPilot catalog (instance type × count, on demand or spot), each with its cost "
                    "and wall-clock (the model's answer, as `estimate` gives it, with P10–P90 over Monte-Carlo draws "
                    "of the model's error and the workload's unknowns) and the share of draws that meet the deadline. A --workload preset fills the "
                    "inputs; explicit flags override it (the flags of `estimate`, without --gpu and --num-gpus: "
                    "the plan tries every GPU and count). --gpu-hourly-usd prices the GPUs of --gpus at your rate.")
    add_scenario_arguments(p, hardware=False)
    p.add_argument("--deadline", help="wall-clock limit: hours or days, such as 36h, 3d or 48 (hours)")
    p.add_argument("--budget", type=number("--budget"), help="dollars; an option fits the budget when its cost at "
                                                             "the confidence quantile is at most this")
    p.add_argument("--confidence", type=number("--confidence"), default=DEFAULT_CONFIDENCE,
                   help=f"share of draws that must meet the deadline and the budget (default "
                        f"{DEFAULT_CONFIDENCE:g})")
    p.add_argument("--max-gpus", type=number("--max-gpus"), default=DEFAULT_MAX_GPUS,
                   help=f"most GPUs to rent (default {DEFAULT_MAX_GPUS})")
    p.add_argument("--gpus", help="only these GPUs, comma-separated (H100 = every H100 part; see `tinker-nomics gpus`)")
    p.add_argument("--providers", help="only these providers, comma-separated (tinker, fireworks, runpod, vast, ...)")
    add_on_off(p, "--spot", "--spot: rented GPUs on spot only; --no-spot: on demand only (default: both)")
    p.add_argument("--gpu-offers", metavar="PATH",
                   help="a newer copy of the SkyPilot catalog (a folder laid out like its catalogs/, or one "
                        "vms.csv) instead of data/hardware/gpu_offers.csv")
    p.add_argument("--tinker-lists", help="also price Tinker at these dated lists, comma-separated, or all")
    p.add_argument("--spot-interruptions-per-month", type=number("--spot-interruptions-per-month"),
                   help="interruptions per spot instance per month (default: the sourced range in "
                        "data/assumptions/spot_interruptions.csv)")
    p.add_argument("--restart-minutes", type=number("--restart-minutes"),
                   help="minutes to restart after an interruption (default: the stated range)")
    p.add_argument("--checkpoint-every-steps", type=number("--checkpoint-every-steps"),
                   help="steps between checkpoints (default: tinker-cookbook's save_every)")
    p.add_argument("--draws", type=number("--draws"), default=DEFAULT_DRAWS,
                   help=f"Monte-Carlo draws (default {DEFAULT_DRAWS:,})")
    p.add_argument("--top", type=number("--top"), default=DEFAULT_TOP,
                   help=f"options to list (default {DEFAULT_TOP}; table: the best count of each offer; json: the "
                        f"first ranked options); 0 lists every option")
    add_format(p)


def _names(text: str | None) -> list[str] | None:
    return None if text is None else [t.strip() for t in text.split(",") if t.strip()] or [""]


def _whole(value: float, flag: str, low: int) -> int:
    if value != int(value) or value < low:
        raise TinkerNomicsError(f"{flag} must be a whole number >= {low}, got {value:g}")
    return int(value)


def run(args) -> str:
    from ...analysis import plan as planner        # pandas and the planner load only for this verb
    from ...sources.offers import load_offers

    scenario, calibration_note, from_file = scenario_from_args(args)
    deadline = None if args.deadline is None else planner.parse_deadline(args.deadline)
    top = _whole(args.top, "--top", 0)
    try:
        spot_model = planner.spot_model(args.spot_interruptions_per_month, args.restart_minutes,
                                        args.checkpoint_every_steps)
        result = planner.plan(
            scenario, workload=get_workload(args.workload).name if args.workload else None, deadline_hours=deadline,
            budget_usd=args.budget, confidence=args.confidence, max_gpus=_whole(args.max_gpus, "--max-gpus", 1),
            gpus=_names(args.gpus), providers=_names(args.providers), spot=args.spot,
            offers=None if args.gpu_offers is None else load_offers(args.gpu_offers),
            tinker_lists=_names(args.tinker_lists) or (), given_rate=args.gpu_hourly_usd,
            draws=_whole(args.draws, "--draws", 10), spot_model_=spot_model,
            fixed=tuple(sorted(given_inputs(args, from_file))))
    except TinkerNomicsError as exc:
        raise in_flags(exc, from_file) from None
    data = result.to_dict(limit=top or None)
    if calibration_note:
        data["notes"].append(calibration_note)
    if args.format == "json":
        return to_json(data)
    return render(result, data, top or None)


# ----------------------------------------------------------------------------------------------- text

NOTE_WIDTH = 48   # a row's note in the table, cut at a word (the whole caveat is in --format json)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _span(point, p10, p90, money: bool) -> str:
    """The model's answer (estimate's), then the draws' P10–P90."""
    if _missing(point):
        return "—"
    f = (lambda x: fmt.usd(x)) if money else fmt.duration
    return f"{f(point)} ({f(p10)}–{f(p90)})"


def _gpus(row: dict) -> str:
    if not row.get("gpu"):
        return "—"
    return f"{fmt.number(row['num_gpus'])} × {row['gpu']}" if row.get("num_gpus") else row["gpu"]


def render(result, data: dict, top: int | None) -> str:
    from ...analysis import plan as planner
    s = result.scenario
    frame = result.options
    head = " · ".join(x for x in (result.workload, s.model, f"method {s.method}", f"Tinker prices {s.prices}") if x)
    deadline = "no deadline" if result.deadline_hours is None else f"deadline {fmt.duration(result.deadline_hours)}"
    budget = "no budget" if result.budget_usd is None else f"budget {fmt.usd(result.budget_usd)}"
    meets = int(frame["dropped_because"].isna().sum())
    lines = [head,
             f"Plan: {deadline} at {fmt.pct_exact(result.confidence)} confidence, {budget}; {fmt.count(len(frame), 'option')} "
             f"over {fmt.count(result.draws, 'draw')}, {meets:,} on time and within budget",
             ""]
    if result.best is not None:
        b = result.best
        on = f" ({_gpus(b)})" if b.get("gpu") else ""   # a managed service names no GPUs
        lines.append(f"Best          {planner.option_name(b)}{on}: {_span(b['cost_usd'], b['cost_usd_p10'], b['cost_usd_p90'], True)}"
                     f", wall-clock {_span(b['wall_hours'], b['wall_hours_p10'], b['wall_hours_p90'], False)}")
    else:
        lines.append("Best          none: no option fits, is on time at the confidence and within the budget")
    if result.cheapest_over_budget is not None:
        o = result.cheapest_over_budget
        lines.append(f"Over budget   cheapest on time: {planner.option_name(o)}, {fmt.usd(o['cost_usd'])} ("
                     f"{fmt.usd(o['cost_usd_at_confidence'])} at the confidence) > budget {fmt.usd(result.budget_usd)}")
    lines.append("")
    shown = planner.listed(frame, top)
    rows = []
    for rank, row in zip(shown.index + 1, shown.to_dict("records")):   # the best is the ranking's first row
        note = row["dropped_because"] if isinstance(row["dropped_because"], str) else \
            ("best" if result.best is not None and rank == 1 else "")
        if row.get("frontier"):
            note = (note + ", " if note else "") + "frontier"
        if isinstance(row.get("caveat"), str):
            note = (note + "; " if note else "") + row["caveat"]
        p = row["p_meets_deadline"]
        rows.append([f"{rank:,}", planner.option_name(row), _gpus(row), _span(row["cost_usd"], row["cost_usd_p10"],
                                                           row["cost_usd_p90"], True),
                     _span(row["wall_hours"], row["wall_hours_p10"], row["wall_hours_p90"], False),
                     "—" if _missing(p) else fmt.pct(p, 0), fmt.cut(note, NOTE_WIDTH)])
    lines.append(table(rows, ["rank", "where", "GPUs", "cost (P10–P90)", "wall-clock (P10–P90)", "on time",
                              "note"], cuttable=("note",)))
    tail = []
    dropped = frame["dropped_because"].dropna().str.replace(r":.*", "", regex=True).value_counts()
    if len(dropped):
        tail.append("")
        tail.append("Dropped       " + "; ".join(f"{count:,} {reason}" for reason, count in dropped.items()))
    if len(result.pareto):
        cheap, fast = result.pareto.iloc[0], result.pareto.iloc[-1]
        tail.append(f"Frontier      {len(result.pareto):,} option{'s' * (len(result.pareto) != 1)} no other beats on both cost and wall-clock: from "
                     f"{fmt.usd(cheap['cost_usd'])} in {fmt.duration(cheap['wall_hours'])} to "
                     f"{fmt.usd(fast['cost_usd'])} in {fmt.duration(fast['wall_hours'])}")
    tail.append(f"Spot          {result.spot.describe()}")
    tail.append(f"Listed        the best count of each offer{'' if top is None else f', first {top}'}, then Tinker "
                 f"and the services; --format json --top 0 gives every option")
    for note in data["notes"]:
        tail.append(f"Note: {note}")
    return "\n".join(lines + tail)
