"""Calibration: recover the cost model's inputs from a run's logs and re-predict it.

From the same logs the bill is summed from: average completion and prompt length per episode, length growth
from the first and last part of the run, eval cadence and size, B×G from the episode counts. The run is then
re-predicted with `Scenario`/`estimate`, and predicted versus measured is reported per meter with the signed
error (predicted − measured) / measured.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import pandas as pd

from .. import fmt
from ..errors import TinkerNomicsError
from ..model.billing import meter_cost
from ..model.estimate import estimate
from ..model.scenario import Scenario
from ..sources.prices import Price
from .meters import METERS, MeterTokens, price_for, run_group_size, run_meters
from .runlog import RunLog, frame_from_records

SIGN_CONVENTION = "signed error = (predicted - measured) / measured; positive means the cost model over-predicts"
DEFAULT_WINDOW = 0.2   # share of training steps in the "early" and "late" parts that define length growth


@dataclass(frozen=True)
class Calibration:
    """The cost model re-run with inputs measured from the logs, against what the logs measured."""
    inputs: dict                 # Scenario fields and the measured quantities behind them
    sources: dict                # input -> how it was measured
    scenarios: dict              # method -> Scenario
    table: pd.DataFrame          # method, meter, predicted/measured tokens and USD, signed errors
    notes: tuple[str, ...] = ()
    sign_convention: str = SIGN_CONVENTION

    def to_dict(self) -> dict:
        return fmt.json_safe({"sign_convention": self.sign_convention, "inputs": self.inputs, "sources": self.sources,
                              "rows": fmt.json_records(self.table), "notes": list(self.notes)})

    @classmethod
    def from_dict(cls, d: dict) -> "Calibration":
        """The calibration `to_dict` wrote (without the Scenario objects: `scenarios` is empty)."""
        inputs = {k: math.nan if v is None else v for k, v in d["inputs"].items()}
        table = frame_from_records(d["rows"], TABLE_COLUMNS, ints=(), bools=(), nullable_ints=(),
                                   texts=("method", "meter"))
        return cls(inputs, dict(d["sources"]), {}, table, tuple(d["notes"]), d["sign_convention"])


def signed_error(predicted: float, measured: float) -> float:
    return (predicted - measured) / measured if measured else math.nan


def comparison_table(predicted: dict, measured: MeterTokens, price: Price, method: str) -> pd.DataFrame:
    """Rows per meter (and the total): predicted vs measured tokens and USD at the same list rates."""
    rows = []
    for meter in METERS:
        rate = price.rate(meter)
        p_tok, m_tok = float(predicted[meter]), float(getattr(measured, meter))
        p_usd, m_usd = float(meter_cost(p_tok, rate)), float(meter_cost(m_tok, rate))
        rows.append({"method": method, "meter": meter, "rate_usd_per_million": rate, "predicted_tokens": p_tok,
                     "measured_tokens": m_tok, "tokens_error": signed_error(p_tok, m_tok), "predicted_usd": p_usd,
                     "measured_usd": m_usd, "usd_error": signed_error(p_usd, m_usd)})
    total = {k: sum(r[k] for r in rows) for k in ("predicted_tokens", "measured_tokens", "predicted_usd",
                                                  "measured_usd")}
    rows.append({"method": method, "meter": "total", "rate_usd_per_million": math.nan, **total,
                 "tokens_error": signed_error(total["predicted_tokens"], total["measured_tokens"]),
                 "usd_error": signed_error(total["predicted_usd"], total["measured_usd"])})
    return pd.DataFrame(rows)


def measure_inputs(run: RunLog, window: float = DEFAULT_WINDOW, group_size: float | None = None) -> tuple[dict, dict]:
    """The cost model's inputs as the logs measure them, and a sentence per input saying how."""
    if not 0 < window <= 0.5:
        raise TinkerNomicsError(f"window must be in (0, 0.5], got {window!r}")
    train = run.train
    steps = len(train)
    episodes = train["episodes"]
    if episodes.isna().any() or not (episodes > 0).all():
        bxg = None
        if "groups_per_batch" in run.config and "group_size" in run.config:
            bxg = float(run.config["groups_per_batch"] * run.config["group_size"])
        if not bxg:
            raise TinkerNomicsError(f"{run.source}: env/all/total_episodes is not logged on every training step and "
                                    f"config.json gives no batch shape: per-episode lengths cannot be measured")
        episodes = pd.Series(bxg, index=train.index)
        episodes_source = "config.json groups_per_batch × group_size (episodes not logged on every step)"
    else:
        episodes_source = "mean of env/all/total_episodes per training step"
    ac = train["train_completion_tokens"]
    ob = train["train_prompt_tokens"]
    n = max(1, int(round(steps * window)))
    early_len = float(ac.iloc[:n].sum() / episodes.iloc[:n].sum())
    late_len = float(ac.iloc[-n:].sum() / episodes.iloc[-n:].sum())
    growth = late_len / early_len if early_len > 0 else 1.0
    g, g_source = run_group_size(run, group_size)
    per_step = float(episodes.mean())
    if g:
        b = per_step / float(g)
    else:
        b, g = per_step, 1.0
        g_source = "unknown (B×G is what the token meters need; B set to the episodes per step, G to 1)"
    evals = run.eval_steps
    eval_steps = evals["step"].to_numpy()
    if len(eval_steps) >= 2:
        every = float(np.median(np.diff(np.sort(eval_steps))))
    elif len(eval_steps) == 1:
        every = float(steps)
    else:
        every = 0.0
    eval_prompts = float(evals["eval_episodes"].mean()) if len(evals) else 0.0
    turns = float(train["turns"].mean()) if train["turns"].notna().any() else 1.0
    meters = run_meters(run)
    inputs = {
        "steps": steps, "episodes_per_step": per_step, "prompts_per_step": b, "group_size": float(g),
        "completion_tokens": early_len, "completion_tokens_mean": float(ac.sum() / episodes.sum()),
        "completion_tokens_late": late_len, "length_growth": growth,
        "prompt_tokens": float(ob.sum() / episodes.sum()), "turns": turns, "window_steps": n,
        "eval_runs": int(len(eval_steps)), "eval_every": every, "eval_prompts": eval_prompts,
        "eval_sample_share": meters.eval_sample / meters.sample if meters.sample else 0.0,
        "eval_prefill_share": meters.eval_prefill / meters.prefill if meters.prefill else 0.0,
        "sample_tokens_per_step": meters.sample / steps, "train_tokens_per_step": meters.train / steps,
        "prefill_tokens_per_step": meters.prefill / steps, "substeps": 1.0,
    }
    input_sources = {
        "steps": "training steps logged (rows with env/all/total_ac_tokens)",
        "episodes_per_step": episodes_source,
        "prompts_per_step": "episodes per step / G",
        "group_size": g_source,
        "completion_tokens": f"start length L: completion tokens per episode over the first {n} training step(s)",
        "completion_tokens_late": f"completion tokens per episode over the last {n} training step(s)",
        "length_growth": "late / early completion length (the model averages (1 + growth) / 2 of the start length)",
        "prompt_tokens": "prompt tokens per episode over the run (env/all/total_ob_tokens / episodes)",
        "turns": "mean env/all/turns_per_episode (1 when not logged)",
        "eval_every": "median gap between logged eval steps (the model counts ceil(steps / every) evals)",
        "eval_prompts": "mean test/…/total_episodes per eval (the model gives eval rollouts the training lengths)",
        "substeps": "1: tinker-cookbook's num_substeps splits a batch, so each datum is trained once",
    }
    return inputs, input_sources


def calibrate(run: RunLog, model: str, prices: str | None = None, price_as: str | None = None,
              window: float = DEFAULT_WINDOW, group_size: float | None = None,
              methods: Iterable[str] = ("exact", "seed")) -> Calibration:
    """Re-predict the run with the cost model from the inputs its logs measure, and compare per meter."""
    inputs, input_sources = measure_inputs(run, window, group_size)
    price, _ = price_for(model, prices, price_as)
    measured = run_meters(run)
    notes = []
    if inputs["turns"] > 1:
        notes.append("multi-turn run: per-turn observation lengths are not in metrics.jsonl (they are in the "
                     "rollout summaries), so the cost model's multi-turn inputs cannot be recovered; no prediction")
        return Calibration(inputs, input_sources, {}, pd.DataFrame(columns=TABLE_COLUMNS), tuple(notes))
    scenarios, frames = {}, []
    for method in methods:
        scenario = Scenario(model=price.model, prompts_per_step=inputs["prompts_per_step"],
                            group_size=inputs["group_size"], steps=inputs["steps"],
                            completion_tokens=inputs["completion_tokens"], prompt_tokens=inputs["prompt_tokens"],
                            length_growth=inputs["length_growth"], substeps=1.0, turns=1.0,
                            eval_every=inputs["eval_every"], eval_prompts=inputs["eval_prompts"],
                            prices=price.snapshot, method=method, off_policy=0.0)
        est = estimate(scenario)
        scenarios[method] = scenario
        predicted = {"sample": float(est.tokens.sample), "train": float(est.tokens.train),
                     "prefill": float(est.tokens.prefill)}
        frames.append(comparison_table(predicted, measured, price, method))
    if "seed" in scenarios:
        notes.append("method seed bills train = sampled tokens (the seed's formula); method exact bills prompt + "
                     "completion per datum, as Tinker does")
    notes.append("predicted and measured are both priced at the list rates, prefill uncached")
    table = pd.concat(frames, ignore_index=True)
    if table["tokens_error"].isna().any():
        notes.append("an error is null (NaN) where the measured value is 0: there is no relative error")
    return Calibration(inputs, input_sources, scenarios, table, tuple(notes))


TABLE_COLUMNS = ["method", "meter", "rate_usd_per_million", "predicted_tokens", "measured_tokens", "tokens_error",
                  "predicted_usd", "measured_usd", "usd_error"]
