"""Who is cheaper, by how much, and how sure: one verdict the whole book states the same way.

A verdict is the point estimate's cheaper side and factor, with the share of Monte-Carlo draws (analysis.uncertainty)
in which that side is cheaper. Below the close-call share (data/assumptions/defaults.csv `close_call_share`) the
verdict is a close call: the book then names the side cheaper at the point estimate, never a winner.

    from tinker_nomics.analysis.verdict import Verdict
    v = Verdict("tinker", 1.1, p_tinker=0.47)
    v.close, v.p_cheaper          # True, 0.47
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..sources.defaults import number

SIDES = ("tinker", "self_hosted")


def close_call_share() -> float:
    """The share of draws a verdict needs to be stated as a winner (below it: a close call)."""
    return number("close_call_share")


@dataclass(frozen=True)
class Verdict:
    cheaper: str                    # at the point estimate: "tinker" or "self_hosted" (a tie counts for Tinker)
    factor: float                   # the dearer bill over the cheaper one, at the point estimate (>= 1)
    p_tinker: float | None = None   # share of the draws in which Tinker is cheaper; None when nothing was drawn

    def __post_init__(self):
        if self.cheaper not in SIDES:
            raise ValueError(f"cheaper must be one of {SIDES}, not {self.cheaper!r}")

    @classmethod
    def of(cls, tinker_usd: float, self_hosted_usd: float, p_tinker: float | None = None) -> "Verdict":
        """From the two bills of the point estimate (and the share of draws Tinker wins, when drawn)."""
        tinker, hosted = float(tinker_usd), float(self_hosted_usd)
        side = "tinker" if tinker <= hosted else "self_hosted"
        return cls(side, max(tinker, hosted) / min(tinker, hosted), p_tinker)

    @property
    def other(self) -> str:
        return "self_hosted" if self.cheaper == "tinker" else "tinker"

    @property
    def drawn(self) -> bool:
        return self.p_tinker is not None and not math.isnan(self.p_tinker)

    @property
    def p_cheaper(self) -> float:
        """The share of draws in which the point estimate's cheaper side is cheaper (NaN when nothing was drawn)."""
        if not self.drawn:
            return math.nan
        return self.p_tinker if self.cheaper == "tinker" else 1.0 - self.p_tinker

    @property
    def p_self_hosted(self) -> float:
        return 1.0 - self.p_tinker if self.drawn else math.nan

    @property
    def close(self) -> bool:
        """Fewer than the close-call share of the draws agree with the point estimate."""
        return self.drawn and self.p_cheaper < close_call_share()

    @property
    def winner(self) -> str | None:
        """The side the book may call the winner: the point estimate's cheaper side unless the call is close."""
        return None if self.close else self.cheaper
