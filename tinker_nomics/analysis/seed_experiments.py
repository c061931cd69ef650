"""The seed's two Tinker experiments (exp 1a, 1b) reproduced from the token totals the seed reports
(data/experiments/seed_experiments.csv): their bill at the rates of their workload preset's snapshot against
the real bill, and the cost model's prediction per meter. `seed_experiment("exp1a")`."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..errors import TinkerNomicsError
from ..model.billing import meter_cost
from ..model.estimate import estimate
from ..model.scenario import Scenario
from ..runs.calibrate import comparison_table, signed_error
from ..runs.meters import METERS, MeterTokens, RunBill, bill_meters
from ..sources.literature import experiment, seed_experiments
from ..sources.workloads import get_workload

# The seed prints its token totals in millions with one decimal ("19.3M", "10.7M", "13.5M"), so each printed
# figure is known to ± half a unit of 0.1M; the reproduced bill carries that uncertainty.
SEED_TOKEN_RESOLUTION = 0.1e6
SEED_WORKLOADS = {"exp1a": "exp1a_gsm8k", "exp1b": "exp1b_math"}


@dataclass(frozen=True)
class SeedExperiment:
    """One of the seed's Tinker runs: the bill from its reported token totals against the real bill, and
    the cost model's prediction (the workload preset) against those totals."""
    name: str
    workload: str
    bill: RunBill
    billed_usd: float            # what Tinker charged (the seed's console figure)
    rounding_usd: float          # ± from the rounding of the printed token totals
    table: pd.DataFrame          # predicted vs measured per meter (comparison_table)
    steps: float

    @property
    def computed_usd(self) -> float:
        return self.bill.total_usd

    @property
    def error(self) -> float:
        """(computed − billed) / billed."""
        return signed_error(self.computed_usd, self.billed_usd)

    @property
    def error_range(self) -> tuple[float, float]:
        return (signed_error(self.computed_usd - self.rounding_usd, self.billed_usd),
                signed_error(self.computed_usd + self.rounding_usd, self.billed_usd))

    @property
    def predicted_usd(self) -> float:
        return float(self.table.loc[self.table["meter"] == "total", "predicted_usd"].iloc[0])


def _seed_meters(name: str) -> tuple[MeterTokens, dict[str, int]]:
    """Meter totals from the seed's reported figures, and how many printed figures each meter adds up."""
    have = seed_experiments()[name]
    tc, tp = experiment(name, "train_completion_tokens"), experiment(name, "train_prompt_tokens")
    ec = experiment(name, "eval_completion_tokens")
    figures = {}
    if "sample_tokens" in have:
        sample, figures["sample"] = experiment(name, "sample_tokens"), 1
    else:
        sample, figures["sample"] = tc + ec, 2
    if "train_tokens" in have:
        train, figures["train"] = experiment(name, "train_tokens"), 1
    else:
        train, figures["train"] = tp + tc, 2
    if "prefill_tokens" in have:
        prefill, figures["prefill"] = experiment(name, "prefill_tokens"), 1
    else:
        prefill, figures["prefill"] = tp + experiment(name, "eval_prompt_tokens"), 2
    eval_prefill = experiment(name, "eval_prompt_tokens") if "eval_prompt_tokens" in have else prefill - tp
    return MeterTokens(sample, train, prefill, 0.0, ec, eval_prefill, tc, tp), figures


def seed_experiment(name: str) -> SeedExperiment:
    """Reproduce the seed's experiment `exp1a` or `exp1b`: its bill from the token totals it reports, at the
    rates of its workload preset's snapshot, and its predicted-vs-actual table per meter (the predicted side
    from the preset through `estimate`)."""
    if name not in SEED_WORKLOADS:
        raise TinkerNomicsError(f"unknown seed experiment {name!r}; known: {', '.join(SEED_WORKLOADS)}")
    workload = get_workload(SEED_WORKLOADS[name])
    model, snapshot = workload.fields["model"], workload.fields["prices"]
    meters, figures = _seed_meters(name)
    bill = bill_meters(meters, model, snapshot)
    half = SEED_TOKEN_RESOLUTION / 2
    rounding = sum(float(meter_cost(figures[m] * half, bill.price.rate(m))) for m in METERS)
    est = estimate(Scenario.from_workload(workload.name, method="seed"))
    predicted = {"sample": float(est.tokens.sample), "train": float(est.tokens.train),
                 "prefill": float(est.tokens.prefill)}
    table = comparison_table(predicted, meters, bill.price, str(est.scenario.method))
    return SeedExperiment(name, workload.name, bill, experiment(name, "billed_usd"), rounding, table,
                          experiment(name, "steps"))


def seed_experiments_table() -> pd.DataFrame:
    """Both seed experiments in one table: computed bill, real bill, error and its range from rounding."""
    rows = []
    for name in SEED_WORKLOADS:
        e = seed_experiment(name)
        low, high = e.error_range
        rows.append({"experiment": name, "workload": e.workload, "steps": e.steps,
                     "sample_tokens": e.bill.meters.sample, "train_tokens": e.bill.meters.train,
                     "prefill_tokens": e.bill.meters.prefill, "computed_usd": e.computed_usd,
                     "rounding_usd": e.rounding_usd, "billed_usd": e.billed_usd, "error": e.error,
                     "error_low": low, "error_high": high, "predicted_usd": e.predicted_usd,
                     "prediction_error": signed_error(e.predicted_usd, e.billed_usd)})
    return pd.DataFrame(rows)
