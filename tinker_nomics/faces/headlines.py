"""The bills, factors and verdicts a chapter states, recorded so the book can check that no two pages disagree.

A chapter states a workload's answer through `Headlines.state`: it sets the prose values the markdown quotes
(`{key}_tinker`, `{key}_hosted`, `{key}_verdict`, `{key}_days`, `{key}_tinker_days`, `{key}_tinker_spread`,
`{key}_hosted_spread`, each only when given) and records what they say, with the workload, method and price list, glued as JSON under
`headline_{key}` (a key is stated once per chapter). tests/test_book_consistency.py reads every chapter's record from the executed notebooks and
fails when two pages state a different bill, factor or verdict for the same workload, method and list, or when a
page's prose says something other than its record.

    headlines = Headlines(prose)
    headlines.state("math_rl", "math_rl", "calibrated", "2026-10-07", tinker_usd=146.13, self_hosted_usd=36.44,
                    verdict=answer.verdict)
"""
from __future__ import annotations

import json

from ..analysis.verdict import Verdict
from . import wording

GLUE_PREFIX = "headline_"    # each record is glued once, under this prefix and its key (glue names are unique)


class Headlines:
    def __init__(self, prose):
        self.prose = prose
        self.records: list[dict] = []

    def state(self, key: str, workload: str, method: str, prices: str, *, tinker_usd: float | None = None,
              self_hosted_usd: float | None = None, verdict: Verdict | None = None, days: float | None = None,
              tinker_spread: tuple[float, float] | None = None,
              self_hosted_spread: tuple[float, float] | None = None, verdict_capital: bool = False,
              tinker_days: float | None = None) -> dict:
        """Set the prose values for one workload's answer under `key` and record them; returns the texts."""
        texts: dict[str, str] = {}
        record = {"workload": workload, "method": method, "prices": prices, "names": {}}
        if tinker_usd is not None:
            texts["tinker"] = record["tinker"] = wording.money(tinker_usd)
        if self_hosted_usd is not None:
            texts["hosted"] = record["self_hosted"] = wording.money(self_hosted_usd)
        if verdict is not None:
            texts["verdict"] = wording.verdict(verdict, capital=verdict_capital)
            record.update({"cheaper": verdict.cheaper, "factor": wording.factor(verdict.factor), "close": verdict.close,
                           "share": wording.probability(verdict.p_cheaper) if verdict.drawn else None})
        if days is not None:
            texts["days"] = record["days"] = wording.days(days)
        if tinker_days is not None:
            texts["tinker_days"] = record["tinker_days"] = wording.days(tinker_days)
        if tinker_spread is not None:
            texts["tinker_spread"] = record["tinker_spread"] = wording.spread(*tinker_spread)
        if self_hosted_spread is not None:
            texts["hosted_spread"] = record["self_hosted_spread"] = wording.spread(*self_hosted_spread)
        for name, text in texts.items():
            self.prose[f"{key}_{name}"] = text
            record["names"][name] = f"{key}_{name}"
        self.records.append(record)
        self.prose[f"{GLUE_PREFIX}{key}"] = json.dumps(record, ensure_ascii=False)
        return texts

    def state_answer(self, key: str, answer, verdict_capital: bool = False) -> dict:
        """`state` for an analysis.bottom_line.Answer: both bills, their P10–P90, the verdict and both wall-clocks."""
        return self.state(key, answer.workload, answer.method, answer.prices, tinker_usd=answer.row.tinker_usd,
                          self_hosted_usd=answer.row.self_hosted_usd, verdict=answer.verdict,
                          days=answer.self_hosted_days, tinker_spread=(answer.tinker_p10, answer.tinker_p90),
                          self_hosted_spread=(answer.self_hosted_p10, answer.self_hosted_p90),
                          verdict_capital=verdict_capital, tinker_days=answer.tinker_days)
