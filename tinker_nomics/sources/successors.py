"""Retired Tinker models and the current models they are billed on (data/models/successors.csv).

A preset or a run whose model Tinker no longer prices is evaluated on its named successor, and every result
that does so says so.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import TinkerNomicsError
from .architectures import has_arch, has_name, resolve_model
from .price_list import snapshots
from .prices import get_price
from .tables import Column, load_table

@dataclass(frozen=True)
class Successor:
    retired: str
    successor: str
    same_architecture: bool
    reason: str
    retired_evidence: str
    source_url: str


@functools.lru_cache(maxsize=None)
def successors() -> dict[str, Successor]:
    """Retired preset model -> the current model it is evaluated on (data/models/successors.csv)."""
    rows = load_table("models/successors.csv", [
        Column("retired_model"), Column("successor"), Column("same_architecture", "bool"), Column("reason"),
        Column("retired_evidence"), Column("source_url"), Column("recorded")])
    out = {}
    for r in rows:
        retired, successor = resolve_model(r["retired_model"]), resolve_model(r["successor"])
        if not has_arch(successor):
            raise TinkerNomicsError(f"models/successors.csv row {r['_row']}: successor {successor} has no "
                                    f"architecture in models/model_archs.csv")
        out[retired] = Successor(retired, successor, r["same_architecture"], r["reason"], r["retired_evidence"],
                                 r["source_url"])
    return out


@functools.lru_cache(maxsize=None)
def snapshot_dating() -> dict[str, str]:
    """Snapshot -> how its source dates it ('dated by the source', 'month only; …', 'undated; …')."""
    rows = load_table("prices/tinker_prices.csv", [Column("snapshot"), Column("snapshot_dating", required=False)])
    return {r["snapshot"]: r["snapshot_dating"] or "" for r in rows}


def is_priced(model: str, snapshot: str) -> bool:
    """True when `model` has prefill, sample and train prices as of `snapshot` (listed or carried forward)."""
    try:
        price = get_price(model, snapshot)
    except TinkerNomicsError:
        return False
    return price.complete


def model_for(model: str, snapshot: str) -> tuple[str, Successor | None]:
    """The model a preset is billed as at `snapshot`: itself while Tinker prices it, else its successor."""
    canonical = resolve_model(model)      # a name no registry knows: one line with the closest names
    billed = billed_as(canonical, snapshot)
    if billed is None:
        raise TinkerNomicsError(f"{canonical} has no complete Tinker price as of {snapshot} and no priced successor")
    return billed


def billed_as(model: str, snapshot: str) -> tuple[str, Successor | None] | None:
    """`model_for`, or None when Tinker's `snapshot` list bills neither the model nor a named successor (a name
    the registries do not know, given with its own config.json, included): Tinker does not offer the run."""
    canonical = _canonical(model)
    if is_priced(canonical, snapshot):
        return canonical, None
    successor = successors().get(canonical)
    if successor is not None and is_priced(successor.successor, snapshot):
        return successor.successor, successor
    return None


def not_offered_reason(model: str, snapshot: str) -> str:
    """Why Tinker's `snapshot` list bills neither `model` nor a named successor (`billed_as` is None), in one clause
    that names the newest list that does bill it, if any: 'the 2026-10-07 price list does not price
    meta-llama/Llama-3.1-70B; the newest list that bills it is 2026-H1'."""
    canonical = _canonical(model)
    successor = successors().get(canonical)
    if successor is not None:
        what = f"the {snapshot} price list prices neither {canonical} nor its named successor {successor.successor}"
    elif _sampling_only(canonical, snapshot):
        what = f"the {snapshot} price list gives only sampling rates for {canonical} (no train price)"
    else:
        what = f"the {snapshot} price list does not price {canonical}"
    elsewhere = [s for s in snapshots() if billed_as(canonical, s) is not None]
    if elsewhere:
        return f"{what}; the newest list that bills it is {elsewhere[-1]}"
    return f"{what}; no Tinker list bills it"


def _canonical(model: str) -> str:
    """The registry's id for `model`; a name the registries do not know (a model given by its config.json) as is."""
    return resolve_model(model) if has_name(model) else model.strip()


def _sampling_only(model: str, snapshot: str) -> bool:
    try:
        return not get_price(model, snapshot).complete
    except TinkerNomicsError:
        return False
