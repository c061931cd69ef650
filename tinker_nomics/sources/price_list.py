"""Tinker's price lists as recorded (data/prices/tinker_prices.csv): rows, snapshots, and the models priced.

This is the raw table; `prices.get_price` applies the lookup rules (carry-forward within a pricing epoch).

A row's status says how it is used:
  primary        a listing that prices the model for RL: prefill, sample and train, listed or supplied by the
                 lookup's carry-forward rule (tests/test_registry.py checks that each one is complete);
  sampling_only  the source lists the model's sampling rates only and no earlier listing supplies its train
                 price (tools/import_reference.py marks these): looked up, shown, but it prices no RL run;
  alternate      another source's figures for the record, never looked up.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import TinkerNomicsError
from .defaults import assumption
from .tables import Column, build_index, load_table, lookup

METERS = ("prefill", "sample", "train", "cached_prefill")
BILLED_METERS = ("prefill", "sample", "train")   # every RL run pays all three
STATUSES = ("primary", "sampling_only", "alternate")
LOOKED_UP = ("primary", "sampling_only")   # the statuses `prices.get_price` reads


@dataclass(frozen=True)
class PriceRow:
    snapshot: str
    effective_date: str
    model: str
    prefill: float | None
    sample: float | None
    train: float | None
    cached_prefill: float | None
    cached_prefill_basis: str
    status: str
    source_url: str
    row: int


@functools.lru_cache(maxsize=None)
def price_rows() -> tuple[PriceRow, ...]:
    rows = load_table("prices/tinker_prices.csv", [
        Column("snapshot"), Column("effective_date", required=False), Column("model"),
        Column("prefill", "float", False), Column("sample", "float", False), Column("train", "float", False),
        Column("cached_prefill", "float", False), Column("cached_prefill_basis", required=False),
        Column("status"), Column("source_url")])
    out = []
    for r in rows:
        for meter in METERS:
            if r[meter] is not None and r[meter] < 0:
                raise TinkerNomicsError(f"prices/tinker_prices.csv row {r['_row']} column {meter}: negative price")
        if r["status"] not in STATUSES:
            raise TinkerNomicsError(f"prices/tinker_prices.csv row {r['_row']} column status: {r['status']!r}")
        out.append(PriceRow(r["snapshot"], r["effective_date"] or "", r["model"], r["prefill"], r["sample"],
                            r["train"], r["cached_prefill"], r["cached_prefill_basis"] or "", r["status"],
                            r["source_url"], r["_row"]))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def snapshots() -> dict[str, str]:
    """Snapshot id -> effective date, oldest first (only snapshots usable for lookups)."""
    dated = {r.snapshot: r.effective_date for r in price_rows() if r.status in LOOKED_UP and r.effective_date}
    return dict(sorted(dated.items(), key=lambda kv: (kv[1], kv[0])))


def newest_snapshot() -> str:
    return list(snapshots())[-1]


def resolve_snapshot(name: str | None) -> str:
    """A snapshot id; None, 'latest' or 'newest' mean the newest one."""
    if name is None or (isinstance(name, str) and name.strip().lower() in ("", "latest", "newest")):
        return newest_snapshot()
    if isinstance(name, str) and name.strip() in snapshots():
        return name.strip()
    aliases = {"2026-01": "2026-01-05", "january": "2026-01-05", "2026-07": "2026-07-17",
               "july": "2026-07-17", "2026-10": "2026-10-07", "october": "2026-10-07"}
    return lookup("price snapshot", str(name), build_index({v: [k] for k, v in aliases.items()}
                                                          | {s: [] for s in snapshots()}),
                  snapshots(), "list them with `tinker-nomics prices`")


def pricing_epoch(date: str) -> int:
    return int(date >= str(assumption("tinker_repricing_date")))


@functools.lru_cache(maxsize=None)
def priced_models() -> tuple[str, ...]:
    """Every model a lookup can find (primary or sampling-only listings); `successors.is_priced` says whether
    one is priced for RL (all three meters) as of a snapshot."""
    return tuple(sorted({r.model for r in price_rows() if r.status in LOOKED_UP}))


def listed_in(snapshot: str, status: str = "primary") -> list[PriceRow]:
    """The rows a snapshot's source lists with that status (primary: the models it prices for RL)."""
    return [r for r in price_rows() if r.snapshot == snapshot and r.status == status]
