"""Monte-Carlo over the inputs nobody knows in advance: how sure is a verdict?

The distributions, with their sources and reasons, are data (data/assumptions/uncertainty.csv); a row may be
limited to some methods (the seed's rollout-efficiency and MFU ranges belong to the seed and exact methods; the
calibrated method draws its own model error instead: `sigma=fitted:rl_step` names the held-out spread that
tools/calibrate.py wrote to data/calibration/errors_by_regime.csv, taken for each workload from the widest of
the regimes it falls in, scenario_model_error). Every draw
of every input goes through the core in one vectorized `estimate` call per workload (10^5 draws is one
call), with a seeded random generator, so the numbers are the same on every build. Inputs are drawn
independently; everything a row does not name stays at the preset's value.

    from tinker_nomics import uncertainty
    mc = uncertainty.simulate("math_rl")           # at the preset's own price snapshot
    mc.quantiles()["self_hosted"], mc.p_tinker_cheaper
    uncertainty.summary(["math_rl", "swe_rl"])     # P10/P50/P90 of both sides and P(Tinker cheaper)
"""
from __future__ import annotations

import dataclasses
import functools
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import TinkerNomicsError
from ..model.estimate import estimate
from ..model.scenario import BOUNDS, DEFAULT_METHOD, METHODS, Scenario
from ..sources.calibration import model_error
from ..sources.tinker_wallclock import committed_fit
from ..sources.successors import billed_as
from ..sources.tables import Column, load_table
from ..sources.workloads import workloads
from . import timeline

KINDS = {
    "uniform": ("low", "high"),
    "triangular": ("low", "mode", "high"),
    "loguniform": ("low", "high"),
    "lognormal": ("median", "sigma"),          # optional low/high: truncated to them
    "choice": ("values",),
}
QUANTILES = (0.1, 0.5, 0.9)
DEFAULT_DRAWS = 100_000
# Inputs drawn from a seeded stream of their own rather than the workload's: Tinker's time error entered after the
# other inputs, and drawing it from their stream would have moved the draws of every input after it in name order.
OWN_STREAM = ("tinker_time_factor",)
# Inputs that move a wall-clock and neither bill: they cannot move the verdict, so `influence` leaves them out.
TIME_ONLY = ("tinker_time_factor",)


@dataclass(frozen=True)
class Distribution:
    parameter: str
    applies_to: tuple[str, ...]        # workload names; ("all",) for every workload
    kind: str
    params: dict                       # name -> float, or a tuple of floats for `values`
    relative: bool                     # draws multiply the preset's value
    source: str
    reason: str
    methods: tuple[str, ...] = METHODS  # the methods whose Monte-Carlo draws it

    def applies(self, workload: str) -> bool:
        return self.applies_to == ("all",) or workload in self.applies_to

    def describe(self) -> str:
        """'triangular(low 1, mode 1.5, high 2.5)'; '× preset' when the draws scale the preset's value."""
        parts = []
        for name, value in self.params.items():
            text = " | ".join(map(_param, value)) if isinstance(value, tuple) else _param(value)
            parts.append(f"{name} {text}")
        return f"{self.kind}({', '.join(parts)})" + (" × preset" if self.relative else "")

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        p = self.params
        if self.kind == "uniform":
            return rng.uniform(p["low"], p["high"], size)
        if self.kind == "triangular":
            if p["low"] == p["high"]:
                return np.full(size, p["low"])
            return rng.triangular(p["low"], p["mode"], p["high"], size)
        if self.kind == "loguniform":
            return np.exp(rng.uniform(np.log(p["low"]), np.log(p["high"]), size))
        if self.kind == "lognormal":
            # Truncated to [low, high] by drawing again outside it (clipping would pile mass on the bounds).
            low, high = p.get("low", 0.0), p.get("high", np.inf)
            values = p["median"] * np.exp(p["sigma"] * rng.standard_normal(size))
            outside = (values < low) | (values > high)
            while outside.any():
                values[outside] = p["median"] * np.exp(p["sigma"] * rng.standard_normal(int(outside.sum())))
                outside = (values < low) | (values > high)
            return values
        return rng.choice(np.asarray(p["values"], dtype=float), size)


def _parse_params(text: str, where: str) -> dict:
    """'low=1.0 mode=1.5 high=2.5' or 'values=1 2 8' -> {'low': 1.0, ...} / {'values': (1.0, 2.0, 8.0)}."""
    out: dict[str, list[float]] = {}
    key = None
    for token in text.replace(",", " ").split():
        if "=" in token:
            key, _, token = token.partition("=")
            out[key] = []
            if not token:
                continue
        if key is None:
            raise TinkerNomicsError(f"{where}: {text!r} must read name=value")
        if token.startswith("fitted:"):
            out[key].append(fitted_spread(token.partition(":")[2], where))
            continue
        try:
            out[key].append(float(token))
        except ValueError:
            raise TinkerNomicsError(f"{where}: {token!r} is not a number") from None
    return {k: (tuple(v) if k == "values" else v[0]) for k, v in out.items() if v}


def fitted_spread(name: str, where: str) -> float:
    """The spread a `fitted:NAME` parameter names: the calibrated model's held-out error of `decode` or `rl_step`
    (data/calibration/errors_by_regime.csv), or `tinker_step`, the leave-one-run-out spread of Tinker's step-time
    fit (data/services/tinker_wallclock.csv)."""
    if name == "tinker_step":
        return committed_fit().log_sd
    try:
        return model_error(name)
    except KeyError:
        raise TinkerNomicsError(f"{where}: 'fitted:{name}' names no fitted spread (decode, rl_step, tinker_step)") \
            from None


def parse_distribution(kind: str, parameters: str, where: str) -> tuple[str, dict]:
    """(kind, parameters) of one distribution as a data table writes it ('triangular', 'low=1 mode=1.5 high=2.5'),
    checked; `where` names the table row in the error."""
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise TinkerNomicsError(f"{where} column distribution: {kind!r} is not one of {', '.join(KINDS)}")
    params = _parse_params(parameters, where)
    missing = [name for name in KINDS[kind] if name not in params]
    if missing:
        raise TinkerNomicsError(f"{where}: {kind} needs {', '.join(missing)}")
    if kind in ("uniform", "triangular", "loguniform") and not (
            params["low"] <= params.get("mode", params["low"]) <= params["high"]):
        raise TinkerNomicsError(f"{where}: needs low <= mode <= high")
    if kind == "loguniform" and params["low"] <= 0:
        raise TinkerNomicsError(f"{where}: loguniform needs low > 0")
    return kind, params


def stream(seed: int, name: str) -> np.random.Generator:
    """A seeded random stream of its own for `name` (a workload, or another quantity the planner draws)."""
    return _rng(seed, name)


@functools.lru_cache(maxsize=None)
def distributions() -> tuple[Distribution, ...]:
    rows = load_table("assumptions/uncertainty.csv", [
        Column("parameter"), Column("applies_to"), Column("distribution"), Column("parameters"),
        Column("relative_to_preset", "bool"), Column("source"), Column("reason"), Column("methods", required=False)])
    known = set(workloads())
    out = []
    for r in rows:
        where = f"assumptions/uncertainty.csv row {r['_row']}"
        if r["parameter"] not in BOUNDS:
            raise TinkerNomicsError(f"{where} column parameter: {r['parameter']!r} is not a numeric Scenario field")
        kind, params = parse_distribution(r["distribution"], r["parameters"], where)
        applies = tuple(r["applies_to"].split())
        unknown = [w for w in applies if w != "all" and w not in known]
        if unknown:
            raise TinkerNomicsError(f"{where} column applies_to: unknown workload(s) {', '.join(unknown)}")
        methods = tuple(r["methods"].split()) if r["methods"] else METHODS
        if set(methods) - set(METHODS):
            raise TinkerNomicsError(f"{where} column methods: {r['methods']!r} names a method not in {', '.join(METHODS)}")
        out.append(Distribution(r["parameter"], applies, kind, params, r["relative_to_preset"], r["source"],
                                r["reason"], methods))
    return tuple(out)


def for_workload(workload: str, method: str = DEFAULT_METHOD) -> dict[str, Distribution]:
    """The distributions that apply to one workload under one method (at most one row per parameter)."""
    chosen: dict[str, Distribution] = {}
    for dist in distributions():
        if dist.applies(workload) and method in dist.methods:
            if dist.parameter in chosen:
                raise TinkerNomicsError(f"assumptions/uncertainty.csv: two rows give {dist.parameter} for {workload}")
            chosen[dist.parameter] = dist
    return chosen


def _param(value: float) -> str:
    """A distribution's parameter as the book prints it: three significant digits (a fitted sigma of 0.258484 reads
    0.258), whole numbers from 1,000 up."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def table() -> pd.DataFrame:
    """The distributions as the book prints them."""
    return pd.DataFrame([{"parameter": d.parameter, "workloads": " ".join(d.applies_to),
                          "methods": " ".join(d.methods), "distribution": d.describe(), "source": d.source,
                          "reason": d.reason} for d in distributions()])


def probability_text(p: float) -> str:
    """A probability for prose: '<1%' and '>99%' rather than a rounded 0% or 100%."""
    p = float(p)
    if p < 0.005:
        return "<1%" if p > 0 else "0%"
    if p > 0.995:
        return ">99%" if p < 1 else "100%"
    return f"{100 * p:.0f}%"


def _rng(seed: int, workload: str) -> np.random.Generator:
    # One independent stream per workload, so adding a workload does not change another's draws.
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(workload.encode())]))


def draw_inputs(workload: str, resolved: Scenario, n: int, seed: int = 0, method: str | None = None,
                leave_out=()) -> dict[str, np.ndarray]:
    """n draws of every uncertain input data/assumptions/uncertainty.csv gives `workload` under `method` (a
    relative row scales the resolved scenario's value), from the workload's own seeded stream: the one sampler
    the Monte-Carlo and the planner share. `leave_out` names inputs the caller fixes (the planner keeps the
    off-policy bound the user chose); they are still drawn, so the other inputs' draws do not change."""
    rng = _rng(seed, workload)
    draws = {}
    method = method or str(resolved.method)
    for name, dist in sorted(for_workload(workload, method).items()):
        if name == "model_error_factor" and method == "calibrated":
            # the calibrated model's own held-out error, widest over the regimes this scenario falls in
            dist = dataclasses.replace(dist, params={**dist.params, "sigma": scenario_model_error(resolved)})
        values = dist.draw(n, _rng(seed, f"{workload}:{name}") if name in OWN_STREAM else rng)
        if dist.relative:
            values = values * float(getattr(resolved, name))
        if name not in leave_out:
            draws[name] = values
    return draws


@dataclass(frozen=True)
class MonteCarlo:
    workload: str
    snapshot: str
    model: str
    successor: bool
    cached_billing: bool
    draws: dict                  # parameter -> array of the values used (after scaling by the preset)
    tinker_usd: np.ndarray
    self_hosted_usd: np.ndarray
    point_tinker_usd: float      # the preset itself, no draws
    point_self_hosted_usd: float
    tinker_not_offered: str | None = None   # why Tinker's list bills neither the model nor a successor (its dollars
                                            # are then NaN, and no comparison of the two sides can be made)
    tinker_hours: np.ndarray | None = None  # each draw's wall-clock on Tinker (NaN where not offered) and on the
    self_hosted_hours: np.ndarray | None = None   # rented GPUs, and the preset's own (no draws)
    point_tinker_hours: float = float("nan")
    point_self_hosted_hours: float = float("nan")

    @property
    def n(self) -> int:
        return int(self.tinker_usd.size)

    def _compared(self, what: str) -> None:
        if self.tinker_not_offered is not None:
            raise TinkerNomicsError(f"{what} needs Tinker's bill, and Tinker does not offer this run: "
                                    f"{self.tinker_not_offered}")

    @property
    def ratio(self) -> np.ndarray:
        """Self-hosted / Tinker per draw (above 1: Tinker is cheaper)."""
        self._compared("self-hosted / Tinker")
        return self.self_hosted_usd / self.tinker_usd

    @property
    def p_tinker_cheaper(self) -> float:
        self._compared("P(Tinker cheaper)")
        return float(np.mean(self.tinker_usd <= self.self_hosted_usd))

    @property
    def p_self_hosted_cheaper(self) -> float:
        """The share of draws where self-hosting is cheaper: 1 − P(Tinker cheaper) (a tie counts for Tinker)."""
        return 1.0 - self.p_tinker_cheaper

    @property
    def majority_share(self) -> float:
        """The share of draws that agree with the more frequent verdict, whichever side it is (at least 0.5):
        how firm the verdict is."""
        return max(self.p_tinker_cheaper, self.p_self_hosted_cheaper)

    @property
    def tinker_median_over_point(self) -> float:
        """The median Tinker bill over the draws, as a multiple of the preset's point estimate."""
        self._compared("Tinker's median over its point estimate")
        return float(np.median(self.tinker_usd)) / self.point_tinker_usd

    def median_input(self, parameter: str, cheaper: str | None = None) -> float:
        """The median drawn value of one input, over all draws or only those where `cheaper` ("tinker" or
        "self_hosted") wins, e.g. the MFU of the draws in which Tinker beats a training-bound run."""
        values = self.draws[parameter]
        if cheaper is None:
            return float(np.median(values))
        self._compared("the draws where one side is cheaper")
        tinker_wins = self.tinker_usd <= self.self_hosted_usd
        if cheaper not in ("tinker", "self_hosted"):
            raise ValueError(f"cheaper must be 'tinker', 'self_hosted' or None, not {cheaper!r}")
        return float(np.median(values[tinker_wins if cheaper == "tinker" else ~tinker_wins]))

    def share_at_least(self, parameter: str, value: float) -> float:
        """The share of draws whose `parameter` is at least `value` (NaN when the parameter is not drawn), e.g. how
        many draws of the model error are as slow as a measured run."""
        if parameter not in self.draws:
            return float("nan")
        return float(np.mean(np.asarray(self.draws[parameter]) >= value))

    def quantiles(self, q=QUANTILES) -> dict[str, np.ndarray]:
        """The quantiles of both bills and of their ratio, and of both wall-clocks (hours): NaN for Tinker's and the
        ratio when Tinker does not offer the run (`tinker_not_offered` says why)."""
        hours = {"self_hosted_hours": np.quantile(self.self_hosted_hours, q)}
        if self.tinker_not_offered is not None:
            unknown = np.full(np.shape(q), np.nan)
            return {"tinker": unknown, "self_hosted": np.quantile(self.self_hosted_usd, q), "ratio": unknown,
                    "tinker_hours": unknown, **hours}
        return {"tinker": np.quantile(self.tinker_usd, q), "self_hosted": np.quantile(self.self_hosted_usd, q),
                "ratio": np.quantile(self.ratio, q), "tinker_hours": np.quantile(self.tinker_hours, q), **hours}

    def influence(self) -> pd.Series:
        """Spearman rank correlation of each drawn input with log(self-hosted / Tinker): its sign says which
        way the input pushes the verdict, its size how much of the spread it explains (an input that moves only a
        wall-clock, TIME_ONLY, is left out)."""
        target = _ranks(np.log(self.ratio))
        out = {}
        for name, values in self.draws.items():
            if np.ptp(values) == 0 or name in TIME_ONLY:
                continue
            out[name] = float(np.corrcoef(_ranks(values), target)[0, 1])
        return pd.Series(out).sort_values(key=np.abs, ascending=False)


def _ranks(values: np.ndarray) -> np.ndarray:
    return pd.Series(values).rank(method="average").to_numpy()


def simulate(workload: str, n: int = DEFAULT_DRAWS, seed: int = 0, snapshot: str | None = None,
             **overrides) -> MonteCarlo:
    """n draws of the uncertain inputs of one workload, through one `estimate` call.

    Under the calibrated method (the default) the preset is priced as the estimate prices it (the newest list
    unless `snapshot` names another; a retired model billed on its successor, cached prefill where the list
    has a cached rate) and the model's own error is drawn. Under the seed or exact method, snapshot None keeps
    the preset's own price snapshot (January 2026 for the takeaway workloads); any other snapshot bills the
    preset's model or, when retired, its successor on both sides (sources.successors.model_for), with cached
    prefill where the snapshot has a cached rate."""
    base = Scenario.from_workload(workload, **overrides)
    method = str(base.method or DEFAULT_METHOD)
    successor = False
    cached = False
    if method == "calibrated":
        if snapshot is not None:
            base = base.replace(prices=snapshot)
        resolved = base.resolved()
        billed = billed_as(resolved.model, resolved.prices)     # None: Tinker does not offer the run
        successor = billed is not None and billed[1] is not None
        cached = bool(resolved.tinker_cached_prefill)
    elif snapshot is not None:
        billed = billed_as(base.model, snapshot)
        model, succ = billed if billed is not None else (base.model, None)
        cached = billed is not None and timeline.has_cached_rate(model, snapshot)
        base = base.replace(model=model, prices=snapshot, tinker_cached_prefill=cached)
        successor = succ is not None
    resolved = base.resolved()
    return _monte_carlo(workload, base, resolved, draw_inputs(workload, resolved, n, seed, method), successor,
                        cached)


def around(scenario: Scenario, workload: str | None = None, n: int = DEFAULT_DRAWS, seed: int = 0,
           fixed=()) -> MonteCarlo:
    """The spread of one estimate, as `estimate` answers it: n draws of the inputs nobody knows in advance around
    `scenario` (the rows of data/assumptions/uncertainty.csv for `workload`, the preset it starts from, or those for
    every workload when it starts from none), the inputs a user set (`fixed`) left as given. A preset with nothing
    set draws what `simulate` draws for it, so the command line states the book's verdict."""
    resolved = scenario.resolved()
    billed = billed_as(resolved.model, resolved.prices)
    successor = billed is not None and billed[1] is not None
    draws = draw_inputs(workload or "custom", resolved, n, seed, str(resolved.method), leave_out=tuple(fixed))
    return _monte_carlo(workload or "custom", scenario, resolved, draws, successor,
                        bool(resolved.tinker_cached_prefill))


def _monte_carlo(workload: str, base: Scenario, resolved: Scenario, draws: dict, successor: bool,
                 cached: bool) -> MonteCarlo:
    """`base` at its point and at every draw, through one `estimate` call."""
    n = len(next(iter(draws.values()))) if draws else 1
    point = estimate(base)
    est = estimate(base.replace(**draws)) if draws else point
    if est.self_hosted is None:
        raise TinkerNomicsError(f"the Monte-Carlo needs the self-hosted side, and {resolved.model} has no published "
                                f"architecture")
    # one value per draw, also for a quantity no drawn input moves (a constant bill, or nothing drawn at all)
    tinker_usd, tinker_hours, self_hosted_usd, self_hosted_hours = (
        np.broadcast_to(np.asarray(x, dtype=float), (n,)) for x in (
            est.tinker.total_usd, est.tinker_time.wallclock_hours, est.self_hosted.total_usd,
            est.self_hosted.wallclock_hours))
    return MonteCarlo(workload, resolved.prices, resolved.model, successor, cached, draws, tinker_usd, self_hosted_usd,
                      float(point.tinker.total_usd), float(point.self_hosted.total_usd), est.tinker_not_offered,
                      tinker_hours, self_hosted_hours, float(point.tinker_time.wallclock_hours),
                      float(point.self_hosted.wallclock_hours))


def scenario_regimes(scenario: Scenario) -> tuple[str, ...]:
    """The regimes of data/calibration/errors_by_regime.csv a resolved scenario falls in: mixture-of-experts, LoRA,
    long context (a sequence of 8k tokens or more), a compute-poor GPU."""
    from ..sources import get_arch, gpu_specs, has_arch
    from ..sources.hf_config import load_config
    from .calibration import COMPUTE_POOR_FLOPS_PER_BYTE, LONG_CONTEXT_TOKENS
    out = []
    arch = load_config(scenario.model_config) if scenario.model_config else \
        (get_arch(scenario.model) if has_arch(scenario.model) else None)
    if arch is not None and arch.is_moe:
        out.append("moe")
    if scenario.fine_tune == "lora":
        out.append("lora")
    turns = np.asarray(scenario.turns, dtype=float)
    sequence = np.where(turns > 1, np.asarray(scenario.prompt_tokens, dtype=float) + turns * (
        np.asarray(scenario.output_per_turn, dtype=float) + np.asarray(scenario.observation_per_turn, dtype=float)),
        np.asarray(scenario.prompt_tokens, dtype=float) + np.asarray(scenario.completion_tokens, dtype=float)
        * np.asarray(scenario.length_growth, dtype=float))
    if np.any(sequence >= LONG_CONTEXT_TOKENS):
        out.append("long_context")
    gpus = gpu_specs(scenario.gpu)
    if np.any(gpus.bf16_flops / gpus.bandwidth_bytes_per_s < COMPUTE_POOR_FLOPS_PER_BYTE):
        out.append("compute_poor")
    return tuple(out)


def scenario_model_error(scenario: Scenario) -> float:
    """The model error the Monte-Carlo draws for a scenario: the widest held-out spread of the RL step among the
    regimes it falls in (where at least two families were held out), else the spread over every case."""
    return max([model_error("rl_step")] + [model_error("rl_step", r) for r in scenario_regimes(scenario)])


def summary(workload_names, n: int = DEFAULT_DRAWS, seed: int = 0, snapshot: str | None = None,
            **overrides) -> pd.DataFrame:
    """P10/P50/P90 of both sides' bills and wall-clocks (hours), the preset's point estimate of each and P(Tinker
    cheaper), one row per workload."""
    rows = []
    for name in workload_names:
        mc = simulate(name, n=n, seed=seed, snapshot=snapshot, **overrides)
        q = mc.quantiles()
        rows.append({"workload": name, "snapshot": mc.snapshot, "model": mc.model, "successor": mc.successor,
                     "draws": mc.n,
                     **{f"tinker_p{int(100 * p)}": v for p, v in zip(QUANTILES, q["tinker"])},
                     "tinker_point": mc.point_tinker_usd,
                     **{f"self_hosted_p{int(100 * p)}": v for p, v in zip(QUANTILES, q["self_hosted"])},
                     "self_hosted_point": mc.point_self_hosted_usd,
                     **{f"ratio_p{int(100 * p)}": v for p, v in zip(QUANTILES, q["ratio"])},
                     **{f"tinker_hours_p{int(100 * p)}": v for p, v in zip(QUANTILES, q["tinker_hours"])},
                     "tinker_hours_point": mc.point_tinker_hours,
                     **{f"self_hosted_hours_p{int(100 * p)}": v for p, v in zip(QUANTILES, q["self_hosted_hours"])},
                     "self_hosted_hours_point": mc.point_self_hosted_hours,
                     "p_tinker_cheaper": None if mc.tinker_not_offered else mc.p_tinker_cheaper,
                     "tinker_not_offered": mc.tinker_not_offered})
    return pd.DataFrame(rows)


def clear_caches() -> None:
    distributions.cache_clear()
