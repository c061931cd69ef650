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

The console (the trainer's stdout, `grpo_train`'s prints) says the same per step, and is read too: a header
`===… Step i/n ===…` (i counts within an epoch, whose `===… Epoch e/E ===…` header comes first: the reader numbers
steps on from the epochs before; a step header whose i is not above the last one's, with no Epoch header between, is
a resumed run repeating that step, and the repeated-step caveat says so), `▶ Generating responses
for batch of size N...` (the samples), `• Mean Generation Length: x` and `• Avg Reward: x` under Training Results,
the `⏱️  Timing:` block (`• Total step time: x.xxs`, then `• <label>: x.xxs (p%)` for every timer, nested ones
too), `• Total validation time: x.xxs` for a validation inside the step, and, from late 2025, the Performance
Metrics block, whose `E2E (Tokens/sec)` × the step time is the step's token total and whose ratio to
`E2E (Tokens/sec/gpu)` is the GPU count. Without that block the prompt tokens are unknown.
"""
from __future__ import annotations

import re
from pathlib import Path

from . import stream
from .hosted import HostedRun, StepRecord, StepTable, add_keyed_rows, keyed_record, settle
from ..sources.numbers import finite_number
from .verl import ConfigDumps, strip_line, validation_inside

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
    return keyed_record(where, step, values, COLUMN_KEYS, PHASES)


def is_config(value) -> bool:
    """A dict of NeMo RL's master config (its top-level sections), not some other dict the run printed."""
    return isinstance(value, dict) and "policy" in value and ("grpo" in value or "cluster" in value)


def flattened(config: dict, prefix: str = "") -> dict:
    """A nested config as NeMo RL's logger flattens it for add_hparams: `policy.generation.vllm_cfg.enforce_eager`."""
    out = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flattened(value, name + "."))
        else:
            out[name] = value
    return out


def config_facts(hparams: dict) -> tuple[dict, dict]:
    """What a run's hyperparameters (the config as NeMo RL's logger flattens it for TensorBoard's add_hparams:
    `policy.model_name`, `cluster.gpus_per_node`, ...) say of the run: (facts, where each came from)."""
    facts, where = {}, {}
    model = hparams.get("policy.model_name")
    if isinstance(model, str) and model.strip():
        facts["model_path"], where["model"] = model.strip(), "the run's hyperparameters: policy.model_name"
    def positive(key):
        value = finite_number(hparams.get(key))   # a pasted integer of hundreds of digits fits no float: None
        return value if value is not None and value > 0 else None
    per_node, nodes = positive("cluster.gpus_per_node"), positive("cluster.num_nodes")
    if per_node and nodes:
        facts["num_gpus"] = per_node * nodes
        where["num_gpus"] = "the run's hyperparameters: cluster.gpus_per_node × cluster.num_nodes"
    prompts, group = positive("grpo.num_prompts_per_step"), positive("grpo.num_generations_per_prompt")
    if prompts and group:
        facts.update(prompts_per_step=prompts, group_size=group, samples_per_step=prompts * group)
        where["samples_per_step"] = ("the run's hyperparameters: grpo.num_prompts_per_step × "
                                     "grpo.num_generations_per_prompt")
    # the engine and trainer settings the phase model reads (examples/configs/grpo_math_1B.yaml names them)
    engine = "policy.generation.vllm_cfg."
    for fact, key in (("rollout_tp", engine + "tensor_parallel_size"),
                      ("rollout_memory_fraction", engine + "gpu_memory_utilization")):
        if positive(key):
            facts[fact], where[fact] = positive(key), f"the run's hyperparameters: {key}"
    if isinstance(hparams.get("policy.megatron_cfg.fp8_cfg.enabled"), bool):   # the FP8 recipes' Megatron trainer
        facts["train_fp8"] = hparams["policy.megatron_cfg.fp8_cfg.enabled"]
        where["train_fp8"] = "the run's hyperparameters: policy.megatron_cfg.fp8_cfg.enabled"
    if isinstance(hparams.get(engine + "precision"), str):   # "fp8" in the FP8-rollout recipes, else the policy's
        facts["rollout_quantization"] = hparams[engine + "precision"]
        where["rollout_quantization"] = f"the run's hyperparameters: {engine}precision"
    if isinstance(hparams.get(engine + "enforce_eager"), bool):
        facts["enforce_eager"] = hparams[engine + "enforce_eager"]
        where["enforce_eager"] = f"the run's hyperparameters: {engine}enforce_eager"
    if hparams.get("grpo.async_grpo.enabled") is True:   # async GRPO (nemo_rl/algorithms/grpo.py, async_grpo_train)
        age = positive("grpo.async_grpo.max_trajectory_age_steps")
        facts["off_policy"] = age or 1.0   # its default age (examples/configs/grpo_math_1B.yaml) is 1
        where["off_policy"] = "the run's hyperparameters: grpo.async_grpo.enabled" + (
            ", max_trajectory_age_steps" if age else "")
    resources = "policy.generation.colocated.resources."
    if hparams.get("policy.generation.colocated.enabled") is False and per_node and nodes:
        # generation on GPUs of its own (grpo.py setup): on one node its gpus_per_node of the node's GPUs, on
        # several its num_nodes whole nodes; the trainer keeps the rest of the cluster
        own = positive(resources + "gpus_per_node") if nodes == 1 else \
            (positive(resources + "num_nodes") or 0.0) * per_node
        if own and own < per_node * nodes:
            facts["rollout_gpus"] = own
            where["rollout_gpus"] = (f"the run's hyperparameters: {resources}gpus_per_node" if nodes == 1 else
                                     f"the run's hyperparameters: {resources}num_nodes × cluster.gpus_per_node")
    global_batch = positive("policy.train_global_batch_size")
    if global_batch and group:   # optimizer steps per RL step = samples / global batch = prompts / (global / group)
        facts["mini_batch_prompts"] = global_batch / group
        where["mini_batch_prompts"] = "the run's hyperparameters: policy.train_global_batch_size / group size"
    packed = next((hparams[k] for k in ("policy.sequence_packing.enabled", "policy.dynamic_batching.enabled")
                   if hparams.get(k) is True), False)
    prefix = "policy.sequence_packing." if hparams.get("policy.sequence_packing.enabled") is True \
        else "policy.dynamic_batching."
    for dynamic, fact, tokens_key, samples_key in (
            ("dynamic_batch", "micro_batch", "train_mb_tokens", "policy.train_micro_batch_size"),
            ("logprob_dynamic_batch", "logprob_micro_batch", "logprob_mb_tokens", "policy.logprob_batch_size")):
        tokens, samples = positive(prefix + tokens_key), positive(samples_key)
        if packed and tokens:
            facts.update({dynamic: True, f"{fact}_tokens": tokens})
            where[f"{fact}_tokens"] = f"the run's hyperparameters: {prefix}{tokens_key}"
        elif not packed and samples:
            facts.update({dynamic: False, f"{fact}_samples": samples})
            where[f"{fact}_samples"] = f"the run's hyperparameters: {samples_key}"
    return facts, where


def read_records(records, label: str, kind: str | None, facts_override: dict | None = None, notes=(),
                 run_name=None, config: tuple[dict, dict] | None = None) -> HostedRun:
    """A W&B export of a NeMo RL run (`_step` is NeMo RL's step), or its TensorBoard scalars with what its
    hyperparameters say (`config`: facts and where each came from). A stream.Table gives its kind, notes and run
    name once read."""
    table = StepTable(label, text_numbers=True)
    keys, skipped = add_keyed_rows(records, table, label, ("_step", "step"), COLUMN_KEYS, PHASES)
    kind, run_name, notes = stream.described(records, FRAMEWORK, kind, run_name, notes)
    if skipped:
        notes.append(f"{skipped} row(s) without {STEP_KEY} (setup timings and a validation before training are "
                     f"logged at step 0): not in the sums")
    if "timing/train/exposed_generation" in keys:
        notes.append("async GRPO: timing/train/exposed_generation is the generation time training did not hide, "
                     "not the whole rollout")
        if "timing/train/generation" not in keys:
            facts_in, where_in = (dict(part) for part in (config or ({}, {})))
            facts_in["generation_exposed"] = True
            if "off_policy" not in facts_in:   # the timer is async GRPO's own: one step behind unless it says
                facts_in["off_policy"] = 1.0
                where_in["off_policy"] = "the log's timing/train/exposed_generation (async GRPO)"
            config = (facts_in, where_in)
    steps, derived, facts, where, model = settle(table, *(config or ({}, {})), facts_override)
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


# ------------------------------------------------------------------------------------------ console

NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)"
STEP_HEADER = re.compile(r"^=+ Step (\d+)/(\d+) =+$")
EPOCH_HEADER = re.compile(r"^=+ Epoch (\d+)/(\d+) =+$")
BATCH = re.compile(r"Generating responses for batch of size (\d+)")
TOTAL = re.compile(r"^\s*• Total step time: " + NUMBER + r"s$")
TIMER = re.compile(r"^\s*• (?P<label>[^:•]+): " + NUMBER + r"s \(" + NUMBER + r"%\)$")
CONSOLE_VALUES = {   # a console line -> the W&B key it prints
    "train/mean_gen_tokens_per_sample": re.compile(r"^\s*• Mean Generation Length: " + NUMBER + r"$"),
    "train/reward": re.compile(r"^\s*• Avg Reward: " + NUMBER + r"$"),
    "timing/validation/total_validation_time": re.compile(r"^\s*• Total validation time: " + NUMBER + r"s$"),
    "e2e_tokens_per_second": re.compile(r"^\s*- E2E \(Tokens/sec\): " + NUMBER + r"$"),
    "e2e_tokens_per_second_per_gpu": re.compile(r"^\s*- E2E \(Tokens/sec/gpu\): " + NUMBER + r"$"),
    "performance/train_fp_utilization": re.compile(r"^\s*• Training Model Floating Point Utilization: " + NUMBER
                                                   + r"%$"),
}


def looks_like_console(line: str) -> bool:
    """A line only NeMo RL's GRPO loop prints: its step header or its step-time line."""
    text = strip_line(line)[0].strip()
    return bool(STEP_HEADER.match(text) or TOTAL.match(text))


def _console_row(values: dict, table: StepTable, where) -> dict:
    """One step's printed values as the W&B keys of the same metrics (the token total from the E2E throughput)."""
    row = {k: v for k, v in values.items() if not k.startswith("e2e_") and k != "samples"}
    tokens, total = values.get("e2e_tokens_per_second"), values.get("timing/train/total_step_time")
    if tokens is not None and total is not None:
        row["train/total_num_tokens"] = table.number(where, "E2E (Tokens/sec)", tokens) * \
            table.number(where, "Total step time", total)
    if row.get("performance/train_fp_utilization") is not None:
        row["performance/train_fp_utilization"] = table.number(
            where, "Training Model Floating Point Utilization", row["performance/train_fp_utilization"]) / 100.0
    return row


def _gpus(values: dict, table: StepTable, where) -> float | None:
    """The GPU count the throughputs imply: per group ÷ per GPU."""
    group, per_gpu = values.get("e2e_tokens_per_second"), values.get("e2e_tokens_per_second_per_gpu")
    if group is None or per_gpu is None:
        return None
    per_gpu = table.number(where, "E2E (Tokens/sec/gpu)", per_gpu)
    return table.number(where, "E2E (Tokens/sec)", group) / per_gpu if per_gpu > 0 else None


def read_console(path: Path, label: str, facts_override: dict | None = None) -> HostedRun:
    """The trainer's stdout, read line by line into one record per step."""
    table = StepTable(label, text_numbers=True)
    keys: set[str] = set()
    notes: list[str] = []
    step, header_line, values, in_timing = 0, 0, None, False
    offset, new_epoch, epochs_seen, epoch_offsets = 0, False, 0, {}
    cut = 0
    gpus: list[float] = []
    dumps = ConfigDumps(accept=is_config)   # the run scripts' `print("Final config:"); pprint.pprint(config)`

    def flush():
        nonlocal cut
        if values is None:
            return
        where = ("line", header_line)
        rec = _record(where, step, _console_row(values, table, where))
        if rec is None:
            cut += 1
            return
        if "samples" in values:
            rec.values["samples"] = ("batch of size", values["samples"])
        count = _gpus(values, table, where)
        if count is not None:
            gpus.append(count)
        keys.update(values)
        table.add(rec)

    for number, line in stream.text_lines(path, label):
        text, owner = strip_line(line)
        text = text.rstrip()
        header = STEP_HEADER.match(text.strip())
        if header:
            flush()
            shown = int(header.group(1))
            if new_epoch:   # i restarts every epoch: number on from the last step of the epochs before
                offset, new_epoch = step, False
            step = offset + shown   # a number not above the last with no Epoch header between: a resumed run's
            header_line, values, in_timing = number, {}, False   # repeat of the step (the caveat says so)
            continue
        epoch = EPOCH_HEADER.match(text.strip())
        if epoch:
            shown = int(epoch.group(1))
            if shown > epochs_seen:   # the first header of a new epoch
                epochs_seen, new_epoch = shown, step > 0
                epoch_offsets[shown] = step
            else:                     # a resumed run prints its epoch's header again: its steps number from there
                offset, new_epoch = epoch_offsets.get(shown, offset), False
            continue
        if values is None:                               # set-up (the config), a validation before the first step
            dumps.feed(number, text, owner)
            continue
        batch = BATCH.search(text)
        if batch:
            values.setdefault("samples", batch.group(1))
            continue
        if text.strip().startswith("⏱️") and "Timing:" in text and "Validation" not in text:
            in_timing = True
            continue
        total = TOTAL.match(text)
        if total:
            values["timing/train/total_step_time"] = total.group(1)
            continue
        timer = TIMER.match(text)
        if timer and in_timing:
            values[f"timing/train/{timer.group('label').strip()}"] = timer.group(2)
            continue
        for key, pattern in CONSOLE_VALUES.items():
            m = pattern.match(text)
            if m:
                values[key] = m.group(1)
                break
    flush()
    if cut:
        notes.append(f"{cut} step(s) without their Total step time line (a run stopped mid-step): not in the sums")
    dumps.finish()
    notes += dumps.problems
    facts, where = {}, {}
    if dumps.dumps:   # the last config printed is the run's (a script run twice into one file prints two)
        facts, where = config_facts(flattened(dumps.dumps[-1][1]))
        where = {k: v.replace("the run's hyperparameters", f"the log's printed config (line {dumps.dumps[-1][0]})")
                 for k, v in where.items()}
    if gpus and "num_gpus" not in facts:
        facts["num_gpus"] = float(round(sum(gpus) / len(gpus)))
        where["num_gpus"] = "the log's E2E throughputs: Tokens/sec ÷ Tokens/sec/gpu"
    steps, derived, facts, where, model = settle(table, facts, where, facts_override)
    notes += derived
    if steps["prompt_tokens"].isna().all():
        notes.append("this console prints no Performance Metrics block (NeMo RL before late 2025): the prompt tokens "
                     "are unknown; a W&B or TensorBoard log of the run has them (train/mean_prompt_length)")
    inside = validation_inside(steps)
    return HostedRun(steps, label, FRAMEWORK, "NeMo RL console log", model, facts, where, inside, tuple(notes),
                     None, frozenset(keys))
