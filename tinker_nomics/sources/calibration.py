"""The calibrated method's fitted efficiencies (data/calibration/efficiencies.csv, written by
`make calibrate` = tools/calibrate.py from the published measurements in data/measurements/).

Each row is one fitted quantity with the cases and sources it was fitted on, its leave-one-source-out error,
the spread of the fit's residuals (the model error the Monte-Carlo draws), the date and the fit's inputs.
Nothing here is typed in: the table is the script's output.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import TinkerNomicsError
from .tables import Column, load_table

PARAMETERS = {
    ("decode_bandwidth_efficiency", "dense"), ("decode_bandwidth_efficiency", "moe"),
    ("decode_compute_efficiency", "all"), ("tp_sync_seconds_per_layer", "all"), ("rollout_tail", "all"),
    ("train_mfu", "dense"), ("train_mfu", "moe"), ("model_error_log_sd", "decode"),
    ("model_error_log_sd", "rl_step"),
}


@dataclass(frozen=True)
class Efficiencies:
    """The fitted quantities of the calibrated method (model/calibrated.py explains each)."""
    bandwidth_dense: float          # share of HBM bandwidth a dense model's decode step reaches
    bandwidth_moe: float            # … a mixture-of-experts model's
    compute: float                  # share of the dense peak reached by decode and prefill GEMMs
    tp_sync_seconds: float          # per layer per doubling of the tensor-parallel group, per decode step
    tail: float                     # extra decode of the longest RL sequences, in mean output lengths
    mfu_dense: float                # RL training model-FLOPs utilization, dense models
    mfu_moe: float                  # … mixture-of-experts models

    def bandwidth(self, arch) -> float:
        return self.bandwidth_moe if arch.is_moe else self.bandwidth_dense

    def mfu(self, arch) -> float:
        return self.mfu_moe if arch.is_moe else self.mfu_dense


@dataclass(frozen=True)
class FittedValue:
    parameter: str
    kind: str                 # the class it applies to: dense, moe, all, decode, rl_step
    value: float
    unit: str
    cases: int
    source: str
    loso_median_abs_error: float | None
    fitted: str
    inputs: str
    note: str


@functools.lru_cache(maxsize=None)
def fitted_values() -> dict[tuple[str, str], FittedValue]:
    rows = load_table("calibration/efficiencies.csv", [
        Column("parameter"), Column("class"), Column("value", "float"), Column("unit"), Column("cases", "int"),
        Column("source"), Column("loso_median_abs_error", "float", False), Column("fitted"), Column("inputs"),
        Column("note", required=False)])
    out = {}
    for r in rows:
        key = (r["parameter"], r["class"])
        if key not in PARAMETERS:
            raise TinkerNomicsError(f"calibration/efficiencies.csv row {r['_row']}: unknown parameter {key}")
        if key in out:
            raise TinkerNomicsError(f"calibration/efficiencies.csv row {r['_row']}: {key} is listed twice")
        if r["value"] < 0:
            raise TinkerNomicsError(f"calibration/efficiencies.csv row {r['_row']} column value: negative")
        out[key] = FittedValue(r["parameter"], r["class"], r["value"], r["unit"], r["cases"], r["source"],
                               r["loso_median_abs_error"], r["fitted"], r["inputs"], r["note"] or "")
    missing = PARAMETERS - set(out)
    if missing:
        raise TinkerNomicsError(f"calibration/efficiencies.csv lacks {sorted(missing)[0]}; run `make calibrate`")
    return out


def fitted(parameter: str, kind: str) -> float:
    return fitted_values()[(parameter, kind)].value


@functools.lru_cache(maxsize=None)
def efficiencies() -> Efficiencies:
    """The calibrated method's efficiencies as fitted on every usable published measurement."""
    return Efficiencies(fitted("decode_bandwidth_efficiency", "dense"), fitted("decode_bandwidth_efficiency", "moe"),
                        fitted("decode_compute_efficiency", "all"), fitted("tp_sync_seconds_per_layer", "all"),
                        fitted("rollout_tail", "all"), fitted("train_mfu", "dense"), fitted("train_mfu", "moe"))


def model_error(kind: str) -> float:
    """Standard deviation of log(predicted / measured) of the calibrated fit's leave-one-source-out residuals,
    for `decode` throughput or `rl_step` time: the model's own error, drawn by the Monte-Carlo."""
    return fitted("model_error_log_sd", kind)
