"""Workload presets (data/workloads/workloads.csv): every parameter with its source or the reason for it.

Values are read as the table writes them: a number, true/false, or text (a model, GPU, sandbox or snapshot
name). `Scenario.from_workload` checks that every parameter is a Scenario field. The `methods` column limits
a row to the methods it names (e.g. the seed's own 70% MBU: "seed exact"; its January price list: "seed");
empty means every method.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import TinkerNomicsError
from .tables import Column, build_index, load_table, lookup


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    fields: dict            # Scenario field -> value
    sources: dict           # Scenario field -> source text
    rows: dict              # Scenario field -> row of workloads.csv (header = row 1)
    methods: dict = None    # Scenario field -> methods the row applies to (absent: every method)


BOOLEANS = {"true": True, "yes": True, "false": False, "no": False}


def parse_value(text: str):
    """A preset cell: true/false, else a number, else text (names such as `Qwen/Qwen3-8B` or `H100 SXM`)."""
    lowered = text.strip().lower()
    if lowered in BOOLEANS:
        return BOOLEANS[lowered]
    try:
        return float(text)
    except ValueError:
        return text.strip()


@functools.lru_cache(maxsize=None)
def workloads() -> dict[str, Workload]:
    rows = load_table("workloads/workloads.csv", [Column("workload"), Column("parameter"), Column("value"),
                                                  Column("source"), Column("methods", required=False)])
    grouped: dict[str, dict] = {}
    for r in rows:
        entry = grouped.setdefault(r["workload"], {"description": "", "fields": {}, "sources": {}, "rows": {},
                                                   "methods": {}})
        name, text = r["parameter"], r["value"]
        if name == "description":
            entry["description"] = text
            continue
        if name in entry["fields"]:
            raise TinkerNomicsError(f"workloads/workloads.csv row {r['_row']}: {r['workload']} sets {name} twice")
        entry["fields"][name] = parse_value(text)
        entry["sources"][name] = r["source"]
        entry["rows"][name] = r["_row"]
        if r["methods"]:
            entry["methods"][name] = tuple(r["methods"].split())
    return {name: Workload(name, e["description"], e["fields"], e["sources"], e["rows"], e["methods"])
            for name, e in grouped.items()}


def get_workload(name: str) -> Workload:
    table = workloads()
    return table[lookup("workload", name, build_index({k: [] for k in table}), table,
                        "list them with `tinker-nomics workloads`")]
