"""OpenRLHF's PPO / GRPO / REINFORCE++ metrics: a W&B export, TensorBoard events or the trainer's console log.

Where each name is defined (OpenRLHF/OpenRLHF, openrlhf/trainer/ppo_trainer.py, `BasePPOTrainer.train_step` and
`PPOTrainer.fit`, 2025-2026 code):

- `timing/generation`: the seconds `samples_generator.generate_samples` took (the vLLM rollout);
  `timing/make_experience`: `experience_maker.make_experience_batch`, which runs the actor's old-policy log-prob
  pass, the reference model's pass, the critic's values pass (PPO) and the rewards; `timing/ppo_train`: the
  update (`ppo_train`: the actor's `fit`, and the critic's beside it under PPO); `timing/broadcast`: the weight
  hand-off to the vLLM engines (`broadcast_to_vllm`); `timing/step_total`: their sum in the synchronous trainer,
  the wall-clock between two steps in the asynchronous one (`ppo_trainer_async.py`: generation then runs on its
  own GPUs, beside training, so the phases overlap).
- `rollout/num_samples`, `rollout/response_length_mean`, `rollout/reward_mean` (`_compute_rollout_stats`): the
  step's sequences, their mean generated length and reward. The actor's status adds `response_length` and
  `total_length` (each sequence's prompt + generated tokens, `Experience.info`, averaged over the micro-batches),
  so the mean prompt is total_length - response_length. Versions before the rollout stats log no sample count: it
  is `rollout_batch_size × n_samples_per_prompt` (`--prompts-per-step` and `--group-size`).
- `critic_loss` in the status marks a run with a critic (PPO with GAE).

Where they go: `WandbLogger.log_train` and `TensorboardLogger.log_train` (openrlhf/utils/logging_utils.py) log
every key under `train/` with `train/global_step` (W&B) or the TensorBoard step; `fit` also prints
`✨ Global step N: {…}` (the status dict, Python repr) through the `openrlhf` logger on stdout, read here line by
line. W&B's config (the launch arguments) is not in a history export: the model, GPUs and batch come from the
command line.

The console log holds the launch arguments too: `train` (openrlhf/cli/train_ppo_ray.py) calls `strategy.print(args)`
before it starts Ray's actors, which prints the argparse Namespace on one line (`Namespace(ref_num_nodes=1, …,
pretrain='…', …)`; the driver has no process group yet, so `is_rank_0` is true). `launch_facts` reads what the checks
need from it, each argument by its argparse name: the model (`pretrain`), the batch (`rollout_batch_size` prompts ×
`n_samples_per_prompt`), the GPUs where every model shares them (`colocate_all_models` without `async_train`:
`actor_num_nodes × actor_num_gpus_per_node`, which the launcher asserts equal `vllm_num_engines ×
vllm_tensor_parallel_size`), the rollout engine (`vllm_tensor_parallel_size`, `vllm_gpu_memory_utilization`,
`enforce_eager`), LoRA (`lora_rank`), the critic (`critic_pretrain`), the reference model (created where
`init_kl_coef > 0`; its KL in the loss with `use_kl_loss`, else in the reward), the optimizer steps (the step's
samples over `train_batch_size`, `max_epochs` passes) and the micro-batches (`micro_train_batch_size` and
`micro_rollout_batch_size` sequences, or `train_max_tokens_per_gpu` and `rollout_max_tokens_per_gpu` tokens with
`use_dynamic_batch`).
"""
from __future__ import annotations

import ast
import math
import re
from pathlib import Path

from ..errors import TinkerNomicsError
from . import stream
from .hosted import HostedRun, StepRecord, StepTable, settle
from ..sources.numbers import finite_number

FRAMEWORK = "OpenRLHF"
PREFIX = "train/"
STEP_TOTAL = "timing/step_total"
GENERATION = "timing/generation"
UPDATE = ("timing/ppo_train", "timing/policy_train")   # the update; `policy_train` in some 2026 forks' trainers
PHASES = {"make_experience": "timing/make_experience", "broadcast": "timing/broadcast"}
LOGPROB_PHASES = ("make_experience",)   # the log-prob passes (old policy, reference; PPO's values) and rewards
REFIT_PHASES = ("broadcast",)
SEQUENTIAL = (GENERATION, *UPDATE, *PHASES.values())   # what step_total sums in the synchronous trainer
RESPONSE = ("rollout/response_length_mean", "response_length")
REWARD = ("rollout/reward_mean", "reward")
SAMPLES = "rollout/num_samples"
TOTAL_LENGTH = "total_length"
CRITIC_KEY = "critic_loss"
# Keys that mark an OpenRLHF log (under train/ in W&B and TensorBoard): its own phase timers.
SIGNATURE = ("timing/make_experience", "timing/ppo_train", "timing/policy_train")
# The phases of an asynchronous step overlap; a step total below their sum by more than this share is one.
OVERLAP_SHARE = 0.01
CONSOLE_LINE = re.compile(r"Global step (\d+): (\{.*\})\s*$")
CONSOLE_PAIR = re.compile(r"'([^'\\]+)': (?:np\.float\d+\()?([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)")


NAMESPACE = re.compile(r"Namespace\((.*)\)\s*$")
# What must agree between two Namespace lines of one console log for it to be one run (a restart prints them again).
RUN_IDENTITY = ("pretrain", "rollout_batch_size", "n_samples_per_prompt", "actor_num_nodes",
                "actor_num_gpus_per_node", "lora_rank")


def namespace_args(line: str) -> dict | None:
    """The arguments of a printed argparse Namespace (`Namespace(a=1, b='x', …)`), each value a Python literal
    (one that is not, such as a path object, is left out); None for a line that is not one."""
    m = NAMESPACE.search(line)
    if not m:
        return None
    try:
        call = ast.parse("f(" + m.group(1) + ")", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(call, ast.Call) or call.args:
        return None
    out = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        try:
            out[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue
    return out


def _count(args: dict, key: str) -> float | None:
    """A positive finite number of the launch arguments (a count, a batch, a rank, a share), else None."""
    value = finite_number(args.get(key))
    return value if value is not None and value > 0 else None


def launch_facts(args: dict, said: str = "the launch arguments: ") -> tuple[dict, dict]:
    """What OpenRLHF's launch arguments say of the run (module docstring): (facts, where each came from, each
    argument's name after `said`)."""
    facts, where = {}, {}
    if isinstance(args.get("pretrain"), str) and args["pretrain"].strip():
        facts["model_path"], where["model"] = args["pretrain"].strip(), said + "pretrain"
    prompts, group = _count(args, "rollout_batch_size"), _count(args, "n_samples_per_prompt")
    if prompts and group:
        facts.update(prompts_per_step=prompts, group_size=group, samples_per_step=prompts * group)
        where["samples_per_step"] = said + "rollout_batch_size × n_samples_per_prompt"
    nodes, per_node = _count(args, "actor_num_nodes"), _count(args, "actor_num_gpus_per_node")
    if args.get("colocate_all_models") is True and args.get("async_train") is not True and nodes and per_node:
        facts["num_gpus"] = nodes * per_node
        where["num_gpus"] = (said + "actor_num_nodes × actor_num_gpus_per_node (colocate_all_models: every model "
                             "and the vLLM engines share them)")
    engines, engine_tp = _count(args, "vllm_num_engines"), _count(args, "vllm_tensor_parallel_size")
    if args.get("async_train") is True:   # ppo_trainer_async.py: the vLLM engines generate the next batch on their
        # own GPUs while the actor trains on the last one (one batch ahead, its queue of one)
        facts["off_policy"], where["off_policy"] = 1.0, said + "async_train"
        if engines and engine_tp:
            facts["rollout_gpus"] = engines * engine_tp
            where["rollout_gpus"] = said + "vllm_num_engines × vllm_tensor_parallel_size"
            shares = args.get("colocate_actor_ref") is True or not (_count(args, "init_kl_coef") or 0.0)
            if nodes and per_node and shares and not args.get("critic_pretrain"):
                facts["num_gpus"] = nodes * per_node + engines * engine_tp
                where["num_gpus"] = (said + "actor_num_nodes × actor_num_gpus_per_node + vllm_num_engines × "
                                     "vllm_tensor_parallel_size (async_train: the engines on GPUs of their own; "
                                     "the reference on the actor's)")
    for fact, key in (("rollout_tp", "vllm_tensor_parallel_size"),
                      ("rollout_memory_fraction", "vllm_gpu_memory_utilization")):
        if _count(args, key):
            facts[fact], where[fact] = float(args[key]), said + key
    if isinstance(args.get("enforce_eager"), bool):
        facts["enforce_eager"], where["enforce_eager"] = args["enforce_eager"], said + "enforce_eager"
    if isinstance(args.get("gradient_checkpointing"), bool):   # store_true: off unless the launch asks for it
        facts["gradient_checkpointing"] = args["gradient_checkpointing"]
        where["gradient_checkpointing"] = said + "gradient_checkpointing"
    if args.get("adam_offload") is True:   # DeepSpeed's CPU Adam: the optimizer steps on the host
        facts["adam_offload"], where["adam_offload"] = True, said + "adam_offload"
    rank = _count(args, "lora_rank") or 0.0
    facts["fine_tune"] = "lora" if rank > 0 else "full"
    where["fine_tune"] = said + ("lora_rank > 0" if rank > 0 else "lora_rank = 0 or absent (full fine-tuning)")
    if isinstance(args.get("critic_pretrain"), str) and args["critic_pretrain"].strip():
        facts["critic"], where["critic"] = True, said + "critic_pretrain (a critic is trained)"
        facts["critic_in_phases"] = True   # make_experience holds its values pass, ppo_train its update
    kl = finite_number(args.get("init_kl_coef"))
    if kl is not None:
        in_loss = args.get("use_kl_loss") is True
        facts["use_kl_loss"], facts["use_kl_in_reward"] = kl > 0 and in_loss, kl > 0 and not in_loss
        where["reference"] = said + ("init_kl_coef > 0 (a reference model runs)" if kl > 0 else
                                     "init_kl_coef = 0 (no reference model)")
    train_batch = _count(args, "train_batch_size")
    if train_batch and group:   # optimizer steps per RL step = samples / train_batch_size, each of max_epochs passes
        facts["mini_batch_prompts"] = train_batch / group
        where["mini_batch_prompts"] = said + "train_batch_size / n_samples_per_prompt"
    if _count(args, "max_epochs"):
        facts["ppo_epochs"], where["ppo_epochs"] = float(args["max_epochs"]), said + "max_epochs"
    dynamic = args.get("use_dynamic_batch") is True
    for fact, tokens_key, samples_key in (("micro_batch", "train_max_tokens_per_gpu", "micro_train_batch_size"),
                                          ("logprob_micro_batch", "rollout_max_tokens_per_gpu",
                                           "micro_rollout_batch_size")):
        key = tokens_key if dynamic else samples_key
        if _count(args, key):
            unit = "tokens" if dynamic else "samples"
            facts[f"{fact}_{unit}"], where[f"{fact}_{unit}"] = float(args[key]), said + key
            facts["dynamic_batch" if fact == "micro_batch" else "logprob_dynamic_batch"] = dynamic
    return facts, where


def is_openrlhf_keys(keys) -> bool:
    keys = set(keys)
    return any(k in keys or PREFIX + k in keys for k in SIGNATURE)


def looks_like_console(line: str) -> bool:
    """A line only OpenRLHF's trainer prints: its per-step status with a phase timer in it."""
    m = CONSOLE_LINE.search(line)
    return bool(m) and any(f"'{k}'" in m.group(2) for k in SIGNATURE)


def _unprefixed(raw: dict) -> dict:
    """A W&B or TensorBoard row's keys without `train/` (OpenRLHF's own names); other sections (eval/) dropped.
    W&B's own `_step` counts log calls (the sample table is one more a step), never the global step."""
    return {k[len(PREFIX):]: v for k, v in raw.items() if k.startswith(PREFIX)}


def _first(values: dict, keys) -> str | None:
    return next((k for k in keys if values.get(k) is not None), None)


def _record(where, step, values: dict, table: StepTable) -> StepRecord | None:
    """A StepRecord from one logged status; None for a record without phase timers (an eval row, a sample
    table)."""
    if not any(values.get(k) is not None for k in SEQUENTIAL + (STEP_TOTAL,)):
        return None
    rec = StepRecord(where, step)
    parts = {k: table.number(where, k, values[k], 0.0) for k in SEQUENTIAL if values.get(k) is not None}
    if values.get(STEP_TOTAL) is not None:
        rec.values["step_seconds"] = (STEP_TOTAL, values[STEP_TOTAL])
    else:   # a version without the total: the synchronous phases one after the other
        rec.values["step_seconds"] = (" + ".join(parts), sum(parts.values()))
    if values.get(GENERATION) is not None:
        rec.values["generation_seconds"] = (GENERATION, values[GENERATION])
    update = _first(values, UPDATE)
    if update:
        rec.values["training_seconds"] = (update, values[update])
    for phase, key in PHASES.items():
        if values.get(key) is not None:
            rec.phases[phase] = (key, values[key])
    response = _first(values, RESPONSE)
    if response:
        rec.values["response_mean"] = (response, values[response])
        if values.get(TOTAL_LENGTH) is not None and values.get("response_length") is not None:
            total = table.number(where, TOTAL_LENGTH, values[TOTAL_LENGTH], 0.0)
            own = table.number(where, "response_length", values["response_length"], 0.0)
            if total + 0.5 < own:
                table.fail(where, f"{TOTAL_LENGTH} ({total:g}) is shorter than response_length ({own:g}), which "
                                  f"it includes")
            rec.values["prompt_mean"] = (f"{TOTAL_LENGTH} − response_length", max(total - own, 0.0))
    if values.get(SAMPLES) is not None:
        rec.values["samples"] = (SAMPLES, values[SAMPLES])
    reward = _first(values, REWARD)
    if reward:
        rec.values["reward"] = (reward, values[reward])
    return rec


def read_records(records, label: str, kind: str | None, facts_override: dict | None = None, notes=(),
                 run_name=None, config: dict | None = None) -> HostedRun:
    """A W&B export or TensorBoard scalars of an OpenRLHF run (`train/…` keys, `train/global_step` as the step);
    `config` its launch arguments where the source holds them (W&B's run file: `wandb.init(config=args.__dict__)`).
    A stream.Table gives its kind, notes and run name once read."""
    def rows():
        for where, raw in records:
            yield where, _unprefixed(raw)
    table = StepTable(label, text_numbers=True)
    found = _read(rows(), table, label)
    kind, run_name, notes = stream.described(records, FRAMEWORK, kind, run_name, notes)
    return _finish(table, found, label, kind, facts_override, list(notes), run_name,
                   launch_facts(config, "the run's W&B config (its launch arguments): ") if config else ({}, {}))


def read_console(path: Path, label: str, facts_override: dict | None = None) -> HostedRun:
    """The trainer's stdout: one `✨ Global step N: {…}` status line per step, read line by line, and the launch
    arguments' Namespace line (launch_facts)."""
    launched: list[tuple[int, dict]] = []

    def rows():
        for number, line in stream.text_lines(path, label):
            m = CONSOLE_LINE.search(line)
            if not m:
                if "Namespace(" in line:
                    args = namespace_args(line)
                    if args and "pretrain" in args:
                        launched.append((number, args))
                continue
            values = {key: raw for key, raw in CONSOLE_PAIR.findall(m.group(2))}
            values["global_step"] = m.group(1)
            yield ("line", number), values
    table = StepTable(label, text_numbers=True)
    found = _read(rows(), table, label)
    config = ({}, {})
    if launched:
        first_line, first = launched[0]
        for number, other in launched[1:]:
            differ = [k for k in RUN_IDENTITY if other.get(k) != first.get(k)]
            if differ:
                raise TinkerNomicsError(f"{label}: the launch arguments at lines {first_line} and {number} differ "
                                        f"({', '.join(differ)}): two runs in one log; split it and pass one")
        config = launch_facts(first, "the launch arguments (Namespace line): ")
    return _finish(table, found, label, "OpenRLHF console log", facts_override, [], None, config)


def _read(rows, table: StepTable, label: str) -> dict:
    """Every status into `table`; what the reading found (keys seen, overlapping steps, rows skipped)."""
    keys: set[str] = set()
    skipped = overlapped = 0
    for where, values in rows:
        keys.update(values)
        step = values.get("global_step")
        rec = _record(where, step, values, table)
        if rec is None:
            skipped += 1
            continue
        if step is None:
            raise TinkerNomicsError(f"{label}: {where[0]} {where[1]}: no step number (train/global_step)")
        if values.get(STEP_TOTAL) is not None:
            total = table.number(where, STEP_TOTAL, values[STEP_TOTAL], 0.0)
            parts = sum(table.number(where, k, values[k], 0.0) for k in SEQUENTIAL if values.get(k) is not None)
            overlapped += total < (1.0 - OVERLAP_SHARE) * parts
        table.add(rec)
    return {"keys": keys, "skipped": skipped, "overlapped": overlapped}


def _finish(table: StepTable, found: dict, label: str, kind: str, facts_override: dict | None, notes: list,
            run_name: str | None, config: tuple[dict, dict] = ({}, {})) -> HostedRun:
    keys = found["keys"]
    facts, where = dict(config[0]), dict(config[1])
    if CRITIC_KEY in keys:
        facts["critic"], where["critic"] = True, f"the log's {CRITIC_KEY} (a critic is trained)"
        facts["critic_in_phases"] = True   # make_experience holds its values pass, ppo_train its update
    if found["skipped"]:
        notes.append(f"{found['skipped']} record(s) without phase timers (evaluation, sample tables): not in the sums")
    if found["overlapped"]:
        notes.append(f"at {found['overlapped']} step(s) the step total is below the sum of its phases: the "
                     f"asynchronous trainer, whose generation runs on its own GPUs beside training; the step is the "
                     f"wall-clock between steps, and the phases overlap")
    if STEP_TOTAL not in keys:
        notes.append(f"no {STEP_TOTAL} in this log: each step is the sum of its logged phases (generation, "
                     f"make_experience, ppo_train, broadcast), as the synchronous trainer runs them")
    steps, derived, facts, where, model = settle(table, facts, where, facts_override)
    notes += derived
    if steps["samples"].isna().any():
        notes.append(f"this log has no {SAMPLES} (OpenRLHF before its rollout stats) and no launch arguments: pass "
                     f"--prompts-per-step (rollout_batch_size) and --group-size (n_samples_per_prompt)")
    if steps["prompt_tokens"].isna().all():
        notes.append(f"no {TOTAL_LENGTH} and response_length in this log: the prompt tokens are unknown")
    return HostedRun(steps, label, FRAMEWORK, kind, model, facts, where, None, tuple(notes), run_name,
                     frozenset(keys))
