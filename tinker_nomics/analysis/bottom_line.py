"""The book's bottom line, for the intro: who wins each takeaway workload at the newest price list, by how much,
and what changed since the seed's January 2026 list. Computed from `compare.headline_table`, the answer the takeaway
chapter leads with (the calibrated method; retired models billed on their successors, cached prefill where the list
bills it); the change since January compares the same answer at both lists.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..sources import newest_snapshot, resolve_snapshot
from . import compare, timeline

SEED_SNAPSHOT = "2026-01-05"   # the original site's price list


@dataclass(frozen=True)
class Side:
    workloads: list[str]
    factor_low: float      # how many times cheaper the side is, at its narrowest and widest win
    factor_high: float


@dataclass(frozen=True)
class BottomLine:
    snapshot: str
    seed_snapshot: str
    sides: dict[str, Side]            # "self_hosted" and "tinker"
    flipped: list[str]                # workloads whose cheaper side differs from the seed's list
    successors: list[str]             # workloads billed on a successor model at `snapshot`


def bottom_line(workloads=timeline.TAKEAWAY_WORKLOADS, snapshot: str | None = None,
                seed_snapshot: str = SEED_SNAPSHOT) -> BottomLine:
    now = resolve_snapshot(snapshot) if snapshot else newest_snapshot()
    latest = [r for r in compare.headline_table(workloads, prices=now) if r.priced]
    sides = {}
    for side in ("self_hosted", "tinker"):
        rows = [r for r in latest if r.cheaper == side]
        sides[side] = Side([r.workload for r in rows], min((r.factor for r in rows), default=float("nan")),
                           max((r.factor for r in rows), default=float("nan")))
    then = {r.workload: r.cheaper for r in compare.headline_table(workloads, prices=seed_snapshot) if r.priced}
    flipped = [r.workload for r in latest if r.workload in then and then[r.workload] != r.cheaper]
    return BottomLine(now, seed_snapshot, sides, flipped, [r.workload for r in latest if r.successor])
