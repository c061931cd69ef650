"""Sourced defaults and seed constants (data/assumptions/defaults.csv): `assumption(key)`, `number(key)`."""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import TinkerNomicsError, UnknownNameError
from .tables import Column, load_table, parse_float

# ----------------------------------------------------------------------------------------------- defaults


@dataclass(frozen=True)
class Assumption:
    key: str
    value: float | str
    unit: str
    source: str
    note: str


@functools.lru_cache(maxsize=None)
def assumptions() -> dict[str, Assumption]:
    rows = load_table("assumptions/defaults.csv",
                      [Column("key"), Column("value"), Column("unit"), Column("source"), Column("note", required=False)])
    out: dict[str, Assumption] = {}
    for r in rows:
        text = r["value"]
        try:
            value: float | str = parse_float(text)
        except ValueError:
            value = text
        if r["key"] in out:
            raise TinkerNomicsError(f"assumptions/defaults.csv row {r['_row']}: duplicate key {r['key']!r}")
        out[r["key"]] = Assumption(r["key"], value, r["unit"], r["source"], r["note"] or "")
    return out


def assumption(key: str) -> float | str:
    """The value of a sourced default or seed constant from data/assumptions/defaults.csv."""
    table = assumptions()
    if key not in table:
        raise UnknownNameError("assumption", key, table)
    return table[key].value


def number(key: str) -> float:
    value = assumption(key)
    if not isinstance(value, float):
        raise TinkerNomicsError(f"assumptions/defaults.csv: {key} must be a number, got {value!r}")
    return value


def framework_rollout_fraction(framework: str | None) -> float | None:
    """The share of GPU memory an RL framework gives its vLLM rollout engine by default, where a run does not state
    its own: NeMo RL's (its recipes' base config); None for the rest, whose default is verl's (the model's)."""
    return number("nemo_rl_rollout_memory_fraction") if "nemo rl" in (framework or "").lower() else None
