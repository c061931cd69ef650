"""The calibrated method's fitted parameters and its held-out errors by regime (data/calibration/, written by
`make calibrate` = tools/calibrate.py from the published measurements in data/measurements/).

parameters.csv: one row per fitted quantity of the phase model (model/decode.py, model/rl_phases.py) with its
search range, the cases and source families it was fitted on, the held-out (leave-one-family-out) error of its
part of the model, the date and the fit's inputs. errors_by_regime.csv: the held-out errors of decode throughput,
RL step time and each RL phase by regime; its log-spread is the model error the Monte-Carlo draws. Nothing here
is typed in: both tables are the script's output.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, fields

from ..errors import TinkerNomicsError
from .tables import Column, load_table


@dataclass(frozen=True)
class ModelParameters:
    """The fitted quantities of the phase model (model/decode.py and model/rl_phases.py explain each)."""
    decode_bandwidth_efficiency: float       # share of HBM bandwidth a decode step's reads reach
    decode_compute_efficiency: float         # share of the dense peak decode and prefill GEMMs reach
    weight_only_efficiency: float            # weight-only int8/int4 weights: dequantisation's share of the bandwidth
    decode_step_overhead_seconds: float      # per decode step (launches, scheduling, sampling)
    decode_sequence_overhead_seconds: float  # per sequence per decode step
    allreduce_latency_seconds: float         # per tensor-parallel all-reduce
    eager_layer_seconds: float               # host time to launch one layer's kernels in eager mode (no CUDA graph)
    generation_overhead_seconds: float       # per RL step's generation (engine wake-up, cache set-up, hand-offs)
    rollout_sequence_overhead_seconds: float # per sequence per decode step of an RL rollout, beyond a serving engine's
    train_gemm_efficiency: float             # share of the dense peak training and log-prob GEMMs reach
    moe_gemm_share: float                    # mixture-of-experts models: the share of that efficiency they reach
    train_flops_per_byte: float              # training FLOPs per byte of the memory traffic that comes with them
    pass_overhead_seconds: float             # per trainer call (a log-prob pass, the update): dispatch, gather
    micro_batch_overhead_seconds: float      # per micro-batch forward pass through the trainer (launches, gathers)
    step_overhead_seconds: float             # per RL step outside its phases (rewards, advantages, data)
    response_max_over_mean: float            # the longest response over the mean, where a run does not say


PARAMETER_NAMES = tuple(f.name for f in fields(ModelParameters))


@dataclass(frozen=True)
class FittedValue:
    parameter: str
    value: float
    unit: str
    low: float | None            # the search range (None: not searched; `how` says why)
    high: float | None
    how: str                     # searched, searched with a prior, held at a stated prior, median of the runs
    cases: int
    families: str
    held_out_median_abs_error: float | None
    fitted: str
    inputs: str
    note: str

    @property
    def on_bound(self) -> bool:
        """On (or within 0.1% of) an end of its search range: a defect of the model, not a result. A value not
        searched (a stated prior, a median) has no range to sit on."""
        if self.low is None or self.high is None:
            return False
        span = self.high - self.low
        return min(self.value - self.low, self.high - self.value) <= 1e-3 * span


@functools.lru_cache(maxsize=None)
def fitted_values() -> dict[str, FittedValue]:
    rows = load_table("calibration/parameters.csv", [
        Column("parameter"), Column("value", "float"), Column("unit"), Column("low", "float", False), Column("high", "float", False),
        Column("how"), Column("cases", "int"), Column("families", required=False), Column("held_out_median_abs_error", "float", False),
        Column("fitted"), Column("inputs"), Column("note", required=False)])
    out = {}
    for r in rows:
        where = f"calibration/parameters.csv row {r['_row']}"
        if r["parameter"] not in PARAMETER_NAMES:
            raise TinkerNomicsError(f"{where}: unknown parameter {r['parameter']!r}")
        if r["parameter"] in out:
            raise TinkerNomicsError(f"{where}: {r['parameter']!r} is listed twice")
        searched = r["how"].startswith("searched")
        if searched != (r["low"] is not None and r["high"] is not None):
            raise TinkerNomicsError(f"{where}: how {r['how']!r} and the range [{r['low']}, {r['high']}] disagree "
                                    f"(a searched value has a range, another none)")
        if r["value"] < 0 or searched and not r["low"] <= r["value"] <= r["high"]:
            raise TinkerNomicsError(f"{where} column value: {r['value']:g} is outside its range "
                                    f"[{r['low']:g}, {r['high']:g}]")
        out[r["parameter"]] = FittedValue(r["parameter"], r["value"], r["unit"], r["low"], r["high"], r["how"],
                                          r["cases"],
                                          r["families"], r["held_out_median_abs_error"], r["fitted"], r["inputs"],
                                          r["note"] or "")
    missing = [n for n in PARAMETER_NAMES if n not in out]
    if missing:
        raise TinkerNomicsError(f"calibration/parameters.csv lacks {missing[0]}; run `make calibrate`")
    return out


@functools.lru_cache(maxsize=None)
def parameters() -> ModelParameters:
    """The calibrated method's parameters as fitted on every usable published measurement."""
    values = fitted_values()
    return ModelParameters(**{name: values[name].value for name in PARAMETER_NAMES})


# ------------------------------------------------------------------------------------------------ errors


@dataclass(frozen=True)
class RegimeError:
    quantity: str             # decode, rl_step, generation, logprob, training
    regime: str               # all, batch1, throughput, weight_only, tp4plus, moe, long_context, lora, compute_poor
    cases: int
    families: int
    median_abs_error: float   # held out: each case predicted by a fit that never saw its family
    median_signed_error: float
    log_sd: float             # robust spread of log(predicted / measured): the Monte-Carlo's model error


@functools.lru_cache(maxsize=None)
def regime_errors() -> dict[tuple[str, str], RegimeError]:
    rows = load_table("calibration/errors_by_regime.csv", [
        Column("quantity"), Column("regime"), Column("cases", "int"), Column("families", "int"),
        Column("median_abs_error", "float"), Column("median_signed_error", "float"), Column("log_sd", "float"),
        Column("fitted"), Column("note", required=False)])
    out = {}
    for r in rows:
        if r["log_sd"] < 0 or r["median_abs_error"] < 0:
            raise TinkerNomicsError(f"calibration/errors_by_regime.csv row {r['_row']}: negative error")
        out[(r["quantity"], r["regime"])] = RegimeError(r["quantity"], r["regime"], r["cases"], r["families"],
                                                        r["median_abs_error"], r["median_signed_error"], r["log_sd"])
    for quantity in ("decode", "rl_step"):
        if (quantity, "all") not in out:
            raise TinkerNomicsError(f"calibration/errors_by_regime.csv lacks ({quantity}, all); run `make calibrate`")
    return out


def model_error(quantity: str, regime: str = "all") -> float:
    """Spread (sd of log(predicted / measured)) of the held-out errors of `quantity` (decode or rl_step) in
    `regime`, or of all its cases where the regime has too few: the model's own error, drawn by the Monte-Carlo."""
    table = regime_errors()
    row = table.get((quantity, regime))
    if row is None or row.families < 2:
        row = table[(quantity, "all")]
    return row.log_sd


def clear_caches() -> None:
    for fn in (fitted_values, parameters, regime_errors):
        fn.cache_clear()







