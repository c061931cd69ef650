"""The run-validation chapter's arithmetic: a run's bill under several price lists and cached-prefill modes,
and the bundled public runs side by side (retired models billed on their named successors)."""
from __future__ import annotations

import math
from typing import Iterable

import pandas as pd

from .. import sources
from ..errors import TinkerNomicsError
from ..runs.calibrate import measure_inputs
from ..runs.meters import bill_meters, cached_tokens_per_step, run_meters
from ..runs.read import read_run
from ..runs.runlog import RunLog
from ..runs.validate import resolve_run_model
from ..runs.validate_hosted import HostedValidation, tinker_bill
from ..sources.bundled_runs import BundledRun, bundled_runs
from ..sources.price_list import resolve_snapshot
from ..sources.successors import model_for


def snapshot_bills(run: RunLog, model: str | None = None, snapshots_: Iterable[str] = ("2026-01-05", "2026-10-07"),
                   cached_modes: Iterable[str] = ("none", "group"), price_as: str | None = None,
                   group_size: float | None = None) -> pd.DataFrame:
    """The run's bill under several snapshots and cached-prefill modes, one row each. A snapshot that does
    not price the model gives a row of NaN with the reason."""
    canonical, _ = resolve_run_model(run, model)
    rows = []
    for snap in snapshots_:
        for mode in cached_modes:
            row = {"snapshot": resolve_snapshot(snap), "cached_prefill": mode, "price_model": None,
                   "sample_usd": math.nan, "train_usd": math.nan, "prefill_usd": math.nan, "total_usd": math.nan,
                   "cached_prefill_tokens": math.nan, "note": ""}
            try:
                hits, used, basis = cached_tokens_per_step(run, mode, group_size)
                bill = bill_meters(run_meters(run, hits), canonical, snap, price_as, used)
            except TinkerNomicsError as exc:
                row["note"] = str(exc)
                rows.append(row)
                continue
            row.update(price_model=bill.price_model, sample_usd=bill.sample_usd, train_usd=bill.train_usd,
                       prefill_usd=bill.prefill_usd, total_usd=bill.total_usd,
                       cached_prefill_tokens=bill.meters.cached_prefill,
                       note="; ".join([basis] * (used != "none") + list(bill.notes)))
            rows.append(row)
    return pd.DataFrame(rows)


def hosted_snapshot_bills(validation: HostedValidation, snapshots_: Iterable[str] = ("2026-01-05", "2026-10-07"),
                          cached_modes: Iterable[str] = ("none", "group"), price_as: str | None = None) -> pd.DataFrame:
    """A self-hosted run's token streams billed on Tinker under several snapshots: at the run model's own rates
    while the snapshot prices it, else at its named successor's (`successor` True), else NaN with the reason."""
    rows = []
    for snap in snapshots_:
        for mode in cached_modes:
            row = {"snapshot": resolve_snapshot(snap), "cached_prefill": mode, "price_model": None, "successor": False,
                   "sample_usd": math.nan, "train_usd": math.nan, "prefill_usd": math.nan, "total_usd": math.nan,
                   "note": ""}
            try:
                bill, successor, notes = tinker_bill(validation.run, validation.setup, snap, price_as, mode)
            except TinkerNomicsError as exc:
                row["note"] = str(exc)
                rows.append(row)
                continue
            if bill is None:
                row["note"] = "; ".join(notes)
            else:
                row.update(price_model=bill.price_model, successor=successor is not None, sample_usd=bill.sample_usd,
                           train_usd=bill.train_usd, prefill_usd=bill.prefill_usd, total_usd=bill.total_usd,
                           note="; ".join(list(bill.notes)))
            rows.append(row)
    return pd.DataFrame(rows)


def _successor_bills(run: RunLog, b: "BundledRun", snaps: list[str], row: dict) -> dict:
    """For a snapshot that no longer prices the run's model: the bill at its successor's rates
    (data/models/successors.csv), in columns `usd_<snap>_successor[_cached]` with `successor_<snap>` naming it."""
    out = {}
    for snap in snaps:
        if not math.isnan(row.get(f"usd_{snap}", math.nan)):
            continue
        try:
            stand_in, successor = model_for(b.price_as or b.model, snap)
        except TinkerNomicsError:
            continue
        if successor is None:
            continue
        bills = snapshot_bills(run, b.model, (snap,), ("none", "group"), stand_in, b.group_size)
        out[f"successor_{snap}"] = stand_in
        for r in bills.itertuples():
            if r.cached_prefill == "group" and "no cached-prefill rate" in r.note:
                continue
            out[f"usd_{snap}_successor" + ("_cached" if r.cached_prefill == "group" else "")] = r.total_usd
    return out


def bundled_bills(snapshots_: Iterable[str] = ("2026-01-05", "2026-10-07")) -> pd.DataFrame:
    """The bundled public runs (data/runs/) side by side: size, lengths, time, and the bill per snapshot,
    uncached and with the G−1-of-G cache assumption. A snapshot that does not price a model gives NaN, and,
    when the model has a successor in data/models/successors.csv, the bill at the successor's rates."""
    rows = []
    snaps = [resolve_snapshot(s) for s in snapshots_]
    for name, b in bundled_runs().items():
        run = read_run(b.path)
        meters = run_meters(run)
        inputs, _ = measure_inputs(run, group_size=b.group_size)
        row = {"run": name, "model": sources.resolve_model(b.model), "billed_as": b.price_as or "",
               "mode": run.mode, "steps": run.n_steps, "episodes_per_step": inputs["episodes_per_step"],
               "completion_tokens_mean": inputs["completion_tokens_mean"], "length_growth": inputs["length_growth"],
               "prompt_tokens": inputs["prompt_tokens"], "sample_tokens": meters.sample,
               "train_tokens": meters.train, "prefill_tokens": meters.prefill,
               "eval_sample_share": inputs["eval_sample_share"], "eval_runs": inputs["eval_runs"],
               "eval_every": inputs["eval_every"], "eval_prompts": inputs["eval_prompts"],
               "hours": float(run.train["step_seconds"].sum()) / 3600.0}
        bills = snapshot_bills(run, b.model, snaps, ("none", "group"), b.price_as, b.group_size)
        for r in bills.itertuples():
            if r.cached_prefill == "group" and "no cached-prefill rate" in r.note:
                continue   # the snapshot bills no cache hits: the cached column would repeat the list price
            key = f"usd_{r.snapshot}" + ("_cached" if r.cached_prefill == "group" else "")
            row[key] = r.total_usd
        row.update(_successor_bills(run, b, snaps, row))
        rows.append(row)
    return pd.DataFrame(rows)


def successor_over_own(bills: pd.DataFrame, run: str, snapshot: str, base: str) -> float:
    """From a `bundled_bills` table: the run billed on its successor at `snapshot` over the run's own bill at
    `base` (e.g. October on Qwen3.6-35B-A3B against January on Qwen3-30B-A3B): what moving to the successor
    does to the bill, the model change and the repricing together. NaN when the run has no successor bill."""
    row = bills.set_index("run").loc[run] if "run" in bills.columns else bills.loc[run]
    column = f"usd_{resolve_snapshot(snapshot)}_successor"
    if column not in row.index:
        return math.nan
    return float(row[column]) / float(row[f"usd_{resolve_snapshot(base)}"])


def bundled_run(name: str) -> BundledRun:
    table = bundled_runs()
    if name not in table:
        raise TinkerNomicsError(f"unknown bundled run {name!r}; known: {', '.join(table)}")
    return table[name]
