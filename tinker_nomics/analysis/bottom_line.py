"""The book's bottom line, for the intro: who wins each takeaway workload at the newest price list, by how much,
and what changed since the seed's January 2026 list. Computed from `timeline.verdicts` (retired models billed on
their successors, cached prefill where the list bills it), so it follows the package's default method and data.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..sources import newest_snapshot, resolve_snapshot
from . import timeline

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
    table = timeline.verdicts(workloads, list(dict.fromkeys([seed_snapshot, now])))
    latest = table[table.snapshot == now]
    sides = {}
    for side in ("self_hosted", "tinker"):
        rows = latest[latest.cheaper == side]
        sides[side] = Side(list(rows.workload), float(rows.factor.min()) if len(rows) else float("nan"),
                           float(rows.factor.max()) if len(rows) else float("nan"))
    flipped = [] if now == seed_snapshot else [w for w, f in timeline.flips(table, seed_snapshot, now)["flipped"].items()
                                               if f]
    return BottomLine(now, seed_snapshot, sides, flipped, list(latest[latest.successor].workload))
