"""What the hardware did in a self-hosted run, from its logs: time per phase, tokens, GPU-hours, achieved
decode throughput and training MFU, per step and in total.

Definitions (each stated with the result, in `Measured.basis`):

- step time is the framework's own step timer (verl `timing_s/step`, TRL `step_time`, NeMo RL
  `timing/train/total_step_time`); means are over optimizer
  steps (a TRL row standing for a window of steps weighs by its length);
- GPU-hours = GPUs × Σ logged step times / 3600. Whether validation time is inside depends on the framework and
  version (runs.verl.validation_inside reads it off the log); when it is outside, the wall-clock adds it and
  `gpu_hours_with_validation` counts it too. Start-up, model loading and anything outside the step timer are in
  neither;
- achieved decode throughput = generated tokens / (generation seconds × GPUs): the rollout phase's time includes
  prompt processing and, in verl, waking the rollout engine and syncing weights, so it is a floor on the decode
  speed;
- achieved training MFU = model FLOPs of the trained tokens / (update seconds × GPUs × the GPU's dense BF16 peak),
  with the package's FLOPs per parameter per trained token (6 full fine-tuning, 4 LoRA; data/assumptions) times the
  architecture's active parameters; attention FLOPs are not counted. verl's own `perf/mfu/actor` (its FLOP counter
  and device table) and NeMo RL's `performance/train_fp_utilization` are reported beside it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from ..errors import TinkerNomicsError

from ..model import training
from ..sources.architectures import ModelArch
from ..sources.hardware import GPU
from .hosted import HostedRun
from . import verl


@dataclass(frozen=True)
class Measured:
    per_step: pd.DataFrame      # the run's rows with other_seconds, plain, decode_tps_per_gpu, training_mfu
    totals: dict                # the headline figures (see `measure`)
    basis: dict                 # figure -> how it was measured
    notes: tuple[str, ...] = field(default_factory=tuple)


def weighted_mean(values: pd.Series, weights: pd.Series) -> float:
    """Mean over optimizer steps of a per-step quantity logged per row (NaN rows left out; NaN when none)."""
    ok = values.notna()
    if not ok.any():
        return math.nan
    return float((values[ok] * weights[ok]).sum() / weights[ok].sum())


def plain_steps(run: HostedRun) -> pd.Series:
    """Rows whose logged step time holds neither validation nor checkpoint time."""
    t = run.steps
    validation_in = t["validation_seconds"].notna() & (run.validation_inside is not False)
    return ~validation_in & t["checkpoint_seconds"].isna()


# A logged phase longer than its whole step beyond rounding (1%, 0.05 s) is a broken line, not a measurement. The
# phases may sum to more than the step (an asynchronous run overlaps generation with training), but none alone can.
PHASE_SLACK_SHARE, PHASE_SLACK_SECONDS = 0.01, 0.05


def _check_phases_fit(run: HostedRun) -> None:
    t = run.steps
    limit = t["step_seconds"] * (1.0 + PHASE_SLACK_SHARE) + PHASE_SLACK_SECONDS
    for column, what in (("generation_seconds", "generation"), ("training_seconds", "actor update")):
        bad = t[column].notna() & (t[column] > limit)
        if bad.any():
            row = t.loc[bad].iloc[0]
            raise TinkerNomicsError(f"{run.source}: line {int(row['line'])}: the step time ({row['step_seconds']:g} s) "
                                    f"is shorter than its {what} ({row[column]:g} s): a broken log line")


def measure(run: HostedRun, num_gpus: float | None, gpu: GPU | None, arch: ModelArch | None,
            fine_tune: str) -> Measured:
    t = run.steps.copy(deep=False)   # copy-on-write: the added columns are this table's, the logged ones shared
    w = t["steps_covered"]
    notes: list[str] = []
    _check_phases_fit(run)
    t["other_seconds"] = t["step_seconds"] - t["generation_seconds"] - t["training_seconds"]
    t["plain"] = plain_steps(run)
    steps = float(w.sum())
    step_total = float((t["step_seconds"] * w).sum())
    has_gen = t["generation_seconds"].notna()
    has_train = t["training_seconds"].notna()
    val = t["validation_seconds"].notna()
    validation_total = float(t.loc[val, "validation_seconds"].sum())
    outside = run.validation_inside is False
    wallclock = step_total + (validation_total if outside else 0.0)
    gpus = float(num_gpus) if num_gpus else math.nan
    gen_total = float((t.loc[has_gen, "generation_seconds"] * w[has_gen]).sum())
    # every sequence the step generated (DAPO's dynamic sampling generates groups it then drops), at the kept
    # sequences' mean length: the log gives no other
    generated = t["response_tokens"] * t["generated_samples"] / t["samples"] if "generated_samples" in t \
        else t["response_tokens"]
    generated_with_gen = float(generated[has_gen].sum(min_count=1)) if has_gen.any() else math.nan
    t["decode_tps_per_gpu"] = generated / (t["generation_seconds"] * w * gpus)
    decode = generated_with_gen / gen_total / gpus if gen_total > 0 else math.nan

    flops_per_token = math.nan
    peak = math.nan
    if arch is not None and gpu is not None:
        _, active = arch.params("exact")
        flops_per_token = training.flops_per_param_per_token(fine_tune) * active
        peak = gpu.peak_flops("exact")
    train_time = (t["training_seconds"] * w)
    t["training_mfu"] = t["trained_tokens"] * flops_per_token / (train_time * gpus * peak)
    trained_with_train = float(t.loc[has_train, "trained_tokens"].sum(min_count=1)) if has_train.any() else math.nan
    train_total = float(train_time[has_train].sum())
    mfu = trained_with_train * flops_per_token / (train_total * gpus * peak) if train_total > 0 else math.nan

    plain = t["plain"]
    totals = {
        "steps": int(round(steps)), "rows": int(len(t)), "first_step": run.first_step, "last_step": run.last_step,
        "num_gpus": None if math.isnan(gpus) else gpus,
        "step_seconds_total": step_total, "step_seconds_mean": step_total / steps,
        "step_seconds_mean_plain": weighted_mean(t.loc[plain, "step_seconds"], w[plain]),
        "plain_steps": int(round(float(w[plain].sum()))),
        "generation_seconds_mean": weighted_mean(t["generation_seconds"], w),
        "training_seconds_mean": weighted_mean(t["training_seconds"], w),
        "other_seconds_mean": weighted_mean(t["other_seconds"], w),
        # the same means over the rows that time both phases: there they add up (step = generation + update + other)
        "phased_steps": int(round(float(w[has_gen & has_train].sum()))),
        "phased_step_seconds_mean": weighted_mean(t.loc[has_gen & has_train, "step_seconds"], w[has_gen & has_train]),
        "phased_generation_seconds_mean": weighted_mean(t.loc[has_gen & has_train, "generation_seconds"],
                                                        w[has_gen & has_train]),
        "phased_training_seconds_mean": weighted_mean(t.loc[has_gen & has_train, "training_seconds"],
                                                      w[has_gen & has_train]),
        "validation_runs": int(val.sum()), "validation_seconds_total": validation_total,
        "validation_inside_step": run.validation_inside,
        "checkpoint_runs": int(t["checkpoint_seconds"].notna().sum()),
        "checkpoint_seconds_total": float(t["checkpoint_seconds"].sum()),
        "wallclock_seconds": wallclock,
        "gpu_hours": gpus * step_total / 3600.0,
        "gpu_hours_with_validation": gpus * wallclock / 3600.0,
        "samples_per_step": weighted_mean(t["samples"], w),
        "generated_tokens": float(generated.sum(min_count=1)),
        "prompt_tokens": float(t["prompt_tokens"].sum(min_count=1)),
        "trained_tokens": float(t["trained_tokens"].sum(min_count=1)),
        "decode_tokens_per_second_per_gpu": decode,
        "training_mfu": mfu,
        "logged_mfu_mean": weighted_mean(t["logged_mfu"], w),
        "logged_throughput_mean": weighted_mean(t["logged_throughput"], w),
        "tokens_per_second_per_gpu": float(t["trained_tokens"].sum()) / step_total / gpus if step_total else math.nan,
    }
    phase_basis = {"verl": (("the sum of the step's timing/ timers", "timing/gen", "timing/update_actor")
                            if verl.is_legacy(run.keys) else ("timing_s/step", "timing_s/gen", "timing_s/update_actor")),
                   "TRL": ("step_time", "not logged", "not logged"),
                   "NeMo RL": ("timing/train/total_step_time", "timing/train/generation",
                               "timing/train/policy_training")}.get(run.framework, ("step time", "", ""))
    mfu_key = {"verl": "verl " + ("perf/mfu/actor" if verl.MFU_FALLBACK not in run.keys or
                                  verl.COLUMN_KEYS["logged_mfu"] in run.keys else verl.MFU_FALLBACK),
               "NeMo RL": "NeMo RL performance/train_fp_utilization"}.get(run.framework, "none logged")
    where_validation = {True: "validation is inside the logged step time (it lengthens the steps that validate)",
                        False: "validation is outside the logged step time (added to the wall-clock, not to these "
                               "GPU-hours)",
                        None: "no validation is logged"}[run.validation_inside]
    basis = {
        "step_seconds": f"{phase_basis[0]}, mean over {totals['steps']:,} optimizer steps",
        "generation_seconds": phase_basis[1], "training_seconds": phase_basis[2],
        "other_seconds": "step − generation − actor update: old log-probs, reference, critic, reward, advantages, "
                         "weight sync, and validation/checkpoints where the step holds them",
        "gpu_hours": (f"GPUs × Σ step time / 3600; {where_validation}; checkpoint saves are inside "
                      f"the steps that save; start-up and model loading are outside"),
        "wallclock_seconds": "Σ step time" + (" + Σ validation time (outside the step timer)" if outside else ""),
        "decode_tokens_per_second_per_gpu": "generated tokens / (generation time × GPUs); generation time includes "
                                            "prompt processing and the rollout engine's start (and, in verl, the "
                                            "weight sync)",
        "training_mfu": ("FLOPs per parameter per trained token (6 full, 4 LoRA) × active parameters × trained "
                         "tokens / (actor-update time × GPUs × dense BF16 peak); attention FLOPs not counted"),
        "logged_mfu_mean": f"the framework's own MFU figure ({mfu_key}), mean over steps",
    }
    if math.isnan(gpus):
        notes.append("the GPU count is not in the log: GPU-hours, throughput per GPU and MFU need --num-gpus")
    if arch is None or gpu is None:
        notes.append("achieved training MFU needs the model's architecture and the GPU type"
                     + ("" if gpu is not None else " (pass --gpu)"))
    if not has_gen.any():
        notes.append(f"{run.framework} logs no generation time: the achieved decode throughput and the generation "
                     f"phase cannot be measured")
    return Measured(t, totals, basis, tuple(notes))

