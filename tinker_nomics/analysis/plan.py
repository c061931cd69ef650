"""Where to run it: every way to run one RL workload, its cost and wall-clock with their spread, ranked.

    from tinker_nomics.analysis import plan
    p = plan.plan(Scenario.from_workload("math_rl"), workload="math_rl", deadline_hours=24)
    p.best, p.pareto, p.options        # the cheapest option on time at the confidence; the frontier; all of them

The options:
  Tinker          at the scenario's price list (and at other dated lists when asked): the bill and the wall-clock
                  `estimate` computes (the wall-clock from Tinker's logged step times, model/tinker_wallclock.py); a
                  list that bills neither the model nor a successor lists Tinker as not offered, with `estimate`'s
                  reason;
  per-token       other services that meter prefill / sample / train, for the model when they price it
                  (data/services/managed_services.csv; the bill by the same billing code as Tinker's);
  managed GPUs    dedicated GPUs a service bills per GPU-hour (Fireworks), any count up to --max-gpus;
  rented          every offer of data/hardware/gpu_offers.csv (or a newer catalog copy) whose GPU the registry
                  knows: an instance type of k GPUs rented 1..m times (m·k <= --max-gpus), on demand and, where the
                  offer has a spot price, on spot;
  your rate       with `given_rate`: each GPU of `gpus` at that $/GPU-hour, any count.
Services that cannot take the run today (closed, in preview, for another model) are listed, dropped, with why.

Nothing here computes a throughput or a bill of its own: self-hosted hours, GPU-hours, feasibility and sandbox
dollars come from `estimate` (the same call `tinker-nomics estimate` makes), evaluated over every (GPU type,
GPU count) pair and every Monte-Carlo draw at once (`_self_hosted`); an option's cost is those GPU-hours at the
option's $/GPU-hour plus the sandbox bill, the product `estimate` forms for its own rate. The Monte-Carlo draws
are analysis/uncertainty.py's (model error and the workload's uncertain inputs, one sampler), with the
off-policy bound kept at the scenario's value (a choice, not an unknown).

Spot: an instance can be interrupted. Per draw, the interruption rate (per instance-month, data/assumptions/
spot_interruptions.csv or a given rate) times the instances rented gives interruptions per hour; each costs half a
checkpoint interval of lost work (checkpoints every `checkpoint_every_steps` steps, the cookbook's default) plus a
restart. The run then takes wall / (1 − rate × loss) hours (the expected time of a run restarted from checkpoints,
to first order), billed for all of it; when rate × loss reaches 1 the run never finishes and the option is dropped.

Ranking: options that fit, are available, finish by the deadline in at least `confidence` of the draws and cost at
most the budget in at least that share of them, by cost; then the rest, by why they were dropped. Cost and
wall-clock are the model's answer (`estimate`'s, at the point: cost_usd, wall_hours), with the draws' P10/P50/P90
beside them. `best` is the first; `pareto` the options no other beats on both cost and wall-clock (one at least
as cheap and as fast, and better in one).
"""
from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import sources
from ..errors import TinkerNomicsError, UnknownNameError, _squash, closest
from ..model import billing
from ..model.estimate import estimate, sandbox_bill
from ..model.pages import ordinary_pages
from ..model.scenario import Scenario
from ..sources.defaults import number
from ..sources.hf_config import load_config, stored_dtype_note
from ..sources.lora_serving import rollout_note as lora_rollout_note
from ..sources.offers import Offer, load_offers
from ..sources.price_list import snapshots
from ..sources.services import gpu_hour_services, managed_services, per_token_services
from ..sources.tables import Column, load_table
from ..sources import tinker_wallclock
from . import uncertainty

DEFAULT_MAX_GPUS = 64
DEFAULT_CONFIDENCE = 0.8
DEFAULT_DRAWS = 1000
QUANTILES = (0.1, 0.5, 0.9)
FIXED_INPUTS = ("off_policy",)        # chosen by the user, not drawn
SPOT_TABLE = "assumptions/spot_interruptions.csv"
COLUMNS = ["where", "billing", "gpu", "num_gpus", "provider", "spot", "cost_usd", "cost_usd_p50", "cost_usd_p10",
           "cost_usd_p90", "wall_hours", "wall_hours_p50", "wall_hours_p10", "wall_hours_p90", "p_meets_deadline",
           "feasible", "dropped_because", "instance_type", "instances", "gpus_per_instance", "usd_per_gpu_hour", "cost_usd_at_confidence",
           "within_budget", "kind", "caveat", "source", "listed_prices"]


# ----------------------------------------------------------------------------------------------- spot


@dataclass(frozen=True)
class SpotModel:
    """What an interruption costs: its rate per instance-month and the restart time (drawn), the checkpoint
    interval in steps."""
    interruptions_per_month: uncertainty.Distribution
    restart_minutes: uncertainty.Distribution
    checkpoint_every_steps: float

    def describe(self) -> str:
        return (f"interruptions per instance-month {self.interruptions_per_month.describe()}, restart "
                f"{self.restart_minutes.describe()} minutes, checkpoints every {self.checkpoint_every_steps:g} steps")


@functools.lru_cache(maxsize=None)
def _spot_rows() -> dict[str, uncertainty.Distribution]:
    rows = load_table(SPOT_TABLE, [Column("parameter"), Column("distribution"), Column("parameters"), Column("unit"),
                                   Column("source"), Column("reason")])
    out = {}
    for r in rows:
        kind, params = uncertainty.parse_distribution(r["distribution"], r["parameters"], f"{SPOT_TABLE} row {r['_row']}")
        out[r["parameter"]] = uncertainty.Distribution(r["parameter"], ("all",), kind, params, False, r["source"],
                                                       r["reason"])
    for name in ("interruptions_per_instance_month", "restart_minutes"):
        if name not in out:
            raise TinkerNomicsError(f"{SPOT_TABLE}: no row for {name}")
    return out


def _fixed(name: str, value: float, flag: str) -> uncertainty.Distribution:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
        raise TinkerNomicsError(f"{flag} must be a finite number >= 0, got {value!r}")
    return uncertainty.Distribution(name, ("all",), "uniform", {"low": float(value), "high": float(value)}, False,
                                    "given", "given")


def spot_model(interruptions_per_month: float | None = None, restart_minutes: float | None = None,
               checkpoint_every_steps: float | None = None) -> SpotModel:
    """The sourced spot model, with any part replaced by a given value."""
    rows = _spot_rows()
    interruptions = rows["interruptions_per_instance_month"] if interruptions_per_month is None else \
        _fixed("interruptions_per_instance_month", interruptions_per_month, "--spot-interruptions-per-month")
    restart = rows["restart_minutes"] if restart_minutes is None else \
        _fixed("restart_minutes", restart_minutes, "--restart-minutes")
    every = number("checkpoint_every_steps") if checkpoint_every_steps is None else checkpoint_every_steps
    if not (isinstance(every, (int, float)) and math.isfinite(every) and every >= 1):
        raise TinkerNomicsError(f"--checkpoint-every-steps must be a number >= 1, got {every!r}")
    return SpotModel(interruptions, restart, float(every))


def spot_hours(wall, instances, steps, interruptions_per_hour, restart_hours, checkpoint_every_steps):
    """(wall-clock on spot, whether the run can finish) per draw: each interruption loses half a checkpoint
    interval (checkpoint_every_steps of the run's steps, at most the whole run) and a restart; at
    `instances` × `interruptions_per_hour` interruptions an hour the run takes wall / (1 − rate × loss)."""
    wall = np.asarray(wall, dtype=float)
    interval = np.minimum(wall * checkpoint_every_steps / np.asarray(steps, dtype=float), wall)
    loss = interval / 2.0 + np.asarray(restart_hours, dtype=float)
    load = np.asarray(instances, dtype=float) * np.asarray(interruptions_per_hour, dtype=float) * loss
    finishes = load < 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        hours = np.where(finishes, wall / np.where(finishes, 1.0 - load, 1.0), np.inf)
    return hours, finishes


# ----------------------------------------------------------------------------------------------- the self-hosted side


@dataclass(frozen=True)
class Hosted:
    """estimate()'s self-hosted side for (GPU, count) pairs × draws."""
    wall_hours: np.ndarray     # (pairs, draws)
    gpu_hours: np.ndarray      # (pairs, draws)
    sandbox_usd: np.ndarray    # (pairs, draws)
    feasible: np.ndarray       # (pairs,) the count holds the model in every draw
    fitting_gpus: np.ndarray   # (pairs,) the smallest count that does


# Pairs per block of the self-hosted evaluation: the blocks run on the machine's cores at once (NumPy's array
# arithmetic releases the interpreter lock), the pairs being independent of one another.
PAIRS_PER_BLOCK = 512
MAX_THREADS = 4


def _caveats(part: pd.DataFrame) -> np.ndarray:
    """Each rented option's caveat: an auction-style price, a GPU count made of several instances, and the other
    prices the catalog lists for the same offer."""
    out = []
    for auction, instances, listed_prices, dearest in zip(part["auction"].to_numpy(), part["instances"].to_numpy(),
                                                         part["listings"].to_numpy(), part["dearest"].to_numpy()):
        notes = ([AUCTION] if auction else []) + \
            ([SEPARATE_INSTANCES.format(n=int(instances))] if instances > 1 else []) + \
            ([OTHER_LISTINGS.format(n=int(listed_prices), dearest=dearest)] if listed_prices > 1 else [])
        out.append("; ".join(notes) if notes else None)
    return np.array(out, dtype=object)


def _cheapest_listing(part: pd.DataFrame, rate: str) -> pd.DataFrame:
    """One row per offer a reader can tell apart (provider, instance type): a catalog lists some at several
    prices (one row per region; the bundled import keeps each distinct price), and renting it means taking the
    cheapest, so that is the one planned; `listings` and `dearest` say how many prices there were and the top one.
    A row whose prices look swapped goes last, so a sound listing is planned where there is one."""
    key = ["provider", "instance_type", "gpu", "k"]
    ordered = part.sort_values(["suspect", rate], kind="stable")
    grouped = ordered.groupby(key, sort=False)[rate]
    ordered = ordered.assign(listings=grouped.transform("size").to_numpy(), dearest=grouped.transform("max").to_numpy())
    return ordered[~ordered.duplicated(key)].sort_index()


def _self_hosted(base: Scenario, gpus: np.ndarray, counts: np.ndarray, draws: dict) -> Hosted:
    """`_self_hosted_block` over blocks of pairs, on up to as many threads as the machine has cores; the same
    numbers as one call over every pair."""
    blocks = min(os.cpu_count() or 1, MAX_THREADS, max(len(gpus) // PAIRS_PER_BLOCK, 1))
    if blocks <= 1:
        return _self_hosted_block(base, gpus, counts, draws)
    parts = np.array_split(np.arange(len(gpus)), blocks)
    with ThreadPoolExecutor(max_workers=blocks) as pool:
        done = list(pool.map(lambda idx: _self_hosted_block(base, np.asarray(gpus)[idx], np.asarray(counts)[idx],
                                                            draws), parts))
    return Hosted(*(np.concatenate([getattr(h, f.name) for h in done]) for f in dataclasses.fields(Hosted)))


def _self_hosted_block(base: Scenario, gpus: np.ndarray, counts: np.ndarray, draws: dict) -> Hosted:
    """Self-hosted wall-clock hours, GPU-hours, sandbox dollars and feasibility of every (GPU name, GPU count)
    pair in every draw: one vectorized `estimate` over pairs × draws (the rate is set to $1/GPU-hour; options price
    the GPU-hours)."""
    n_draws = len(next(iter(draws.values()))) if draws else 1
    shape = (len(gpus), n_draws)
    drawn = {k: np.asarray(v)[None, :] for k, v in draws.items()}
    est = estimate(base.replace(gpu=np.asarray(gpus, dtype=object)[:, None],
                                num_gpus=np.asarray(counts, dtype=float)[:, None], gpu_hourly_usd=1.0, **drawn))
    s = est.self_hosted
    if s is None:
        raise TinkerNomicsError(f"the self-hosted side cannot be evaluated: {_no_architecture(est)}")
    wall = np.array(np.broadcast_to(s.wallclock_hours, shape), dtype=float)
    gpu_hours = np.array(np.broadcast_to(s.gpu_hours, shape), dtype=float)
    sandbox = np.array(np.broadcast_to(s.sandbox_usd, shape), dtype=float)
    feasible = np.all(np.broadcast_to(s.feasible, shape), axis=1)
    fitting = np.max(np.broadcast_to(s.fitting_gpus, shape), axis=1).astype(float)
    return Hosted(wall, gpu_hours, sandbox, feasible, fitting)


def _no_architecture(est) -> str:
    """Why an estimate has no self-hosted side (a model priced by Tinker whose architecture is not published)."""
    return f"{est.scenario.model} has no published architecture (give its config.json with --model-config)"


# ----------------------------------------------------------------------------------------------- names people type


def _provider_key(text: str) -> str:
    return _squash(text)


def resolve_gpus(names) -> list[str]:
    """Registry GPUs for names as people type them: an exact name, or a family ('H100' = H100 SXM, PCIe and NVL;
    'A100' = the four A100 parts); an unknown name is an error with the closest ones."""
    known = list(sources.gpus())
    out: list[str] = []
    for name in names:
        key = _squash(str(name))
        if not key:
            continue
        exact = [g for g in known if _squash(g) == key]
        family = [g for g in known if _squash(g).startswith(key)]
        picked = exact or family or [sources.get_gpu(str(name)).gpu]     # lenient lookup; unknown -> closest names
        out += [g for g in picked if g not in out]
    if not out:
        raise TinkerNomicsError("--gpus names no GPU")
    return out


def provider_names(offers: tuple[Offer, ...]) -> dict[str, str]:
    """Provider key -> the name shown: tinker, the catalog's providers and the managed services' vendors."""
    known = {"tinker": "tinker"}
    for o in offers:
        known.setdefault(_provider_key(o.provider), o.provider)
    for s in managed_services():
        known.setdefault(_provider_key(s.vendor), s.vendor)
    return known


# Prime Intellect resells other clouds' machines under one instance-type key, `<upstream>__<n>x<GPU>_<mem>GB__<vCPUs>__
# <RAM GiB>` (SkyPilot catalog catalogs/v7/primeintellect/vms.csv: the row's vCPUs and MemoryGiB columns hold the same
# numbers); a reader is told the upstream cloud and the machine, the GPUs being in their own column.
RESOLD_TYPE = re.compile(r"^(?P<upstream>[a-z0-9_]+?)__\d+x[^_]+(?:_\d+GB)?__(?P<cpus>\d+)__(?P<ram>\d+)$")


def option_name(row) -> str:
    """An option's name for a reader: the plan's key, with a resold machine's catalog key spelled out."""
    text = row["where"]
    key = row.get("instance_type")
    resold = RESOLD_TYPE.match(key) if isinstance(key, str) else None
    if resold:
        text = text.replace(key, f"via {resold['upstream']} ({resold['cpus']} vCPUs, {resold['ram']} GiB RAM)", 1)
    return text


def resolve_providers(names, offers: tuple[Offer, ...]) -> set[str]:
    """Provider keys for names as typed (tinker, fireworks, runpod, ...); an unknown one is an error naming the
    closest."""
    known = provider_names(offers)
    out = set()
    for name in names:
        key = _provider_key(str(name))
        if not key:
            continue
        if key not in known:
            names = sorted(set(known.values()), key=str.lower)
            listed = "" if closest(str(name), names) else "known: " + ", ".join(names)   # too many for the default
            raise UnknownNameError("provider", str(name), names, hint=listed)
        out.add(key)
    if not out:
        raise TinkerNomicsError("--providers names no provider")
    return out


def parse_deadline(text) -> float:
    """'36h', '3d', '1.5d' or a number of hours → hours; 0, negative or unreadable → one-line error."""
    raw = str(text).strip().lower()
    match = re.fullmatch(r"([+-]?[0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*(h|hours?|d|days?)?", raw)
    if not match:
        raise TinkerNomicsError(f"--deadline must be hours or days, such as 36h, 3d or 48, got {text!r}")
    value = float(match.group(1)) * (24.0 if (match.group(2) or "h").startswith("d") else 1.0)
    if not math.isfinite(value):   # 1e400: past any float, not below zero
        raise TinkerNomicsError(f"--deadline is too large to be a number of hours, got {text!r}")
    if value <= 0:
        raise TinkerNomicsError(f"--deadline must be more than 0 hours, got {text!r}")
    return value


# ----------------------------------------------------------------------------------------------- judging draws


@dataclass(frozen=True)
class _Judge:
    """Turns each option's cost and wall-clock into the columns the plan shows. Column 0 of every (options, 1 +
    draws) array is the point (`with_point`): the model's answer, the one `estimate` gives (cost_usd, wall_hours).
    The other columns are the Monte-Carlo draws: their quantiles, the cost at the confidence quantile, and the
    share of them on time for each deadline asked (column p_meets@j)."""
    deadlines: tuple            # hours; None = no deadline (every draw on time)
    confidence: float

    def columns(self, cost: np.ndarray | None, wall: np.ndarray | None) -> dict:
        """cost and wall: (options, 1 + draws) arrays, point first (or None when not computed) -> column arrays."""
        out = {}
        if cost is not None:
            with np.errstate(invalid="ignore"):        # a run that never finishes: infinite draws
                q = np.quantile(cost[:, 1:], (*QUANTILES, self.confidence), axis=1)
            out.update(cost_usd=cost[:, 0], cost_usd_p10=q[0], cost_usd_p50=q[1], cost_usd_p90=q[2],
                       cost_usd_at_confidence=q[3])
        if wall is not None:
            draws = wall[:, 1:]
            with np.errstate(invalid="ignore"):
                q = np.quantile(draws, QUANTILES, axis=1)
            out.update(wall_hours=wall[:, 0], wall_hours_p10=q[0], wall_hours_p50=q[1], wall_hours_p90=q[2])
            for j, hours in enumerate(self.deadlines):
                out[f"p_meets@{j}"] = np.ones(len(wall)) if hours is None else np.mean(draws <= hours, axis=1)
        return out

    @property
    def keys(self) -> list[str]:
        return ["cost_usd", "cost_usd_p10", "cost_usd_p50", "cost_usd_p90", "cost_usd_at_confidence", "wall_hours",
                "wall_hours_p10", "wall_hours_p50", "wall_hours_p90"] + \
            [f"p_meets@{j}" for j in range(len(self.deadlines))]


def with_point(drawn: dict, base: Scenario) -> dict:
    """The draws with the point in front: column 0 holds each drawn input at the resolved scenario's own value
    (a model error factor of 1, the preset's lengths and prices), so an option's column 0 is what `estimate` says
    for it and the plan tells the same answer, with the draws' spread beside it."""
    return {name: np.concatenate([[float(np.asarray(getattr(base, name), dtype=float))], np.asarray(values, float)])
            for name, values in drawn.items()}


def _draw_inputs(workload, base: Scenario, draws: int, seed: int, fixed=()) -> dict:
    """The draws (the point in column 0); the off-policy bound and any input in `fixed` (set by the user: estimate
    leaves it as given too) are not drawn."""
    return with_point(uncertainty.draw_inputs(workload or "custom", base, int(draws), seed,
                                              leave_out=FIXED_INPUTS + tuple(fixed)), base)


def _frame(n: int, **columns) -> pd.DataFrame:
    """A block of options: every column of COLUMNS (and any p_meets@j given), scalars repeated, missing ones empty."""
    data = {}
    for c in COLUMNS + [k for k in columns if k.startswith("p_meets@")]:
        value = columns.get(c)
        data[c] = np.asarray(value) if isinstance(value, (np.ndarray, list, pd.Series)) else [value] * n
    return pd.DataFrame(data)


# ----------------------------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Plan:
    options: pd.DataFrame               # one row per option, ranked (best first)
    best: dict | None                   # the cheapest option on time at the confidence and within the budget
    pareto: pd.DataFrame                # options no other beats on both cost and wall-clock
    cheapest_over_budget: dict | None   # when the budget rules out every option on time: the cheapest of them
    deadline_hours: float | None
    budget_usd: float | None
    confidence: float
    draws: int
    scenario: Scenario                  # the resolved workload
    workload: str | None
    notes: tuple[str, ...]
    spot: SpotModel

    def to_dict(self, limit: int | None = None) -> dict:
        """The keys of `tinker-nomics plan --format json` (options ranked; `limit` keeps the first ones)."""
        options = self.options.drop(columns=["offer"], errors="ignore")
        options = options if limit is None else options.head(limit)
        return {"workload": self.workload, "model": self.scenario.model, "prices": self.scenario.prices,
                "method": self.scenario.method, "confidence": self.confidence, "deadline_hours": self.deadline_hours,
                "budget_usd": self.budget_usd, "draws": self.draws, "options_considered": int(len(self.options)),
                "options": records(options), "best": self.best,
                "pareto": records(self.pareto.drop(columns=["offer"], errors="ignore")),
                "cheapest_over_budget": self.cheapest_over_budget, "spot_model": self.spot.describe(),
                "notes": list(self.notes)}


COUNTS = ("num_gpus", "instances", "gpus_per_instance", "listed_prices")


def records(frame: pd.DataFrame) -> list[dict]:
    """Rows as plain JSON values: NaN and infinities as None, GPU and instance counts as whole numbers."""
    out = []
    for row in frame.to_dict("records"):
        plain = {k: _plain(v) for k, v in row.items()}
        for key in COUNTS:
            if isinstance(plain.get(key), float):
                plain[key] = int(plain[key])
        out.append(plain)
    return out


def _plain(value):
    if value is None:
        return None
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return None if not math.isfinite(float(value)) else float(value)
    return value


@dataclass(frozen=True)
class Evaluation:
    """Every option of one workload evaluated once, over its draws, for one or several deadlines; `plan()` ranks
    them for one deadline, budget and spot choice without evaluating again."""
    frame: pd.DataFrame                 # unranked options, with p_meets@j for each deadline
    deadlines: tuple
    confidence: float
    draws: int
    scenario: Scenario
    workload: str | None
    notes: tuple[str, ...]
    spot_model: SpotModel

    def plan(self, deadline_hours: float | None = None, budget_usd: float | None = None,
             spot: bool | None = None) -> Plan:
        if deadline_hours not in self.deadlines:
            raise TinkerNomicsError(f"deadline {deadline_hours!r} was not evaluated; evaluated: {self.deadlines}")
        _check_inputs(deadline_hours, budget_usd, self.confidence, 1, self.draws, None)
        frame = self.frame
        if spot is not None:   # the user's own rate (kind "given") stays, as in evaluate
            gpu_option = frame["kind"].isin(["rented", "managed"]).to_numpy()
            frame = frame[~gpu_option | (frame["spot"].to_numpy(dtype=bool) == spot)]
        j = self.deadlines.index(deadline_hours)
        frame = frame.rename(columns={f"p_meets@{j}": "p_meets_deadline"})[COLUMNS + ["offer"]]
        return _rank(frame, self.scenario, self.workload, deadline_hours, budget_usd, self.confidence, self.draws,
                     list(self.notes), self.spot_model)


def plan(scenario: Scenario, *, workload: str | None = None, deadline_hours: float | None = None,
         budget_usd: float | None = None, confidence: float = DEFAULT_CONFIDENCE, max_gpus: int = DEFAULT_MAX_GPUS,
         gpus=None, providers=None, spot: bool | None = None, offers: tuple[Offer, ...] | None = None,
         tinker_lists=(), given_rate: float | None = None, draws: int = DEFAULT_DRAWS, seed: int = 0,
         spot_model_: SpotModel | None = None, fixed=()) -> Plan:
    """Every way to run `scenario`, ranked (see the module's docstring). `spot`: None both, True spot only,
    False on demand only (for rented GPUs); `fixed` names inputs the user set, which are not drawn."""
    _check_inputs(deadline_hours, budget_usd, confidence, max_gpus, draws, given_rate)
    return evaluate(scenario, workload=workload, deadlines=(deadline_hours,), confidence=confidence,
                    max_gpus=max_gpus, gpus=gpus, providers=providers, spot=spot, offers=offers,
                    tinker_lists=tinker_lists, given_rate=given_rate, draws=draws, seed=seed,
                    spot_model_=spot_model_, fixed=fixed).plan(deadline_hours, budget_usd)


@ordinary_pages()
def evaluate(scenario: Scenario, *, workload: str | None = None, deadlines=(None,),
             confidence: float = DEFAULT_CONFIDENCE, max_gpus: int = DEFAULT_MAX_GPUS, gpus=None, providers=None,
             spot: bool | None = None, offers: tuple[Offer, ...] | None = None, tinker_lists=(),
             given_rate: float | None = None, draws: int = DEFAULT_DRAWS, seed: int = 0,
             spot_model_: SpotModel | None = None, fixed=()) -> Evaluation:
    """Every option of `scenario`, evaluated over the draws for each of `deadlines` (hours, or None); `fixed`
    names inputs the user set, which are not drawn."""
    deadlines = tuple(deadlines)
    for hours in deadlines:
        _check_inputs(hours, None, confidence, max_gpus, draws, given_rate)
    offers = load_offers() if offers is None else tuple(offers)
    spot_m = spot_model_ or spot_model()
    base = scenario.resolved()
    gpu_filter = set(resolve_gpus(gpus)) if gpus else None
    provider_filter = resolve_providers(providers, offers) if providers else None
    if given_rate is not None and not gpu_filter:
        raise TinkerNomicsError("--gpu-hourly-usd in a plan prices the GPUs of --gpus; name them with --gpus")
    drawn = _draw_inputs(workload, base, draws, seed, fixed)
    judge = _Judge(deadlines, confidence)
    point = estimate(scenario)    # one line when neither side can be computed (no Tinker price, no architecture)
    notes: list[str] = []
    if base.model_config:   # a user's checkpoint stored wider than the bf16 it is costed in
        notes.extend(filter(None, [stored_dtype_note(load_config(base.model_config))]))
    if base.fine_tune == "lora" and base.method == "calibrated":   # how every GPU option's engine runs the adapter
        notes.append(lora_rollout_note(base.lora_merge))
    blocks = []
    if provider_filter is None or "tinker" in provider_filter:
        for snapshot in dict.fromkeys([base.prices, *_lists(tinker_lists)]):
            blocks.append(_tinker_option(scenario, snapshot, drawn, judge, notes))
    blocks.append(_per_token_options(scenario, base, drawn, provider_filter, judge))
    candidates = _gpu_candidates(offers, max_gpus, gpu_filter, provider_filter, spot, given_rate)
    offered = set(candidates["gpu"]) if len(candidates) else set()
    for gpu in sorted(gpu_filter or ()):
        if not sources.get_gpu(gpu).bf16_dense_tflops:
            notes.append(f"{gpu} cannot be planned: data/hardware/gpus.csv has no sourced dense BF16 peak for it")
        elif gpu not in offered:
            notes.append(f"no offer rents {gpu} in the GPU offers read"
                         + (" from the providers named" if provider_filter else "")
                         + "; --gpu-hourly-usd plans it at your own rate")
    if provider_filter is not None and not len(candidates) and (gpu_filter or spot is not None):
        notes.append(f"{' and '.join(f for f, given in (('--gpus', gpu_filter), ('--spot', spot is not None)) if given)}"
                     f" narrow{'s' * (not gpu_filter or spot is None)} rented GPUs, and the providers named rent "
                     f"none for this run: only their services are planned")
    if len(candidates):
        if point.self_hosted is None:
            notes.append(f"the self-hosted side cannot be evaluated: {_no_architecture(point)}")
            candidates["feasible"] = False
            candidates["dropped_because"] = "not modelled: the self-hosted side cannot be evaluated"
            blocks.append(candidates)
        else:
            blocks.append(_evaluate_gpu_options(candidates, scenario, base, drawn, spot_m, seed, judge))
    blocks.append(_not_applicable(provider_filter))
    if not any(len(b) for b in blocks):   # e.g. --providers aws: a cloud whose catalog rows price no GPU we time
        raise TinkerNomicsError(f"--providers {', '.join(providers)}: no option to plan: none of them rents a GPU "
                                f"the planner can time or runs a service that trains this run"
                                + (" (--gpus narrows it further)" if gpu_filter else ""))
    frame = pd.concat([b for b in blocks if len(b)], ignore_index=True)
    for key in judge.keys:
        if key not in frame:
            frame[key] = np.nan
    frame = frame.drop(columns=["p_meets_deadline"])
    frame["offer"] = offer_key(frame)
    # numbers as floats, flags as booleans, text as plain Python objects: ranking reorders every column on each
    # plan, and NumPy takes these faster than pandas' text arrays
    numbers = [c for c in frame.columns if c.startswith(("cost_", "wall_", "p_meets@"))] + \
        ["usd_per_gpu_hour", "num_gpus", "instances", "gpus_per_instance", "listed_prices"]
    frame = frame.astype({**{c: float for c in numbers}, "spot": bool, "feasible": bool,
                          **{c: object for c in frame.columns if c not in numbers and c not in ("spot", "feasible")}})
    return Evaluation(frame, deadlines, confidence, int(draws), base, workload, tuple(dict.fromkeys(notes)), spot_m)


def _check_inputs(deadline_hours, budget_usd, confidence, max_gpus, draws, given_rate) -> None:
    def real(x):
        return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and math.isfinite(x)
    if deadline_hours is not None and not (real(deadline_hours) and deadline_hours > 0):
        raise TinkerNomicsError(f"--deadline must be more than 0 hours, got {deadline_hours!r}")
    if budget_usd is not None and not (real(budget_usd) and budget_usd > 0):
        raise TinkerNomicsError(f"--budget must be a number of dollars > 0, got {budget_usd!r}")
    if not (real(confidence) and 0 < confidence <= 1):
        raise TinkerNomicsError(f"--confidence must be a share in (0, 1], got {confidence!r}")
    if not (real(max_gpus) and float(max_gpus) == int(max_gpus) and 1 <= int(max_gpus) <= 4096):
        raise TinkerNomicsError(f"--max-gpus must be a whole number from 1 to 4096, got {max_gpus!r}")
    if not (real(draws) and int(draws) == draws and 10 <= draws <= 1_000_000):
        raise TinkerNomicsError(f"--draws must be a whole number from 10 to 1,000,000, got {draws!r}")
    if given_rate is not None and not (real(given_rate) and given_rate >= 0):
        raise TinkerNomicsError(f"--gpu-hourly-usd must be a finite number >= 0, got {given_rate!r}")


def _lists(names) -> list[str]:
    out = []
    for name in names or ():
        text = str(name).strip()
        if text.lower() == "all":
            out += list(snapshots())
        elif text:
            out.append(sources.resolve_snapshot(text))
    return out


# ----------------------------------------------------------------------------------------------- Tinker and services


def _tinker_option(scenario: Scenario, snapshot: str, drawn: dict, judge: _Judge,
                   notes: list) -> pd.DataFrame:
    where = f"Tinker ({snapshot} list)"
    est = estimate(scenario.replace(prices=snapshot, tinker_cached_prefill=scenario.tinker_cached_prefill, **drawn))
    if est.tinker_not_offered is not None:
        return _frame(1, where=where, billing="per_token", provider="tinker", spot=False, feasible=True,
                      dropped_because=f"not offered: {est.tinker_not_offered}", kind="tinker",
                      source=f"Tinker prices {snapshot}")
    # the bill and the wall-clock `estimate` gives at each draw (Tinker's time error is tinker_time_factor's draws)
    cost, wall = (np.atleast_1d(x).ravel() for x in np.broadcast_arrays(
        np.asarray(est.tinker.total_usd, dtype=float), np.asarray(est.tinker_time.wallclock_hours, dtype=float)))
    if est.successor is not None:
        where += f", billed as {est.price.model.split('/')[-1]}"
        notes.append(f"Tinker's {snapshot} list no longer prices {est.successor.retired}: billed on its successor "
                     f"{est.price.model}")
    return _frame(1, where=where, billing="per_token", provider="tinker", spot=False, feasible=True, kind="tinker",
                  source=f"Tinker prices {snapshot} (data/prices); wall-clock data/{tinker_wallclock.FIT}",
                  **judge.columns(cost[None, :], wall[None, :]))


def _per_token_options(scenario: Scenario, base: Scenario, drawn: dict, provider_filter,
                       judge: _Judge) -> pd.DataFrame:
    services = [s for s in per_token_services(base.model)
                if provider_filter is None or _provider_key(s.vendor) in provider_filter]
    blocks = []
    est = estimate(scenario.replace(**drawn)) if services else None
    for s in services:
        columns = {}
        if s.complete:
            bill = billing.tinker_bill(est.tokens.sample, est.tokens.train, est.tokens.prefill, s.price(),
                                       sandbox_usd=sandbox_bill(est.scenario, est.tokens.rollouts))
            columns = judge.columns(np.atleast_1d(np.asarray(bill.total_usd, dtype=float)).ravel()[None, :], None)
        why = f"unavailable: {s.why_not}" if not s.available else \
            "wall-clock not known: no measured throughput for this service"
        blocks.append(_frame(1, where=s.service, billing="per_token", provider=s.vendor, spot=False, feasible=True,
                             dropped_because=why, kind="service", source=s.source_url, **columns))
    return pd.concat(blocks, ignore_index=True) if blocks else _frame(0)


def _not_applicable(provider_filter) -> pd.DataFrame:
    """Services no workload here can run on (OpenAI RFT: o4-mini only, ...), listed with why."""
    rows = [s for s in managed_services() if s.status == "not_applicable"
            and (provider_filter is None or _provider_key(s.vendor) in provider_filter)]
    if not rows:
        return _frame(0)
    return _frame(len(rows), where=[s.service for s in rows], billing=[s.billing or None for s in rows],
                  provider=[s.vendor for s in rows], spot=False, feasible=False,
                  dropped_because=[f"not applicable: {s.why_not}" for s in rows], kind="service", source=[s.source_url for s in rows])


# ----------------------------------------------------------------------------------------------- GPU options


def _offer_table(offers: tuple[Offer, ...]) -> pd.DataFrame:
    return pd.DataFrame({
        "provider": [o.provider for o in offers], "instance_type": [o.instance_type for o in offers],
        "gpu": [o.gpu for o in offers], "k": [o.accelerator_count for o in offers],
        "rate": [o.usd_per_gpu_hour for o in offers],
        "spot_rate": [np.nan if o.spot_usd_per_gpu_hour is None else o.spot_usd_per_gpu_hour for o in offers],
        "suspect": ["on_demand_below_spot" in o.flags for o in offers],
        "auction": ["spot_equals_on_demand" in o.flags for o in offers], "source": [o.source_url for o in offers]})


def _expand(table: pd.DataFrame, max_gpus: int) -> pd.DataFrame:
    """Each row rented 1..m times (m × k <= max_gpus): one row per instance count."""
    m = (max_gpus // table["k"].to_numpy()).astype(int)
    out = table.loc[np.repeat(table.index.to_numpy(), m)].reset_index(drop=True)
    starts = np.repeat(np.cumsum(m) - m, m)
    out["instances"] = np.arange(int(m.sum())) - starts + 1
    out["num_gpus"] = out["instances"] * out["k"]
    return out


def _gpu_candidates(offers, max_gpus, gpu_filter, provider_filter, spot, given_rate) -> pd.DataFrame:
    """Every GPU option as a row (rented offers, managed GPU-hour services, the given rate), built as arrays."""
    keep = [o for o in offers if o.gpu is not None]
    table = _offer_table(tuple(keep))
    if gpu_filter is not None:
        table = table[table["gpu"].isin(gpu_filter)]
    if provider_filter is not None:
        table = table[table["provider"].map(_provider_key).isin(provider_filter)]
    blocks = []
    for on_spot in (False, True):
        if spot is not None and on_spot != spot:
            continue
        listed_ = table[table["spot_rate"].notna()] if on_spot else table
        if not len(listed_):
            continue
        part = _expand(_cheapest_listing(listed_, "spot_rate" if on_spot else "rate").reset_index(drop=True),
                       max_gpus)
        suffix = " (spot)" if on_spot else ""
        blocks.append(_frame(
            len(part), where=(part["provider"] + " " + part["instance_type"] + " × " + part["instances"].astype(str)
                              + suffix).to_numpy(),
            billing="instance_hour", gpu=part["gpu"].to_numpy(), num_gpus=part["num_gpus"].to_numpy(),
            provider=part["provider"].to_numpy(), spot=on_spot, instance_type=part["instance_type"].to_numpy(),
            instances=part["instances"].to_numpy(), gpus_per_instance=part["k"].to_numpy(),
            usd_per_gpu_hour=(part["spot_rate"] if on_spot else part["rate"]).to_numpy(), kind="rented",
            source=part["source"].to_numpy(),
            dropped_because=np.where(part["suspect"].to_numpy(), SUSPECT, None),
            caveat=_caveats(part), listed_prices=part["listings"].to_numpy()))
    # managed GPU-hour services bill on demand (none under --spot); the user's own rate is theirs, spot or not
    rows = [] if spot is True else [{"service": s.service, "gpu": s.gpu, "provider": s.vendor,
                                     "rate": s.usd_per_gpu_hour, "source": s.source_url, "k": 1}
                                    for s in gpu_hour_services()]
    if given_rate is not None and gpu_filter:
        rows += [{"service": "given rate", "gpu": g, "provider": "given rate", "rate": given_rate,
                  "source": "--gpu-hourly-usd", "k": 1} for g in sorted(gpu_filter)]
    if rows:
        managed = pd.DataFrame(rows)
        if gpu_filter is not None:
            managed = managed[managed["gpu"].isin(gpu_filter)]
        if provider_filter is not None:
            managed = managed[managed["provider"].map(_provider_key).isin(provider_filter)
                              | (managed["provider"] == "given rate")]
        if len(managed):
            part = _expand(managed.reset_index(drop=True), max_gpus)
            given = (part["provider"] == "given rate").to_numpy()
            where = np.where(given, part["gpu"] + " × " + part["num_gpus"].astype(str) + " at the given $"
                             + part["rate"].map("{:g}".format) + "/GPU-hour",
                             part["service"] + " (" + part["gpu"] + ") × " + part["num_gpus"].astype(str))
            blocks.append(_frame(len(part), where=where, billing="gpu_hour", gpu=part["gpu"].to_numpy(),
                                 num_gpus=part["num_gpus"].to_numpy(), provider=part["provider"].to_numpy(),
                                 spot=False, instances=part["num_gpus"].to_numpy(), gpus_per_instance=1,
                                 usd_per_gpu_hour=part["rate"].to_numpy(),
                                 kind=np.where(given, "given", "managed"), source=part["source"].to_numpy()))
    return pd.concat(blocks, ignore_index=True) if blocks else _frame(0)


SUSPECT = "catalog row suspect: on-demand below spot (columns probably swapped)"
AUCTION = "auction-style price: the catalog lists the same on-demand and spot price"
SEPARATE_INSTANCES = "{n} instances timed as one node: the network between them is not modelled"
OTHER_LISTINGS = "the cheapest of {n} prices the catalog lists for it (up to ${dearest:,.2f}/GPU-hour)"
CHUNK = 4096      # options per block of draws (bounds the memory of the (options, draws) arrays)


def _evaluate_gpu_options(cands: pd.DataFrame, hosted_base: Scenario, base: Scenario, drawn: dict, spot_m: SpotModel,
                          seed: int, judge: _Judge) -> pd.DataFrame:
    """Cost and wall-clock draws of every GPU option: the (GPU, count) pairs through `_self_hosted` at once, then
    each option's rate and, on spot, its interruptions; all array operations, in blocks of CHUNK options."""
    gpu = cands["gpu"].to_numpy().astype(str)
    n = cands["num_gpus"].to_numpy().astype(int)
    names = np.unique(gpu)
    modelled = {g: sources.get_gpu(g).bf16_dense_tflops is not None for g in names}
    has_peak = np.array([modelled[g] for g in gpu])
    keys = np.char.add(np.char.add(gpu, "|"), n.astype(str))
    pair_keys, first, pair_of = np.unique(keys, return_index=True, return_inverse=True)
    pair_ok = has_peak[first]
    if not pair_ok.any():    # every GPU asked for lacks a peak: nothing to time, each option says why
        out = cands.copy()
        out["feasible"] = False
        out["dropped_because"] = ("not modelled: " + pd.Series(gpu, dtype=object)
                                  + " has no sourced dense BF16 peak").to_numpy(object)
        for key in judge.keys:
            out[key] = np.nan
        return out
    hosted = _self_hosted(hosted_base, gpu[first][pair_ok], n[first][pair_ok].astype(float), drawn)
    index = np.full(len(pair_keys), -1)
    index[pair_ok] = np.arange(int(pair_ok.sum()))
    row = index[pair_of.ravel()]
    ok = row >= 0

    n_draws = hosted.wall_hours.shape[1] - 1             # column 0 is the point
    rng = uncertainty.stream(seed, "spot")
    per_month = spot_m.interruptions_per_month.draw(n_draws, rng)
    restart_minutes = spot_m.restart_minutes.draw(n_draws, rng)
    # the point takes the median interruption rate and restart time (estimate has no spot of its own)
    per_hour = np.concatenate([[np.median(per_month)], per_month]) / (number("days_per_month") * 24.0)
    restart = np.concatenate([[np.median(restart_minutes)], restart_minutes]) / 60.0
    steps = float(np.max(base.steps))
    rate = cands["usd_per_gpu_hour"].to_numpy(dtype=float)
    on_spot = cands["spot"].to_numpy(dtype=bool)
    instances = cands["instances"].to_numpy(dtype=float)

    columns = {c: np.full(len(cands), np.nan) for c in judge.keys}
    finishes = np.ones(len(cands), bool)
    # On demand, an option's wall-clock is its pair's, and its cost its pair's GPU-hours at its rate plus the
    # sandbox bill: when the sandbox bill is the same in every draw, the cost quantiles are the GPU-hour quantiles
    # at the rate (a rate >= 0 keeps the order of the draws), so they are taken once per pair.
    pair_wall = judge.columns(None, hosted.wall_hours)
    demand = np.flatnonzero(ok & ~on_spot)
    for key, value in pair_wall.items():
        columns[key][demand] = value[row[demand]]
    if np.all(np.ptp(hosted.sandbox_usd, axis=1) == 0):
        pair_cost = judge.columns(hosted.gpu_hours, None)
        for key, value in pair_cost.items():
            columns[key][demand] = value[row[demand]] * rate[demand] + hosted.sandbox_usd[row[demand], 0]
        todo = np.flatnonzero(ok & on_spot)
    else:
        todo = np.flatnonzero(ok)
    for start in range(0, len(todo), CHUNK):
        sel = todo[start:start + CHUNK]
        wall = hosted.wall_hours[row[sel]]
        gpu_hours = hosted.gpu_hours[row[sel]]
        spot_sel = on_spot[sel]
        if spot_sel.any():
            spot_wall, can = spot_hours(wall[spot_sel], instances[sel][spot_sel, None], steps, per_hour[None, :],
                                        restart[None, :], spot_m.checkpoint_every_steps)
            gpu_hours[spot_sel] = gpu_hours[spot_sel] * np.where(can, spot_wall / wall[spot_sel], np.inf)
            wall[spot_sel] = spot_wall
            finishes[sel[spot_sel]] = np.all(can, axis=1)
        cost = gpu_hours * rate[sel, None] + hosted.sandbox_usd[row[sel]]
        computed = judge.columns(cost, wall if spot_sel.any() else None)
        for key, value in computed.items():
            if key.startswith("cost"):
                columns[key][sel] = value
            else:
                columns[key][sel[spot_sel]] = value[spot_sel]
    feasible = np.zeros(len(cands), bool)
    feasible[ok] = hosted.feasible[row[ok]]
    fitting = np.full(len(cands), np.nan)
    fitting[ok] = hosted.fitting_gpus[row[ok]]
    gpu_text = pd.Series(gpu, dtype=object)
    fit_text = ("does not fit: " + gpu_text + " needs at least " + pd.Series(fitting).map("{:g}".format)
                + " GPUs for this model").to_numpy(dtype=object)
    no_peak_text = ("not modelled: " + gpu_text + " has no sourced dense BF16 peak").to_numpy(object)
    given = cands["dropped_because"].to_numpy(dtype=object)
    open_ = pd.isna(given)
    dropped = np.select(
        [~has_peak, open_ & ~feasible, open_ & ~finishes],
        [no_peak_text, fit_text, "spot interruptions outpace progress: interruptions an hour × hours lost to each >= 1"],
        default=given)
    # an option that does not fit (estimate costs it on the count that would) or never finishes has no figures
    for key in columns:
        columns[key][~feasible | ~finishes] = np.nan
    out = cands.copy()
    out["feasible"] = feasible
    out["dropped_because"] = dropped
    for key, value in columns.items():
        out[key] = value
    return out


# ----------------------------------------------------------------------------------------------- ranking


def pareto_mask(cost: np.ndarray, wall: np.ndarray) -> np.ndarray:
    """True for the points no other point beats: none is at least as cheap and as fast and better in one.
    NaN points are never on the frontier."""
    cost, wall = np.asarray(cost, dtype=float), np.asarray(wall, dtype=float)
    valid = np.isfinite(cost) & np.isfinite(wall)
    out = np.zeros(cost.shape, bool)
    idx = np.flatnonzero(valid)
    if not len(idx):
        return out
    order = idx[np.lexsort((wall[idx], cost[idx]))]           # by cost, then wall
    c, w = cost[order], wall[order]
    best_before = np.concatenate([[np.inf], np.minimum.accumulate(w)[:-1]])
    # a point is beaten by an earlier one (cost <=) that is faster, or as fast and strictly cheaper
    strictly_cheaper_min = _min_wall_strictly_cheaper(c, w)
    beaten = (best_before < w) | (strictly_cheaper_min <= w)
    out[order] = ~beaten
    return out


def _min_wall_strictly_cheaper(c: np.ndarray, w: np.ndarray) -> np.ndarray:
    """For points sorted by cost: the least wall-clock among points strictly cheaper than each."""
    running = np.minimum.accumulate(w)
    first_of_cost = np.searchsorted(c, c, side="left")          # index of the first point with this cost
    return np.where(first_of_cost > 0, running[np.maximum(first_of_cost - 1, 0)], np.inf)


def _rank(frame: pd.DataFrame, base: Scenario, workload, deadline_hours, budget_usd, confidence: float, draws: int,
          notes: list, spot_m: SpotModel) -> Plan:
    cost = frame["cost_usd"].to_numpy(dtype=float)
    wall = frame["wall_hours"].to_numpy(dtype=float)
    given = frame["dropped_because"].to_numpy(dtype=object)
    open_ = pd.isna(given)
    feasible = frame["feasible"].to_numpy(dtype=bool)
    p = frame["p_meets_deadline"].to_numpy(dtype=float)
    at_conf = frame["cost_usd_at_confidence"].to_numpy(dtype=float)
    on_time = np.isfinite(p) & (p >= confidence - 1e-12)
    within = np.ones(len(frame), bool) if budget_usd is None else (np.isfinite(at_conf) & (at_conf <= budget_usd))
    live = open_ & feasible
    unknown_wall = live & ~np.isfinite(p) & (deadline_hours is not None)
    late = live & np.isfinite(p) & ~on_time
    over_budget = live & on_time & ~within
    dropped = given.copy()
    dropped[unknown_wall] = "wall-clock not known: no deadline can be checked"
    dropped[late] = [f"misses the deadline: on time in {100 * x:.0f}% of draws, below {100 * confidence:.0f}%"
                     for x in p[late]]
    dropped[over_budget] = [f"over budget: ${x:,.2f} at P{100 * confidence:.0f} > ${budget_usd:,.2f}"
                            for x in at_conf[over_budget]]
    meets = live & ~unknown_wall & ~late & ~over_budget
    # dropped options: the ones that fit and are only over budget first, then the late ones, then the rest
    reason_rank = np.select([meets, over_budget, live], [0, 1, 2], default=3)
    # ties (the same GPUs at the same rate) go to the fewest instances: one node's links are what the plan times
    instances = pd.to_numeric(frame["instances"], errors="coerce").fillna(1).to_numpy(dtype=float)
    order = np.lexsort((instances, np.where(np.isfinite(wall), wall, np.inf), np.where(np.isfinite(cost), cost, np.inf),
                        reason_rank))
    frame = frame.iloc[order].reset_index(drop=True)
    frame["dropped_because"] = dropped[order]
    frame["within_budget"] = np.where(np.isfinite(at_conf), within, None)[order]
    buyable = (meets | late | over_budget)[order]
    front = pareto_mask(np.where(buyable, cost[order], np.nan), wall[order])
    frame["frontier"] = front
    best = records(frame.head(1).drop(columns=["offer"], errors="ignore"))[0] if meets.any() else None
    over = None
    if best is None and budget_usd is not None and over_budget.any():
        over = records(frame.iloc[[int(np.sum(reason_rank == 0))]].drop(columns=["offer"], errors="ignore"))[0]
        notes.append(f"no option meets the budget of ${budget_usd:,.2f}; the cheapest on time, "
                     f"{over['where']}, costs ${over['cost_usd']:,.2f} (over budget)")
    pareto = frame[front].sort_values(["cost_usd", "wall_hours"]).reset_index(drop=True)
    return Plan(frame, best, pareto, over, deadline_hours, budget_usd, confidence, draws, base, workload,
                tuple(dict.fromkeys(notes)), spot_m)


# ----------------------------------------------------------------------------------------------- reading a plan


def offer_key(frame: pd.DataFrame) -> pd.Series:
    """What makes two options the same offer at different counts: kind, provider, instance type (or the service
    and GPU), spot and rate."""
    return frame["kind"].astype(str) + "|" + frame["provider"].astype(str) + "|" + \
        frame["instance_type"].fillna(frame["where"].str.replace(r" × \d+$", "", regex=True)).astype(str) + "|" + \
        frame["gpu"].astype(str) + "|" + frame["spot"].astype(str) + "|" + frame["usd_per_gpu_hour"].astype(str)


def listed(frame: pd.DataFrame, top: int | None = None) -> pd.DataFrame:
    """The options a reader scans: each offer at its best count (its first row in the ranking; rows keep their
    rank as the index), the first `top` of them, then every Tinker and service row not among them."""
    key = frame["offer"] if "offer" in frame else offer_key(frame)
    first = frame[~key.duplicated()]
    head = first if top is None else first.head(top)
    extra = first[first["kind"].isin(["tinker", "service"]) & ~first.index.isin(head.index)]
    return pd.concat([head, extra])


def sizing(scenario: Scenario, gpu: str, *, workload: str | None = None, max_gpus: int = DEFAULT_MAX_GPUS,
           deadlines=(None,), confidence: float = DEFAULT_CONFIDENCE, draws: int = DEFAULT_DRAWS,
           seed: int = 0) -> pd.DataFrame:
    """How many of one GPU a run needs, whatever they cost: for 1..max_gpus GPUs, whether they hold the model,
    the wall-clock (the point, as `estimate` gives it, and P10/P50/P90 of the draws) and GPU-hours (point and P50), and the share of draws on time for each deadline (p_meets@j),
    from the same `_self_hosted` evaluation the plan uses."""
    for hours in deadlines:
        _check_inputs(hours, None, confidence, max_gpus, draws, None)
    name = sources.get_gpu(gpu).gpu
    base = scenario.resolved()
    drawn = _draw_inputs(workload, base, draws, seed)
    counts = np.arange(1, int(max_gpus) + 1, dtype=float)
    hosted = _self_hosted(scenario, np.full(len(counts), name), counts, drawn)
    columns = _Judge(tuple(deadlines), confidence).columns(None, hosted.wall_hours)
    gpu_hours, gpu_hours_p50 = hosted.gpu_hours[:, 0], np.quantile(hosted.gpu_hours[:, 1:], 0.5, axis=1)
    out = pd.DataFrame({"gpu": name, "num_gpus": counts.astype(int), "feasible": hosted.feasible,
                        "fitting_gpus": hosted.fitting_gpus, "gpu_hours": gpu_hours, "gpu_hours_p50": gpu_hours_p50,
                        **columns})
    cols = [c for c in out.columns if c.startswith(("wall", "gpu_hours", "p_meets"))]
    out.loc[~out["feasible"], cols] = np.nan
    return out


def clear_caches() -> None:
    _spot_rows.cache_clear()
