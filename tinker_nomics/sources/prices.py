"""Tinker's per-token prices: dated snapshots, and what a model costs "as of" one of them.

A snapshot is one source's price list on one date. Sources list only some models and sometimes only some
meters, so a lookup in snapshot D works like this, and says so in the result's `notes`:

1. the snapshot's own row for the model, when it has one;
2. otherwise the newest earlier row in the same pricing epoch (carried forward). Epochs are separated by
   Tinker's repricing on 2026-07-17: a January price is never carried past it;
3. a meter the row leaves empty (many sources list no train price) is filled from the newest earlier row of
   the same epoch whose listed meters agree with it; when none agrees it stays empty, and billing that meter
   is an error that names the snapshot and where the model is fully priced, if anywhere. Such rows are marked
   `sampling_only` in the data (price_list's docstring), so no listing calls the model priced there.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..errors import TinkerNomicsError
from .architectures import resolve_model
from .price_list import BILLED_METERS, LOOKED_UP, METERS, price_rows, priced_models, pricing_epoch, resolve_snapshot, snapshots
from .tables import Column, load_table


@dataclass(frozen=True)
class Price:
    """USD per million tokens for one model as of one snapshot, with where each meter came from."""
    model: str
    snapshot: str
    prefill: float | None
    sample: float | None
    train: float | None
    cached_prefill: float | None
    provenance: dict = field(default_factory=dict)   # meter -> "snapshot (basis)"
    notes: tuple[str, ...] = ()

    def rate(self, meter: str) -> float:
        value = getattr(self, meter)
        if value is None:
            complete = [s for s in snapshots() if _complete(self.model, s)]
            where = (f"it is fully priced in {', '.join(complete)}; pick one with --prices" if complete else
                     "no source gives it in any snapshot (the sources list its sampling rates only)")
            raise TinkerNomicsError(
                f"price snapshot {self.snapshot} has no {meter.replace('_', ' ')} price for {self.model} "
                f"(its source does not list that meter); {where}")
        return value

    @property
    def complete(self) -> bool:
        """True when the three billed meters (prefill, sample, train) all have a rate."""
        return all(getattr(self, m) is not None for m in BILLED_METERS)


def _complete(model: str, snapshot: str) -> bool:
    try:
        return get_price(model, snapshot).complete
    except TinkerNomicsError:
        return False


def get_price(model: str, snapshot: str | None = None) -> Price:
    """`model`'s rates as of `snapshot` (the newest by default), by the rules in the module docstring."""
    _primary_listings_checked()
    return _lookup(model, snapshot)


@functools.lru_cache(maxsize=None)
def _primary_listings_checked() -> bool:
    """Every primary listing prices its model for RL (the invariant tests/test_registry.py pins on the data):
    checked once per load, so a price table edited by hand cannot list a model as priced without its train
    price (such a listing is status sampling_only)."""
    for r in price_rows():
        if r.status != "primary" or r.snapshot not in snapshots():
            continue
        price = _lookup(r.model, r.snapshot)
        missing = [m for m in BILLED_METERS if getattr(price, m) is None]
        if missing:
            raise TinkerNomicsError(f"prices/tinker_prices.csv row {r.row}: {r.model} is listed as priced (status "
                                    f"primary) in {r.snapshot} but has no {', '.join(missing)} price, listed or "
                                    f"carried forward; mark the row sampling_only")
    return True


@functools.lru_cache(maxsize=None)
def _lookup(model: str, snapshot: str | None = None) -> Price:
    snap = resolve_snapshot(snapshot)
    canonical = resolve_model(model)
    date = snapshots()[snap]
    rows = [r for r in price_rows() if r.model == canonical and r.status in LOOKED_UP and r.effective_date
            and r.effective_date <= date and pricing_epoch(r.effective_date) == pricing_epoch(date)]
    if not rows:
        def listed(status):
            return sorted({r.snapshot for r in price_rows() if r.model == canonical and r.status == status},
                          key=lambda s: snapshots().get(s, ""))
        priced, sampling = listed("primary"), listed("sampling_only")
        where = f"; it is priced in {', '.join(priced)}" if priced else "; Tinker prices it in no snapshot"
        if sampling:
            where += f" (sampling rates only in {', '.join(sampling)})"
        raise TinkerNomicsError(f"no Tinker price for {canonical} as of snapshot {snap}{where}")
    rows.sort(key=lambda r: (r.effective_date, r.snapshot == snap))
    base = rows[-1]
    notes = []
    if base.snapshot != snap:
        notes.append(f"{canonical}: snapshot {snap} does not list it; prices carried forward from {base.snapshot}")
    values, provenance = {}, {}
    for meter in METERS:
        value = getattr(base, meter)
        basis = base.cached_prefill_basis if meter == "cached_prefill" else "listed"
        origin = base.snapshot
        if value is None:
            for older in reversed(rows[:-1]):
                agrees = all(getattr(older, m) == getattr(base, m) for m in ("prefill", "sample")
                             if getattr(base, m) is not None)
                if agrees and getattr(older, meter) is not None:
                    value, origin = getattr(older, meter), older.snapshot
                    basis = older.cached_prefill_basis if meter == "cached_prefill" else "listed"
                    notes.append(f"{canonical}: {meter} price taken from {older.snapshot} "
                                 f"(snapshot {base.snapshot} lists the same prefill/sample prices but no {meter})")
                    break
        values[meter] = value
        if value is not None:
            provenance[meter] = f"{origin} ({basis})" if basis else origin
    return Price(canonical, snap, values["prefill"], values["sample"], values["train"], values["cached_prefill"],
                 provenance, tuple(notes))


def price_ratio(model: str, snapshot: str | None, other_model: str, other_snapshot: str | None = None,
                meter: str = "sample") -> float:
    """One meter's price of `model` as of `snapshot` over that of `other_model` as of `other_snapshot` (the same
    snapshot when None): how many times dearer a model is listed, or how a model's rate moved between lists."""
    other_snapshot = snapshot if other_snapshot is None else other_snapshot
    return get_price(model, snapshot).rate(meter) / get_price(other_model, other_snapshot).rate(meter)


@functools.lru_cache(maxsize=None)
def storage_rows() -> tuple[tuple[str, float, str], ...]:
    rows = load_table("prices/tinker_storage.csv",
                      [Column("snapshot"), Column("usd_per_gb_month", "float"), Column("source_url")])
    return tuple((r["snapshot"], r["usd_per_gb_month"], r["source_url"]) for r in rows)


def storage_usd_per_gb_month(snapshot: str | None = None) -> float:
    """Checkpoint storage price as of a snapshot (the newest storage figure dated on or before it)."""
    snap = resolve_snapshot(snapshot)
    date = snapshots()[snap]
    known = [(snapshots().get(s, s), price) for s, price, _ in storage_rows() if snapshots().get(s, s) <= date]
    if not known:
        raise TinkerNomicsError(f"no checkpoint-storage price dated on or before snapshot {snap}")
    return max(known)[1]


def clear_caches() -> None:
    for fn in (price_rows, snapshots, priced_models, _lookup, _primary_listings_checked, storage_rows):
        fn.cache_clear()
