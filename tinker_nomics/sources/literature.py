"""Figures quoted from papers and from the seed's own experiments, with their sources.

These are not computed here (the cost model does not model them, or they are measurements); the book
quotes them from data/ so that every number it prints has a source.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import TinkerNomicsError, UnknownNameError
from .tables import Column, load_table


@dataclass(frozen=True)
class Claim:
    claim: str
    value: float
    unit: str
    statement: str
    source: str


@functools.lru_cache(maxsize=None)
def claims() -> dict[str, Claim]:
    rows = load_table("literature/claims.csv", [Column("claim"), Column("value", "float"), Column("unit"),
                                                 Column("statement"), Column("source")])
    return {r["claim"]: Claim(r["claim"], r["value"], r["unit"], r["statement"], r["source"]) for r in rows}


def claim(name: str) -> float:
    table = claims()
    if name not in table:
        raise UnknownNameError("claim", name, table)
    return table[name].value


@dataclass(frozen=True)
class Quote:
    quote: str
    page: str      # the seed page it is quoted from
    text: str      # the seed's own words
    source: str


@functools.lru_cache(maxsize=None)
def quotes() -> dict[str, Quote]:
    """Facts of the original site that are words, not numbers to recompute (data/literature/seed_quotes.csv)."""
    rows = load_table("literature/seed_quotes.csv", [Column("quote"), Column("page"), Column("text"),
                                                      Column("source")])
    return {r["quote"]: Quote(r["quote"], r["page"], r["text"], r["source"]) for r in rows}


def quote(name: str) -> Quote:
    table = quotes()
    if name not in table:
        raise UnknownNameError("quote", name, table)
    return table[name]


@functools.lru_cache(maxsize=None)
def seed_experiments() -> dict[str, dict[str, float]]:
    """The seed's experiments 1a and 1b: measured tokens, bills and the veRL comparison."""
    rows = load_table("experiments/seed_experiments.csv", [Column("experiment"), Column("quantity"),
                                                           Column("value", "float"), Column("unit"),
                                                           Column("source")])
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        out.setdefault(r["experiment"], {})[r["quantity"]] = r["value"]
    return out


def experiment(name: str, quantity: str) -> float:
    table = seed_experiments()
    if name not in table:
        raise UnknownNameError("experiment", name, table)
    if quantity not in table[name]:
        raise TinkerNomicsError(f"experiment {name} has no recorded {quantity!r}")
    return table[name][quantity]


@dataclass(frozen=True)
class Olmo3Compute:
    """GPU-hours of AllenAI's OLMo 3 32B post-training, from the figures the RLHF Book quotes."""
    sft_sweep_per_rate: float      # hours × GPUs of one SFT learning-rate run
    sft_sweep: float               # all learning rates tried
    dpo_sweep_per_rate: float
    continued_rl: float            # OLMo 3.1's continued RL: days × 24 × GPUs
    initial_rl_days: float         # no GPU count is quoted for it
    recipe_low: float              # recipe development costs this many times the final run
    recipe_high: float


def olmo3_gpu_hours() -> Olmo3Compute:
    sft = claim("olmo3_sft_sweep_hours") * claim("olmo3_sft_sweep_gpus")
    return Olmo3Compute(sft, sft * claim("olmo3_sft_learning_rates"),
                        claim("olmo3_dpo_sweep_hours") * claim("olmo3_dpo_sweep_gpus"),
                        claim("olmo3_continued_rl_days") * 24.0 * claim("olmo3_continued_rl_gpus"),
                        claim("olmo3_initial_rl_days"), claim("recipe_development_low"),
                        claim("recipe_development_high"))
