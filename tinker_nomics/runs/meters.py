"""A run's tokens on Tinker's three meters, and their bill under a dated price list.

Reconciliation (the accounting the seed measured against two real Tinker bills, to 0.2% and 0.1%;
shared/spec/contract.md):

    sample  = training completion tokens + eval completion tokens
    train   = training prompt tokens + training completion tokens     (each datum, prompt included)
    prefill = every prompt token, training and eval
    cached prefill = the part of prefill billed at the snapshot's cached rate, when there is one: the
                     sampler's logged cache hits, or an assumption the caller states (`cached_prefill`)

Rates come from `sources.prices.get_price` (a dated snapshot) and money from `model.billing.meter_cost`;
nothing here types a price.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import fmt, sources
from ..errors import TinkerNomicsError
from ..model.billing import meter_cost
from ..sources.bundled_runs import bundled_for_path
from ..sources.price_list import price_rows, resolve_snapshot, snapshots
from ..sources.prices import Price, get_price
from .runlog import RunLog

METERS = ("sample", "train", "prefill")
CACHED_MODES = ("auto", "none", "logged", "group")


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


def _arch_signature(arch) -> tuple:
    return (arch.arch_type, arch.hidden_size, arch.num_layers, arch.num_heads, arch.num_kv_heads, arch.head_dim,
            arch.intermediate_size, arch.vocab_size, arch.num_experts, arch.experts_per_token,
            arch.moe_intermediate_size, arch.n_shared_experts, arch.kv_lora_rank, arch.full_attention_layers,
            arch.total_params, arch.active_params)


def same_architecture(model: str) -> list[str]:
    """Priced models whose architecture row equals `model`'s (e.g. an Instruct variant and its base)."""
    canonical = sources.split_context(sources.resolve_model(model))[0]
    if not sources.has_arch(canonical):
        return []
    mine = _arch_signature(sources.get_arch(canonical))
    priced = {sources.split_context(r.model)[0] for r in price_rows() if r.status == "primary"}
    vision = "-VL-" in canonical  # a vision model shares its language model's row but is priced apart
    return sorted(m for m in priced if m != canonical and sources.has_arch(m) and ("-VL-" in m) == vision
                  and _arch_signature(sources.get_arch(m)) == mine)


def priced_in(model: str) -> list[str]:
    canonical = sources.resolve_model(model)
    found = {r.snapshot for r in price_rows() if r.model == canonical and r.status == "primary"}
    return sorted(found, key=lambda s: snapshots().get(s, s))


def price_for(model: str, prices: str | None = None, price_as: str | None = None) -> tuple[Price, list[str]]:
    """The rates that bill `model` in a snapshot, or another model's rates when `price_as` names one.

    A model with no price in the snapshot is an error that says where it is priced and which priced models
    share its architecture (candidates for `price_as`)."""
    snapshot = resolve_snapshot(prices)
    canonical = sources.resolve_model(model)
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
    return RunBill(sources.resolve_model(model), price, meters, cached_mode, rate,
                   float(meter_cost(meters.sample, price.rate("sample"))),
                   float(meter_cost(meters.train, price.rate("train"))), prefill_usd, tuple(notes))


def checked_group_size(value, name: str = "group_size") -> float:
    """G as given: a whole number of rollouts per prompt, at least 1 (a one-line error naming `name` otherwise)."""
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TinkerNomicsError(f"{name} must be a whole number >= 1, got {value!r}")
    g = float(value)
    if not (math.isfinite(g) and g >= 1 and g == int(g)):
        raise TinkerNomicsError(f"{name} must be a whole number >= 1 (rollouts per prompt), got {value:g}")
    return g


def check_group_size_fits(run: RunLog, g: float, name: str = "group_size") -> None:
    """A group cannot hold more rollouts than a step: G at most the episodes the log records per step."""
    episodes = run.train["episodes"]
    if episodes.notna().any():
        most = float(episodes.max())
        if g > most:
            raise TinkerNomicsError(f"{name} {g:g} is more than the rollouts of any logged step ({most:,.0f} at "
                                    f"most): a group cannot hold more rollouts than its step")


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
