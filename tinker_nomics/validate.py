"""What a finished run cost, from its logs, and how far the cost model's prediction was off.

Reconciliation (the accounting the seed measured against two real Tinker bills, to 0.2% and 0.1%;
shared/spec/contract.md):

    sample  = training completion tokens + eval completion tokens
    train   = training prompt tokens + training completion tokens     (each datum, prompt included)
    prefill = every prompt token, training and eval
    cached prefill = the part of prefill billed at the snapshot's cached rate, when there is one: the
                     sampler's logged cache hits, or an assumption the caller states (`cached_prefill`)

Rates come from `prices.get_price` (a dated snapshot) and money from `billing.meter_cost`; nothing here
types a price. Calibration recovers the cost model's inputs from the same logs (average completion and
prompt length per episode, length growth from the first and last part of the run, eval cadence and size,
B×G from the episode counts), re-predicts the run with `Scenario`/`estimate`, and reports predicted versus
measured per meter with the signed error (predicted − measured) / measured.

The seed's experiments 1a and 1b are reproduced the same way from the token totals the seed reports
(data/experiments/seed_experiments.csv): `seed_experiment("exp1a")`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from . import fmt, registry
from .billing import meter_cost
from .errors import TinkerNomicsError
from .literature import experiment, seed_experiments
from .prices import Price, get_price, price_rows, resolve_snapshot, snapshots
from .runs import BundledRun, RunLog, bundled_for_path, bundled_runs, read_run
from .scenario import Scenario, estimate
from .workloads import get_workload

SIGN_CONVENTION = "signed error = (predicted - measured) / measured; positive means the cost model over-predicts"
METERS = ("sample", "train", "prefill")
CACHED_MODES = ("auto", "none", "logged", "group")
DEFAULT_WINDOW = 0.2   # share of training steps in the "early" and "late" parts that define length growth

MULTI_TURN_CAVEAT = (
    "multi-turn run (up to {turns:g} turns per episode): tinker-cookbook merges the turns of an episode whose "
    "prompts extend each other into one training datum, so the shared prefix is trained once, but "
    "env/all/total_ob_tokens counts the whole history again on every turn; train = ob + ac therefore "
    "over-counts the train meter (the sample and prefill meters are exact)")


# ------------------------------------------------------------------------------------------ meters


@dataclass(frozen=True)
class MeterTokens:
    """Token totals of the three Tinker meters, with their eval parts."""
    sample: float
    train: float
    prefill: float
    cached_prefill: float = 0.0      # the part of prefill billed at the cached rate
    eval_sample: float = 0.0
    eval_prefill: float = 0.0
    train_completion: float = math.nan
    train_prompt: float = math.nan

    @classmethod
    def from_counts(cls, train_completion, train_prompt, eval_completion=0.0, eval_prompt=0.0,
                    cached_prefill=0.0) -> "MeterTokens":
        """The contract's accounting from the four logged counts."""
        return cls(sample=float(train_completion + eval_completion), train=float(train_prompt + train_completion),
                   prefill=float(train_prompt + eval_prompt), cached_prefill=float(cached_prefill),
                   eval_sample=float(eval_completion), eval_prefill=float(eval_prompt),
                   train_completion=float(train_completion), train_prompt=float(train_prompt))

    @property
    def total(self) -> float:
        return self.sample + self.train + self.prefill

    def to_dict(self) -> dict:
        return {"sample": self.sample, "train": self.train, "prefill": self.prefill,
                "cached_prefill": self.cached_prefill, "eval_sample": self.eval_sample,
                "eval_prefill": self.eval_prefill, "train_completion": self.train_completion,
                "train_prompt": self.train_prompt}


def step_meters(table: pd.DataFrame) -> pd.DataFrame:
    """Per-step meter tokens of a tidy run table (runs.RunLog.steps): sample, train and prefill."""
    out = pd.DataFrame({"step": table["step"].to_numpy(), "has_train": table["has_train"].to_numpy()})
    out["sample_tokens"] = (table["train_completion_tokens"] + table["eval_completion_tokens"]).to_numpy()
    out["train_tokens"] = (table["train_prompt_tokens"] + table["train_completion_tokens"]).to_numpy()
    out["prefill_tokens"] = (table["train_prompt_tokens"] + table["eval_prompt_tokens"]).to_numpy()
    return out


def run_meters(run: RunLog, cached_tokens=None) -> MeterTokens:
    t = run.steps
    cached = 0.0 if cached_tokens is None else float(np.sum(cached_tokens))
    return MeterTokens.from_counts(float(t["train_completion_tokens"].sum()), float(t["train_prompt_tokens"].sum()),
                                   float(t["eval_completion_tokens"].sum()), float(t["eval_prompt_tokens"].sum()),
                                   cached)


# ------------------------------------------------------------------------------------------ prices


def _arch_signature(arch) -> tuple:
    return (arch.arch_type, arch.hidden_size, arch.num_layers, arch.num_heads, arch.num_kv_heads, arch.head_dim,
            arch.intermediate_size, arch.vocab_size, arch.num_experts, arch.experts_per_token,
            arch.moe_intermediate_size, arch.n_shared_experts, arch.kv_lora_rank, arch.full_attention_layers,
            arch.total_params, arch.active_params)


def same_architecture(model: str) -> list[str]:
    """Priced models whose architecture row equals `model`'s (e.g. an Instruct variant and its base)."""
    canonical = registry.split_context(registry.resolve_model(model))[0]
    if not registry.has_arch(canonical):
        return []
    mine = _arch_signature(registry.get_arch(canonical))
    priced = {registry.split_context(r.model)[0] for r in price_rows() if r.status == "primary"}
    vision = "-VL-" in canonical  # a vision model shares its language model's row but is priced apart
    return sorted(m for m in priced if m != canonical and registry.has_arch(m) and ("-VL-" in m) == vision
                  and _arch_signature(registry.get_arch(m)) == mine)


def priced_in(model: str) -> list[str]:
    canonical = registry.resolve_model(model)
    found = {r.snapshot for r in price_rows() if r.model == canonical and r.status == "primary"}
    return sorted(found, key=lambda s: snapshots().get(s, s))


def price_for(model: str, prices: str | None = None, price_as: str | None = None) -> tuple[Price, list[str]]:
    """The rates that bill `model` in a snapshot, or another model's rates when `price_as` names one.

    A model with no price in the snapshot is an error that says where it is priced and which priced models
    share its architecture (candidates for `price_as`)."""
    snapshot = resolve_snapshot(prices)
    canonical = registry.resolve_model(model)
    notes: list[str] = []
    if price_as:
        price = get_price(price_as, snapshot)
        if price.model != canonical:
            notes.append(f"billed at {price.model}'s rates (price-as): the run's model is {canonical}")
        notes.extend(price.notes)
        return price, notes
    try:
        price = get_price(canonical, snapshot)
    except TinkerNomicsError as exc:
        twins = same_architecture(canonical)
        hint = "; to bill it at another model's rates use --price-as MODEL"
        if twins:
            where = "; ".join(f"{t} (priced in {', '.join(priced_in(t))})" for t in twins)
            hint += f"; same architecture: {where}"
        raise TinkerNomicsError(f"{exc}{hint}") from None
    notes.extend(price.notes)
    return price, notes


# ------------------------------------------------------------------------------------------ the bill


@dataclass(frozen=True)
class RunBill:
    """Tinker's bill for a set of meter totals under one price snapshot."""
    model: str                 # the run's model
    price: Price               # the rates used (price.model differs from `model` under price-as)
    meters: MeterTokens
    cached_mode: str           # none, logged, group, or share
    cached_rate: float | None  # USD per million cached prompt tokens (None: billed at the prefill rate)
    sample_usd: float
    train_usd: float
    prefill_usd: float
    notes: tuple[str, ...] = ()

    @property
    def total_usd(self) -> float:
        return self.sample_usd + self.train_usd + self.prefill_usd

    @property
    def price_model(self) -> str:
        return self.price.model

    @property
    def prices(self) -> str:
        return self.price.snapshot


def bill_meters(meters: MeterTokens, model: str, prices: str | None = None, price_as: str | None = None,
                cached_mode: str = "none") -> RunBill:
    """Bill meter totals: sample, train and the uncached prefill at their list rates, the cached part of
    prefill at the snapshot's cached rate (at the prefill rate where the snapshot has none, with a note)."""
    price, notes = price_for(model, prices, price_as)
    cached = meters.cached_prefill
    rate = None
    if cached > 0:
        rate = price.cached_prefill
        if rate is None:
            notes.append(f"snapshot {price.snapshot} has no cached-prefill rate for {price.model} (Tinker began "
                         f"billing cache hits between 2026-06-14 and 2026-07-17, prices-sources.md): all prefill "
                         f"billed at the full rate")
    prefill_usd = float(meter_cost(meters.prefill - cached, price.rate("prefill")))
    prefill_usd += float(meter_cost(cached, rate if rate is not None else price.rate("prefill")))
    return RunBill(registry.resolve_model(model), price, meters, cached_mode, rate,
                   float(meter_cost(meters.sample, price.rate("sample"))),
                   float(meter_cost(meters.train, price.rate("train"))), prefill_usd, tuple(notes))


def run_group_size(run: RunLog, group_size: float | None = None) -> tuple[float | None, str]:
    """G for a run and where it came from: given, config.json, or the bundled runs' table (data/runs/)."""
    if group_size is not None:
        return float(group_size), "given"
    if run.config.get("group_size"):
        return float(run.config["group_size"]), "config.json group_size"
    bundled = bundled_for_path(run.source)
    if bundled is not None and bundled.group_size:
        return float(bundled.group_size), f"the author's setting in data/{bundled.table}"
    return None, "unknown"


def cached_tokens_per_step(run: RunLog, mode: str = "auto", group_size: float | None = None) -> tuple[np.ndarray, str, str]:
    """Prompt tokens per step billed at the cached rate, the mode used, and a sentence saying where they come from.

    auto   — the logged cache hits when the log has them, else none;
    none   — every prompt token at the prefill rate;
    logged — env/all/total_cached_ob_tokens (training) and its test/ twin (eval), as the sampler reported them;
    group  — an assumption for logs without cache counts: the G rollouts of a group send one identical prompt
             (tinker-cookbook samples each with its own request, facts §1.7), so G−1 of every G training
             prompts hit the prefix cache; eval rollouts (one per problem) miss.
    """
    mode = (mode or "auto").strip().lower()
    if mode not in CACHED_MODES:
        raise TinkerNomicsError(f"cached prefill must be one of {', '.join(CACHED_MODES)}, got {mode!r}")
    t = run.steps
    if mode == "auto":
        mode = "logged" if run.cached_logged else "none"
    if mode == "none":
        return np.zeros(len(t)), "none", "no cached-prefill billing: every prompt token at the prefill rate"
    if mode == "logged":
        if not run.cached_logged:
            raise TinkerNomicsError(f"{run.source}: the log has no env/all/total_cached_ob_tokens (cache hits are "
                                    f"logged by tinker-cookbook 0.6.1 and later); use --cached-prefill group or none")
        hits = t["cached_prompt_tokens"].fillna(0.0) + t["eval_cached_prompt_tokens"].fillna(0.0)
        return hits.to_numpy(dtype=float), "logged", "cache hits as the sampler reported them (logged)"
    g, g_source = run_group_size(run, group_size)
    if g is None or not (math.isfinite(g) and g >= 1):
        raise TinkerNomicsError(f"{run.source}: cached prefill 'group' needs the group size G (config.json has "
                                f"none): pass --group-size")
    share = (g - 1.0) / g
    hits = t["train_prompt_tokens"].to_numpy(dtype=float) * share
    return hits, "group", (f"assumed: G−1 of every G = {g:g} training rollouts hit the prefix cache (tinker-cookbook "
                           f"sends a group's rollouts as separate requests with one identical prompt; "
                           f"{fmt.pct(share)} of training prompt tokens; G from {g_source}), eval rollouts miss")


# ------------------------------------------------------------------------------------------ calibration


@dataclass(frozen=True)
class Calibration:
    """The cost model re-run with inputs measured from the logs, against what the logs measured."""
    inputs: dict                 # Scenario fields and the measured quantities behind them
    sources: dict                # input -> how it was measured
    scenarios: dict              # method -> Scenario
    table: pd.DataFrame          # method, meter, predicted/measured tokens and USD, signed errors
    notes: tuple[str, ...] = ()
    sign_convention: str = SIGN_CONVENTION

    def to_dict(self) -> dict:
        return {"sign_convention": self.sign_convention, "inputs": self.inputs, "sources": self.sources,
                "rows": _records(self.table), "notes": list(self.notes)}


def _signed_error(predicted: float, measured: float) -> float:
    return (predicted - measured) / measured if measured else math.nan


def comparison_table(predicted: dict, measured: MeterTokens, price: Price, method: str) -> pd.DataFrame:
    """Rows per meter (and the total): predicted vs measured tokens and USD at the same list rates."""
    rows = []
    for meter in METERS:
        rate = price.rate(meter)
        p_tok, m_tok = float(predicted[meter]), float(getattr(measured, meter))
        p_usd, m_usd = float(meter_cost(p_tok, rate)), float(meter_cost(m_tok, rate))
        rows.append({"method": method, "meter": meter, "rate_usd_per_million": rate, "predicted_tokens": p_tok,
                     "measured_tokens": m_tok, "tokens_error": _signed_error(p_tok, m_tok), "predicted_usd": p_usd,
                     "measured_usd": m_usd, "usd_error": _signed_error(p_usd, m_usd)})
    total = {k: sum(r[k] for r in rows) for k in ("predicted_tokens", "measured_tokens", "predicted_usd",
                                                  "measured_usd")}
    rows.append({"method": method, "meter": "total", "rate_usd_per_million": math.nan, **total,
                 "tokens_error": _signed_error(total["predicted_tokens"], total["measured_tokens"]),
                 "usd_error": _signed_error(total["predicted_usd"], total["measured_usd"])})
    return pd.DataFrame(rows)


def measure_inputs(run: RunLog, window: float = DEFAULT_WINDOW, group_size: float | None = None) -> tuple[dict, dict]:
    """The cost model's inputs as the logs measure them, and a sentence per input saying how."""
    if not 0 < window <= 0.5:
        raise TinkerNomicsError(f"window must be in (0, 0.5], got {window!r}")
    train = run.train
    steps = len(train)
    episodes = train["episodes"]
    if episodes.isna().any() or not (episodes > 0).all():
        bxg = None
        if "groups_per_batch" in run.config and "group_size" in run.config:
            bxg = float(run.config["groups_per_batch"] * run.config["group_size"])
        if not bxg:
            raise TinkerNomicsError(f"{run.source}: env/all/total_episodes is not logged on every training step and "
                                    f"config.json gives no batch shape: per-episode lengths cannot be measured")
        episodes = pd.Series(bxg, index=train.index)
        episodes_source = "config.json groups_per_batch × group_size (episodes not logged on every step)"
    else:
        episodes_source = "mean of env/all/total_episodes per training step"
    ac = train["train_completion_tokens"]
    ob = train["train_prompt_tokens"]
    n = max(1, int(round(steps * window)))
    early_len = float(ac.iloc[:n].sum() / episodes.iloc[:n].sum())
    late_len = float(ac.iloc[-n:].sum() / episodes.iloc[-n:].sum())
    growth = late_len / early_len if early_len > 0 else 1.0
    g, g_source = run_group_size(run, group_size)
    per_step = float(episodes.mean())
    if g:
        b = per_step / float(g)
    else:
        b, g = per_step, 1.0
        g_source = "unknown (B×G is what the token meters need; B set to the episodes per step, G to 1)"
    evals = run.eval_steps
    eval_steps = evals["step"].to_numpy()
    if len(eval_steps) >= 2:
        every = float(np.median(np.diff(np.sort(eval_steps))))
    elif len(eval_steps) == 1:
        every = float(steps)
    else:
        every = 0.0
    eval_prompts = float(evals["eval_episodes"].mean()) if len(evals) else 0.0
    turns = float(train["turns"].mean()) if train["turns"].notna().any() else 1.0
    meters = run_meters(run)
    inputs = {
        "steps": steps, "episodes_per_step": per_step, "prompts_per_step": b, "group_size": float(g),
        "completion_tokens": early_len, "completion_tokens_mean": float(ac.sum() / episodes.sum()),
        "completion_tokens_late": late_len, "length_growth": growth,
        "prompt_tokens": float(ob.sum() / episodes.sum()), "turns": turns, "window_steps": n,
        "eval_runs": int(len(eval_steps)), "eval_every": every, "eval_prompts": eval_prompts,
        "eval_sample_share": meters.eval_sample / meters.sample if meters.sample else 0.0,
        "eval_prefill_share": meters.eval_prefill / meters.prefill if meters.prefill else 0.0,
        "sample_tokens_per_step": meters.sample / steps, "train_tokens_per_step": meters.train / steps,
        "prefill_tokens_per_step": meters.prefill / steps, "substeps": 1.0,
    }
    sources = {
        "steps": "training steps logged (rows with env/all/total_ac_tokens)",
        "episodes_per_step": episodes_source,
        "prompts_per_step": "episodes per step / G",
        "group_size": g_source,
        "completion_tokens": f"start length L: completion tokens per episode over the first {n} training step(s)",
        "completion_tokens_late": f"completion tokens per episode over the last {n} training step(s)",
        "length_growth": "late / early completion length (the model averages (1 + growth) / 2 of the start length)",
        "prompt_tokens": "prompt tokens per episode over the run (env/all/total_ob_tokens / episodes)",
        "turns": "mean env/all/turns_per_episode (1 when not logged)",
        "eval_every": "median gap between logged eval steps (the model counts ceil(steps / every) evals)",
        "eval_prompts": "mean test/…/total_episodes per eval (the model gives eval rollouts the training lengths)",
        "substeps": "1: tinker-cookbook's num_substeps splits a batch, so each datum is trained once",
    }
    return inputs, sources


def calibrate(run: RunLog, model: str, prices: str | None = None, price_as: str | None = None,
              window: float = DEFAULT_WINDOW, group_size: float | None = None,
              methods: Iterable[str] = ("exact", "seed")) -> Calibration:
    """Re-predict the run with the cost model from the inputs its logs measure, and compare per meter."""
    inputs, sources = measure_inputs(run, window, group_size)
    price, _ = price_for(model, prices, price_as)
    measured = run_meters(run)
    notes = []
    if inputs["turns"] > 1:
        notes.append("multi-turn run: per-turn observation lengths are not in metrics.jsonl (they are in the "
                     "rollout summaries), so the cost model's multi-turn inputs cannot be recovered; no prediction")
        return Calibration(inputs, sources, {}, pd.DataFrame(columns=_TABLE_COLUMNS), tuple(notes))
    scenarios, frames = {}, []
    for method in methods:
        scenario = Scenario(model=price.model, prompts_per_step=inputs["prompts_per_step"],
                            group_size=inputs["group_size"], steps=inputs["steps"],
                            completion_tokens=inputs["completion_tokens"], prompt_tokens=inputs["prompt_tokens"],
                            length_growth=inputs["length_growth"], substeps=1.0, turns=1.0,
                            eval_every=inputs["eval_every"], eval_prompts=inputs["eval_prompts"],
                            prices=price.snapshot, method=method, off_policy=0.0)
        est = estimate(scenario)
        scenarios[method] = scenario
        predicted = {"sample": float(est.tokens.sample), "train": float(est.tokens.train),
                     "prefill": float(est.tokens.prefill)}
        frames.append(comparison_table(predicted, measured, price, method))
    if "seed" in scenarios:
        notes.append("method seed bills train = sampled tokens (the seed's formula); method exact bills prompt + "
                     "completion per datum, as Tinker does")
    notes.append("predicted and measured are both priced at the list rates, prefill uncached")
    return Calibration(inputs, sources, scenarios, pd.concat(frames, ignore_index=True), tuple(notes))


_TABLE_COLUMNS = ["method", "meter", "rate_usd_per_million", "predicted_tokens", "measured_tokens", "tokens_error",
                  "predicted_usd", "measured_usd", "usd_error"]


# ------------------------------------------------------------------------------------------ validation


@dataclass(frozen=True)
class Validation:
    """A run's bill from its logs: meters, money per step, calibration of the cost model, caveats."""
    run: RunLog
    bill: RunBill
    per_step: pd.DataFrame       # step, meter tokens, cached prefill, USD per meter, cost and cumulative cost
    calibration: Calibration | None
    cached_basis: str
    caveats: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def total_usd(self) -> float:
        return self.bill.total_usd

    def summary(self) -> dict:
        """Headline numbers of the run, for prose and tables (the book glues these)."""
        b, m, train = self.bill, self.bill.meters, self.run.train
        seconds = train["step_seconds"]
        hours = float(seconds.sum()) / 3600.0 if seconds.notna().any() else math.nan
        eval_usd = _eval_usd(b)
        total = b.total_usd
        return {
            "run": Path(self.run.source).name, "model": b.model, "price_model": b.price_model, "prices": b.prices,
            "format": self.run.kind, "mode": self.run.mode, "steps": self.run.n_steps,
            "first_step": int(train["step"].min()), "last_step": int(train["step"].max()),
            "eval_runs": int(len(self.run.eval_steps)),
            "episodes_per_step": float(train["episodes"].mean()) if train["episodes"].notna().any() else math.nan,
            "hours": hours, "step_minutes_mean": float(seconds.mean()) / 60.0 if seconds.notna().any() else math.nan,
            "sample_tokens": m.sample, "train_tokens": m.train, "prefill_tokens": m.prefill,
            "eval_sample_tokens": m.eval_sample, "eval_prefill_tokens": m.eval_prefill,
            "train_completion_tokens": m.train_completion, "train_prompt_tokens": m.train_prompt,
            "tokens": m.total, "sample_usd": b.sample_usd, "train_usd": b.train_usd, "prefill_usd": b.prefill_usd,
            "total_usd": total, "eval_usd": eval_usd, "eval_usd_share": eval_usd / total if total else math.nan,
            "usd_per_step": total / self.run.n_steps,
            "usd_per_million_tokens": total / m.total * 1e6 if m.total else math.nan,
            "usd_per_hour": total / hours if hours and not math.isnan(hours) else math.nan,
            "prefill_usd_share": b.prefill_usd / total if total else math.nan,
        }

    def to_dict(self, per_step: bool = True) -> dict:
        b, m = self.bill, self.bill.meters
        out = {
            "model": b.model, "price_model": b.price_model, "prices": b.prices, "source": self.run.source,
            "format": self.run.kind, "mode": self.run.mode, "run_name": self.run.run_name,
            "steps": self.run.n_steps, "eval_runs": int(len(self.run.eval_steps)),
            "tokens": m.to_dict(),
            "tinker": {"sample_usd": b.sample_usd, "train_usd": b.train_usd, "prefill_usd": b.prefill_usd,
                       "total_usd": b.total_usd,
                       "cached_prefill": {"mode": b.cached_mode, "tokens": m.cached_prefill,
                                          "rate_usd_per_million": b.cached_rate, "basis": self.cached_basis},
                       "rates_usd_per_million": {"prefill": b.price.prefill, "sample": b.price.sample,
                                                 "train": b.price.train, "cached_prefill": b.price.cached_prefill},
                       "rates_source": dict(b.price.provenance)},
            "logged": _logged_summary(self.run),
            "calibration": self.calibration.to_dict() if self.calibration is not None else None,
            "caveats": list(self.caveats), "notes": list(self.notes),
        }
        if per_step:
            out["per_step"] = _records(self.per_step[["step", "has_train", "sample_tokens", "train_tokens",
                                                      "prefill_tokens", "cached_prefill_tokens", "cost_usd",
                                                      "cumulative_usd"]])
        return out

    def render(self) -> str:
        return render_validation(self.to_dict(per_step=False))


def _records(frame: pd.DataFrame) -> list[dict]:
    out = []
    for row in frame.to_dict(orient="records"):
        out.append({k: _json_value(v) for k, v in row.items()})
    return out


def _json_value(v):
    if v is pd.NA or v is None:
        return None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return None if math.isnan(float(v)) else float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def _logged_summary(run: RunLog) -> dict:
    out = {}
    if run.train["logged_cost_usd"].notna().any():
        out["cost_step_usd_sum"] = float(run.train["logged_cost_usd"].sum())
    if run.train["logged_trained_tokens"].notna().any():
        out["trained_tokens_sum"] = float(run.train["logged_trained_tokens"].sum())
    out.update({k: v for k, v in run.logged_totals.items()})
    return out


def resolve_run_model(run: RunLog, model: str | None) -> tuple[str, list[str]]:
    notes = []
    if model:
        canonical = registry.resolve_model(model)
        if run.model and registry.resolve_model(run.model) != canonical:
            notes.append(f"model {canonical} given explicitly; config.json says {run.model}")
        return canonical, notes
    if run.model:
        return registry.resolve_model(run.model), notes
    why = "its config.json has no model_name" if run.config else "no config.json beside it"
    raise TinkerNomicsError(f"{run.source}: which model? {why}; pass --model (e.g. Qwen/Qwen3-8B)")


def validate_run(path_or_run, model: str | None = None, prices: str | None = None, price_as: str | None = None,
                 cached_prefill: str = "auto", group_size: float | None = None, run: str | None = None,
                 calibration: bool = True, window: float = DEFAULT_WINDOW) -> Validation:
    """The bill of a finished run from its logs (a path, or a RunLog already read), and the calibration."""
    log = path_or_run if isinstance(path_or_run, RunLog) else read_run(path_or_run, run=run)
    canonical, notes = resolve_run_model(log, model)
    hits, mode, basis = cached_tokens_per_step(log, cached_prefill, group_size)
    meters = run_meters(log, hits)
    try:
        bill = bill_meters(meters, canonical, prices, price_as, mode)
    except TinkerNomicsError as exc:
        raise TinkerNomicsError(f"{log.source}: {exc}") from None
    per_step = step_meters(log.steps)
    per_step["cached_prefill_tokens"] = hits
    price = bill.price
    per_step["sample_usd"] = meter_cost(per_step["sample_tokens"], price.rate("sample"))
    per_step["train_usd"] = meter_cost(per_step["train_tokens"], price.rate("train"))
    cached_rate = bill.cached_rate if bill.cached_rate is not None else price.rate("prefill")
    per_step["prefill_usd"] = (meter_cost(per_step["prefill_tokens"] - hits, price.rate("prefill"))
                               + meter_cost(hits, cached_rate))
    per_step["cost_usd"] = per_step["sample_usd"] + per_step["train_usd"] + per_step["prefill_usd"]
    per_step["cumulative_usd"] = per_step["cost_usd"].cumsum()
    per_step["reward"] = log.steps["reward"].to_numpy()
    per_step["eval_reward"] = log.steps["eval_reward"].to_numpy()
    per_step["step_seconds"] = log.steps["step_seconds"].to_numpy()
    per_step["step_minutes"] = per_step["step_seconds"] / 60.0
    per_step["episodes"] = log.steps["episodes"].to_numpy()

    caveats = list(log.notes) + _caveats(log, meters, bill)
    notes = notes + list(bill.notes) + [f"cached prefill: {basis}"]
    cal = None
    if calibration:
        try:
            cal = calibrate(log, canonical, prices, price_as, window, group_size)
        except TinkerNomicsError as exc:
            notes.append(f"no calibration: {exc}")
    return Validation(log, bill, per_step, cal, basis, tuple(caveats), tuple(notes))


def _caveats(run: RunLog, meters: MeterTokens, bill: RunBill) -> list[str]:
    out = []
    train = run.train
    if run.multi_turn:
        text = MULTI_TURN_CAVEAT.format(turns=float(train["turns"].max()))
        if train["logged_trained_tokens"].notna().any():
            text += (f"; the log's tokens/trained (the datums' real length) sums to "
                     f"{fmt.tokens(train['logged_trained_tokens'].sum())} against ob + ac = {fmt.tokens(meters.train)}")
        out.append(text)
    if run.mode.startswith("async"):
        out.append("async run: rollouts sampled but never trained (requeued as too stale, or in flight when the run "
                   "stopped) were billed but are not in env/all/*, so this bill can be slightly low")
    kl = sorted(k for k in run.keys if k in ("kl_policy_base", "kl_pre_post_v1"))
    if kl:
        out.append(f"the log has {', '.join(kl)}: KL scoring against the reference (or post-update) policy re-reads "
                   f"every datum as prefill, which Tinker bills and these meters leave out, so the bill is low")
    if meters.eval_sample > 0:
        share = fmt.pct(_eval_usd(bill) / bill.total_usd) if bill.total_usd else "n/a"
        out.append(f"eval rollouts are billed and included: {len(run.eval_steps)} evals, "
                   f"{fmt.tokens(meters.eval_sample)} sampled + {fmt.tokens(meters.eval_prefill)} prompt tokens "
                   f"({share} of the bill); tinker-cookbook's own cost tracker leaves them out")
    if run.train["logged_cost_usd"].notna().any():
        out.append(f"the run's own estimate (cost/step_usd, at the rates fetched when it ran, eval excluded) sums to "
                   f"{fmt.usd(run.train['logged_cost_usd'].sum())}")
    out.append("not in the bill: checkpoint storage, failed requests, sandboxes")
    return out


def _eval_usd(bill: RunBill) -> float:
    p = bill.price
    return float(meter_cost(bill.meters.eval_sample, p.rate("sample")) +
                 meter_cost(bill.meters.eval_prefill, p.rate("prefill")))


def render_validation(d: dict) -> str:
    """The human-readable form of `Validation.to_dict()` (what `tinker-nomics validate` prints)."""
    tk, tokens = d["tinker"], d["tokens"]
    billed_as = f" (billed as {d['price_model']})" if d["price_model"] != d["model"] else ""
    lines = [f"{Path(d['source']).name} · {d['model']}{billed_as} · Tinker prices {d['prices']} · "
             f"{d['format']} ({d['mode']})",
             f"Steps         {d['steps']} training steps, {d['eval_runs']} evals",
             f"Tokens        sample {fmt.tokens(tokens['sample'])} (eval {fmt.tokens(tokens['eval_sample'])})   "
             f"train {fmt.tokens(tokens['train'])}   prefill {fmt.tokens(tokens['prefill'])} "
             f"(eval {fmt.tokens(tokens['eval_prefill'])}, cached {fmt.tokens(tokens['cached_prefill'])})",
             f"Tinker        {fmt.usd(tk['total_usd'])} = sample {fmt.usd(tk['sample_usd'])} + train "
             f"{fmt.usd(tk['train_usd'])} + prefill {fmt.usd(tk['prefill_usd'])}",
             "Rates         USD per million: " + ", ".join(
                 f"{k.replace('_', ' ')} {v:g}" for k, v in tk["rates_usd_per_million"].items() if v is not None)]
    cal = d.get("calibration")
    if cal and cal["rows"]:
        inp = cal["inputs"]
        lines += ["",
                  f"Calibration   measured inputs: B×G {inp['episodes_per_step']:,.0f}, L {inp['completion_tokens']:,.0f} "
                  f"→ growth {inp['length_growth']:.2f}, P {inp['prompt_tokens']:,.0f}, "
                  f"{inp['eval_runs']} evals × {inp['eval_prompts']:,.0f} every {inp['eval_every']:g} steps",
                  f"              {cal['sign_convention']}"]
        rows = [[r["method"], r["meter"], fmt.tokens(r["predicted_tokens"]), fmt.tokens(r["measured_tokens"]),
                 _spct(r["tokens_error"]), fmt.usd(r["predicted_usd"]), fmt.usd(r["measured_usd"]),
                 _spct(r["usd_error"])] for r in cal["rows"]]
        lines.append(_table(rows, ["method", "meter", "predicted", "measured", "error", "pred. USD", "meas. USD",
                                   "error"], indent="  "))
    elif cal:
        lines += ["", "Calibration   " + "; ".join(cal["notes"])]
    lines.append("")
    lines += [f"Caveat: {c}" for c in d["caveats"]]
    lines += [f"Note: {n}" for n in d["notes"]]
    return "\n".join(lines)


def _spct(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.signed_pct(x)


def _table(rows, header, indent="") -> str:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out = [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    out.insert(1, indent + "  ".join("-" * w for w in widths))
    return "\n".join(out)


# ------------------------------------------------------------------------------------------ several bills


def snapshot_bills(run: RunLog, model: str | None = None, snapshots_: Iterable[str] = ("2026-01-05", "2026-10-07"),
                   cached_modes: Iterable[str] = ("none", "group"), price_as: str | None = None,
                   group_size: float | None = None) -> pd.DataFrame:
    """The run's bill under several snapshots and cached-prefill modes, one row each. A snapshot that does
    not price the model gives a row of NaN with the reason."""
    canonical, _ = resolve_run_model(run, model)
    rows = []
    for snap in snapshots_:
        for mode in cached_modes:
            row = {"snapshot": resolve_snapshot(snap), "cached_prefill": mode, "price_model": None,
                   "sample_usd": math.nan, "train_usd": math.nan, "prefill_usd": math.nan, "total_usd": math.nan,
                   "cached_prefill_tokens": math.nan, "note": ""}
            try:
                hits, used, basis = cached_tokens_per_step(run, mode, group_size)
                bill = bill_meters(run_meters(run, hits), canonical, snap, price_as, used)
            except TinkerNomicsError as exc:
                row["note"] = str(exc)
                rows.append(row)
                continue
            row.update(price_model=bill.price_model, sample_usd=bill.sample_usd, train_usd=bill.train_usd,
                       prefill_usd=bill.prefill_usd, total_usd=bill.total_usd,
                       cached_prefill_tokens=bill.meters.cached_prefill,
                       note="; ".join([basis] * (used != "none") + list(bill.notes)))
            rows.append(row)
    return pd.DataFrame(rows)


def _successor_bills(run: RunLog, b: "BundledRun", snaps: list[str], row: dict) -> dict:
    """For a snapshot that no longer prices the run's model: the bill at its successor's rates
    (data/models/successors.csv), in columns `usd_<snap>_successor[_cached]` with `successor_<snap>` naming it."""
    from .timeline import model_for   # timeline imports the core only; imported here to keep validate light
    out = {}
    for snap in snaps:
        if not math.isnan(row.get(f"usd_{snap}", math.nan)):
            continue
        try:
            stand_in, successor = model_for(b.price_as or b.model, snap)
        except TinkerNomicsError:
            continue
        if successor is None:
            continue
        bills = snapshot_bills(run, b.model, (snap,), ("none", "group"), stand_in, b.group_size)
        out[f"successor_{snap}"] = stand_in
        for r in bills.itertuples():
            if r.cached_prefill == "group" and "no cached-prefill rate" in r.note:
                continue
            out[f"usd_{snap}_successor" + ("_cached" if r.cached_prefill == "group" else "")] = r.total_usd
    return out


def bundled_bills(snapshots_: Iterable[str] = ("2026-01-05", "2026-10-07")) -> pd.DataFrame:
    """The bundled public runs (data/runs/) side by side: size, lengths, time, and the bill per snapshot,
    uncached and with the G−1-of-G cache assumption. A snapshot that does not price a model gives NaN, and,
    when the model has a successor in data/models/successors.csv, the bill at the successor's rates."""
    rows = []
    snaps = [resolve_snapshot(s) for s in snapshots_]
    for name, b in bundled_runs().items():
        run = read_run(b.path)
        meters = run_meters(run)
        inputs, _ = measure_inputs(run, group_size=b.group_size)
        row = {"run": name, "model": registry.resolve_model(b.model), "billed_as": b.price_as or "",
               "mode": run.mode, "steps": run.n_steps, "episodes_per_step": inputs["episodes_per_step"],
               "completion_tokens_mean": inputs["completion_tokens_mean"], "length_growth": inputs["length_growth"],
               "prompt_tokens": inputs["prompt_tokens"], "sample_tokens": meters.sample,
               "train_tokens": meters.train, "prefill_tokens": meters.prefill,
               "eval_sample_share": inputs["eval_sample_share"], "eval_runs": inputs["eval_runs"],
               "eval_every": inputs["eval_every"], "eval_prompts": inputs["eval_prompts"],
               "hours": float(run.train["step_seconds"].sum()) / 3600.0}
        bills = snapshot_bills(run, b.model, snaps, ("none", "group"), b.price_as, b.group_size)
        for r in bills.itertuples():
            if r.cached_prefill == "group" and "no cached-prefill rate" in r.note:
                continue   # the snapshot bills no cache hits: the cached column would repeat the list price
            key = f"usd_{r.snapshot}" + ("_cached" if r.cached_prefill == "group" else "")
            row[key] = r.total_usd
        row.update(_successor_bills(run, b, snaps, row))
        rows.append(row)
    return pd.DataFrame(rows)


def successor_over_own(bills: pd.DataFrame, run: str, snapshot: str, base: str) -> float:
    """From a `bundled_bills` table: the run billed on its successor at `snapshot` over the run's own bill at
    `base` (e.g. October on Qwen3.6-35B-A3B against January on Qwen3-30B-A3B): what moving to the successor
    does to the bill, the model change and the repricing together. NaN when the run has no successor bill."""
    row = bills.set_index("run").loc[run] if "run" in bills.columns else bills.loc[run]
    column = f"usd_{resolve_snapshot(snapshot)}_successor"
    if column not in row.index:
        return math.nan
    return float(row[column]) / float(row[f"usd_{resolve_snapshot(base)}"])


def bundled_run(name: str) -> BundledRun:
    table = bundled_runs()
    if name not in table:
        raise TinkerNomicsError(f"unknown bundled run {name!r}; known: {', '.join(table)}")
    return table[name]


# ------------------------------------------------------------------------------------------ the seed's runs

# The seed prints its token totals in millions with one decimal ("19.3M", "10.7M", "13.5M"), so each printed
# figure is known to ± half a unit of 0.1M; the reproduced bill carries that uncertainty.
SEED_TOKEN_RESOLUTION = 0.1e6
SEED_WORKLOADS = {"exp1a": "exp1a_gsm8k", "exp1b": "exp1b_math"}


@dataclass(frozen=True)
class SeedExperiment:
    """One of the seed's Tinker runs: the bill from its reported token totals against the real bill, and
    the cost model's prediction (the workload preset) against those totals."""
    name: str
    workload: str
    bill: RunBill
    billed_usd: float            # what Tinker charged (the seed's console figure)
    rounding_usd: float          # ± from the rounding of the printed token totals
    table: pd.DataFrame          # predicted vs measured per meter (comparison_table)
    steps: float

    @property
    def computed_usd(self) -> float:
        return self.bill.total_usd

    @property
    def error(self) -> float:
        """(computed − billed) / billed."""
        return _signed_error(self.computed_usd, self.billed_usd)

    @property
    def error_range(self) -> tuple[float, float]:
        return (_signed_error(self.computed_usd - self.rounding_usd, self.billed_usd),
                _signed_error(self.computed_usd + self.rounding_usd, self.billed_usd))

    @property
    def predicted_usd(self) -> float:
        return float(self.table.loc[self.table["meter"] == "total", "predicted_usd"].iloc[0])


def _seed_meters(name: str) -> tuple[MeterTokens, dict[str, int]]:
    """Meter totals from the seed's reported figures, and how many printed figures each meter adds up."""
    have = seed_experiments()[name]
    tc, tp = experiment(name, "train_completion_tokens"), experiment(name, "train_prompt_tokens")
    ec = experiment(name, "eval_completion_tokens")
    figures = {}
    if "sample_tokens" in have:
        sample, figures["sample"] = experiment(name, "sample_tokens"), 1
    else:
        sample, figures["sample"] = tc + ec, 2
    if "train_tokens" in have:
        train, figures["train"] = experiment(name, "train_tokens"), 1
    else:
        train, figures["train"] = tp + tc, 2
    if "prefill_tokens" in have:
        prefill, figures["prefill"] = experiment(name, "prefill_tokens"), 1
    else:
        prefill, figures["prefill"] = tp + experiment(name, "eval_prompt_tokens"), 2
    eval_prefill = experiment(name, "eval_prompt_tokens") if "eval_prompt_tokens" in have else prefill - tp
    return MeterTokens(sample, train, prefill, 0.0, ec, eval_prefill, tc, tp), figures


def seed_experiment(name: str) -> SeedExperiment:
    """Reproduce the seed's experiment `exp1a` or `exp1b`: its bill from the token totals it reports, at the
    rates of its workload preset's snapshot, and its predicted-vs-actual table per meter (the predicted side
    from the preset through `estimate`)."""
    if name not in SEED_WORKLOADS:
        raise TinkerNomicsError(f"unknown seed experiment {name!r}; known: {', '.join(SEED_WORKLOADS)}")
    workload = get_workload(SEED_WORKLOADS[name])
    model, snapshot = workload.fields["model"], workload.fields["prices"]
    meters, figures = _seed_meters(name)
    bill = bill_meters(meters, model, snapshot)
    half = SEED_TOKEN_RESOLUTION / 2
    rounding = sum(float(meter_cost(figures[m] * half, bill.price.rate(m))) for m in METERS)
    est = estimate(Scenario.from_workload(workload.name))
    predicted = {"sample": float(est.tokens.sample), "train": float(est.tokens.train),
                 "prefill": float(est.tokens.prefill)}
    table = comparison_table(predicted, meters, bill.price, str(est.scenario.method))
    return SeedExperiment(name, workload.name, bill, experiment(name, "billed_usd"), rounding, table,
                          experiment(name, "steps"))


def seed_experiments_table() -> pd.DataFrame:
    """Both seed experiments in one table: computed bill, real bill, error and its range from rounding."""
    rows = []
    for name in SEED_WORKLOADS:
        e = seed_experiment(name)
        low, high = e.error_range
        rows.append({"experiment": name, "workload": e.workload, "steps": e.steps,
                     "sample_tokens": e.bill.meters.sample, "train_tokens": e.bill.meters.train,
                     "prefill_tokens": e.bill.meters.prefill, "computed_usd": e.computed_usd,
                     "rounding_usd": e.rounding_usd, "billed_usd": e.billed_usd, "error": e.error,
                     "error_low": low, "error_high": high, "predicted_usd": e.predicted_usd,
                     "prediction_error": _signed_error(e.predicted_usd, e.billed_usd)})
    return pd.DataFrame(rows)
