"""NeMo RL's GRPO metrics, as a W&B export of its run history (CSV, JSON, JSON lines or Parquet).

Where each name is defined (NVIDIA-NeMo/RL, earlier NVIDIA/NeMo-RL; nemo_rl/algorithms/grpo.py, `grpo_train` and
`async_grpo_train`):

- Every metric goes through `Logger.log_metrics(metrics, step, prefix)` (nemo_rl/utils/logger.py), which logs
  `f"{prefix}/{key}"` to W&B, TensorBoard, MLflow and SwanLab; no metrics file of its own is written. The step is
  `total_steps + 1` (the first training step is 1); setup timings (`timing/setup/…`) and a validation before
  training are logged at step 0.
- `timing/train/<label>`: the seconds of each `timer.time(label)` block of the step (nemo_rl/utils/timer.py, summed
  within the step). `total_step_time` wraps the whole step, checkpointing and a validation included;
  `generation` the rollout (environment calls inside it); `prepare_for_generation/total` (`prepare_for_generation`
  before late 2025) the weight refit to the generation engine; `logprob_inference_prep` and
  `policy_and_reference_logprobs` the log-prob passes of the policy and the reference (one timer for both);
  `training_prep` and `policy_training` the update; `checkpointing` the save. Labels with a slash below a phase
  (`prepare_for_generation/transfer_and_update_weights`, `policy_training/…`, `get_logprobs/…`) are nested in it
  and never summed. Async GRPO logs `exposed_generation` (the generation time training did not hide) and
  `weight_sync` instead.
- `timing/validation/total_validation_time`: the validation run at that step (inside `total_step_time`).
- `train/mean_gen_tokens_per_sample`, `train/max_gen_tokens_per_sample` (nemo_rl/experience/rollouts.py): generated
  (assistant) tokens per sample; `train/mean_prompt_length` and `train/total_num_tokens` (every token of every
  sample: prompt, generated and environment tokens) from mid-2025; `train/reward`.
- `performance/tokens_per_sec_per_gpu` and `performance/train_fp_utilization` (`print_performance_metrics`,
  nemo_rl/algorithms/utils.py, late 2025; `train/tokens_per_sec_per_gpu` and `train/train_fp_utilization` before).

Samples per step (`grpo.num_prompts_per_step × grpo.num_generations_per_prompt`) are not logged: they are derived
from the token count (as for verl), or given with --prompts-per-step and --group-size. The export holds no config:
the model, the GPUs and their count are given on the command line.
"""
from __future__ import annotations

from ..errors import TinkerNomicsError
from . import stream
from .hosted import HostedRun, StepRecord, StepTable, settle
from .verl import validation_inside

FRAMEWORK = "NeMo RL"

COLUMN_KEYS = {   # tidy column -> NeMo RL keys, newest first (the first one a record has is read)
    "step_seconds": ("timing/train/total_step_time",),
    "generation_seconds": ("timing/train/generation", "timing/train/exposed_generation"),
    "training_seconds": ("timing/train/policy_training",),
    "validation_seconds": ("timing/validation/total_validation_time",),
    "checkpoint_seconds": ("timing/train/checkpointing",),
    "response_mean": ("train/mean_gen_tokens_per_sample", "train/gen_tokens_per_sample/mean"),
    "response_max": ("train/max_gen_tokens_per_sample", "train/gen_tokens_per_sample/max"),
    "prompt_mean": ("train/mean_prompt_length",),
    "trained_tokens": ("train/total_num_tokens",),
    "logged_mfu": ("performance/train_fp_utilization", "train/train_fp_utilization"),
    "logged_throughput": ("performance/tokens_per_sec_per_gpu", "train/tokens_per_sec_per_gpu"),
    "reward": ("train/reward",),
}
# Top-level phases besides the ones with a column of their own: phase name -> keys, newest first.
PHASES = {
    "refit": ("timing/train/prepare_for_generation/total", "timing/train/prepare_for_generation",
              "timing/train/weight_sync"),
    "logprob_inference_prep": ("timing/train/logprob_inference_prep",),
    "policy_and_reference_logprobs": ("timing/train/policy_and_reference_logprobs",),
    "training_prep": ("timing/train/training_prep",),
    "data_processing": ("timing/train/data_processing",),
    "reward_calculation": ("timing/train/reward_calculation",),
    "advantage_calculation": ("timing/train/advantage_calculation",),
}
LOGPROB_PHASES = ("logprob_inference_prep", "policy_and_reference_logprobs")
REFIT_PHASES = ("refit",)
# Keys that mark a NeMo RL log: its step timer and one of its phases.
STEP_KEY = "timing/train/total_step_time"
PHASE_SIGNATURE = ("timing/train/policy_training", "timing/train/generation", "timing/train/exposed_generation")


def is_nemo_rl_keys(keys) -> bool:
    keys = set(keys)
    return STEP_KEY in keys and any(k in keys for k in PHASE_SIGNATURE)


def _record(where, step, values: dict) -> StepRecord | None:
    """A StepRecord from one W&B row; None for a row without a step time (step 0: setup timings, a validation
    before training)."""
    rec = StepRecord(where, step)
    for column, keys in COLUMN_KEYS.items():
        key = next((k for k in keys if values.get(k) is not None), None)
        if key is not None:
            rec.values[column] = (key, values[key])
    for phase, keys in PHASES.items():
        key = next((k for k in keys if values.get(k) is not None), None)
        if key is not None:
            rec.phases[phase] = (key, values[key])
    return rec if "step_seconds" in rec.values else None


def read_records(records, label: str, kind: str | None, facts_override: dict | None = None, notes=(),
                 run_name=None) -> HostedRun:
    """A W&B export of a NeMo RL run (`_step` is NeMo RL's step). A stream.Table gives its kind, notes and run name
    once read."""
    table = StepTable(label, text_numbers=True)
    keys: set[str] = set()
    skipped = 0
    for where, raw in records:
        keys.update(raw)
        step = raw.get("_step", raw.get("step"))
        rec = _record(where, step, raw)
        if rec is None:
            skipped += 1
            continue
        if step is None:
            raise TinkerNomicsError(f"{label}: {where[0]} {where[1]}: no step number (W&B '_step')")
        table.add(rec)
    notes = list(notes)
    if isinstance(records, stream.Table):
        kind, run_name = f"{FRAMEWORK} {records.kind}", records.run_name
        notes += records.notes
    if skipped:
        notes.append(f"{skipped} row(s) without {STEP_KEY} (setup timings and a validation before training are "
                     f"logged at step 0): not in the sums")
    if "timing/train/exposed_generation" in keys:
        notes.append("async GRPO: timing/train/exposed_generation is the generation time training did not hide, "
                     "not the whole rollout")
    steps, derived, facts, where, model = settle(table, {}, {}, facts_override)
    notes += derived
    if facts.get("samples_per_step") is None and steps["samples"].isna().any():
        notes.append("NeMo RL does not log its samples per step (num_prompts_per_step × num_generations_per_prompt) "
                     "and this log lacks train/total_num_tokens or train/mean_prompt_length to derive them: pass "
                     "--prompts-per-step and --group-size")
    inside = validation_inside(steps)
    if inside:
        notes.append("timing/train/total_step_time includes the validation of the steps that run one")
    return HostedRun(steps, label, FRAMEWORK, kind, model, facts, where, inside, tuple(notes), run_name,
                     frozenset(keys))
