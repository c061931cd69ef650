"""Figures quoted from papers and from the seed's own experiments, with their sources.

These are not computed here (the cost model does not model them, or they are measurements); the book
quotes them from data/ so that every number it prints has a source.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from .errors import TinkerNomicsError, UnknownNameError
from .registry import Column, load_table


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
