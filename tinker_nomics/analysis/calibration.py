"""Fitting the calibrated method to published measurements, and judging it leave-one-source-out.

The calibrated model (model/calibrated.py) is linear in the reciprocals of its efficiencies once the memory
plan of each case is fixed, so every measurement case is reduced once to "terms" computed by the model with
unit efficiencies, and a fit is a search over a few efficiencies on those terms:

  decode   tokens/s = replicas · batch · out / (out · (memory/bw + compute/ce + sync · tp_sync) + prefill/ce)
           bw = bandwidth efficiency (dense or MoE), ce = compute efficiency, tp_sync in seconds per layer per
           doubling of the tensor-parallel group;
  RL step  generation = decode (with the decode fit) + tail · tail_term; training = train_at_full / MFU (dense
           or MoE); step = generation + training on-policy, the longer of the two when k >= 1.

The objective is the mean, over sources, of the median |log(predicted / measured)| of each source's cases:
every source weighs the same however many rows it published, and one wild row moves nothing. The search is a
log-spaced grid refined twice around its best point, inside physical bounds (no efficiency above 1).

A method is judged by leave-one-source-out error: fit on every other source, predict the held-out one, never
on its own training rows. `tools/calibrate.py` (make calibrate) fits on all sources and writes
data/calibration/efficiencies.csv with these errors beside each value.
"""
from __future__ import annotations

import datetime as _dt
import functools
import itertools
from dataclasses import dataclass, replace

import numpy as np

from ..model import calibrated
from ..sources.architectures import get_arch
from ..sources.calibration import Efficiencies
from ..sources.defaults import number
from ..sources.hardware import get_gpu
from . import accuracy

# Search bounds: efficiencies are shares of a peak (at most 1); the synchronisation is seconds per layer per
# doubling of the tensor-parallel group; the tail is in mean output lengths.
DECODE_BOUNDS = {"bandwidth_dense": (0.05, 1.0), "bandwidth_moe": (0.05, 1.0), "compute": (0.02, 1.0),
                 "tp_sync_seconds": (1e-6, 5e-4)}
RL_BOUNDS = {"mfu_dense": (0.005, 0.8), "mfu_moe": (0.005, 0.8), "tail": (0.0, 4.0)}
UNIT = Efficiencies(1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0)
PRECISION = {"BF16": "bf16", "FP16": "fp16", "FP8": "fp8", "FP4": "int4"}


# ------------------------------------------------------------------------------------------------ terms

@dataclass(frozen=True)
class DecodeTerms:
    case_id: np.ndarray
    source: np.ndarray
    moe: np.ndarray
    measured: np.ndarray
    tokens: np.ndarray          # replicas · batch · out
    out: np.ndarray
    memory: np.ndarray          # seconds per step at bandwidth efficiency 1
    compute: np.ndarray         # seconds per step at compute efficiency 1
    sync: np.ndarray            # layers · log2(tensor parallel)
    prefill: np.ndarray         # seconds per replica batch at compute efficiency 1

    def predict(self, eff: Efficiencies) -> np.ndarray:
        bw = np.where(self.moe, eff.bandwidth_moe, eff.bandwidth_dense)
        step = self.memory / bw + self.compute / eff.compute + self.sync * eff.tp_sync_seconds
        return self.tokens / (self.out * step + self.prefill / eff.compute)

    def subset(self, mask) -> "DecodeTerms":
        return DecodeTerms(*(getattr(self, f)[mask] for f in self.__dataclass_fields__))


@functools.lru_cache(maxsize=None)
def decode_terms() -> DecodeTerms:
    """Every usable decode case reduced to the model's terms (case's own GPUs, tensor parallel, precisions)."""
    rows = accuracy.decode_cases(usable_only=True)
    fields = {k: [] for k in DecodeTerms.__dataclass_fields__}
    for r in rows:
        arch, gpu = get_arch(r["model"]), get_gpu(r["gpu"])
        precision, kv = PRECISION[r["precision"]], PRECISION[r["kv_precision"]]
        concurrency = np.inf if r["concurrency_basis"] == "kv_limited_max" and r["concurrency"] is None \
            else r["concurrency"]
        out = calibrated.decode_throughput(arch, gpu, UNIT, r["num_gpus"], concurrency, r["input_tokens"],
                                           r["output_tokens"], precision, kv, r["tensor_parallel"])
        batch = float(out.concurrency) / float(out.replicas)
        tp = float(out.tensor_parallel)
        fields["case_id"].append(r["case_id"])
        fields["source"].append(r["source"])
        fields["moe"].append(arch.is_moe)
        fields["measured"].append(r["measured_output_tok_s"])
        fields["tokens"].append(float(out.replicas) * batch * r["output_tokens"])
        fields["out"].append(r["output_tokens"])
        fields["memory"].append(float(out.step.memory_seconds))
        fields["compute"].append(float(out.step.compute_seconds))
        fields["sync"].append(arch.num_layers * np.log2(tp))
        fields["prefill"].append(float(calibrated.prefill_seconds(arch, gpu, UNIT, tp, r["input_tokens"], batch,
                                                                   precision)))
    return DecodeTerms(*(np.array(v) for v in fields.values()))


@dataclass(frozen=True)
class RLTerms:
    case_id: np.ndarray
    source: np.ndarray
    moe: np.ndarray
    measured: np.ndarray
    off_policy: np.ndarray
    generation: np.ndarray      # seconds at the decode fit, no tail
    tail: np.ndarray            # seconds per unit of tail
    train: np.ndarray           # seconds at MFU 1

    def parts(self, eff: Efficiencies) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        generation = self.generation + eff.tail * self.tail
        train = self.train / np.where(self.moe, eff.mfu_moe, eff.mfu_dense)
        return calibrated.step_seconds(generation, train, self.off_policy), generation, train

    def predict(self, eff: Efficiencies) -> np.ndarray:
        return self.parts(eff)[0]

    def subset(self, mask) -> "RLTerms":
        return RLTerms(*(getattr(self, f)[mask] for f in self.__dataclass_fields__))


def rl_case_step(row: dict, eff: Efficiencies):
    """One RL case through the calibrated model: (rollout plan, generation s, training s at eff's MFU)."""
    arch, gpu = get_arch(row["model"]), get_gpu(row["gpu"])
    prompt = accuracy.case_prompt_tokens(row)
    plan = calibrated.rollout(arch, gpu, eff, row["num_gpus"], row["generation_samples"], prompt,
                              row["generated_tokens"])
    trained = row["generation_samples"] * (prompt + row["generated_tokens"])
    train = calibrated.train_seconds(arch, gpu, eff, row["num_gpus"], trained,
                                     prompt + row["generated_tokens"] / 2.0, row["fine_tune"] or "full")
    return plan, plan.decode_seconds + plan.prefill_seconds, train


@functools.lru_cache(maxsize=None)
def _rl_terms(decode: Efficiencies) -> RLTerms:
    rows = accuracy.rl_step_cases(usable_only=True)
    fields = {k: [] for k in RLTerms.__dataclass_fields__}
    no_tail = replace(decode, tail=0.0, mfu_dense=1.0, mfu_moe=1.0)
    with_tail = replace(no_tail, tail=1.0)
    for r in rows:
        _, generation, train = rl_case_step(r, no_tail)
        _, generation_tail, _ = rl_case_step(r, with_tail)
        fields["case_id"].append(r["case_id"])
        fields["source"].append(r["source"])
        fields["moe"].append(get_arch(r["model"]).is_moe)
        fields["measured"].append(r["measured_step_s"])
        fields["off_policy"].append(r["off_policy"])
        fields["generation"].append(float(generation))
        fields["tail"].append(float(generation_tail - generation))
        fields["train"].append(float(train))
    return RLTerms(*(np.array(v) for v in fields.values()))


def rl_terms(decode: Efficiencies | None = None) -> RLTerms:
    """Every usable RL step case reduced to terms, generation at the decode efficiencies `decode` (default:
    the decode fit on all sources)."""
    return _rl_terms(decode if decode is not None else fit_decode())


# ------------------------------------------------------------------------------------------------ fitting

def objective(predicted: np.ndarray, measured: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Mean over sources of the median |log(predicted / measured)|; `predicted` may carry a leading grid axis."""
    err = np.abs(np.log(predicted / measured))
    return np.mean([np.median(err[..., source == s], axis=-1) for s in np.unique(source)], axis=0)


def _grid(bounds: dict, center: dict | None, points: int, span: float) -> dict:
    out = {}
    for name, (low, high) in bounds.items():
        if center is None:
            lo, hi = low, high
        else:
            lo, hi = max(low, center[name] / span), min(high, center[name] * span)
        if low == 0.0 and center is None:
            out[name] = np.concatenate([[0.0], np.geomspace(0.05, hi, points - 1)])
        elif center is not None and center[name] == 0.0:
            out[name] = np.concatenate([[0.0], np.geomspace(0.01, 0.2, points - 1)])
        else:
            out[name] = np.geomspace(max(lo, 1e-12), hi, points)
    return out


def _search(evaluate, bounds: dict) -> dict:
    """The grid point that minimises `evaluate(params) -> objective over the grid`, refined twice."""
    best = None
    for points, span in ((9, None), (7, 2.0), (7, 1.3)):
        grid = _grid(bounds, best, points, span or 1.0)
        names = list(grid)
        combos = np.array(list(itertools.product(*(grid[n] for n in names))))
        scores = evaluate({n: combos[:, i] for i, n in enumerate(names)})
        best = {n: float(combos[int(np.argmin(scores)), i]) for i, n in enumerate(names)}
    return best


def fit_decode(exclude: str | None = None) -> Efficiencies:
    """Decode efficiencies fitted on every decode source but `exclude`."""
    return _fit_decode(exclude)


@functools.lru_cache(maxsize=None)
def _fit_decode(exclude: str | None) -> Efficiencies:
    terms = decode_terms()
    terms = terms.subset(terms.source != exclude) if exclude else terms

    def evaluate(p):
        eff = Efficiencies(p["bandwidth_dense"][:, None], p["bandwidth_moe"][:, None], p["compute"][:, None],
                           p["tp_sync_seconds"][:, None], 0.0, 1.0, 1.0)
        return objective(terms.predict(eff), terms.measured, terms.source)

    p = _search(evaluate, DECODE_BOUNDS)
    return Efficiencies(p["bandwidth_dense"], p["bandwidth_moe"], p["compute"], p["tp_sync_seconds"], 0.0, 1.0, 1.0)


def fit_rl(exclude: str | None = None, decode: Efficiencies | None = None) -> Efficiencies:
    """RL efficiencies (tail, MFU by class) fitted on every RL source but `exclude`, decode as fitted."""
    return _fit_rl(exclude, decode if decode is not None else fit_decode())


@functools.lru_cache(maxsize=None)
def _fit_rl(exclude: str | None, decode: Efficiencies) -> Efficiencies:
    terms = rl_terms(decode)
    terms = terms.subset(terms.source != exclude) if exclude else terms

    def evaluate(p):
        eff = replace(decode, tail=p["tail"][:, None], mfu_dense=p["mfu_dense"][:, None], mfu_moe=p["mfu_moe"][:, None])
        return objective(terms.predict(eff), terms.measured, terms.source)

    p = _search(evaluate, RL_BOUNDS)
    return replace(decode, tail=p["tail"], mfu_dense=p["mfu_dense"], mfu_moe=p["mfu_moe"])


def fit_all() -> Efficiencies:
    """Every efficiency, fitted on every usable source."""
    return fit_rl()


# ------------------------------------------------------------------------------------------------ LOSO

def loso_decode():
    """Each decode case predicted by a fit that never saw its source: a DataFrame of case, source, predicted,
    measured, signed error."""
    import pandas as pd

    terms = decode_terms()
    rows = []
    for source in dict.fromkeys(terms.source):
        mask = terms.source == source
        held = terms.subset(mask).predict(fit_decode(exclude=source))
        for case, pred, meas in zip(terms.case_id[mask], held, terms.measured[mask]):
            rows.append({"case_id": case, "source": source, "predicted": float(pred), "measured": float(meas)})
    frame = pd.DataFrame(rows)
    frame["signed_error"] = accuracy.signed_error(frame["predicted"], frame["measured"])
    return frame


def loso_rl():
    """Each RL step case predicted by a fit (decode and RL) that never saw its source."""
    import pandas as pd

    terms = rl_terms()
    rows = []
    for source in dict.fromkeys(terms.source):
        mask = terms.source == source
        eff = fit_rl(exclude=source)          # the decode efficiencies come from decode sources only
        step, generation, train = terms.subset(mask).parts(eff)
        for case, s, g, t, meas in zip(terms.case_id[mask], step, generation, train, terms.measured[mask]):
            rows.append({"case_id": case, "source": source, "predicted": float(s), "generation_s": float(g),
                         "train_s": float(t), "measured": float(meas)})
    frame = pd.DataFrame(rows)
    frame["signed_error"] = accuracy.signed_error(frame["predicted"], frame["measured"])
    return frame


def model_error_log_sd(frame) -> float:
    """The spread of log(predicted / measured) over leave-one-source-out predictions, as a normal standard
    deviation estimated robustly (1.4826 × the median absolute deviation), so that the few sources the model
    cannot describe at all (see the accuracy chapter) do not set the width for every prediction."""
    logs = np.log(np.asarray(frame["predicted"], dtype=float) / np.asarray(frame["measured"], dtype=float))
    return float(1.4826 * np.median(np.abs(logs - np.median(logs))))


def median_abs(errors) -> float:
    return float(np.median(np.abs(np.asarray(errors, dtype=float))))


# ------------------------------------------------------------------------------------------------ methods

def _exact_single_efficiency_loso():
    """The exact method's decode roofline with one efficiency fitted leave-one-source-out (the control: how
    much a single scale factor buys without the calibrated structure)."""
    frame = accuracy.predict_decode(methods=("roofline",))
    out = []
    for source in dict.fromkeys(frame["source"]):
        rest = frame[frame["source"] != source]
        eff = float(np.exp(np.median(np.log(rest["measured"] / rest["predicted"]))))
        held = frame[frame["source"] == source].copy()
        held["predicted"] = held["predicted"] * eff
        out.append(held)
    import pandas as pd
    result = pd.concat(out, ignore_index=True)
    result["signed_error"] = accuracy.signed_error(result["predicted"], result["measured"])
    return result


def method_comparison():
    """Per source and method, the median |signed error| and median signed error of decode tokens/s and RL step
    time: seed and exact at the package's default efficiencies (what a user gets), exact with one efficiency
    fitted leave-one-source-out, and calibrated leave-one-source-out. A DataFrame."""
    import pandas as pd

    parts = []
    rollout_eff = number("rollout_efficiency")
    decode_default = accuracy.predict_decode(efficiency=rollout_eff, methods=("seed", "exact"))
    for method, frame in (("seed", decode_default[decode_default["method"] == "seed"]),
                          ("exact", decode_default[decode_default["method"] == "exact"]),
                          ("exact, one efficiency (LOSO)", _exact_single_efficiency_loso()),
                          ("calibrated (LOSO)", loso_decode())):
        parts.append(frame.assign(method=method, quantity="decode tokens/s")[
            ["quantity", "method", "source", "case_id", "predicted", "measured", "signed_error"]])
    for method in ("seed", "exact"):
        frame = accuracy.predict_rl_steps(method)
        parts.append(frame.assign(method=method, quantity="RL step time")[
            ["quantity", "method", "source", "case_id", "predicted", "measured", "signed_error"]])
    parts.append(loso_rl().assign(method="calibrated (LOSO)", quantity="RL step time")[
        ["quantity", "method", "source", "case_id", "predicted", "measured", "signed_error"]])
    return pd.concat(parts, ignore_index=True)


def comparison_table(frame=None):
    """`method_comparison` summarised: one row per quantity, source and method with the case count, median
    |signed error| and median signed error; plus an 'all sources' row per method (median over every case)."""
    import pandas as pd

    frame = method_comparison() if frame is None else frame
    rows = []
    for (quantity, method), group in frame.groupby(["quantity", "method"], sort=False):
        for source, cases in group.groupby("source", sort=False):
            rows.append({"quantity": quantity, "method": method, "source": source, "cases": len(cases),
                         "median_abs_error": median_abs(cases["signed_error"]),
                         "median_error": float(np.median(cases["signed_error"]))})
        rows.append({"quantity": quantity, "method": method, "source": "all sources", "cases": len(group),
                     "median_abs_error": median_abs(group["signed_error"]),
                     "median_error": float(np.median(group["signed_error"]))})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------------ the table

def efficiency_rows(today: str | None = None) -> list[dict]:
    """The rows of data/calibration/efficiencies.csv: each fitted value with what it was fitted on."""
    today = today or _dt.date.today().isoformat()
    decode, rl = decode_terms(), rl_terms()
    eff = fit_all()
    loso_d, loso_r = loso_decode(), loso_rl()
    d_err, r_err = median_abs(loso_d["signed_error"]), median_abs(loso_r["signed_error"])
    d_sources, r_sources = "; ".join(dict.fromkeys(decode.source)), "; ".join(dict.fromkeys(rl.source))
    d_inputs = ("data/measurements/decode_cases.csv usable rows (" + ", ".join(decode.case_id) + "); objective: "
                "mean over sources of the median |log(predicted/measured)|; grid search in bounds "
                + "; ".join(f"{k} {lo:g}-{hi:g}" for k, (lo, hi) in DECODE_BOUNDS.items())
                + f"; engine memory fraction {number('engine_memory_fraction'):g} (defaults.csv)")
    r_inputs = ("data/measurements/rl_step_cases.csv usable rows (" + ", ".join(rl.case_id) + "); generation at "
                "the decode fit; rollout memory fraction "
                f"{number('rollout_memory_fraction'):g} and max_num_seqs {number('rollout_max_num_seqs'):g} "
                "(defaults.csv); objective as for decode; bounds "
                + "; ".join(f"{k} {lo:g}-{hi:g}" for k, (lo, hi) in RL_BOUNDS.items()))
    moe_d, moe_r = int(decode.moe.sum()), int(rl.moe.sum())

    def row(parameter, kind, value, unit, cases, sources, err, inputs, note):
        return {"parameter": parameter, "class": kind, "value": f"{value:.6g}", "unit": unit, "cases": cases,
                "source": f"tools/calibrate.py (make calibrate), fitted on: {sources}", "loso_median_abs_error": f"{err:.4f}", "fitted": today, "inputs": inputs,
                "note": note}

    return [
        row("decode_bandwidth_efficiency", "dense", eff.bandwidth_dense, "share of HBM bandwidth",
            len(decode.case_id) - moe_d, d_sources, d_err, d_inputs, "dense models' decode steps"),
        row("decode_bandwidth_efficiency", "moe", eff.bandwidth_moe, "share of HBM bandwidth", moe_d, d_sources,
            d_err, d_inputs, "mixture-of-experts models' decode steps"),
        row("decode_compute_efficiency", "all", eff.compute, "share of dense peak FLOP/s", len(decode.case_id),
            d_sources, d_err, d_inputs, "decode and prefill GEMMs, added to the memory time"),
        row("tp_sync_seconds_per_layer", "all", eff.tp_sync_seconds, "seconds per layer per doubling of TP",
            len(decode.case_id), d_sources, d_err, d_inputs, "tensor-parallel synchronisation per decode step"),
        row("rollout_tail", "all", eff.tail, "mean output lengths at batch 1", len(rl.case_id), r_sources, r_err,
            r_inputs, "the longest sequences decode alone at the end of a step's generation"),
        row("train_mfu", "dense", eff.mfu_dense, "share of BF16 peak", len(rl.case_id) - moe_r, r_sources, r_err,
            r_inputs, "RL training of dense models"),
        row("train_mfu", "moe", eff.mfu_moe, "share of BF16 peak", moe_r, r_sources, r_err, r_inputs,
            "RL training of mixture-of-experts models (N = active parameters)"),
        row("model_error_log_sd", "decode", model_error_log_sd(loso_d), "sd of log(predicted/measured)",
            len(decode.case_id), d_sources, d_err, d_inputs, "leave-one-source-out residuals, 1.4826 × median "
            "absolute deviation: the Monte-Carlo's decode-throughput model error"),
        row("model_error_log_sd", "rl_step", model_error_log_sd(loso_r), "sd of log(predicted/measured)",
            len(rl.case_id), r_sources, r_err, r_inputs, "leave-one-source-out residuals, 1.4826 × median absolute "
            "deviation: the Monte-Carlo's RL-step model error"),
    ]


def at_upper_bound(name: str, value: float) -> bool:
    """Whether a fitted value sits on the top of its search range (DECODE_BOUNDS / RL_BOUNDS): the measurements
    would pull it further, and a reader should be told the value is a bound, not an interior optimum."""
    _, high = {**DECODE_BOUNDS, **RL_BOUNDS}[name]
    return bool(np.isclose(float(value), high, rtol=1e-6, atol=0.0))


def clear_caches() -> None:
    for fn in (decode_terms, _rl_terms, _fit_decode, _fit_rl):
        fn.cache_clear()
