"""Fitting the phase model to published measurements, and judging it on the families it never saw.

The model (model/decode.py, model/rl_phases.py) separates what depends on a case alone — bytes, FLOPs, batch,
waves, link bandwidths: its *features* — from a dozen fitted parameters (sources.calibration.ModelParameters).
Every usable case is reduced to features once; a fit is then a bounded least-squares search over the parameters
on log(predicted / measured), each family of sources weighing the same (a residual is divided by the square
root of its family's count) and a soft-L1 loss keeping one wild row from moving everything.

  decode   serving-benchmark rows (output tokens/s): bandwidth and compute efficiency, the per-step and
           per-sequence overheads, the all-reduce latency, and the weight-only dequantisation efficiency where
           int8/int4 rows exist. Rows above the physical limit (faster than the bytes they must read allow at
           full bandwidth and no overhead: speculative decoding, a misread table) are screened out, the reason
           recorded.
  RL       RL steps with their phases (generation, log-prob passes, actor update, step) and steps alone: the
           generation overhead, the rollout's per-sequence cost and, for engines run without CUDA graphs (the runs
           that log enforce_eager), the host's launch time per layer; the training GEMM efficiency, the
           mixture-of-experts share of it and the memory term beside it; the trainer's fixed costs per call and
           per micro-batch, and the step overhead; generation uses the decode fit.

A family is one publisher's measurements (versions of one page are one family: tools/build_measurement_cases.py).
Held-out errors are leave-one-family-out: each family is predicted by a fit on all the others. They are reported
by regime (batch 1, throughput batches, weight-only quantised, TP >= 4, mixture-of-experts, long context,
LoRA, compute-poor GPUs), and their spread is the model error the Monte-Carlo draws. `tools/calibrate.py`
(make calibrate) writes the fit and these errors to data/calibration/ and refuses a parameter on a bound.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from ..errors import TinkerNomicsError
from ..model import decode, rl_phases
from ..sources.architectures import get_arch
from ..sources.calibration import ModelParameters, PARAMETER_NAMES
from ..sources.defaults import framework_rollout_fraction, number
from ..sources.hardware import gpu_specs
from ..sources.tables import Column, load_table
from . import accuracy

# Search ranges: physical limits (efficiencies in (0, 1]) or generous orders of magnitude for times.
DECODE_RANGES = {
    "decode_bandwidth_efficiency": (0.2, 1.0, 0.8),
    "decode_compute_efficiency": (0.05, 1.0, 0.5),
    "decode_step_overhead_seconds": (0.0, 0.05, 2e-3),
    "decode_sequence_overhead_seconds": (0.0, 1e-3, 1e-5),
    "allreduce_latency_seconds": (0.0, 1e-3, 2e-5),
    "weight_only_efficiency": (0.1, 1.0, 0.7),
}
RL_RANGES = {
    "generation_overhead_seconds": (0.0, 60.0, 2.0),
    "rollout_sequence_overhead_seconds": (0.0, 1e-3, 1e-5),
    "train_gemm_efficiency": (0.05, 1.0, 0.4),
    "moe_gemm_share": (0.02, 1.0, 0.5),
    "train_flops_per_byte": (10.0, 1e5, 300.0),
    "micro_batch_overhead_seconds": (0.0, 10.0, 0.2),
    "step_overhead_seconds": (0.0, 60.0, 1.0),
    "eager_layer_seconds": (0.0, 5e-3, 1e-4),
    "pass_overhead_seconds": (0.0, 10.0, 0.1),
}
RANGES = {**DECODE_RANGES, **RL_RANGES}
# Stated priors for parameters the cases may not pin down, each with its source. A parameter with a spread in
# PRIOR_SPREAD is searched with its prior as one more residual; one without is held at its prior (and the fit of the
# others redone) only where a search would run it to an end of its range, so no reported value is a search bound.
PRIORS = {
    "decode_step_overhead_seconds": (
        0.0, "no fixed cost beside the per-sequence one: the engines measured replay each decode step as one CUDA "
             "graph (vLLM V1, SGLang, TensorRT-LLM, gpt-fast's torch.compile); held here only where a fit would "
             "run the parameter to a bound"),
    "train_gemm_efficiency": (
        0.72, "FlashAttention (Dao et al. 2022, arXiv 2205.14135): GPT training at 225 TFLOP/s per A100, '72% model "
              "FLOPs utilization' — the share of peak large training GEMMs reach when nothing else waits on memory"),
    "moe_gemm_share": (
        39.0 / 47.0, "Megatron-Core on H100: fine-grained mixture of experts (Qwen2-57B-A14B, 64 experts) at 39.0% MFU "
                     "(MoE Parallel Folding, Liu et al. 2025, arXiv 2504.14960, abstract) against 47% for dense GPT-3 "
                     "175B (NVIDIA/Megatron-LM README, 'Training Speed and Scalability'); used where a fit has no "
                     "mixture-of-experts case to measure it"),
    "step_overhead_seconds": (
        0.0, "no fixed cost beside the phases: NeMo RL's performance summary defines 'Step time: Time for each step, "
             "which includes training, generation, policy logprobs, and refit time', and in the three real verl logs "
             "the step less its logged phases (rewards, advantages, bookkeeping) is about 1% of it or less"),
}
# Log-spread of the priors the search weighs beside the cases: the residual LOSS_SCALE × log(value / prior) / spread
# (a value one spread from its prior costs what a case off by LOSS_SCALE does).
# The cases scarcely tell the training GEMM efficiency from the memory term beside it (their GPUs, H100 and GB200,
# share a ridge point of about 300 FLOPs per byte), and only one family trains a mixture of experts: without the prior the
# search wanders where the cases cannot decide (the memory term all but vanishes, the mixture-of-experts share runs
# to the top of its range), with it the value stays where its source puts it unless the cases disagree.
# 0.2 (a factor e^0.2 ≈ 1.22 either way) is a width stated here, not measured.
PRIOR_SPREAD = {"train_gemm_efficiency": 0.2, "moe_gemm_share": 0.2}
PRECISION = {"BF16": "bf16", "FP16": "fp16", "FP8": "fp8", "FP4": "fp4", "INT8": "int8", "INT4": "int4"}
KV_PRECISION = {"BF16": "bf16", "FP16": "bf16", "FP8": "fp8"}
LOSS_SCALE = 0.3           # soft-L1 turns quadratic into linear beyond ~30% error
COMPUTE_POOR_FLOPS_PER_BYTE = 100.0   # a GPU whose dense BF16 peak over HBM bandwidth is below this
LONG_CONTEXT_TOKENS = 8192


# ------------------------------------------------------------------------------------------------ engines

def engine_max_num_seqs(engine: str, gpus):
    """The running-batch cap of the engine a row names (None: vLLM's default, decode.engine_max_num_seqs), where
    the row does not state its own (`max_num_seqs` in decode_cases.csv)."""
    name = (engine or "").lower()
    for key, setting in (("tensorrt", "trtllm_max_batch_size"), ("lmdeploy", "lmdeploy_max_batch_size"),
                         ("sglang", None)):
        if key in name:
            return np.inf if setting is None else number(setting)
    return None


# ------------------------------------------------------------------------------------------------ decode cases

@dataclass(frozen=True)
class DecodeCase:
    case_id: str
    source: str
    family: str
    model: str
    gpu: str
    measured: float
    plan: decode.ServingPlan
    regimes: tuple[str, ...]
    screened: str            # why the row is left out of the fit ("" = used)
    limit: float             # output tokens/s at full HBM bandwidth and peak FLOPs with no overhead


def _regimes_decode(row: dict, arch, gpus, plan) -> tuple[str, ...]:
    stated = row["concurrency"]
    return decode_regimes(arch, gpus, row["concurrency_basis"] == "stated" and stated is not None and stated <= 1,
                          row["concurrency_basis"] == "kv_limited_max" or float(plan.batch * plan.replicas) >= 64,
                          PRECISION.get(row["precision"]), row["tensor_parallel"],
                          row["input_tokens"] + row["output_tokens"])


def decode_regimes(arch, gpus, batch_one: bool, throughput: bool, precision: str | None, tensor_parallel,
                   sequence_tokens) -> tuple[str, ...]:
    """The regimes of errors_by_regime.csv a decode measurement or prediction falls in: one request at a time
    (`batch_one`), a batch of 64 or more running (`throughput`), weights read weight-only, tensor parallel ≥ 4, a
    mixture of experts, a long context, a compute-poor GPU."""
    out = []
    if batch_one:
        out.append("batch1")
    if throughput:
        out.append("throughput")
    if precision and np.any(decode.weight_only(precision, gpus)):
        out.append("weight_only")
    if tensor_parallel >= 4:
        out.append("tp4plus")
    if arch.is_moe:
        out.append("moe")
    if sequence_tokens >= LONG_CONTEXT_TOKENS:
        out.append("long_context")
    if float(gpus.bf16_flops / gpus.bandwidth_bytes_per_s) < COMPUTE_POOR_FLOPS_PER_BYTE:
        out.append("compute_poor")
    return tuple(out)


@functools.lru_cache(maxsize=None)
def decode_cases() -> tuple[DecodeCase, ...]:
    """Every usable decode row reduced to its serving plan (features at unit parameters), with its regimes and,
    for rows faster than physics allows, the reason it is screened out."""
    out = []
    limit = _physical_limit()
    for r in accuracy.decode_cases(usable_only=True):
        arch, gpus = get_arch(r["model"]), gpu_specs(r["gpu"])
        concurrency = np.inf if r["concurrency"] is None else r["concurrency"]
        plan = decode.serving_plan(arch, gpus, r["num_gpus"], concurrency, r["input_tokens"], r["output_tokens"],
                                   PRECISION[r["precision"]], KV_PRECISION[r["kv_precision"]], r["tensor_parallel"],
                                   r["max_num_seqs"] or engine_max_num_seqs(r["engine"], gpus))
        ceiling = float(decode.serving_throughput(plan, limit)[0])
        screened = "" if r["measured_output_tok_s"] <= ceiling else (
            f"above the physical limit: {r['measured_output_tok_s']:g} tok/s measured, {ceiling:.4g} at full HBM "
            f"bandwidth and peak FLOPs with no overhead (speculative decoding or a misread table)")
        out.append(DecodeCase(r["case_id"], r["source"], r.get("family") or r["source"], r["model"], r["gpu"],
                              r["measured_output_tok_s"], plan, _regimes_decode(r, arch, gpus, plan), screened, ceiling))
    return tuple(out)


def screened_summary():
    """The decode rows screened out above the physical limit, one row per source, model and GPU: their cases and
    how far above the limit they claim to be (a DataFrame)."""
    import pandas as pd

    rows = [{"source": c.source, "model": c.model.split("/")[-1], "gpu": c.gpu, "case_id": c.case_id,
             "over_limit": c.measured / c.limit} for c in decode_cases() if c.screened]
    if not rows:
        return pd.DataFrame(columns=["source", "model", "gpu", "cases", "case_ids", "over_limit_low",
                                     "over_limit_high"])
    frame = pd.DataFrame(rows)
    return (frame.groupby(["source", "model", "gpu"], sort=False)
            .agg(cases=("case_id", "size"), case_ids=("case_id", ", ".join), over_limit_low=("over_limit", "min"),
                 over_limit_high=("over_limit", "max")).reset_index())


def _physical_limit() -> ModelParameters:
    values = {name: 0.0 for name in PARAMETER_NAMES}
    values.update(decode_bandwidth_efficiency=1.0, decode_compute_efficiency=1.0, weight_only_efficiency=1.0,
                  train_gemm_efficiency=1.0, moe_gemm_share=1.0, train_flops_per_byte=np.inf)
    return ModelParameters(**values)


def predict_decode(cases, p: ModelParameters) -> np.ndarray:
    return np.array([float(decode.serving_throughput(c.plan, p)[0]) for c in cases])


# ------------------------------------------------------------------------------------------------ RL cases

@dataclass(frozen=True)
class RLCase:
    case_id: str
    source: str
    family: str
    model: str
    gpu: str
    actor: rl_phases.RLFeatures          # the actor's phases (generation, log-prob, update)
    whole: rl_phases.RLFeatures          # the whole step (the critic's passes too under PPO)
    measured: dict                       # phase -> seconds: generation, logprob, training, step
    generation_includes_refit: bool
    regimes: tuple[str, ...]


RL_REGIMES = ("moe", "tp4plus", "long_context", "lora", "compute_poor")   # the regimes an RL case can fall in


def rl_regimes(arch, gpus, tp, sequence, fine_tune) -> tuple[str, ...]:
    """The RL_REGIMES an RL step (a measured case, or a prediction) falls in: `tp` its rollout engine's tensor
    parallel, `sequence` its prompt and longest response."""
    out = []
    if arch.is_moe:
        out.append("moe")
    if tp >= 4:
        out.append("tp4plus")
    if sequence >= LONG_CONTEXT_TOKENS:
        out.append("long_context")
    if fine_tune == "lora":
        out.append("lora")
    if float(gpus.bf16_flops / gpus.bandwidth_bytes_per_s) < COMPUTE_POOR_FLOPS_PER_BYTE:
        out.append("compute_poor")
    return tuple(out)


def _rl_case(case_id, source, fam, model, gpu, num_gpus, samples, prompt, response, response_max, *, critic,
             reference, optimizer_steps, off_policy, rollout_tp, fine_tune, measured, includes_refit, max_over_mean,
             micro_batch_tokens=None, micro_batch_samples=None, padded_tokens=None, critic_padded_tokens=None,
             logprob_micro_batch_tokens=None, logprob_micro_batch_samples=None, own_micro_batches=None,
             rollout_memory_fraction=None, rollout_eager=False, **precisions):
    arch, gpus = get_arch(model), gpu_specs(gpu)
    common = dict(fine_tune=fine_tune, reference=reference, optimizer_steps=optimizer_steps, off_policy=off_policy,
                  response_max_over_mean=max_over_mean, rollout_tensor_parallel=rollout_tp,
                  rollout_memory_fraction=rollout_memory_fraction, rollout_eager=rollout_eager,
                  micro_batch_tokens=micro_batch_tokens, micro_batch_samples=micro_batch_samples,
                  logprob_micro_batch_tokens=logprob_micro_batch_tokens,
                  logprob_micro_batch_samples=logprob_micro_batch_samples, **(own_micro_batches or {}),
                  padded_tokens_per_sample=padded_tokens, critic_padded_tokens_per_sample=critic_padded_tokens,
                  **precisions)
    actor = rl_phases.rl_features(arch, gpus, num_gpus, samples, prompt, response, response_max, critic=False,
                                  **common)
    whole = rl_phases.rl_features(arch, gpus, num_gpus, samples, prompt, response, response_max, critic=critic,
                                  **common) if critic else actor
    return RLCase(case_id, source, fam, model, gpu, actor, whole, measured, includes_refit,
                  rl_regimes(arch, gpus, float(actor.tensor_parallel), prompt + (response_max or response),
                              fine_tune))


# the passes beside the old policy's log-probs and the actor's update that may size their micro-batches their own way
# (verl's ref.log_prob_*, critic.forward_*, critic.ppo_*): the columns `<stem>_micro_batch_tokens` and `_samples` of
# rl_phase_cases.csv
OWN_MICRO_BATCHES = ("reference", "values", "critic")


@functools.lru_cache(maxsize=None)
def _phase_rows() -> tuple[dict, ...]:
    return tuple(load_table("measurements/rl_phase_cases.csv", [
        Column("case_id"), Column("source"), Column("family"), Column("usable"), Column("reason", required=False),
        Column("model", required=False), Column("gpu", required=False), Column("num_gpus", "float", False),
        Column("fine_tune", required=False), Column("critic", required=False), Column("reference", required=False),
        Column("samples", "float", False), Column("prompt_tokens", "float", False),
        Column("response_tokens", "float", False), Column("response_max_tokens", "float", False),
        Column("rollout_tp", "float", False), Column("rollout_memory_fraction", "float", False),
        Column("optimizer_steps", "float", False),
        Column("micro_batch_tokens", "float", False), Column("micro_batch_samples", "float", False),
        Column("logprob_micro_batch_tokens", "float", False), Column("logprob_micro_batch_samples", "float", False),
        *(Column(f"{stem}_micro_batch_{unit}", "float", False) for stem in OWN_MICRO_BATCHES
          for unit in ("tokens", "samples")),
        Column("padded_tokens", "float", False), Column("critic_padded_tokens", "float", False),
        Column("off_policy", "float", False), Column("generation_includes_refit", required=False),
        Column("enforce_eager", required=False),
        Column("measured_step_s", "float", False), Column("measured_generation_s", "float", False),
        Column("measured_logprob_s", "float", False), Column("measured_update_actor_s", "float", False)]))


def response_max_over_mean() -> float:
    """The longest response over the mean, from the runs that log both (verl's response_length/max and /mean):
    their median, standing in where a run does not say."""
    ratios = [r["response_max_tokens"] / r["response_tokens"] for r in _phase_rows()
              if r["usable"] == "yes" and r["response_max_tokens"] and r["response_tokens"]]
    if not ratios:
        raise TinkerNomicsError("measurements/rl_phase_cases.csv: no run logs its longest response")
    return float(np.median(ratios))


@functools.lru_cache(maxsize=None)
def rl_cases() -> tuple[RLCase, ...]:
    """RL steps with phases (rl_phase_cases.csv) and steps alone (rl_step_cases.csv), reduced to features."""
    ratio = response_max_over_mean()
    out = []
    for r in _phase_rows():
        if r["usable"] != "yes":
            continue
        measured = {k: v for k, v in (("generation", r["measured_generation_s"]), ("logprob", r["measured_logprob_s"]),
                                      ("training", r["measured_update_actor_s"]), ("step", r["measured_step_s"]))
                    if v}
        out.append(_rl_case(r["case_id"], r["source"], r["family"], r["model"], r["gpu"], r["num_gpus"],
                            r["samples"], r["prompt_tokens"], r["response_tokens"], r["response_max_tokens"],
                            critic=r["critic"] == "yes", reference=r["reference"] != "no",
                            optimizer_steps=r["optimizer_steps"], off_policy=r["off_policy"] or 0.0,
                            rollout_tp=r["rollout_tp"], fine_tune=r["fine_tune"] or "full", measured=measured,
                            includes_refit=r["generation_includes_refit"] != "no", max_over_mean=ratio,
                            micro_batch_tokens=r["micro_batch_tokens"], micro_batch_samples=r["micro_batch_samples"],
                            logprob_micro_batch_tokens=r["logprob_micro_batch_tokens"],
                            logprob_micro_batch_samples=r["logprob_micro_batch_samples"],
                            own_micro_batches={f"{stem}_micro_batch_{unit}": r[f"{stem}_micro_batch_{unit}"]
                                               for stem in OWN_MICRO_BATCHES for unit in ("tokens", "samples")},
                            padded_tokens=r["padded_tokens"], critic_padded_tokens=r["critic_padded_tokens"],
                            rollout_memory_fraction=r["rollout_memory_fraction"],
                            rollout_eager=r["enforce_eager"] == "yes"))
    for r in accuracy.rl_step_cases(usable_only=True):
        prompt = accuracy.case_prompt_tokens(r)
        longest = None   # the drain of the longest responses: the ratio, capped by the run's longest sequence
        if r["max_sequence_tokens"]:
            longest = max(min(ratio * r["generated_tokens"], r["max_sequence_tokens"] - prompt), r["generated_tokens"])
        out.append(_rl_case(r["case_id"], r["source"], r.get("family") or r["source"], r["model"], r["gpu"],
                            r["num_gpus"], r["generation_samples"], prompt, r["generated_tokens"], longest, critic=False, reference=True, optimizer_steps=None,
                            off_policy=r["off_policy"], rollout_tp=r["generation_tp"],
                            fine_tune=r["fine_tune"] or "full", measured={"step": r["measured_step_s"]},
                            includes_refit=False, max_over_mean=ratio,
                            rollout_memory_fraction=framework_rollout_fraction(r.get("framework"))))
    return tuple(out)


def fp8_rl_rows():
    """The published RL steps that trained and generated in FP8 (NeMo RL's FP8 rows of rl_step_cases.csv), which no
    fit reads: each predicted as the BF16 rows are, with FP8 training GEMMs and FP8 rollout weights
    (`predict rl-step --train-precision fp8 --rollout-precision fp8`), at the fitted parameters. A DataFrame."""
    import pandas as pd

    ratio, p, rows = response_max_over_mean(), fit_all(), []
    for r in accuracy.rl_step_cases():
        if r["usable"] == "yes" or (r.get("precision") or "").upper() != "FP8":
            continue
        num = {k: float(r[k]) for k in ("num_gpus", "generation_samples", "generated_tokens", "max_sequence_tokens",
                                        "generation_tp", "off_policy", "measured_step_s",
                                        "measured_tokens_per_s_per_gpu")}
        prompt = accuracy.case_prompt_tokens({**r, **num, "prompt_tokens": None})
        longest = max(min(ratio * num["generated_tokens"], num["max_sequence_tokens"] - prompt), num["generated_tokens"])
        case = _rl_case(r["case_id"], r["source"], r.get("family") or r["source"], r["model"], r["gpu"],
                        num["num_gpus"], num["generation_samples"], prompt, num["generated_tokens"], longest,
                        critic=False, reference=True, optimizer_steps=None, off_policy=num["off_policy"],
                        rollout_tp=num["generation_tp"], fine_tune=r["fine_tune"] or "full",
                        measured={"step": num["measured_step_s"]}, includes_refit=False, max_over_mean=ratio,
                        rollout_memory_fraction=framework_rollout_fraction(r.get("framework")),
                        precision="fp8", train_precision="fp8")
        rows.append({"case_id": r["case_id"], "source": r["source"], "model": r["model"], "gpu": r["gpu"],
                     "num_gpus": num["num_gpus"], "measured": num["measured_step_s"],
                     "predicted": predict_rl(case, p)["step"]})
    frame = pd.DataFrame(rows)
    frame["signed_error"] = accuracy.signed_error(frame["predicted"], frame["measured"])
    return frame


def predict_rl(case: RLCase, p: ModelParameters) -> dict:
    """A case's predicted seconds per measured quantity."""
    actor = rl_phases.phase_seconds(case.actor, p)
    whole = actor if case.whole is case.actor else rl_phases.phase_seconds(case.whole, p)
    generation = actor.generation_seconds + (actor.refit_seconds if case.generation_includes_refit else 0.0)
    return {"generation": float(generation), "logprob": float(actor.logprob_seconds),
            "training": float(actor.training_seconds), "step": float(whole.step_seconds)}


# ------------------------------------------------------------------------------------------------ fitting

def _with(p: ModelParameters, names, x) -> ModelParameters:
    return dataclasses.replace(p, **{n: float(v) for n, v in zip(names, x)})


def _weights(families: list[str]) -> np.ndarray:
    counts = {f: families.count(f) for f in set(families)}
    return np.array([1.0 / math.sqrt(counts[f]) for f in families])


def _least_squares(residuals, ranges: dict):
    from scipy.optimize import least_squares

    names = list(ranges)
    low = np.array([ranges[n][0] for n in names])
    high = np.array([ranges[n][1] for n in names])
    start = np.array([ranges[n][2] for n in names])
    scale = np.maximum(start, 1e-6)
    soft = [(names.index(n), PRIORS[n][0], PRIOR_SPREAD[n]) for n in names if n in PRIOR_SPREAD]
    if soft:
        cases_only = residuals

        def residuals(x):
            prior = [LOSS_SCALE * math.log(x[i] / value) / spread for i, value, spread in soft]
            return np.concatenate([cases_only(x), prior])

    result = least_squares(residuals, start, bounds=(low, high), x_scale=scale, loss="soft_l1", f_scale=LOSS_SCALE,
                           xtol=1e-10, ftol=1e-10, gtol=1e-10, max_nfev=2000)
    return dict(zip(names, result.x))


def _base() -> ModelParameters:
    values = {name: 0.0 for name in PARAMETER_NAMES}
    values.update({n: r[2] for n, r in RANGES.items()})
    values["response_max_over_mean"] = response_max_over_mean()
    return ModelParameters(**values)


def decode_ranges(cases) -> dict:
    """The decode parameters the cases can fit: the dequantisation efficiency only where weight-only rows exist."""
    ranges = dict(DECODE_RANGES)
    if not any("weight_only" in c.regimes for c in cases):
        ranges.pop("weight_only_efficiency")
    return ranges


def fit_decode(exclude_family: str | None = None, base: ModelParameters | None = None,
               hold: tuple[str, ...] = ()) -> ModelParameters:
    """`hold`: parameters kept at their stated priors from the start (a held-out fold holds what the full fit held,
    so every fold fits the same model)."""
    cases = [c for c in decode_cases() if not c.screened and c.family != exclude_family]
    base = base or _base()
    measured = np.array([c.measured for c in cases])
    weights = _weights([c.family for c in cases])

    def fit(ranges, held):
        start = _with(base, list(held), list(held.values()))
        names = list(ranges)

        def residuals(x):
            return weights * np.log(predict_decode(cases, _with(start, names, x)) / measured)

        return _least_squares(residuals, ranges)

    values, _ = _fit_with_priors(fit, decode_ranges(cases), hold)
    return _with(base, list(values), list(values.values()))


def fit_rl(exclude_family: str | None = None, decode_fit: ModelParameters | None = None,
           hold: tuple[str, ...] = ()) -> ModelParameters:
    """`hold` as in fit_decode (a fold with no mixture-of-experts case leaves that share at its prior: nothing but
    the prior's residual moves it)."""
    base = decode_fit or fit_decode()
    cases = [c for c in rl_cases() if c.family != exclude_family]
    keys = [(i, q) for i, c in enumerate(cases) for q in c.measured]
    measured = np.array([cases[i].measured[q] for i, q in keys])
    weights = _weights([cases[i].family for i, _ in keys])

    def fit(ranges, held):
        start = _with(base, list(held), list(held.values()))
        names = list(ranges)

        def residuals(x):
            p = _with(start, names, x)
            predicted = [predict_rl(c, p) for c in cases]
            return weights * np.log(np.array([predicted[i][q] for i, q in keys]) / measured)

        return _least_squares(residuals, ranges)

    values, _ = _fit_with_priors(fit, RL_RANGES, hold)
    return _with(base, list(values), list(values.values()))


@functools.lru_cache(maxsize=None)
def fit_all() -> ModelParameters:
    """Every parameter, fitted on every usable case."""
    return fit_rl(decode_fit=fit_decode())


# ------------------------------------------------------------------------------------------------ held out

@functools.lru_cache(maxsize=None)
def held_out_decode():
    """Each usable, unscreened decode case predicted by a fit that never saw its family: a DataFrame."""
    import pandas as pd

    cases = [c for c in decode_cases() if not c.screened]
    rows = []
    hold = held_at_prior(fit_decode(), DECODE_RANGES)
    for fam in dict.fromkeys(c.family for c in cases):
        fit = fit_decode(exclude_family=fam, hold=hold)
        held = [c for c in cases if c.family == fam]
        for c, pred in zip(held, predict_decode(held, fit)):
            rows.append({"case_id": c.case_id, "family": fam, "source": c.source, "model": c.model, "gpu": c.gpu,
                         "quantity": "decode", "regimes": " ".join(c.regimes), "predicted": float(pred),
                         "measured": c.measured})
    frame = pd.DataFrame(rows)
    frame["signed_error"] = accuracy.signed_error(frame["predicted"], frame["measured"])
    return frame


@functools.lru_cache(maxsize=None)
def held_out_rl():
    """Each RL case's measured quantities (phases and step) predicted by a fit that never saw its family."""
    import pandas as pd

    decode_fit = fit_decode()
    cases = rl_cases()
    rows = []
    hold = held_at_prior(fit_all(), RL_RANGES)
    for fam in dict.fromkeys(c.family for c in cases):
        fit = fit_rl(exclude_family=fam, decode_fit=decode_fit, hold=hold)
        for c in (c for c in cases if c.family == fam):
            predicted = predict_rl(c, fit)
            for quantity, measured in c.measured.items():
                rows.append({"case_id": c.case_id, "family": fam, "source": c.source, "model": c.model, "gpu": c.gpu,
                             "quantity": "rl_step" if quantity == "step" else quantity,
                             "regimes": " ".join(c.regimes), "predicted": predicted[quantity], "measured": measured})
    frame = pd.DataFrame(rows)
    frame["signed_error"] = accuracy.signed_error(frame["predicted"], frame["measured"])
    return frame


REGIMES = ("all", "batch1", "throughput", "weight_only", "tp4plus", "moe", "long_context", "lora", "compute_poor")
REGIME_LABELS = {"all": "every case", "batch1": "batch 1 (latency)", "throughput": "throughput batches (≥ 64)",
                 "weight_only": "weight-only int8/int4", "tp4plus": "tensor parallel ≥ 4",
                 "moe": "mixture of experts", "long_context": "long context (≥ 8k tokens)", "lora": "LoRA",
                 "compute_poor": "compute-poor GPUs (H20-class)"}


def log_spread(predicted, measured) -> float:
    """Robust sd of log(predicted / measured): 1.4826 × the median absolute deviation from the median."""
    logs = np.log(np.asarray(predicted, dtype=float) / np.asarray(measured, dtype=float))
    if logs.size < 2:
        return math.nan
    return float(1.4826 * np.median(np.abs(logs - np.median(logs))))


def held_out(quantity: str, regimes) -> list[dict]:
    """How far a prediction of `quantity` (decode, rl_step) may be off, from the committed held-out errors
    (data/calibration/errors_by_regime.csv): every case, then each regime the prediction falls in, with its cases,
    families and median |error| (None where no published case falls in the regime)."""
    from ..sources.calibration import regime_errors
    table = regime_errors()
    out = []
    for regime in ("all", *regimes):
        row = table.get((quantity, regime))
        out.append({"regime": regime, "label": REGIME_LABELS[regime], "cases": row.cases if row else 0,
                    "families": row.families if row else 0,
                    "median_abs_error": row.median_abs_error if row else None,
                    "median_signed_error": row.median_signed_error if row else None})
    return out


def errors_by_regime():
    """Held-out median |error|, median signed error and log-spread per quantity and regime (with case and family
    counts); regimes without a case are left out."""
    import pandas as pd

    frame = pd.concat([held_out_decode(), held_out_rl()], ignore_index=True)
    rows = []
    for quantity in dict.fromkeys(frame["quantity"]):
        part = frame[frame["quantity"] == quantity]
        for regime in REGIMES:
            sub = part if regime == "all" else part[part["regimes"].str.split().apply(lambda r: regime in r)]
            if sub.empty:
                continue
            spread = log_spread(sub["predicted"], sub["measured"])
            rows.append({"quantity": quantity, "regime": regime, "cases": len(sub), "families": sub["family"].nunique(),
                         "median_abs_error": float(np.median(np.abs(sub["signed_error"]))),
                         "median_signed_error": float(np.median(sub["signed_error"])),
                         "log_sd": spread if math.isfinite(spread) else float(abs(np.log(sub["predicted"] / sub["measured"]).iloc[0]))})
    return pd.DataFrame(rows)


def unmeasured_rl_regimes(errors=None) -> tuple[str, ...]:
    """The RL_REGIMES no usable RL step falls in (`errors`: errors_by_regime(), computed when not given): the
    regimes where the accuracy chapter says the RL model is not validated."""
    errors = errors_by_regime() if errors is None else errors
    measured = set(errors.loc[errors["quantity"] == "rl_step", "regime"])
    return tuple(regime for regime in RL_REGIMES if regime not in measured)


def method_comparison():
    """Every case under each method: seed and exact as a user gets them (the package's default rollout efficiency
    and MFU; nothing fitted to these measurements) and calibrated held out (a fit that never saw the case's
    family). Decode tokens/s and RL step time; columns quantity, method, family, case_id, predicted, measured,
    signed_error. Decode cases screened above the physical limit are left out for every method."""
    import pandas as pd

    family = {c.case_id: c.family for c in decode_cases()}
    regimes = {c.case_id: " ".join(c.regimes) for c in (*decode_cases(), *rl_cases())}
    kept = {c.case_id for c in decode_cases() if not c.screened}
    columns = ["quantity", "method", "family", "case_id", "regimes", "predicted", "measured", "signed_error"]
    parts = []
    default = accuracy.predict_decode(efficiency=number("rollout_efficiency"), methods=("seed", "exact"))
    default = default[default["case_id"].isin(kept)].assign(family=lambda f: f["case_id"].map(family),
                                                             regimes=lambda f: f["case_id"].map(regimes))
    for method in ("seed", "exact"):
        parts.append(default[default["method"] == method].assign(quantity="decode")[columns])
    parts.append(held_out_decode().assign(method="calibrated (held out)")[columns])
    rl_family = {c.case_id: c.family for c in rl_cases()}
    for method in ("seed", "exact"):
        frame = accuracy.predict_rl_steps(method)
        parts.append(frame.assign(quantity="rl_step", family=frame["case_id"].map(rl_family),
                                  regimes=frame["case_id"].map(regimes))[columns])
    held = held_out_rl()
    parts.append(held[held["quantity"] == "rl_step"].assign(method="calibrated (held out)")[columns])
    return pd.concat(parts, ignore_index=True)


def comparison_table(frame=None):
    """`method_comparison` summarised per quantity, family and method (cases, median |signed error|, median signed
    error), with an 'all families' row per quantity and method."""
    import pandas as pd

    frame = method_comparison() if frame is None else frame
    rows = []
    for (quantity, method), group in frame.groupby(["quantity", "method"], sort=False):
        for fam, cases in [*group.groupby("family", sort=False), ("all families", group)]:
            rows.append({"quantity": quantity, "method": method, "family": fam, "cases": len(cases),
                         "median_abs_error": float(np.median(np.abs(cases["signed_error"]))),
                         "median_error": float(np.median(cases["signed_error"]))})
    return pd.DataFrame(rows)


def held_out_with_regimes():
    """Held-out decode and RL cases in one frame with one row per case and regime (for plotting and tables by
    regime): quantity, case_id, family, regime, predicted, measured, signed_error."""
    import pandas as pd

    frame = pd.concat([held_out_decode(), held_out_rl()], ignore_index=True)
    frame["regime"] = frame["regimes"].where(frame["regimes"] != "", "other").str.split()
    return frame.explode("regime").reset_index(drop=True)


# ------------------------------------------------------------------------------------------------ the table

def held_at_prior(fit: ModelParameters, ranges: dict) -> tuple[str, ...]:
    """The parameters of `ranges` that `fit` holds at their stated priors."""
    return tuple(n for n in ranges if n in PRIORS and n not in PRIOR_SPREAD and getattr(fit, n) == PRIORS[n][0])


def on_bound(name: str, value: float) -> bool:
    """Within 0.1% of an end of the search range (on a log scale for ranges spanning decades)."""
    low, high, _ = RANGES[name]
    if low > 0 and high / low > 100:
        value = max(float(value), low)
        return min(np.log(value / low), np.log(high / value)) <= 1e-3 * np.log(high / low)
    return min(value - low, high - value) <= 1e-3 * (high - low)


def _fit_with_priors(fit, ranges: dict, hold: tuple[str, ...] = ()):
    """`fit(ranges) -> {name: value}`; a parameter that ends on a bound and has a stated prior is held at the prior
    and the others refitted, until none with a prior is on a bound. `hold` names parameters held at their priors
    from the start. Returns (values, held names)."""
    held = {name: PRIORS[name][0] for name in hold if name in ranges}
    ranges = {name: r for name, r in ranges.items() if name not in held}
    while True:
        values = fit(ranges, held)
        bounded = [n for n in ranges if n in PRIORS and on_bound(n, values[n])]
        if not bounded:
            return {**values, **held}, tuple(held)
        for name in bounded:
            held[name] = PRIORS[name][0]
            ranges.pop(name)


def parameter_rows(fitted_on: str) -> list[dict]:
    """data/calibration/parameters.csv: each parameter with its range, what it was fitted on and the held-out
    error of its part of the model."""
    fit = fit_all()
    decode_used = [c for c in decode_cases() if not c.screened]
    rl = rl_cases()
    errors = errors_by_regime()

    def held(quantity: str) -> float:
        row = errors[(errors["quantity"] == quantity) & (errors["regime"] == "all")]
        return float(row["median_abs_error"].iloc[0]) if len(row) else math.nan

    decode_families = "; ".join(dict.fromkeys(c.family for c in decode_used))
    rl_families = "; ".join(dict.fromkeys(c.family for c in rl))
    screened = [c.case_id for c in decode_cases() if c.screened]
    rows = []
    fitted_decode = decode_ranges(decode_used)
    rl_used = ("data/measurements/rl_phase_cases.csv and rl_step_cases.csv usable rows; generation at the decode "
               "fit")
    held_names = held_at_prior(fit, RANGES)
    for name in PARAMETER_NAMES:
        value = getattr(fit, name)
        if name in held_names:
            rows.append(_row(name, value, "held at a stated prior", 0, "", math.nan, fitted_on,
                             f"not searched: a search runs it to an end of its range (the cases do not pin it "
                             f"down); prior: {PRIORS[name][1]}"))
        elif name in fitted_decode or name in RL_RANGES:
            decode_part = name in fitted_decode
            how, inputs = "searched", (
                f"data/measurements/decode_cases.csv usable rows ({len(decode_used)} used; {len(screened)} screened "
                f"out above the physical limit: {', '.join(screened) or 'none'})" if decode_part else rl_used)
            if name in PRIOR_SPREAD:
                how = "searched with a prior"
                inputs += (f"; with its prior {PRIORS[name][0]:.4g} as one more residual (log-spread "
                           f"{PRIOR_SPREAD[name]:g}): {PRIORS[name][1]}")
            rows.append(_row(name, value, how, len(decode_used) if decode_part else len(rl),
                             decode_families if decode_part else rl_families,
                             held("decode" if decode_part else "rl_step"), fitted_on, inputs))
        elif name == "response_max_over_mean":
            rows.append(_row(name, value, "median of the runs", sum(1 for r in _phase_rows() if r["response_max_tokens"]),
                             rl_families, math.nan, fitted_on, "median of response_length/max over /mean of the "
                             "runs in rl_phase_cases.csv that log both (not a search)"))
        else:   # not identifiable from the cases: the search's start, a stated prior
            rows.append(_row(name, RANGES[name][2], "held at a stated prior", 0, "", math.nan, fitted_on,
                             "not searched: no case measures it; the search's start"))
    return rows


UNITS = {"decode_bandwidth_efficiency": "share of HBM bandwidth", "decode_compute_efficiency": "share of dense peak",
         "weight_only_efficiency": "share of the bandwidth efficiency", "decode_step_overhead_seconds": "seconds",
         "decode_sequence_overhead_seconds": "seconds per sequence", "allreduce_latency_seconds": "seconds",
         "generation_overhead_seconds": "seconds per RL step",
         "rollout_sequence_overhead_seconds": "seconds per sequence per decode step", "train_gemm_efficiency": "share of BF16 peak",
         "moe_gemm_share": "share of the training GEMM efficiency", "train_flops_per_byte": "FLOPs per byte", "micro_batch_overhead_seconds": "seconds per micro-batch pass",
         "eager_layer_seconds": "seconds per layer per decode step",
         "pass_overhead_seconds": "seconds per trainer pass",
         "step_overhead_seconds": "seconds per RL step", "response_max_over_mean": "longest / mean response"}


def _row(name, value, how, cases, families, held, fitted_on, inputs) -> dict:
    """A searched parameter carries its search range; one not searched (`how` says why) has none."""
    low, high = (f"{RANGES[name][0]:g}", f"{RANGES[name][1]:g}") if how.startswith("searched") else ("", "")
    return {"parameter": name, "value": f"{value:.6g}", "unit": UNITS[name], "low": low, "high": high, "how": how,
            "cases": str(cases), "families": families,
            "held_out_median_abs_error": "" if not math.isfinite(held) else f"{held:.4f}", "fitted": fitted_on,
            "inputs": inputs, "note": ""}


def clear_caches() -> None:
    for fn in (decode_cases, rl_cases, _phase_rows, fit_all, held_out_decode, held_out_rl):
        fn.cache_clear()


# ------------------------------------------------------------------------------------------------ rows never fitted

OUTSIDE = "measurements/outside_decode.csv"


@functools.lru_cache(maxsize=None)
def outside_decode():
    """Published decode measurements no fit has read (data/measurements/outside_decode.csv: sources outside
    decode_cases.csv's, gathered to check the model on rows it never saw), each predicted as a user asks
    `predict decode` (the default method; the row's engine cap and expert parallelism where its source states them,
    else vLLM's cap and none). A row the model cannot answer keeps its one-line reason. One row per usable measurement, with its regimes."""
    import pandas as pd

    from ..errors import TinkerNomicsError as Refused
    from ..model.predict import predict_decode
    from ..sources.hardware import get_gpu
    rows = load_table(OUTSIDE, [
        Column("case_id"), Column("source"), Column("source_url"), Column("engine"), Column("model"), Column("gpu"),
        Column("num_gpus", "float"), Column("tensor_parallel", "float"), Column("expert_parallel", "float", False),
        Column("precision"),
        Column("kv_precision"), Column("concurrency", "float", False), Column("max_num_seqs", "float", False),
        Column("input_tokens", "float"), Column("output_tokens", "float"), Column("measured_output_tok_s", "float"),
        Column("usable"), Column("reason", required=False)])
    out = []
    for r in rows:
        if r["usable"] != "yes":
            continue
        arch, gpus = get_arch(r["model"]), gpu_specs(r["gpu"])
        predicted, why = math.nan, ""
        try:
            predicted = float(predict_decode(arch, get_gpu(r["gpu"]), r["num_gpus"], r["concurrency"],
                                             r["input_tokens"], r["output_tokens"], r["precision"],
                                             r["kv_precision"], None, r["tensor_parallel"],
                                             r["max_num_seqs"],
                                             expert_parallel=r["expert_parallel"]).output_tokens_per_second)
        except Refused as exc:
            why = str(exc)
        regimes = [name for name, on in (
            ("batch1", r["concurrency"] <= 1), ("throughput", r["concurrency"] >= 64),
            ("weight_only", bool(np.any(decode.weight_only(decode.precision_name(r["precision"]), gpus)))),
            ("tp4plus", r["tensor_parallel"] >= 4), ("moe", arch.is_moe),
            ("long_context", r["input_tokens"] + r["output_tokens"] >= LONG_CONTEXT_TOKENS),
            ("compute_poor", float(gpus.bf16_flops / gpus.bandwidth_bytes_per_s) < COMPUTE_POOR_FLOPS_PER_BYTE))
            if on]
        out.append({"case_id": r["case_id"], "source": r["source"], "engine": r["engine"], "model": r["model"],
                    "gpu": r["gpu"], "measured": r["measured_output_tok_s"], "predicted": predicted,
                    "refused": why, "regimes": " ".join(regimes)})
    frame = pd.DataFrame(out)
    frame["signed_error"] = accuracy.signed_error(frame["predicted"], frame["measured"])
    return frame


def outside_by_regime(frame=None):
    """`outside_decode` per regime: rows, rows answered, sources, median |error| and median signed error."""
    import pandas as pd
    frame = outside_decode() if frame is None else frame
    rows = []
    for regime in REGIMES:
        part = frame if regime == "all" else frame[frame["regimes"].str.split().apply(lambda r: regime in r)]
        if part.empty:
            continue
        answered = part[part["predicted"].notna()]
        rows.append({"regime": regime, "rows": len(part), "answered": len(answered),
                     "sources": part["source"].nunique(),
                     "median_abs_error": float(answered["signed_error"].abs().median()) if len(answered) else math.nan,
                     "median_signed_error": float(answered["signed_error"].median()) if len(answered) else math.nan})
    return pd.DataFrame(rows)
