"""How well the throughput model matches published measurements: the accuracy chapter's arithmetic.

Sign convention, everywhere: signed error = (predicted − measured) / measured, on the quantity compared.
For a throughput (decode tokens/s) a positive error is optimistic: the model predicts more tokens per
second than measured, so a cost built on it comes out too low. For a time (an RL step) a positive error
is pessimistic: the model predicts a longer step, so the cost comes out too high. −50% means the
prediction is half the measurement; +100% means double.

Inputs are the structured cases in data/measurements/*_cases.csv (built from the raw published rows by
tools/build_measurement_cases.py, each case naming its raw row). Predictions come from the package's own
functions: roofline.decode_tokens_per_second for decode, selfhosted.self_hosted_cost for an RL step. This
module only resolves inputs, calls them, and compares.

Decode methods (all at efficiency 1.0, the pure roofline, unless told otherwise):
  seed     — the seed method: nominal parameter counts, KV = 16 KB per billion active parameters over the
             completion only (the seed's KV length), bandwidth-only;
  exact    — architecture-exact weights read (MoE experts touched) and KV/state bytes over input + half the
             output, bandwidth-only;
  roofline — exact plus the compute ceiling: a step takes the longer of its memory time and its FLOPs at the
             dense peak of the case's precision (FP8 peak for FP8; FP4 also uses the FP8 peak, because the
             GPU registry holds no sourced FP4 figure, so FP4 compute is treated as FP8).
Weights are priced at the case's precision (bytes_per_param); the KV cache stays BF16 in every method.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..errors import TinkerNomicsError
from ..model import memory, roofline, tokens
from ..model.selfhosted import self_hosted_cost
from ..sources.architectures import get_arch
from ..sources.defaults import number
from ..sources.hardware import GPU, get_gpu
from ..sources.tables import Column, load_table

DECODE_METHODS = ("seed", "exact", "roofline")
METHOD_LABELS = {"seed": "seed: nominal, bandwidth-only", "exact": "exact, bandwidth-only",
                 "roofline": "exact + compute ceiling"}
RL_METHODS = ("seed", "exact")
# Bytes per cached value: the registry's KV bytes are BF16; an FP8 cache halves them (a sensitivity, since
# no decode row states its KV-cache precision).
KV_BYTES_PER_VALUE = {"BF16": 2.0, "FP16": 2.0, "FP8": 1.0}

SIGN_CONVENTION = ("signed error = (predicted − measured) / measured; for tokens/s positive = optimistic "
                   "(cost too low), for step time positive = pessimistic (cost too high)")


def signed_error(predicted, measured):
    """(predicted − measured) / measured: positive when the model predicts more than was measured."""
    measured = np.asarray(measured, dtype=float)
    return (np.asarray(predicted, dtype=float) - measured) / measured


def times_measured(errors):
    """How many times the prediction the measurement is: 1 / (1 + signed error) (2 at −50%)."""
    return 1.0 / (1.0 + np.asarray(errors, dtype=float))


def worst(errors):
    """The signed error of largest magnitude (NaN when there is none)."""
    values = np.asarray(errors, dtype=float)
    values = values[np.isfinite(values)]
    return float(values[np.argmax(np.abs(values))]) if values.size else math.nan


# ----------------------------------------------------------------------------------------------- case tables

def _cases(relpath: str, columns: list[Column], required_when_usable: tuple[str, ...]) -> list[dict]:
    """Load a case table with the registry's schema check (one-line errors naming file, row and column);
    numeric columns may be empty only on rows marked usable=no."""
    rows = load_table(relpath, [Column("case_id"), Column("source", required=False), Column("raw_file"),
                                Column("raw_row", "int"), Column("usable"), Column("reason", required=False),
                                *columns, Column("notes", required=False)])
    seen = set()
    for row in rows:
        if row["usable"] not in ("yes", "no"):
            raise TinkerNomicsError(f"{relpath} row {row['_row']} column usable: {row['usable']!r} is not yes or no")
        if row["case_id"] in seen:
            raise TinkerNomicsError(f"{relpath} row {row['_row']} column case_id: duplicate {row['case_id']!r}")
        seen.add(row["case_id"])
        if row["usable"] == "no" and not row["reason"]:
            raise TinkerNomicsError(f"{relpath} row {row['_row']} column reason: empty on a usable=no case")
        if row["usable"] == "yes":
            for name in required_when_usable:
                if row[name] is None:
                    raise TinkerNomicsError(f"{relpath} row {row['_row']} column {name}: empty but required for "
                                            f"a usable case")
    return rows


@functools.lru_cache(maxsize=None)
def _decode_rows() -> tuple[dict, ...]:
    rows = _cases("measurements/decode_cases.csv", [
        Column("engine", required=False), Column("model", required=False), Column("gpu", required=False),
        Column("num_gpus", "float", False), Column("tensor_parallel", "float", False),
        Column("precision", required=False), Column("bytes_per_param", "float", False),
        Column("kv_precision", required=False),
        Column("concurrency", "float", False), Column("concurrency_basis", required=False),
        Column("max_num_seqs", "float", False),
        Column("kv_memory_fraction", "float", False), Column("input_tokens", "float", False),
        Column("output_tokens", "float", False), Column("measured_output_tok_s", "float")],
        ("model", "gpu", "num_gpus", "tensor_parallel", "precision", "bytes_per_param", "kv_precision",
         "concurrency_basis", "kv_memory_fraction", "input_tokens", "output_tokens"))
    for row in rows:
        if row["usable"] == "yes":
            basis = row["concurrency_basis"]
            if basis not in ("stated", "kv_limited_max"):
                raise TinkerNomicsError(f"measurements/decode_cases.csv row {row['_row']} column concurrency_basis: "
                                        f"{basis!r} is not stated or kv_limited_max")
            if basis == "stated" and row["concurrency"] is None:
                raise TinkerNomicsError(f"measurements/decode_cases.csv row {row['_row']} column concurrency: "
                                        f"empty but the basis is 'stated'")
    return tuple(rows)


def decode_cases(usable_only: bool = False) -> list[dict]:
    """The decode cases, one per raw row of decode_throughput.csv (usable=no rows carry the reason)."""
    return [dict(r) for r in _decode_rows() if r["usable"] == "yes" or not usable_only]


@functools.lru_cache(maxsize=None)
def _rl_rows() -> tuple[dict, ...]:
    return tuple(_cases("measurements/rl_step_cases.csv", [
        Column("framework", required=False), Column("algorithm", required=False), Column("model", required=False),
        Column("gpu", required=False), Column("num_gpus", required=False), Column("precision", required=False),
        Column("bytes_per_param", "float", False), Column("off_policy", "float", False),
        Column("fine_tune", required=False), Column("generation_samples", "float", False),
        Column("prompt_tokens", "float", False), Column("generated_tokens", "float", False),
        Column("max_sequence_tokens", "float", False), Column("generation_tp", "float", False), Column("measured_step_s", "float", False),
        Column("measured_tokens_per_s_per_gpu", "float", False), Column("measured_mfu", "float", False)],
        ("model", "gpu", "num_gpus", "off_policy", "fine_tune", "generation_samples", "generated_tokens",
         "measured_step_s")))


def rl_step_cases(usable_only: bool = False) -> list[dict]:
    """The RL step cases, one per raw row of rl_mfu.csv."""
    out = []
    for r in _rl_rows():
        if usable_only and r["usable"] != "yes":
            continue
        row = dict(r)
        if row["usable"] == "yes":
            try:
                row["num_gpus"] = float(row["num_gpus"])
            except ValueError:
                raise TinkerNomicsError(f"measurements/rl_step_cases.csv row {row['_row']} column num_gpus: "
                                        f"{row['num_gpus']!r} is not a valid float") from None
        out.append(row)
    return out


@functools.lru_cache(maxsize=None)
def _run_rows() -> tuple[dict, ...]:
    return tuple(_cases("measurements/run_cases.csv", [
        Column("run"), Column("hardware", required=False), Column("num_gpus", required=False),
        Column("reported_gpu_hours", "float", False), Column("reported_cost_usd", "float", False)], ()))


def run_cases() -> list[dict]:
    """The published-run cases, one per raw row of published_runs.csv."""
    return [dict(r) for r in _run_rows()]


def clear_caches() -> None:
    for fn in (_decode_rows, _rl_rows, _run_rows):
        fn.cache_clear()


def case_counts() -> dict[str, dict[str, int]]:
    """{table: {"usable": n, "excluded": n}} for the three case tables."""
    out = {}
    for name, rows in (("decode", decode_cases()), ("rl_step", rl_step_cases()), ("run", run_cases())):
        usable = sum(r["usable"] == "yes" for r in rows)
        out[name] = {"usable": usable, "excluded": len(rows) - usable, "total": len(rows)}
    return out


# ----------------------------------------------------------------------------------------------- decode

def peak_flops_for_precision(gpu: GPU, precision: str) -> float:
    """Dense peak FLOP/s at a weight precision: BF16 from the registry (also for weight-only INT8/INT4, whose
    weights are dequantised to 16 bits before the GEMM), FP8's dense figure for FP8, and for FP4 also FP8's (the
    registry has no sourced FP4 peak; FP4 tensor cores would raise the ceiling)."""
    if precision in ("BF16", "FP16", "INT8", "INT4"):
        return gpu.peak_flops("exact")
    if gpu.fp8_dense_tflops is None:
        raise TinkerNomicsError(f"GPU {gpu.gpu!r} has no sourced dense FP8 peak")
    return gpu.fp8_dense_tflops * 1e12


def _single_turn(input_tokens, output_tokens) -> tokens.Rollout:
    return tokens.rollout(output_tokens, input_tokens, length_growth=1.0, turns=1.0, output_per_turn=0.0,
                          observation_per_turn=0.0)


def _column(rows, name):
    return np.array([r[name] for r in rows], dtype=float)


def _kv_scale(kv_precision: str) -> float:
    if kv_precision not in KV_BYTES_PER_VALUE:
        raise TinkerNomicsError(f"kv_precision must be one of {', '.join(KV_BYTES_PER_VALUE)}, got {kv_precision!r}")
    return KV_BYTES_PER_VALUE[kv_precision] / KV_BYTES_PER_VALUE["BF16"]


def _kv_scales(rows: list[dict], kv_precision: str | None) -> np.ndarray:
    """KV bytes relative to BF16 per case: each case's own cache precision, or `kv_precision` for all."""
    return np.array([_kv_scale(kv_precision or r["kv_precision"]) for r in rows])


def resolved_concurrency(rows: list[dict], kv_precision: str | None = None) -> dict[str, np.ndarray]:
    """Sequences decoded at once, per case: the KV-memory-limited maximum (`fit`, from the exact
    architecture's KV and state bytes for full input + output sequences and kv_memory_fraction of the memory
    the weights leave free on each replica, at each case's KV precision or `kv_precision`); `seed` = the stated concurrency, or `fit` for offline rows
    (the seed does not cap a stated concurrency, as in estimate()); `exact` = the stated concurrency capped
    at `fit`, or `fit` for offline rows. All rows must share one model and one GPU."""
    arch, gpu = get_arch(rows[0]["model"]), get_gpu(rows[0]["gpu"])
    per = _single_turn(_column(rows, "input_tokens"), _column(rows, "output_tokens"))
    gpus, tp = _column(rows, "num_gpus"), _column(rows, "tensor_parallel")
    replicas = np.maximum(np.floor(gpus / tp), 1.0)
    total = float(arch.total_params)
    budget = memory.engine_kv_memory_available(total, gpu, tp, _column(rows, "kv_memory_fraction"),
                                                _column(rows, "bytes_per_param")) * replicas
    scale = _kv_scales(rows, kv_precision)
    fit = np.maximum(memory.max_concurrent_sequences(
        total, gpu, gpus, memory.kv_bytes_per_token(arch, "exact") * scale, per.sequence,
        memory.recurrent_bytes_per_sequence(arch, "exact") * scale, available_bytes=budget), 1.0)
    offline = np.array([r["concurrency_basis"] == "kv_limited_max" for r in rows])
    stated = np.array([r["concurrency"] if r["concurrency"] is not None else np.nan for r in rows], dtype=float)
    return {"fit": fit, "seed": np.where(offline, fit, stated), "exact": np.where(offline, fit, np.minimum(stated, fit))}


def _predict_group(rows: list[dict], method: str, efficiency: float, concurrency: dict,
                   kv_precision: str | None = None) -> np.ndarray:
    arch, gpu = get_arch(rows[0]["model"]), get_gpu(rows[0]["gpu"])
    kind = "seed" if method == "seed" else "exact"
    per = _single_turn(_column(rows, "input_tokens"), _column(rows, "output_tokens"))
    bytes_per_param = _column(rows, "bytes_per_param")
    _, active = arch.params(kind)
    # The seed's KV length is the completion (scenario.estimate); exact: the mean context while decoding.
    context = per.output if kind == "seed" else per.decode_context
    attention = 0.0 if kind == "seed" else roofline.attention_flops_per_token(arch, context)
    peak = np.array([peak_flops_for_precision(gpu, r["precision"]) for r in rows])
    return roofline.decode_tokens_per_second(
        concurrency=concurrency[kind], num_gpus=_column(rows, "num_gpus"), replica_gpus=_column(rows, "tensor_parallel"),
        weight_bytes_per_step=lambda batch: roofline.weight_bytes_read(arch, batch, kind, bytes_per_param),
        kv_bytes_per_token=memory.kv_bytes_per_token(arch, kind) * _kv_scales(rows, kv_precision), context=context,
        state_bytes_per_sequence=memory.recurrent_bytes_per_sequence(arch, kind) * _kv_scales(rows, kv_precision),
        bandwidth_bytes_per_s=gpu.bandwidth_bytes_per_s, peak_flops=peak,
        flops_per_token=number("forward_flops_per_param") * active + attention, efficiency=efficiency,
        compute_bound=method == "roofline")


def predict_decode(efficiency: float = 1.0, methods=DECODE_METHODS, kv_precision: str | None = None):
    """Every usable decode case × method: predicted and measured output tok/s and the signed error.
    Returns a pandas DataFrame (one row per case and method). The KV cache is charged at each case's own
    precision (kv_precision column: FP8 where the row or its ModelOpt checkpoint says so, else BF16);
    `kv_precision="BF16"` or `"FP8"` charges every case at that one (traffic and the KV-limited batch)."""
    import pandas as pd

    cases = decode_cases(usable_only=True)
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in cases:
        groups.setdefault((row["model"], row["gpu"]), []).append(row)
    records = []
    for rows in groups.values():
        concurrency = resolved_concurrency(rows, kv_precision)
        for method in methods:
            predicted = _predict_group(rows, method, efficiency, concurrency, kv_precision)
            kind = "seed" if method == "seed" else "exact"
            for row, value, conc in zip(rows, predicted, concurrency[kind]):
                records.append({
                    "case_id": row["case_id"], "source": row["source"], "raw_row": row["raw_row"],
                    "engine": row["engine"], "model": row["model"], "gpu": row["gpu"],
                    "precision": row["precision"], "num_gpus": row["num_gpus"], "input_tokens": row["input_tokens"],
                    "output_tokens": row["output_tokens"], "concurrency_basis": row["concurrency_basis"],
                    "concurrency": float(conc), "method": method, "predicted": float(value),
                    "measured": row["measured_output_tok_s"]})
    frame = pd.DataFrame.from_records(records)
    frame["signed_error"] = signed_error(frame["predicted"], frame["measured"])
    frame["measured_over_predicted"] = frame["measured"] / frame["predicted"]
    order = {case["case_id"]: i for i, case in enumerate(cases)}
    frame["_order"] = frame["case_id"].map(order)
    frame["_method"] = frame["method"].map(DECODE_METHODS.index)
    return frame.sort_values(["_method", "_order"]).drop(columns=["_order", "_method"]).reset_index(drop=True)


def source_order(frame) -> list[str]:
    """Sources in the order their first case appears."""
    return list(dict.fromkeys(frame["source"]))


def error_summary(frame, by=("source", "method")):
    """Per group: case count, median and worst signed error, and the efficiency that fits (median
    measured / predicted; multiply the prediction by it to centre the errors on zero)."""
    import pandas as pd

    rows = []
    for key, group in frame.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        row = {**dict(zip(by, key)), "cases": len(group), "median_error": float(np.median(group["signed_error"])),
               "worst_error": worst(group["signed_error"])}
        if "measured_over_predicted" in group:  # throughputs: the efficiency that fits
            row["fitted_efficiency"] = float(np.median(group["measured_over_predicted"]))
        rows.append(row)
    return pd.DataFrame(rows)


def measured_above_predicted(frame, method: str = "exact") -> int:
    """How many cases of one method measured more than the prediction (negative signed error): for a roofline,
    the cases where the engine beat the ceiling, i.e. moved fewer bytes than the model charges."""
    rows = frame[frame["method"] == method] if "method" in frame.columns else frame
    return int(np.count_nonzero(np.asarray(rows["measured"]) > np.asarray(rows["predicted"])))


def best_methods(summary):
    """Per source, the method whose median signed error is closest to zero (ties: the smaller worst error).
    Methods that give the same errors are named together ("exact = roofline")."""
    import pandas as pd

    rows = []
    for source, group in summary.groupby("source", sort=False):
        ranked = group.assign(_m=group["median_error"].abs(), _w=group["worst_error"].abs()).sort_values(
            ["_m", "_w"], kind="stable")
        top = ranked.iloc[0]
        same = ranked[np.isclose(ranked["median_error"], top["median_error"], rtol=1e-9, atol=0)
                      & np.isclose(ranked["worst_error"], top["worst_error"], rtol=1e-9, atol=0)]
        row = top.drop(labels=["_m", "_w"]).to_dict()
        row["method"] = " = ".join(same["method"])
        rows.append(row)
    return pd.DataFrame(rows)


def rescaled(frame, efficiency):
    """The predictions at another efficiency (a scalar, or a per-method mapping): the roofline is linear in
    it, so this rescales instead of recomputing."""
    out = frame.copy()
    factor = out["method"].map(efficiency) if isinstance(efficiency, dict) else efficiency
    out["predicted"] = out["predicted"] * factor
    out["signed_error"] = signed_error(out["predicted"], out["measured"])
    out["measured_over_predicted"] = out["measured"] / out["predicted"]
    return out


def fitted_efficiency(frame) -> dict[str, float]:
    """One efficiency per method over every usable case: the median of measured / predicted."""
    return {m: float(np.median(g["measured_over_predicted"])) for m, g in frame.groupby("method", sort=False)}


# ----------------------------------------------------------------------------------------------- RL step

def case_prompt_tokens(row: dict) -> float:
    """A case's mean prompt: stated, else derived from the row's training tokens (its own definition,
    Tokens/sec/GPU × step time × GPUs, per sample) minus the generated length."""
    if row.get("prompt_tokens") is not None:
        return row["prompt_tokens"]
    trained = row["measured_tokens_per_s_per_gpu"] * row["measured_step_s"] * row["num_gpus"]
    return max(trained / row["generation_samples"] - row["generated_tokens"], 0.0)


def _rl_inputs(row: dict, method: str) -> dict:
    """Token counts of one step. The prompt is not stated: the row's training tokens (its own definition,
    Tokens/sec/GPU × step time × GPUs) per sample, minus the generated length, gives it."""
    samples, generated = row["generation_samples"], row["generated_tokens"]
    prompt = case_prompt_tokens(row)
    per = _single_turn(prompt, generated)
    seed = method == "seed"
    return {"samples": samples, "prompt": prompt, "per": per,
            "sample_tokens": samples * per.output, "prefill_tokens": samples * per.prefill,
            # the seed trains on the sampled tokens; exact on prompt + completion (= the row's training tokens)
            "train_tokens": samples * (per.output if seed else per.sequence),
            "decode_context": per.output if seed else per.decode_context,
            "kv_context": per.output if seed else per.sequence}


def _rl_hosted(row: dict, method: str, rollout_efficiency: float, mfu: float):
    inputs = _rl_inputs(row, method)
    return self_hosted_cost(
        arch=get_arch(row["model"]), gpu=get_gpu(row["gpu"]), method=method, compute_bound=method == "exact",
        sample_tokens=inputs["sample_tokens"], prefill_tokens=inputs["prefill_tokens"],
        train_tokens=inputs["train_tokens"], concurrency=inputs["samples"], decode_context=inputs["decode_context"],
        kv_context=inputs["kv_context"], cache_hit_rate=0.0, off_policy=row["off_policy"], num_gpus=row["num_gpus"],
        gpu_hourly_usd=0.0, rollout_efficiency=rollout_efficiency, mfu=mfu, prefill_mfu=number("prefill_mfu"),
        fine_tune="full", sandbox_usd=0.0), inputs


def implied_mfu(row: dict, method: str, rollout_efficiency: float) -> float:
    """The MFU at which the package's step time equals the measured one, rollout efficiency held fixed.
    Training time scales as 1/MFU, so it is read off one evaluation at MFU = 1: on-policy, training must fill
    measured − rollout; off-policy (the step is the longer of the two), training must fill the whole step.
    NaN when rollout alone already takes longer than the measured step."""
    hosted, _ = _rl_hosted(row, method, rollout_efficiency, 1.0)
    measured_h = row["measured_step_s"] / 3600.0
    rollout_h, train_at_full = float(hosted.rollout_hours), float(hosted.train_hours)
    room = measured_h - rollout_h if row["off_policy"] == 0 else measured_h
    if rollout_h >= measured_h or room <= 0:
        return math.nan
    return train_at_full / room


def architecture_class(model: str) -> str:
    """"MoE" or "dense": the RL step fit keeps one MFU per class (MoE training runs far below dense)."""
    return "MoE" if get_arch(model).is_moe else "dense"


def predict_rl_steps(method: str = "exact", rollout_efficiency: float | None = None, mfu=None):
    """Every usable RL step case: predicted rollout, training and step seconds at one rollout efficiency
    and one MFU (defaults: the package's, data/assumptions/defaults.csv; `mfu` may also map each
    architecture class, "dense" and "MoE", to its own value), the measured step, the signed error, and the
    MFU that would make this row match (a diagnostic; never used for the row's own prediction)."""
    import pandas as pd

    if method not in RL_METHODS:
        raise TinkerNomicsError(f"method must be one of {', '.join(RL_METHODS)}, got {method!r}")
    eta = number("rollout_efficiency") if rollout_efficiency is None else rollout_efficiency
    records = []
    for row in rl_step_cases(usable_only=True):
        kind = architecture_class(row["model"])
        mfu_used = number("mfu") if mfu is None else (mfu[kind] if isinstance(mfu, dict) else mfu)
        hosted, inputs = _rl_hosted(row, method, eta, mfu_used)
        records.append({
            "case_id": row["case_id"], "source": row["source"], "raw_row": row["raw_row"], "model": row["model"],
            "architecture": kind, "gpu": row["gpu"], "num_gpus": row["num_gpus"], "algorithm": row["algorithm"],
            "off_policy": row["off_policy"], "samples": inputs["samples"], "generated_tokens": row["generated_tokens"],
            "derived_prompt_tokens": inputs["prompt"], "method": method, "rollout_efficiency": eta, "mfu": mfu_used,
            "rollout_s": float(hosted.rollout_hours) * 3600.0, "train_s": float(hosted.train_hours) * 3600.0,
            "predicted": float(hosted.wallclock_hours) * 3600.0, "measured": row["measured_step_s"],
            "implied_mfu": implied_mfu(row, method, eta)})
    frame = pd.DataFrame.from_records(records)
    frame["signed_error"] = signed_error(frame["predicted"], frame["measured"])
    return frame


def fit_rl_mfu(method: str = "exact", rollout_efficiency: float | None = None, by_class: bool = True):
    """The stated fitted parameter of the RL step comparison: the median of the per-row implied MFUs, one
    per architecture class ({"dense": …, "MoE": …}) or, with by_class=False, one for all rows. Rows where
    rollout alone exceeds the measured step (no MFU can match) are left out of the median."""
    frame = predict_rl_steps(method, rollout_efficiency)
    frame = frame[np.isfinite(frame["implied_mfu"])]
    if frame.empty:
        raise TinkerNomicsError("no RL case can be matched by any MFU at this rollout efficiency")
    if not by_class:
        return float(np.median(frame["implied_mfu"]))
    return {kind: float(np.median(group["implied_mfu"])) for kind, group in frame.groupby("architecture")}


# ----------------------------------------------------------------------------------------------- runs

def run_price_check():
    """Published runs that report both GPU-hours and dollars: the $/GPU-hour the bill implies (the
    package's self-hosted cost is GPU-hours × $/GPU-hour, so this is the one identity a bill can check)."""
    import pandas as pd

    rows = [r for r in run_cases() if r["reported_gpu_hours"] and r["reported_cost_usd"]]
    return pd.DataFrame([{"case_id": r["case_id"], "run": r["run"], "hardware": r["hardware"],
                          "gpu_hours": r["reported_gpu_hours"], "cost_usd": r["reported_cost_usd"],
                          "usd_per_gpu_hour": r["reported_cost_usd"] / r["reported_gpu_hours"],
                          "notes": r["notes"] or ""} for r in rows])


# ----------------------------------------------------------------------------------------------- summaries

def source_table(frames: dict):
    """The chapter's headline: per source and setting, the best method with its case count and its median
    and worst signed error. `frames` maps a setting label (e.g. "decode, efficiency 1.0") to a prediction
    frame holding one or more methods."""
    import pandas as pd

    parts = []
    for setting, frame in frames.items():
        best = best_methods(error_summary(frame))
        best.insert(1, "setting", setting)
        parts.append(best)
    table = pd.concat(parts, ignore_index=True)
    return table[["source", "setting", "method", "cases", "median_error", "worst_error"]]


def exclusions():
    """Every case left out, with its table and reason (for the chapter's count of what was not used)."""
    import pandas as pd

    rows = []
    for table, cases in (("decode", decode_cases()), ("RL step", rl_step_cases()), ("run", run_cases())):
        for case in cases:
            if case["usable"] == "no":
                rows.append({"table": table, "case_id": case["case_id"], "source": case["source"],
                             "raw": f"{case['raw_file']} row {case['raw_row']}", "reason": case["reason"]})
    return pd.DataFrame(rows)
