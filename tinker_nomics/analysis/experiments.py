"""The empirical validation chapter's arithmetic: the seed's two Tinker runs checked against the cost model.

Exp 1a (GSM8K) and exp 1b (MATH) trained Qwen3-4B-Instruct-2507 with GRPO on Tinker and on 8 × B200 with
veRL. Their measured figures live in data/experiments/seed_experiments.csv; the bill reconciliation and the
predicted-vs-actual table per meter are `validate.seed_experiment`. This module adds what the chapter asks of
those figures and the package lacked:

- `error_sources`: the prediction's error per meter split by cause (completion length, prompt length, prompts
  in the train meter, eval rollouts, the rounding of the printed totals), summing exactly to predicted − measured;
- `informed_scenario`: the cost model re-run with the lengths and eval schedule the runs measured;
- `prefill_evidence`: prefill per step as logged against per-rollout (B·G·P) and per-group (B·P) billing,
  and the console's token count against the logged sums under both;
- `cached_savings`: what Tinker's cached-prefill rate (a share of prefill, from 2026-07-17) would have taken
  off these bills had G−1 of every G training prompts hit the cache;
- `verl_comparison`: Tinker against veRL on 8 × B200 against the cost model at the default and the measured MFU;
- `experiment_ratios`: exp 1b over exp 1a, and `blended_rate`, the $/M a bill's meter mix implies.

Signed errors follow `validate.SIGN_CONVENTION`: (predicted − measured) / measured.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ..errors import TinkerNomicsError
from ..model import tokens
from ..model.billing import meter_cost
from ..model.estimate import Estimate, estimate
from ..model.scenario import Scenario
from ..runs.meters import METERS, MeterTokens
from ..sources.literature import experiment, seed_experiments
from ..sources.price_list import newest_snapshot, priced_models, resolve_snapshot
from ..sources.prices import get_price
from ..sources.workloads import get_workload
from .compare import cached_prefill_share
from .seed_experiments import SEED_WORKLOADS, seed_experiment

EXPERIMENTS = tuple(SEED_WORKLOADS)
LABELS = {"exp1a": "exp 1a (GSM8K)", "exp1b": "exp 1b (MATH)"}
# What each run's held-out accuracy was measured on, and the recorded quantities (Tinker, veRL).
ACCURACY = {"exp1a": ("GSM8K test", "tinker_gsm8k_accuracy", "verl_gsm8k_accuracy"),
            "exp1b": ("MATH-500", "tinker_math500_accuracy", "verl_math500_accuracy_step35")}
CAUSES = ("completion length", "prompt length", "prompts in the train meter", "eval rollouts", "rounding")


def _check(name: str) -> str:
    if name not in SEED_WORKLOADS:
        raise TinkerNomicsError(f"unknown seed experiment {name!r}; known: {', '.join(SEED_WORKLOADS)}")
    return name


def _measured(name: str) -> MeterTokens:
    return seed_experiment(name).bill.meters


def _signed_error(predicted: float, measured: float) -> float:
    return (predicted - measured) / measured if measured else math.nan


# ------------------------------------------------------------------------------------------ the prediction's error


def informed_scenario(name: str) -> Scenario:
    """The run's preset with what the run measured: the average completion and prompt length (no growth), the
    eval schedule (an eval every ceil(S / evals) steps, so the cookbook's count ceil(S / every) gives the logged
    number of evals) over the eval set, and the exact method (train = prompt + completion, as Tinker bills)."""
    _check(name)
    steps = experiment(name, "steps")
    evals = experiment(name, "eval_runs")
    every = float(math.ceil(steps / evals))
    if float(tokens.eval_runs(steps, every)) != evals:
        raise TinkerNomicsError(f"{name}: no eval cadence gives {evals:g} evals in {steps:g} steps")
    return Scenario.from_workload(SEED_WORKLOADS[name], completion_tokens=experiment(name, "avg_completion_tokens"),
                                  length_growth=1.0, prompt_tokens=experiment(name, "prompt_tokens_per_rollout"),
                                  eval_every=every, eval_prompts=experiment(name, "eval_problems"), method="exact")


def error_sources(name: str, scenario: Scenario | None = None) -> pd.DataFrame:
    """Predicted − measured tokens and dollars per meter, split by cause; the rows of a meter add up to its
    error exactly. `scenario` defaults to the run's preset (the seed's prediction).

    sample:  training completions (length) + eval completions + rounding
    train:   completions trained (length) + prompts trained + rounding
    prefill: training prompts (length) + eval prompts + rounding
    "rounding" is what the seed's printed meter totals leave over its printed parts (±0.05M each)."""
    _check(name)
    est = estimate(scenario if scenario is not None else Scenario.from_workload(SEED_WORKLOADS[name], method="seed"))
    m = _measured(name)
    price = seed_experiment(name).bill.price
    t = est.tokens
    substeps = float(est.scenario.substeps)
    train_completion = float(t.rollouts * est.per_rollout.output) * substeps
    rows = [
        ("sample", "completion length", float(t.sample - t.eval_sample) - m.train_completion),
        ("sample", "eval rollouts", float(t.eval_sample) - m.eval_sample),
        ("sample", "rounding", m.train_completion + m.eval_sample - m.sample),
        ("train", "completion length", train_completion - m.train_completion),
        ("train", "prompts in the train meter", float(t.train) - train_completion - m.train_prompt),
        ("train", "rounding", m.train_completion + m.train_prompt - m.train),
        ("prefill", "prompt length", float(t.prefill - t.eval_prefill) - m.train_prompt),
        ("prefill", "eval rollouts", float(t.eval_prefill) - m.eval_prefill),
        ("prefill", "rounding", m.train_prompt + m.eval_prefill - m.prefill),
    ]
    frame = pd.DataFrame(rows, columns=["meter", "cause", "tokens"])
    frame["usd"] = [float(meter_cost(tok, price.rate(meter))) for meter, tok in zip(frame["meter"], frame["tokens"])]
    return frame


def error_by_cause(frame: pd.DataFrame) -> pd.Series:
    """Dollars of prediction error per cause over all meters (an `error_sources` frame), in CAUSES order, and
    their sum ("net": predicted − measured dollars)."""
    sums = frame.groupby("cause")["usd"].sum()
    out = {c: float(sums.get(c, 0.0)) for c in CAUSES}
    out["net"] = float(frame["usd"].sum())
    return pd.Series(out)


def prediction_summary(name: str) -> dict:
    """The three totals the chapter compares: the preset's prediction, the measured-input prediction, and the
    bill from the logged token sums, each against Tinker's real bill."""
    e = seed_experiment(name)
    preset = estimate(Scenario.from_workload(SEED_WORKLOADS[name], method="seed"))
    informed = estimate(informed_scenario(name))
    billed = e.billed_usd
    out = {"billed_usd": billed, "logged_usd": e.computed_usd, "logged_error": e.error,
           "logged_error_low": e.error_range[0], "logged_error_high": e.error_range[1],
           "rounding_usd": e.rounding_usd,
           "preset_usd": float(preset.tinker.tokens_usd), "preset_error": _signed_error(float(preset.tinker.tokens_usd), billed),
           "informed_usd": float(informed.tinker.tokens_usd),
           "informed_error": _signed_error(float(informed.tinker.tokens_usd), billed),
           "preset_tokens": float(preset.tokens.sample + preset.tokens.train + preset.tokens.prefill),
           "logged_tokens": e.bill.meters.total, "console_tokens": experiment(name, "console_tokens")}
    out["preset_completion_avg"] = float(preset.per_rollout.output)
    return out


def meter_frame() -> pd.DataFrame:
    """Both experiments' predicted-vs-logged table per meter (`validate.seed_experiment(...).table`), stacked."""
    frames = []
    for name in EXPERIMENTS:
        t = seed_experiment(name).table.copy()
        t.insert(0, "experiment", name)
        frames.append(t)
    return pd.concat(frames, ignore_index=True)


# ------------------------------------------------------------------------------------------ prefix caching


@dataclass(frozen=True)
class PrefillEvidence:
    """Prompt tokens per training step, as logged and under the two ways Tinker could bill a group's prompt."""
    name: str
    prompts_per_step: float       # B
    group_size: float             # G
    steps: float
    prompt_tokens: float          # P, the run's average prompt
    logged_per_step: float        # training prompt tokens / steps
    logged_total: float           # sample + train + prefill from the logs
    console_total: float          # Tinker's console count of billable tokens
    group_hits: float             # training prompt tokens a per-group cache would not bill: (G−1)/G of them

    @property
    def rollouts_per_step(self) -> float:
        """B·G."""
        return self.prompts_per_step * self.group_size

    @property
    def per_rollout(self) -> float:
        """B·G·P: every rollout pays for its prompt."""
        return self.prompts_per_step * self.group_size * self.prompt_tokens

    @property
    def per_group(self) -> float:
        """B·P: the group's G rollouts share one prefill."""
        return self.prompts_per_step * self.prompt_tokens

    @property
    def per_group_total(self) -> float:
        """The billable tokens the console would have shown had Tinker billed each group's prompt once."""
        return self.logged_total - self.group_hits

    @property
    def logged_vs_per_rollout(self) -> float:
        return self.logged_per_step / self.per_rollout

    @property
    def logged_vs_per_group(self) -> float:
        return self.logged_per_step / self.per_group

    @property
    def console_vs_logged(self) -> float:
        return _signed_error(self.logged_total, self.console_total)

    @property
    def console_vs_per_group(self) -> float:
        return _signed_error(self.per_group_total, self.console_total)


def prefill_evidence(name: str) -> PrefillEvidence:
    _check(name)
    w = get_workload(SEED_WORKLOADS[name]).fields
    b, g = float(w["prompts_per_step"]), float(w["group_size"])
    m = _measured(name)
    steps = experiment(name, "steps")
    return PrefillEvidence(name, b, g, steps, experiment(name, "prompt_tokens_per_rollout"), m.train_prompt / steps,
                           m.total, experiment(name, "console_tokens"), m.train_prompt * (g - 1.0) / g)


def cached_shares(snapshot: str | None = None) -> dict[float, int]:
    """Tinker's cached-prefill rate as a share of its prefill rate in a snapshot (the newest by default): each
    share and how many priced models it applies to, most common first."""
    snap = resolve_snapshot(snapshot or newest_snapshot())
    counts: dict[float, int] = {}
    for model in priced_models():
        try:
            share = cached_prefill_share(get_price(model, snap))
        except TinkerNomicsError:
            continue
        if share is not None:
            counts[round(share, 6)] = counts.get(round(share, 6), 0) + 1
    if not counts:
        raise TinkerNomicsError(f"snapshot {snap} lists no cached-prefill rate")
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def cached_share(snapshot: str | None = None) -> float:
    """The cached-prefill share most of a snapshot's models are billed at (20% from 2026-07-17)."""
    return next(iter(cached_shares(snapshot)))


def cached_share_models(snapshot: str | None = None) -> tuple[int, int]:
    """How many of a snapshot's models with a cached-prefill rate are billed at `cached_share`, and how many
    have a cached-prefill rate at all."""
    counts = cached_shares(snapshot)
    return next(iter(counts.values())), sum(counts.values())


@dataclass(frozen=True)
class CachedSavings:
    """The run's bill (from its logged tokens, at its own snapshot) with G−1 of every G training prompts billed
    at a cached rate: Tinker's share of the prefill rate, and the seed's hypothetical of free hits."""
    name: str
    snapshot: str                 # the rates of the bill
    share: float                  # cached rate / prefill rate
    share_snapshot: str           # where the share comes from
    prefill_rate: float
    hits: float                   # prompt tokens billed at the cached rate
    bill_usd: float               # uncached, from the logged tokens
    prefill_usd: float

    @property
    def cached_rate(self) -> float:
        return self.share * self.prefill_rate

    @property
    def saving_usd(self) -> float:
        return float(meter_cost(self.hits, self.prefill_rate - self.cached_rate))

    @property
    def free_saving_usd(self) -> float:
        """The seed's hypothetical: hits free."""
        return float(meter_cost(self.hits, self.prefill_rate))

    @property
    def saving_share(self) -> float:
        return self.saving_usd / self.bill_usd

    @property
    def cached_bill_usd(self) -> float:
        return self.bill_usd - self.saving_usd


def cached_savings(name: str, share_snapshot: str | None = None) -> CachedSavings:
    """What cached-prefill billing would have saved on the run. The run's model left Tinker's price lists at
    the repricing, so the share of the newest snapshot is applied to the run's own (January 2026) rates."""
    _check(name)
    e = seed_experiment(name)
    ev = prefill_evidence(name)
    snap = resolve_snapshot(share_snapshot or newest_snapshot())
    return CachedSavings(name, e.bill.prices, cached_share(snap), snap, e.bill.price.rate("prefill"), ev.group_hits,
                         e.computed_usd, e.bill.prefill_usd)


# ------------------------------------------------------------------------------------------ veRL on 8 × B200


@dataclass(frozen=True)
class VerlComparison:
    """One experiment on Tinker and on veRL (8 × B200, colocated), and the cost model for that hardware."""
    name: str
    gpu: str
    num_gpus: float
    gpu_hourly_usd: float         # the rate every self-hosted dollar here uses
    rate_basis: str
    default_hourly_usd: float     # the registry's default rate for the GPU (what `estimate` uses unless told)
    tinker_minutes: float
    tinker_usd: float             # the real bill
    verl_minutes: float
    verl_projected: bool          # the run crashed; the minutes are the seed's projection to the full run
    verl_usd: float
    verl_usd_recorded: bool       # the seed printed the cost (else minutes × GPUs × rate)
    verl_mfu: float
    default_mfu: float
    accuracy_metric: str
    tinker_accuracy: float
    verl_accuracy: float
    setup_hours: float            # veRL setup time the seed recorded (NaN when it recorded none)
    rows: pd.DataFrame            # system, mfu, minutes, usd, rollout/train minutes, rollout share

    def row(self, system: str) -> pd.Series:
        return self.rows.set_index("system").loc[system]

    @property
    def setup_usd(self) -> float:
        """The setup hours, had the GPUs been rented while setting up."""
        return self.setup_hours * self.num_gpus * self.gpu_hourly_usd

    @property
    def verl_over_model(self) -> float:
        """veRL's wall-clock over the cost model's at the measured MFU."""
        return self.verl_minutes / float(self.row("model, measured MFU")["minutes"])

    @property
    def unexplained_minutes(self) -> float:
        """veRL's wall-clock the cost model does not account for at the measured MFU."""
        return self.verl_minutes - float(self.row("model, measured MFU")["minutes"])

    @property
    def setup_over_tinker(self) -> float:
        return self.setup_usd / self.tinker_usd

    @property
    def default_rate_premium(self) -> float:
        """How much dearer the registry's default GPU rate is than the rate used here."""
        return self.default_hourly_usd / self.gpu_hourly_usd - 1.0

    @property
    def verl_over_tinker_usd(self) -> float:
        return self.verl_usd / self.tinker_usd

    @property
    def verl_over_tinker_minutes(self) -> float:
        return self.verl_minutes / self.tinker_minutes


def cluster_hourly_usd() -> float:
    """$/GPU-hour the seed's exp 1a veRL cost implies: cost / (GPUs × hours)."""
    gpus = float(get_workload(SEED_WORKLOADS["exp1a"]).fields["num_gpus"])
    return experiment("exp1a", "verl_cost_usd") / (gpus * experiment("exp1a", "verl_wallclock_min") / 60.0)


def _model_row(label: str, est: Estimate) -> dict:
    h = est.self_hosted
    wall = float(h.wallclock_hours)
    return {"system": label, "mfu": float(est.scenario.mfu), "minutes": wall * 60.0, "usd": float(h.total_usd),
            "rollout_minutes": float(h.rollout_hours) * 60.0, "train_minutes": float(h.train_hours) * 60.0,
            "rollout_share": float(h.rollout_hours) / wall if wall else math.nan}


def verl_comparison(name: str, gpu_hourly_usd: float | None = None) -> VerlComparison:
    """Tinker vs veRL vs the cost model (the run's preset on its GPU, at the preset's MFU and at veRL's measured
    MFU). Self-hosted dollars use one rate: `gpu_hourly_usd`, by default the rate exp 1a's recorded veRL cost
    implies (both runs used the same cluster), so measured and predicted dollars compare hours with hours."""
    _check(name)
    have = seed_experiments()[name]
    preset = Scenario.from_workload(SEED_WORKLOADS[name], method="seed")
    resolved = preset.resolved()
    if gpu_hourly_usd is None:
        rate, basis = cluster_hourly_usd(), "implied by exp 1a's recorded veRL cost"
    else:
        rate, basis = float(gpu_hourly_usd), "given"
    gpus = float(resolved.num_gpus)
    projected = "verl_wallclock_min" not in have
    verl_minutes = experiment(name, "verl_wallclock_projected_min" if projected else "verl_wallclock_min")
    recorded = "verl_cost_usd" in have
    verl_usd = experiment(name, "verl_cost_usd") if recorded else verl_minutes / 60.0 * gpus * rate
    measured_mfu = experiment(name, "verl_mfu")
    default_mfu = float(resolved.mfu)
    metric, tinker_acc, verl_acc = ACCURACY[name]
    rows = [{"system": "Tinker", "mfu": math.nan, "minutes": experiment(name, "tinker_wallclock_min"),
             "usd": experiment(name, "billed_usd"), "rollout_minutes": math.nan, "train_minutes": math.nan,
             "rollout_share": math.nan},
            {"system": "veRL" + (" (projected)" if projected else ""), "mfu": measured_mfu, "minutes": verl_minutes,
             "usd": verl_usd, "rollout_minutes": math.nan, "train_minutes": math.nan, "rollout_share": math.nan},
            _model_row("model, default MFU", estimate(preset.replace(gpu_hourly_usd=rate))),
            _model_row("model, measured MFU", estimate(preset.replace(gpu_hourly_usd=rate, mfu=measured_mfu)))]
    return VerlComparison(
        name, str(resolved.gpu), gpus, rate, basis, float(resolved.gpu_hourly_usd),
        experiment(name, "tinker_wallclock_min"), experiment(name, "billed_usd"), verl_minutes, projected, verl_usd,
        recorded, measured_mfu, default_mfu, metric, experiment(name, tinker_acc), experiment(name, verl_acc),
        experiment(name, "verl_setup_hours") if "verl_setup_hours" in have else math.nan, pd.DataFrame(rows))


@dataclass(frozen=True)
class LengthDrift:
    """Exp 1b's veRL completions grew during the run; Tinker's did not. The cost model's Tinker bill for the
    run as measured, and for the same run had its completions drifted like veRL's."""
    start: float
    end: float
    stable_usd: float
    drift_usd: float
    step_seconds_start: float
    step_seconds_end: float
    tinker_lr: float
    verl_lr: float

    @property
    def growth(self) -> float:
        return self.end / self.start

    @property
    def step_growth(self) -> float:
        return self.step_seconds_end / self.step_seconds_start

    @property
    def lr_ratio(self) -> float:
        return self.tinker_lr / self.verl_lr

    @property
    def increase(self) -> float:
        return self.drift_usd / self.stable_usd - 1.0


def length_drift(name: str = "exp1b") -> LengthDrift:
    base = informed_scenario(name)
    start = experiment(name, "verl_response_tokens_start")
    end = experiment(name, "verl_response_tokens_end")
    stable = float(estimate(base).tinker.tokens_usd)
    drift = float(estimate(base.replace(completion_tokens=start, length_growth=end / start)).tinker.tokens_usd)
    return LengthDrift(start, end, stable, drift, experiment(name, "verl_step_seconds_start"),
                       experiment(name, "verl_step_seconds_final"), experiment(name, "tinker_lr"),
                       experiment(name, "verl_lr"))


# ------------------------------------------------------------------------------------------ 1a against 1b


def blended_rate(meters: MeterTokens, price) -> float:
    """USD per million billed tokens that a meter mix implies at a price: Σ rate × share of tokens."""
    usd = sum(float(meter_cost(getattr(meters, m), price.rate(m))) for m in METERS)
    return usd / meters.total * 1e6


def experiment_ratios(a: str = "exp1a", b: str = "exp1b") -> pd.DataFrame:
    """Side by side, with b / a: the bill, the console's tokens, average completion and prompt, steps, tokens
    and dollars per step, the effective $/M (bill / console tokens), the prefill share of the logged tokens
    and the $/M that share implies at the list rates."""
    def values(name):
        e = seed_experiment(name)
        m = e.bill.meters
        billed, console, steps = e.billed_usd, experiment(name, "console_tokens"), experiment(name, "steps")
        return {"bill (USD)": billed, "billable tokens (console)": console,
                "average completion (tokens)": experiment(name, "avg_completion_tokens"),
                "average prompt (tokens)": experiment(name, "prompt_tokens_per_rollout"), "steps": steps,
                "tokens per step": console / steps, "USD per step": billed / steps,
                "effective USD per million": billed / console * 1e6,
                "prefill share of tokens": m.prefill / m.total,
                "USD per million from the meter mix": blended_rate(m, e.bill.price)}
    left, right = values(_check(a)), values(_check(b))
    return pd.DataFrame({"quantity": list(left), a: list(left.values()), b: list(right.values()),
                         "ratio": [right[k] / left[k] for k in left]})
