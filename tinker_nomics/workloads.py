"""Workload presets (data/workloads/workloads.csv): every parameter with its source or the reason for it."""
from __future__ import annotations

import functools
from dataclasses import dataclass, fields

from .errors import TinkerNomicsError
from .registry import Column, build_index, load_table, lookup


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    fields: dict            # Scenario field -> value
    sources: dict           # Scenario field -> source text


@functools.lru_cache(maxsize=None)
def workloads() -> dict[str, Workload]:
    from .scenario import TEXT_FIELDS, Scenario
    known = {f.name for f in fields(Scenario)}
    rows = load_table("workloads/workloads.csv", [Column("workload"), Column("parameter"), Column("value"),
                                                  Column("source")])
    grouped: dict[str, dict] = {}
    for r in rows:
        entry = grouped.setdefault(r["workload"], {"description": "", "fields": {}, "sources": {}})
        name, text = r["parameter"], r["value"]
        if name == "description":
            entry["description"] = text
            continue
        if name not in known:
            raise TinkerNomicsError(f"workloads/workloads.csv row {r['_row']} column parameter: {name!r} is not a "
                                    f"Scenario field")
        if name in entry["fields"]:
            raise TinkerNomicsError(f"workloads/workloads.csv row {r['_row']}: {r['workload']} sets {name} twice")
        if name in TEXT_FIELDS:
            value = text
        elif name == "tinker_cached_prefill":
            value = text.lower() in ("true", "yes", "1")
        else:
            try:
                value = float(text)
            except ValueError:
                raise TinkerNomicsError(f"workloads/workloads.csv row {r['_row']} column value: {text!r} is not a "
                                        f"number") from None
        entry["fields"][name] = value
        entry["sources"][name] = r["source"]
    return {name: Workload(name, e["description"], e["fields"], e["sources"]) for name, e in grouped.items()}


def get_workload(name: str) -> Workload:
    table = workloads()
    return table[lookup("workload", name, build_index({k: [] for k in table}), table,
                        "list them with `tinker-nomics workloads`")]
