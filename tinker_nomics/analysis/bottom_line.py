"""The book's bottom line: for each takeaway workload, the default method's answer at a price list (both bills, who
is cheaper and by how much), how sure that answer is (the Monte-Carlo of analysis.uncertainty: P10–P90 of both bills
and the share of draws each side wins), how long the run takes on Tinker and on the rented GPUs (each with its
P10–P90), and what the one self-hosted run this book measured would make of it. The intro, the takeaway and the
uncertainty chapter all state these same rows.

    from tinker_nomics.analysis.bottom_line import answers, bottom_line
    rows = answers()                   # one Answer per takeaway workload, at the newest list
    rows[0].verdict.close, rows[0].tinker_p10, rows[0].tinker_days, rows[0].self_hosted_days
    bottom_line()                      # who wins what, the close calls, and what changed since January
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..model.estimate import estimate
from ..model.scenario import DEFAULT_METHOD, Scenario
from ..sources import newest_snapshot, resolve_snapshot
from . import compare, timeline, uncertainty
from .verdict import Verdict

SEED_SNAPSHOT = "2026-01-05"   # the original site's price list


@dataclass(frozen=True)
class Answer:
    """One workload under the default method at one price list: the point estimate, its spread, its verdict."""
    row: compare.HeadlineRow              # the point estimate (compare.headline_table's row)
    verdict: Verdict                      # the point verdict with the share of draws that agree
    prices: str                           # the price list
    method: str
    draws: int
    tinker_p10: float
    tinker_p90: float
    self_hosted_p10: float
    self_hosted_p90: float
    measured_pace: float                  # the measured self-hosted run's step time over the model's (a factor)
    self_hosted_at_measured_pace_usd: float   # the self-hosted bill had the run gone at that pace
    draws_as_slow: float                  # share of the draws whose model error is at least that pace
    tinker_days_p10: float = float("nan")       # the P10–P90 of each side's wall-clock over the draws, in days
    tinker_days_p90: float = float("nan")
    self_hosted_days_p10: float = float("nan")
    self_hosted_days_p90: float = float("nan")

    @property
    def workload(self) -> str:
        return self.row.workload

    @property
    def self_hosted_days(self) -> float:
        """Wall-clock of the run on the rented GPUs, in days."""
        return self.row.wallclock_days

    @property
    def tinker_days(self) -> float:
        """Wall-clock of the run on Tinker, in days (its step time fitted to the logged Tinker runs)."""
        return self.row.tinker_wallclock_days

    @property
    def at_measured_pace(self) -> Verdict:
        """Who is cheaper had the self-hosted run gone at the measured run's pace (no draws)."""
        return Verdict.of(self.row.tinker_usd, self.self_hosted_at_measured_pace_usd)


@functools.lru_cache(maxsize=None)
def measured_pace(prices: str | None = None) -> tuple[float, str]:
    """(measured ÷ predicted step time, the run's name) of the seed's veRL run that reports its step time (exp 1b,
    analysis.seed_verl_run; exp 1a gives only its total wall-clock), re-predicted by the default method."""
    from .seed_verl_run import seed_verl_check

    check = seed_verl_check(prices=prices)
    return check.measured_over_predicted, "exp 1b (Hendrycks MATH on 8 × B200, 35 steps before its cluster shut down)"


@functools.lru_cache(maxsize=None)
def _answers(workloads: tuple, prices: str, draws: int, seed: int) -> tuple:
    rows = compare.headline_table(workloads, prices=prices)
    pace, _ = measured_pace(prices)
    out = []
    for row in rows:
        if not row.priced:
            continue
        mc = uncertainty.simulate(row.workload, n=draws, seed=seed, snapshot=prices)
        q = {k: v / 24.0 if k.endswith("_hours") else v for k, v in mc.quantiles((0.1, 0.9)).items()}
        slow = estimate(Scenario.from_workload(row.workload, prices=prices, method=DEFAULT_METHOD,
                                               model_error_factor=pace))
        out.append(Answer(row, Verdict.of(row.tinker_usd, row.self_hosted_usd, mc.p_tinker_cheaper), prices,
                          DEFAULT_METHOD, mc.n, float(q["tinker"][0]), float(q["tinker"][1]),
                          float(q["self_hosted"][0]), float(q["self_hosted"][1]), pace,
                          float(slow.self_hosted.total_usd), mc.share_at_least("model_error_factor", pace),
                          float(q["tinker_hours"][0]), float(q["tinker_hours"][1]),
                          float(q["self_hosted_hours"][0]), float(q["self_hosted_hours"][1])))
    return tuple(out)


def answers(workloads=timeline.TAKEAWAY_WORKLOADS, prices: str | None = None, draws: int = uncertainty.DEFAULT_DRAWS,
            seed: int = 0) -> list[Answer]:
    """The default method's answer for each workload at `prices` (default: the newest list), with the Monte-Carlo
    spread (`draws` seeded draws per workload, the uncertainty chapter's) and the run measured on GPUs beside it.
    A workload the list cannot bill is left out (compare.headline_table says why)."""
    snapshot = resolve_snapshot(prices) if prices else newest_snapshot()
    return list(_answers(tuple(workloads), snapshot, int(draws), int(seed)))


@dataclass(frozen=True)
class Side:
    workloads: list[str]
    factor_low: float      # how many times cheaper the side is, at its narrowest and widest win
    factor_high: float


@dataclass(frozen=True)
class BottomLine:
    snapshot: str
    seed_snapshot: str
    sides: dict[str, Side]            # "self_hosted" and "tinker": the verdicts the draws support
    flipped: list[str]                # workloads whose cheaper side (point estimate) differs from the seed's list
    successors: list[str]             # workloads billed on a successor model at `snapshot`
    close_calls: list[str] = ()       # workloads whose verdict fewer than the close-call share of draws support


def bottom_line(workloads=timeline.TAKEAWAY_WORKLOADS, snapshot: str | None = None,
                seed_snapshot: str = SEED_SNAPSHOT, draws: int = uncertainty.DEFAULT_DRAWS,
                seed: int = 0) -> BottomLine:
    """Who wins which workload at `snapshot` (the verdicts the draws support), which are close calls, and which
    changed since `seed_snapshot` (the same default method at both lists, compare.headline_table)."""
    now = resolve_snapshot(snapshot) if snapshot else newest_snapshot()
    latest = answers(workloads, now, draws, seed)
    sides = {}
    for side in ("self_hosted", "tinker"):
        rows = [a for a in latest if a.verdict.winner == side]
        sides[side] = Side([a.workload for a in rows], min((a.verdict.factor for a in rows), default=math.nan),
                           max((a.verdict.factor for a in rows), default=math.nan))
    then = {r.workload: r.cheaper for r in compare.headline_table(workloads, prices=seed_snapshot) if r.priced}
    flipped = [a.workload for a in latest if a.workload in then and then[a.workload] != a.verdict.cheaper]
    return BottomLine(now, seed_snapshot, sides, flipped, [a.workload for a in latest if a.row.successor],
                      [a.workload for a in latest if a.verdict.close])
