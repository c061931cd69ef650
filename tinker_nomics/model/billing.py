"""Tinker's bill: three per-token meters (sample, train, prefill), cached prefill, sandboxes and storage.

Rates are USD per million tokens. Cached-prefill billing (from 2026-07-17) charges prompt tokens that hit
the sampler's prefix cache at the snapshot's cached rate (20% of prefill); the share that hits is the
scenario's cache hit rate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..sources.defaults import number
from ..sources.hardware import sandbox_rates
from ..sources.prices import Price

PER_MILLION = 1e6


@dataclass(frozen=True)
class TinkerBill:
    sample_usd: np.ndarray
    train_usd: np.ndarray
    prefill_usd: np.ndarray
    sandbox_usd: np.ndarray
    storage_usd: np.ndarray

    @property
    def tokens_usd(self):
        return self.sample_usd + self.train_usd + self.prefill_usd

    @property
    def total_usd(self):
        return self.tokens_usd + self.sandbox_usd + self.storage_usd


def meter_cost(tokens, usd_per_million):
    return np.asarray(tokens, dtype=float) * usd_per_million / PER_MILLION


def prefill_cost(prefill_tokens, price: Price, cached_share=0.0, cached_rate=None):
    """Prompt tokens at the prefill rate, except `cached_share` of them at `cached_rate` (USD/M)."""
    share = np.asarray(cached_share, dtype=float)
    full = meter_cost(prefill_tokens, price.rate("prefill"))
    if cached_rate is None:
        return full
    return full * (1.0 - share) + meter_cost(prefill_tokens, cached_rate) * share


def sandbox_cost(rollouts, seconds_per_rollout, sandbox="none", cpu_cores=1.0, memory_gib=2.0):
    """Sandbox bill: per-second CPU and memory rates (Modal's sandbox tier) times the time each rollout runs."""
    rates = sandbox_rates()[sandbox]
    hourly = np.asarray(cpu_cores, dtype=float) * rates["cpu_core_hour"] + np.asarray(memory_gib) * rates["memory_gib_hour"]
    return np.asarray(rollouts, dtype=float) * seconds_per_rollout / 3600.0 * hourly


def storage_cost(checkpoint_gb, steps, usd_per_gb_month):
    """Periodic checkpoints (every `checkpoint_every_steps`, kept `checkpoint_ttl_days`, the cookbook's defaults)."""
    kept = np.ceil(np.asarray(steps, dtype=float) / number("checkpoint_every_steps"))
    months = number("checkpoint_ttl_days") / number("days_per_month")
    return kept * checkpoint_gb * months * usd_per_gb_month


def not_offered_bill(sample_tokens, train_tokens, prefill_tokens, sandbox_usd=0.0, storage_usd=0.0) -> TinkerBill:
    """The bill of a run Tinker does not offer (its list prices neither the model nor a successor): every dollar NaN,
    not computed, in the shape the priced bill would have."""
    return TinkerBill(meter_cost(sample_tokens, np.nan), meter_cost(train_tokens, np.nan),
                      meter_cost(prefill_tokens, np.nan), np.asarray(sandbox_usd, dtype=float) * np.nan,
                      np.asarray(storage_usd, dtype=float) * np.nan)


def tinker_bill(sample_tokens, train_tokens, prefill_tokens, price: Price, cached_share=0.0, cached_rate=None,
                sandbox_usd=0.0, storage_usd=0.0) -> TinkerBill:
    return TinkerBill(meter_cost(sample_tokens, price.rate("sample")), meter_cost(train_tokens, price.rate("train")),
                      prefill_cost(prefill_tokens, price, cached_share, cached_rate),
                      np.asarray(sandbox_usd, dtype=float), np.asarray(storage_usd, dtype=float))
