"""What the run-validation chapter and `report.html` show about one run, as compact plain data: `report_page(result)`
turns what `runs.ledger.check_run` returned into a dict of headline numbers, small tables and figure series, and
nothing of the size of the log. The chapter reads it (from a file, when `validate --report` renders it), and so does
`faces.report_html`; the page and the report's summary.txt are the same check.

Bounded size: the first rows of the tidy table (HEAD_ROWS), and each per-step series averaged over consecutive
steps down to at most MAX_POINTS points (a 10^6-step log gives 2,000 points, each the mean of 500 steps; the step
of a point is the last step it covers). Sums (bills, GPU-hours) come from the whole run, never from the series.

Values are plain JSON types; a number that is not known is NaN, as in the result itself (the file that carries a
page is private to the report, so `page_json` writes NaN as JSON's non-standard NaN token and `load_page` reads it
back unchanged).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from .. import fmt
from ..runs.ledger import TinkerCheck
from ..runs.meters import price_for, run_group_size
from ..runs.validate_hosted import HostedValidation
from .run_bills import hosted_snapshot_bills, snapshot_bills

COMPARED_SNAPSHOTS = ("2026-01-05", "2026-10-07")   # the January and October 2026 lists the chapter compares
HEAD_ROWS = 12
MAX_POINTS = 2000
TINKER_HEAD = ["step", "train_completion_tokens", "train_prompt_tokens", "episodes", "eval_completion_tokens",
               "eval_prompt_tokens", "reward", "step_seconds", "line", "eval_line"]
HOSTED_HEAD = ["step", "steps_covered", "step_seconds", "generation_seconds", "training_seconds", "validation_seconds",
               "checkpoint_seconds", "samples", "response_tokens", "prompt_tokens", "trained_tokens", "logged_mfu",
               "line"]


def plain(value):
    """A value as plain JSON types, NaN kept as float NaN (pandas' NA and None for a missing number stay None)."""
    return fmt.json_safe(value, keep_nan=True)


def records(frame: pd.DataFrame) -> list[dict]:
    return [plain(row) for row in frame.to_dict(orient="records")]


def head(frame: pd.DataFrame, columns: list[str]) -> dict:
    """The first HEAD_ROWS rows of `columns`, as {"columns": [...], "rows": [[...], ...]}."""
    shown = frame[columns].head(HEAD_ROWS)
    return {"columns": list(columns), "rows": [plain(list(row)) for row in shown.itertuples(index=False)]}


def binned(columns: dict, last: Iterable[str] = ()) -> tuple[dict, int]:
    """Per-step series (`columns`: name -> one value per step) of at most MAX_POINTS points: consecutive steps
    averaged (NaN left out of a mean; a point of no value is NaN), the `last` columns (a step number, a running
    total) taking the last step of each group. Returns ({name: [values]}, steps per point)."""
    arrays = {name: np.asarray(values, dtype=float) for name, values in columns.items()}
    n = len(next(iter(arrays.values()))) if arrays else 0
    size = max(1, math.ceil(n / MAX_POINTS))
    if size == 1:
        return {name: plain(values.tolist()) for name, values in arrays.items()}, 1
    group = np.arange(n) // size
    ends = np.r_[np.flatnonzero(np.diff(group)), n - 1]
    out = {}
    for name, values in arrays.items():
        if name in last:
            out[name] = plain(values[ends].tolist())
            continue
        ok = ~np.isnan(values)
        sums = np.bincount(group, weights=np.where(ok, values, 0.0))
        counts = np.bincount(group, weights=ok.astype(float))
        out[name] = plain((sums / np.maximum(counts, 1.0)).tolist())
        for i in np.flatnonzero(counts == 0):
            out[name][i] = math.nan
    return out, size


def _rates(price) -> dict | None:
    return None if price is None else {"prefill": price.prefill, "sample": price.sample, "train": price.train,
                                      "cached_prefill": price.cached_prefill}


def _october(price_model, snapshot: str) -> tuple[dict | None, str]:
    try:
        price, _ = price_for(price_model, snapshot, None)
    except Exception as exc:   # a model the list does not price (TinkerNomicsError, UnknownNameError): said so
        return None, str(exc)
    return _rates(price), ""


def report_page(result, snapshots: tuple[str, str] = COMPARED_SNAPSHOTS, price_as: str | None = None,
                group_size: float | None = None, model: str | None = None) -> dict:
    """The page data of a checked run (module docstring). `price_as`, `group_size` and `model` are the options the
    run was checked with, for the bills at the compared snapshots."""
    page = {"snapshots": list(snapshots), "caveats": None, "notes": None}
    if isinstance(result, TinkerCheck):
        page.update(_tinker_page(result, snapshots, price_as, group_size, model))
    elif isinstance(result, HostedValidation):
        page.update(_hosted_page(result, snapshots, price_as))
    else:
        raise TypeError(f"no report page for a {type(result).__name__}")
    price_model = page["summary"].get("price_model") or page["summary"].get("tinker_model") \
        or page["summary"].get("model")
    page["october"], page["october_reason"] = _october(price_model, snapshots[1])
    return plain(page)


def _tinker_page(result: TinkerCheck, snapshots, price_as, group_size, model) -> dict:
    validation, run = result.validation, result.run
    per_step = validation.per_step
    mask = per_step["has_train"]
    train = per_step if bool(mask.all()) else per_step[mask]   # no copy of a 10^6-row table when every row trains
    G, G_source = run_group_size(run, group_size)
    cached_mode = "logged" if run.cached_logged else ("group" if G else None)
    bills = snapshot_bills(run, model, snapshots, ("none", cached_mode) if cached_mode else ("none",), price_as, G)
    series, per_point = binned({"step": train["step"], "completion": run.train["train_completion_tokens"],
                                "prompt": run.train["train_prompt_tokens"], "cost_usd": train["cost_usd"],
                                "cumulative_usd": train["cumulative_usd"], "reward": train["reward"],
                                "step_minutes": train["step_seconds"] / 60.0}, last=("step", "cumulative_usd"))
    evals = run.eval_steps
    eval_series, eval_per_point = binned({name: evals[name] for name in ("step", "eval_completion_tokens",
                                                                          "eval_prompt_tokens", "eval_reward")},
                                         last=("step",))
    cal = validation.calibration
    return {
        "kind": "tinker", "framework": "tinker-cookbook", "summary": validation.summary(),
        "caveats": list(validation.caveats), "notes": list(validation.notes),
        "steps_head": head(run.steps, TINKER_HEAD), "series": series, "series_steps_per_point": per_point,
        "eval_series": eval_series, "eval_steps_per_point": eval_per_point,
        "bills": records(bills), "price": _rates(validation.bill.price),
        "sides": result.sides() if result.on_gpus is not None else None,
        "on_gpus": result.on_gpus.to_dict() if result.on_gpus is not None else None,
        "on_gpus_reason": result.on_gpus_reason,
        "calibration": None if cal is None else {"table": records(cal.table), "inputs": cal.inputs,
                                                 "sources": cal.sources, "notes": list(cal.notes)},
        "group": {"value": G, "where": G_source, "cached_mode": cached_mode},
    }


def _hosted_page(result: HostedValidation, snapshots, price_as) -> dict:
    run, steps = result.run, result.measured.per_step
    series, per_point = binned({name: steps[name] for name in ("step", "response_tokens", "prompt_tokens",
                                                                "generation_seconds", "training_seconds",
                                                                "other_seconds", "step_seconds", "reward")},
                               last=("step",))
    bills = hosted_snapshot_bills(result, snapshots, ("none", "group"), price_as)
    b, rec = result.bill, result.reconciliation
    bill = None
    if b is not None:
        bill = {"prices": b.prices, "price_model": b.price_model, "successor": result.successor is not None,
                "total_usd": b.total_usd, "sample_usd": b.sample_usd, "train_usd": b.train_usd,
                "prefill_usd": b.prefill_usd,
                "meters": [{"meter": m, "tokens": t, "rate": r, "usd": u}
                           for m, t, r, u in (("sample", b.meters.sample, b.price.sample, b.sample_usd),
                                              ("train", b.meters.train, b.price.train, b.train_usd),
                                              ("prefill", b.meters.prefill, b.price.prefill, b.prefill_usd))]}
    reconciliation = None
    if rec is not None and not rec.table.empty:
        reconciliation = {"method": rec.method, "table": records(rec.table), "fitted": rec.fitted,
                          "inputs": {k: v for k, v in rec.inputs.items() if k != "methods"},
                          "rows": {phase: plain(rec.row(phase)) for phase in ("step", "generation", "logprob",
                                                                               "training", "refit")}}
    return {
        "kind": "self-hosted", "framework": run.framework, "summary": result.summary(),
        "caveats": list(result.caveats), "notes": list(result.notes),
        "steps_head": head(run.steps, HOSTED_HEAD), "series": series, "series_steps_per_point": per_point,
        "bills": records(bills), "bill": bill, "reconciliation": reconciliation,
        "gpu_hours_basis": result.measured.basis["gpu_hours"],
        "group": {"value": run.config.get("group_size"), "where": run.config_sources.get("group_size", "not in the log"),
                  "cached_mode": "group"},
    }


def page_json(page: dict) -> bytes:
    """A page for the private file the chapter reads (a NaN written as the NaN token Python's json module reads
    back: for `load_page` only, never a file a user gets)."""
    return json.dumps(page, allow_nan=True).encode()


def load_page(path) -> dict:
    """The page `page_json` wrote."""
    return json.loads(Path(path).read_text())
