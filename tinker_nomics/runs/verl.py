"""verl's logs: which logged keys are the step time, the phases, the token counts, and the run's settings.

Where each name is defined (verl-project/verl and volcengine/verl; /work/notes/formats/FORMATS.md §1 has the
commits read):

- `timing_s/<name>`: `compute_timing_metrics` in verl/trainer/ppo/metric_utils.py emits one per key of the trainer's
  `timing_raw` (seconds on the driver, from `marked_timer`/`_timer` blocks in `RayPPOTrainer.fit`,
  verl/trainer/ppo/ray_trainer.py). `step` is the whole step; `gen` the rollout; `update_actor` the actor update;
  `testing` the validation; `save_checkpoint` the checkpoint. Keys are nested (`gen` holds `generate_sequences`,
  `reshard` and `agent_loop/*`), so they are never summed: only the top-level phases are kept.
- `response_length/mean`, `prompt_length/mean`: `compute_data_metrics` (same file), valid tokens per sequence.
- `perf/total_num_tokens`, `perf/time_per_step`, `perf/throughput`: `compute_throughout_metrics` (same file):
  prompt + response non-pad tokens of every sequence of the step, the step time, tokens/s per GPU.
- `perf/mfu/actor`: `update_actor` in verl/workers/fsdp_workers.py, from verl/utils/flops_counter.py (a fraction).
- `critic/score/mean`: `compute_data_metrics`, the mean sequence score.

Log shapes, all read line by line (runs.stream):

- the console logger (`trainer.logger` includes `console`): `LocalLogger.log` prints `concat_dict_to_str(data,
  step)` (verl/utils/logger/aggregate_logger.py) as `step:N - key:value - …`: values to three decimals in the 2025
  code (`f"{v:.3f}"`), as `pprint.pformat(v)` in the 2026 code (`np.float64(…)`, bare ints). Ray prefixes
  (`(TaskRunner pid=N)`) and ANSI colours are stripped. The run's config is the `pprint` dict `TaskRunner.run`
  prints before training (verl/trainer/main_ppo.py), read with `ast.literal_eval`.
- the file logger (`file` backend, verl/utils/tracking.py): one `{"step": N, "data": {...}}` per line.
- W&B exports of the same metrics (`wandb.log(data, step=global_steps)`: `_step` is verl's step), as CSV, JSON,
  JSON lines, Parquet or a chart-panel CSV.
"""
from __future__ import annotations

import ast
import math
import re
from pathlib import Path

from ..errors import TinkerNomicsError
from . import stream
from .hosted import HostedRun, StepRecord, StepTable, parse_number_text, settle

FRAMEWORK = "verl"

COLUMN_KEYS = {   # tidy column -> verl key
    "step_seconds": "timing_s/step",
    "generation_seconds": "timing_s/gen",
    "training_seconds": "timing_s/update_actor",
    "validation_seconds": "timing_s/testing",
    "checkpoint_seconds": "timing_s/save_checkpoint",
    "response_mean": "response_length/mean",
    "response_max": "response_length/max",
    "generation_rounds": "train/num_gen_batches",   # DAPO's dynamic sampling (recipe/dapo/dapo_ray_trainer.py)
    "prompt_mean": "prompt_length/mean",
    "trained_tokens": "perf/total_num_tokens",
    "logged_mfu": "perf/mfu/actor",
    "logged_throughput": "perf/throughput",
    "reward": "critic/score/mean",
}
STEP_TIME_FALLBACK = "perf/time_per_step"   # the same number as timing_s/step (compute_throughout_metrics)
MFU_FALLBACK = "mfu/actor"                  # early-2025 verl's name for perf/mfu/actor (fsdp_workers.update_actor)
# verl's first releases (late 2024; its quick-start's sample output) log `timing/<name>` for the same timers and no
# step timer: every timer is top-level and they run one after another (gen, ref, values, adv, update_critic,
# update_actor, testing in RayPPOTrainer.fit), so their sum is the step less the driver's work between them.
LEGACY_TIMING = "timing/"
LEGACY_STEP_PARTS = ("gen", "ref", "values", "adv", "update_critic", "update_actor", "testing")
LEGACY_STEP_KEY = "the sum of verl's timing/ phases"
# Top-level phases of a step besides the ones with their own column (ray_trainer.fit); nested timers are left out.
PHASES = ("reward", "old_log_prob", "ref", "values", "adv", "update_critic", "update_weights",
          "dump_rollout_generations", "sync_rollout_weights", "param_sync")
LOGPROB_PHASES = ("old_log_prob", "ref")   # the log-prob passes of the actor (old policy) and the reference
# the weight hand-off to the rollout engine: newer verl's update_weights; the one-step-off recipe's
# sync_rollout_weights and the fully-async recipe's param_sync (the engine on GPUs of its own)
REFIT_PHASES = ("update_weights", "sync_rollout_weights", "param_sync")
# verl's asynchronous recipes (recipe/one_step_off_policy, recipe/fully_async_policy; later verl/experimental/…):
# the rollout engine on a pool of its own (top-level rollout.nnodes × rollout.n_gpus_per_node; trainer.* counts the
# trainer's pool only). One-step-off logs one record per trainer step whose `gen` (`wait_prev_gen` in its first
# version) is the wait for the batch launched a step earlier, and `generate_async` the whole generation of the batch
# it trains, which overlapped the previous step. Fully-async logs one record per weight sync (its W&B step is the
# parameter version) that sums the timers of the trigger_parameter_sync_step trainer steps it covers
# (MetricsAggregator in its detach_utils.py: every timing_s/ key and perf/total_num_tokens summed, lengths averaged).
WHOLE_GENERATION = "timing_s/generate_async"
WAIT_GENERATION = "timing_s/wait_prev_gen"
WAITED_GENERATION = "timing_s/generate_sequences"   # the first one-step-off's whole generation, beside its wait
ONE_STEP_OFF_KEYS = ("timing_s/sync_rollout_weights", WHOLE_GENERATION, WAIT_GENERATION)
FULLY_ASYNC_KEYS = ("trainer/idle_ratio", "fully_async/count/current_param_version", "timing_s/param_sync",
                    "timing_s/timing_s/param_sync")
LOCAL_STEP = "training/global_step"   # fully-async: the last trainer step the record covers
WANTED = set(COLUMN_KEYS.values()) | {STEP_TIME_FALLBACK, MFU_FALLBACK} | {f"timing_s/{p}" for p in PHASES} \
    | {LEGACY_TIMING + p for p in (*PHASES, *LEGACY_STEP_PARTS, "save_checkpoint")} \
    | {WHOLE_GENERATION, WAIT_GENERATION, WAITED_GENERATION, LOCAL_STEP, *FULLY_ASYNC_KEYS}
# Keys that mark a verl log (any one is enough).
SIGNATURE = ("timing_s/step", "perf/total_num_tokens", "timing_s/gen", "response_length/mean")
VALIDATION_PREFIX = "val-core/"
# .3f values are rounded to half a thousandth; a step that holds its validation must still be at least as long
# as validation + generation up to that rounding of the three figures.
ROUNDING_SLACK_S = 0.002

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
RAY_PREFIX = re.compile(r"^\((?P<actor>[A-Za-z_][\w.\-]*) pid=(?P<pid>\d+)(?:, ip=[^)]*)?\)\s?")
STEP_LINE = re.compile(r"^step:(\d+)(?: - |$)")
BAD_STEP_LINE = re.compile(r"^step:\S+ - \S+:")   # a step line whose step is not a whole number >= 0
DRIVERS = ("TaskRunner", "main_task")   # the Ray actor (or remote function) that prints the config and the steps
MAX_CONFIG_LINES = 20000

CONFIG_FACTS = {   # fact -> dotted path in verl's config (ppo_trainer.yaml)
    "model_path": "actor_rollout_ref.model.path",
    "prompts_per_step": "data.train_batch_size",
    "gen_batch_prompts": "data.gen_batch_size",          # the dataloader's batch: one generation round's prompts
    "filter_groups": "algorithm.filter_groups.enable",   # DAPO's dynamic sampling
    "group_size": "actor_rollout_ref.rollout.n",
    "n_gpus_per_node": "trainer.n_gpus_per_node",
    "nnodes": "trainer.nnodes",
    "lora_rank": "actor_rollout_ref.model.lora_rank",
    "lora_nested_rank": "actor_rollout_ref.model.lora.rank",     # the newer config's LoRA block
    "lora_merge": "actor_rollout_ref.model.lora.merge",           # the adapter merged for the rollout engine
    "adv_estimator": "algorithm.adv_estimator",
    "max_prompt_length": "data.max_prompt_length",
    "max_response_length": "data.max_response_length",
    "test_freq": "trainer.test_freq",
    "save_freq": "trainer.save_freq",
    "val_before_train": "trainer.val_before_train",
    "rollout_engine": "actor_rollout_ref.rollout.name",
    "rollout_tp": "actor_rollout_ref.rollout.tensor_model_parallel_size",
    "total_epochs": "trainer.total_epochs",
    "mini_batch_prompts": "actor_rollout_ref.actor.ppo_mini_batch_size",
    "ppo_epochs": "actor_rollout_ref.actor.ppo_epochs",
    "use_kl_loss": "actor_rollout_ref.actor.use_kl_loss",
    "use_kl_in_reward": "algorithm.use_kl_in_reward",
    "enforce_eager": "actor_rollout_ref.rollout.enforce_eager",
    "rollout_memory_fraction": "actor_rollout_ref.rollout.gpu_memory_utilization",
    "rollout_max_num_seqs": "actor_rollout_ref.rollout.max_num_seqs",
    "rollout_quantization": "actor_rollout_ref.rollout.quantization",   # FP8 rollout (docs: FP8 RL in verl)
    "train_fp8": "actor_rollout_ref.actor.megatron.override_transformer_config.fp8",   # FP8 end to end: hybrid, e4m3
    "actor_strategy": "actor_rollout_ref.actor.strategy",                        # fsdp, fsdp2 or megatron
    "param_offload": "actor_rollout_ref.actor.fsdp_config.param_offload",        # CPU offload between phases
    "optimizer_offload": "actor_rollout_ref.actor.fsdp_config.optimizer_offload",
    "offload_policy": "actor_rollout_ref.actor.fsdp_config.offload_policy",      # FSDP2's CPUOffloadPolicy
    "critic_param_offload": "critic.model.fsdp_config.param_offload",
    "critic_optimizer_offload": "critic.model.fsdp_config.optimizer_offload",
    "megatron_param_offload": "actor_rollout_ref.actor.megatron.param_offload",
    "megatron_optimizer_offload": "actor_rollout_ref.actor.megatron.optimizer_offload",
    "gradient_checkpointing": "actor_rollout_ref.model.enable_gradient_checkpointing",
    "dynamic_batch": "actor_rollout_ref.actor.use_dynamic_bsz",
    "micro_batch_tokens": "actor_rollout_ref.actor.ppo_max_token_len_per_gpu",
    "micro_batch_samples": "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
    "logprob_dynamic_batch": "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz",
    "logprob_micro_batch_tokens": "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu",
    "logprob_micro_batch_samples": "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
    "reference_dynamic_batch": "actor_rollout_ref.ref.log_prob_use_dynamic_bsz",
    "reference_micro_batch_tokens": "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu",
    "reference_micro_batch_samples": "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
    "critic_dynamic_batch": "critic.use_dynamic_bsz",
    "values_micro_batch_tokens": "critic.forward_max_token_len_per_gpu",
    "values_micro_batch_samples": "critic.forward_micro_batch_size_per_gpu",
    "critic_micro_batch_tokens": "critic.ppo_max_token_len_per_gpu",
    "critic_micro_batch_samples": "critic.ppo_micro_batch_size_per_gpu",
    "logprobs_from_rollout": "algorithm.rollout_correction.bypass_mode",   # old log-probs from the engine
    "use_rollout_log_probs": "async_training.use_rollout_log_probs",       # the fully-async recipe's switch
    "remove_padding": "actor_rollout_ref.model.use_remove_padding",
    "critic_remove_padding": "critic.model.use_remove_padding",
    "experiment_name": "trainer.experiment_name",
}


def is_verl_keys(keys) -> bool:
    return any(k in keys for k in SIGNATURE)


def looks_like_console(head_text: str) -> bool:
    """True when the text holds a verl step line (after stripping ANSI codes and Ray prefixes)."""
    for line in head_text.splitlines():
        if STEP_LINE.match(strip_line(line)[0]) or "'actor_rollout_ref'" in line:
            return True
    return False


def strip_line(line: str) -> tuple[str, tuple[str, str] | None]:
    """The text of a console line without ANSI codes and Ray's `(Actor pid=N)` prefix, and (actor, pid)."""
    text = ANSI.sub("", line)
    m = RAY_PREFIX.match(text)
    if not m:
        return text, None
    return text[m.end():], (m.group("actor"), m.group("pid"))


# ------------------------------------------------------------------------------------------ config


def _finite(value) -> bool:
    """A finite number that fits a float (a pasted config's integer can have hundreds of digits)."""
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def config_facts(config: dict, paths: dict | None = None) -> tuple[dict, dict]:
    """The run settings the reconciliation uses, from verl's config dict (or a fork's, with its own `paths`: fact ->
    dotted path, as CONFIG_FACTS), and where each was read."""
    paths = CONFIG_FACTS if paths is None else paths
    facts, where = {}, {}
    for name, path in paths.items():
        node = config
        for part in path.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            facts[name] = node
            where[name] = path
    for name in ("prompts_per_step", "group_size", "n_gpus_per_node", "nnodes", "lora_rank", "lora_nested_rank",
                 "gen_batch_prompts"):
        value = facts.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not _finite(value) or value < 0 or float(value) != int(value)):
            shown_value = repr(value)[:40] if isinstance(value, str) else str(value)[:40]   # '8', not 8
            raise TinkerNomicsError(f"the config's {where[name]} is {shown_value}, not a whole, non-negative number "
                                    f"a run could have")
    for name in ("n_gpus_per_node", "nnodes"):   # the trainer's pool: a run on no GPUs never started
        if facts.get(name) == 0:
            raise TinkerNomicsError(f"the config's {where[name]} is 0: no run starts on no GPUs (a damaged config?)")
    if "n_gpus_per_node" in facts and "nnodes" in facts:
        facts["num_gpus"] = float(facts["n_gpus_per_node"]) * float(facts["nnodes"])
        where["num_gpus"] = f"{where['n_gpus_per_node']} × {where['nnodes']}"
    if facts.get("prompts_per_step") and facts.get("group_size"):
        facts["samples_per_step"] = float(facts["prompts_per_step"]) * float(facts["group_size"])
        where["samples_per_step"] = f"{where['prompts_per_step']} × {where['group_size']}"
    if facts.get("gen_batch_prompts") and facts.get("filter_groups") is not True:
        # verl's trainer loads data.gen_batch_size prompts a step (ray_trainer's dataloader) and, without DAPO's
        # group filter, trains every sequence it generated; with the filter it trains train_batch_size prompts' groups
        facts["prompts_per_step"] = facts["gen_batch_prompts"]
        where["prompts_per_step"] = where["gen_batch_prompts"]
        if facts.get("group_size"):
            facts["samples_per_step"] = float(facts["gen_batch_prompts"]) * float(facts["group_size"])
            where["samples_per_step"] = f"{where['gen_batch_prompts']} × {where['group_size']} (the dataloader's batch)"
    _async_layout(config, facts, where)
    rank_name = "lora_rank" if (facts.get("lora_rank") or 0) > 0 or not facts.get("lora_nested_rank") \
        else "lora_nested_rank"
    rank = facts.get(rank_name, 0) or 0
    facts["fine_tune"] = "lora" if rank > 0 else "full"
    where["fine_tune"] = (f"{where[rank_name]} > 0" if rank > 0 else
                          f"{paths['lora_rank']} = 0 or absent (the default: full fine-tuning)")
    facts["critic"] = facts.get("adv_estimator") == "gae"
    if isinstance(facts.get("model_path"), str) and facts["model_path"].strip():
        where["model"] = paths["model_path"]
    return facts, where


def _async_layout(config: dict, facts: dict, where: dict) -> None:
    """An asynchronous recipe's config (module comment at ONE_STEP_OFF_KEYS): the rollout pool, the whole job's GPUs
    (trainer.* counts the trainer's pool only), one step ahead, and for fully-async the trainer steps a record
    covers and the batch of each."""
    pool = config.get("rollout")
    if not isinstance(pool, dict) or not ({"nnodes", "n_gpus_per_node"} & set(pool)):
        return
    counts = [pool.get(k) for k in ("nnodes", "n_gpus_per_node")]
    for key, count in zip(("nnodes", "n_gpus_per_node"), counts):
        if not (isinstance(count, (int, float)) and not isinstance(count, bool) and _finite(count) and count >= 0
                and float(count) == int(count)):
            raise TinkerNomicsError(f"the config's rollout.{key} is {str(count)[:40]!s}, not a whole number of "
                                    f"{'nodes' if key == 'nnodes' else 'GPUs'} a rollout pool could have")
    if not all(counts):   # a pool of no GPUs (as verl writes an unused one: 0 and 0): the rollout is colocated
        return
    fully = isinstance(config.get("async_training"), dict)
    recipe = "fully-async" if fully else "one-step-off"
    facts["async_recipe"] = recipe
    facts["rollout_gpus"] = float(counts[0]) * float(counts[1])
    where["rollout_gpus"] = "rollout.nnodes × rollout.n_gpus_per_node"
    facts["off_policy"], where["off_policy"] = 1.0, f"verl's {recipe} recipe: a rollout pool of its own in the config"
    if "num_gpus" in facts:
        facts["num_gpus"] += facts["rollout_gpus"]
        where["num_gpus"] = ("trainer.n_gpus_per_node × trainer.nnodes + rollout.n_gpus_per_node × rollout.nnodes "
                             "(the trainer's pool and the rollout's)")
    if not fully:
        return
    sync = config["async_training"].get("trigger_parameter_sync_step")
    if sync is not None:
        if not (isinstance(sync, (int, float)) and not isinstance(sync, bool) and _finite(sync) and sync >= 1
                and float(sync) == int(sync)):
            raise TinkerNomicsError(f"the config's async_training.trigger_parameter_sync_step is {str(sync)[:40]!s}, "
                                    f"not a whole number of trainer steps")
        facts["steps_per_record"] = float(sync)
        where["steps_per_record"] = "async_training.trigger_parameter_sync_step"
    # a trainer step takes ppo_mini_batch_size × require_batches prompts' groups off the queue (data.train_batch_size
    # is 0 in these configs)
    mini = facts.get("mini_batch_prompts")
    batches = config["async_training"].get("require_batches", 1)
    if isinstance(mini, (int, float)) and not isinstance(mini, bool) and _finite(mini) and mini > 0 \
            and isinstance(batches, (int, float)) and not isinstance(batches, bool) and _finite(batches) and batches >= 1:
        facts["prompts_per_step"] = float(mini) * float(batches)
        where["prompts_per_step"] = ("actor_rollout_ref.actor.ppo_mini_batch_size × async_training.require_batches "
                                     "(one trainer step)")
        if facts.get("group_size"):
            facts["samples_per_step"] = facts["prompts_per_step"] * float(facts["group_size"])
            where["samples_per_step"] = where["prompts_per_step"] + " × actor_rollout_ref.rollout.n"


# A line of pprint's output, token by token: a quoted string (pprint writes each string whole on one line, in single
# or double quotes, with backslash escapes; one left open runs to the end of the line), or a bracket. Brackets inside
# strings (`'train_files': '{/data…'`) are no brackets.
_DUMP_TOKEN = re.compile(r"""'[^'\\]*(?:\\.[^'\\]*)*(?:'|$)|"[^"\\]*(?:\\.[^"\\]*)*(?:"|$)|([\[{(])|([\]})])""")
# What must agree between two config dumps of one log for it to be one run (a restart prints the same config again).
RUN_IDENTITY = ("model_path", "n_gpus_per_node", "nnodes", "prompts_per_step", "group_size", "lora_rank",
                "experiment_name")


def bracket_depth(text: str) -> int:
    """Opening minus closing brackets of one line of a pprint'ed literal, outside quoted strings."""
    depth = 0
    for opening, closing in _DUMP_TOKEN.findall(text):
        depth += (1 if opening else 0) - (1 if closing else 0)
    return depth


def is_config(value) -> bool:
    """A dict of verl's config (ppo_trainer.yaml's top-level sections), not some other dict the driver printed."""
    return isinstance(value, dict) and ("actor_rollout_ref" in value or "trainer" in value)


class ConfigDumps:
    """Collects the driver's pprint'ed config dicts, one console line at a time (`accept`: which dicts are the
    framework's config; verl's by default, NeMo RL's run scripts print theirs too). Each line is scanned once (the
    brackets outside strings, `bracket_depth`), and a dump is parsed once, when its brackets close: linear time
    in the length of the log. A step line never belongs to a dict, so one ends a dump that has not closed (the
    dump is then left unread, with a caveat naming both lines), and no step line is ever swallowed by a dump."""

    def __init__(self, accept=is_config):
        self.accept = accept
        self.lines: list[str] = []
        self.owner: tuple[str, str] | None = None
        self.start = 0
        self.depth = 0
        self.dumps: list[tuple[int, dict]] = []   # (first line, config) of every dump read, in log order
        self.problems: list[str] = []             # dumps that could not be read, each naming its lines

    def feed(self, number: int, text: str, owner) -> bool:
        """True when the line belonged to a dump."""
        if not self.lines:
            if not text.startswith("{'") or (owner is not None and owner[0] not in DRIVERS):
                return False
            self.owner, self.start, self.depth = owner, number, 0
        elif owner != self.owner:
            return False
        elif STEP_LINE.match(text):
            self._drop(f"the config dump starting at line {self.start} is cut off by the step line at line {number} "
                       f"before its brackets close; it is not read")
            return False
        self.lines.append(text)
        self.depth += bracket_depth(text)
        if self.depth <= 0:
            self._parse(number)
        elif len(self.lines) > MAX_CONFIG_LINES:
            self._drop(f"the config dump starting at line {self.start} does not close within {MAX_CONFIG_LINES:,} "
                       f"lines (at line {number}); it is not read")
        return True

    def finish(self) -> None:
        """At the end of the log: a dump still open never closed."""
        if self.lines:
            self._drop(f"the config dump starting at line {self.start} never closes (the log ends inside it); it is "
                       f"not read")

    def _parse(self, number: int) -> None:
        body = "\n".join(self.lines)
        self.lines = []
        try:
            value = ast.literal_eval(body)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = None
        if self.accept(value):
            self.dumps.append((self.start, value))
        elif value is None and self.start != number:   # a one-line dict that is not Python is just a line
            self.problems.append(f"the config dump at lines {self.start}-{number} is not a Python literal; it is "
                                 f"not read")

    def _drop(self, problem: str) -> None:
        self.lines = []
        self.problems.append(problem)


def _identity(config: dict) -> dict:
    facts, where = config_facts(config)
    return {where[name]: facts[name] for name in RUN_IDENTITY if name in facts}


def one_run_config(dumps: list[tuple[int, dict]], label: str) -> tuple[dict, list[str]]:
    """The run's config from its dumps: a log whose dumps disagree on what identifies a run (model, GPUs, batch,
    LoRA rank, experiment name) holds two runs appended, and is refused naming the line where the second
    starts; the same config printed again is a restart of one run (a note)."""
    if not dumps:
        return {}, []
    first_line, first = dumps[0]
    mine = _identity(first)
    restarts = []
    for line, config in dumps[1:]:
        theirs = _identity(config)
        differ = [f"{key} {mine.get(key, 'unset')!r} then {theirs.get(key, 'unset')!r}"
                  for key in dict.fromkeys([*mine, *theirs]) if mine.get(key) != theirs.get(key)]
        if differ:
            raise TinkerNomicsError(f"{label}: line {line}: a second run starts (its config dump differs from the "
                                    f"one at line {first_line}: {'; '.join(differ)}); two runs appended in one log "
                                    f"are not read as one: split the log at line {line}")
        restarts.append(line)
    notes = [f"the config is printed again at line(s) {', '.join(map(str, restarts))} (the same run restarted): "
             f"every step line is read as one run"] if restarts else []
    return first, notes


# ------------------------------------------------------------------------------------------ records


def _record(where, step, values: dict, get_step_time=True) -> StepRecord | None:
    """A StepRecord from one logged dict of verl metrics; None for a record without a step time (the step-0
    validation before training, or a record of other metrics)."""
    rec = StepRecord(where, step)
    for column, key in COLUMN_KEYS.items():
        legacy = LEGACY_TIMING + key[len("timing_s/"):] if key.startswith("timing_s/") else None
        if key in values and values[key] is not None:
            rec.values[column] = (key, values[key])
        elif legacy and values.get(legacy) is not None:
            rec.values[column] = (legacy, values[legacy])
    # one-step-off: the whole generation of the batch trained where logged, else the wait for it
    whole = _whole_generation(values)
    if whole:
        rec.values["generation_seconds"] = (whole, values[whole])
    elif values.get(WAIT_GENERATION) is not None and "generation_seconds" not in rec.values:
        rec.values["generation_seconds"] = (WAIT_GENERATION, values[WAIT_GENERATION])
    if "step_seconds" not in rec.values and values.get(STEP_TIME_FALLBACK) is not None:
        rec.values["step_seconds"] = (STEP_TIME_FALLBACK, values[STEP_TIME_FALLBACK])
    if "logged_mfu" not in rec.values and values.get(MFU_FALLBACK) is not None:
        rec.values["logged_mfu"] = (MFU_FALLBACK, values[MFU_FALLBACK])
    for phase in PHASES:
        # verl's experimental fully-async trainer times its weight sync under a name that already holds the prefix,
        # which compute_timing_metrics prefixes again: timing_s/timing_s/param_sync
        for key in (f"timing_s/{phase}", LEGACY_TIMING + phase, f"timing_s/timing_s/{phase}"):
            if values.get(key) is not None:
                rec.phases[phase] = (key, values[key])
                break
    if "step_seconds" not in rec.values:
        parts = [LEGACY_TIMING + name for name in LEGACY_STEP_PARTS if values.get(LEGACY_TIMING + name) is not None]
        if parts:
            rec.values["step_seconds"] = _legacy_step(values, parts)
    if get_step_time and "step_seconds" not in rec.values:
        return None
    return rec


def _whole_generation(values) -> str | None:
    """The key of a one-step-off record's whole generation (not the wait for it), if it logs one: generate_async,
    or in the recipe's first version generate_sequences beside wait_prev_gen (in any other verl log
    generate_sequences is nested in gen and never read)."""
    if values.get(WHOLE_GENERATION) is not None:
        return WHOLE_GENERATION
    if values.get(WAIT_GENERATION) is not None and values.get(WAITED_GENERATION) is not None:
        return WAITED_GENERATION
    return None


class _Windows:
    """Fully-async records (module comment at ONE_STEP_OFF_KEYS): each sums the timers of the trainer steps since
    the last weight sync, so each of its times is divided into one trainer step's mean and the row stands for that
    many steps (`steps_covered`, as a TRL window does). The steps a record covers: the rise of training/global_step
    since the last record where the log has it (verl's later fully-async code closes its first window a step short),
    else async_training.trigger_parameter_sync_step from the config."""

    TIMES = ("step_seconds", "generation_seconds", "training_seconds", "validation_seconds", "checkpoint_seconds")

    def __init__(self, label: str, per_record: float | None = None):
        self.label, self.per_record = label, per_record
        self.last = 0.0
        self.windows = self.unknown = self.counted = 0   # records read; of no known count; counted by the log

    def apply(self, rec: StepRecord, values: dict) -> None:
        if self.per_record is None and not any(values.get(k) is not None for k in FULLY_ASYNC_KEYS):
            return
        steps = None
        if values.get(LOCAL_STEP) is not None:   # the log's own count first: a version's first window may be short
            raw = values[LOCAL_STEP]
            try:
                local = float(parse_number_text(raw) if isinstance(raw, str) else raw)
            except (TypeError, ValueError, OverflowError):
                local = math.nan
            if not (math.isfinite(local) and local == int(local) and local > self.last):
                raise TinkerNomicsError(f"{self.label}: {rec.where[0]} {rec.where[1]}: {LOCAL_STEP} is "
                                        f"{str(raw)[:40]!r}, not a trainer step after the last record's "
                                        f"{self.last:g}")
            steps, self.last = local - self.last, local
            rec.step = int(local)   # numbered by trainer steps (the W&B step is the weight version)
            self.counted += 1
        elif self.per_record is not None:
            steps = self.per_record
            if isinstance(rec.step, (int, float)) and not isinstance(rec.step, bool):
                rec.step = int(rec.step * steps)
        if steps is None:
            self.unknown += 1
            return
        self.windows += 1
        rec.values["steps_covered"] = ("the trainer steps a fully-async record covers", steps)
        for column in self.TIMES:
            if column in rec.values:
                rec.values[column] = _divided(rec.values[column], steps)
        for phase, value in list(rec.phases.items()):
            rec.phases[phase] = _divided(value, steps)


def _divided(item: tuple[str, object], steps: float) -> tuple[str, object]:
    """(key, a logged sum) as (key, its mean over `steps`); a value that is no number is left for the table's
    check to name."""
    key, raw = item
    try:
        return key, float(parse_number_text(raw) if isinstance(raw, str) else raw) / steps
    except (TypeError, ValueError, OverflowError):
        return item


def is_legacy(keys) -> bool:
    """A log of verl's first releases: `timing/` timers and no step timer of any later release."""
    return any(LEGACY_TIMING + name in keys for name in LEGACY_STEP_PARTS) \
        and not {COLUMN_KEYS["step_seconds"], STEP_TIME_FALLBACK} & set(keys)


def _legacy_step(values: dict, parts: list[str]) -> tuple[str, object]:
    """The step time of a log from verl's first releases: the sum of its timers; a timer that is not a
    non-negative number is returned as it is, under its own key, for the table's check to name it."""
    total = 0.0
    for key in parts:
        raw = values[key]
        try:
            seconds = float(parse_number_text(raw) if isinstance(raw, str) else raw)
        except (TypeError, ValueError):
            return key, raw
        if not math.isfinite(seconds) or seconds < 0:
            return key, raw
        total += seconds
    return LEGACY_STEP_KEY, total


def read_console(path: Path, label: str, facts_override: dict | None = None) -> HostedRun:
    """A verl console log (stdout of the trainer, with or without Ray's prefixes), read line by line."""
    table = StepTable(label, text_numbers=True)   # a console prints every value as text
    dumps = ConfigDumps()
    repr_values = three_decimals = False
    val_only = 0
    keys: set[str] = set()
    steps_seen = 0
    windows = None
    ends: dict = {}
    cut_off = None
    for number, line in stream.text_lines(path, label, ends):
        text, owner = strip_line(line)
        if dumps.feed(number, text, owner):
            continue
        m = STEP_LINE.match(text)
        if not m:
            if BAD_STEP_LINE.match(text) and (owner is None or owner[0] in DRIVERS):   # step:-4, step:1.5, step:x
                raise TinkerNomicsError(f"{label}: line {number}: {text.split(' - ')[0][:40]!r} is not a step "
                                        f"number (verl counts steps 0, 1, 2, ...)")
            continue
        if owner is not None and owner[0] not in DRIVERS:
            continue
        try:
            values, fmt_repr, fmt_3f = _parse_step_line(text, label, number, keys)
        except TinkerNomicsError:
            if ends.get("unterminated") != number:
                raise
            cut_off = number   # the trainer was still writing its last line: the steps before it are read
            break
        steps_seen += 1
        repr_values |= fmt_repr
        three_decimals |= fmt_3f
        rec = _record(("line", number), int(m.group(1)), values)
        if rec is None:
            if any(k.startswith(VALIDATION_PREFIX) for k in values):
                val_only += 1
            continue
        if windows is None:   # the config is printed before the first step
            windows = _Windows(label, _per_record(dumps.dumps[0][1]) if dumps.dumps else None)
        windows.apply(rec, values)
        table.add(rec)
    dumps.finish()
    if not steps_seen:
        cut = f" ({'; '.join(dumps.problems)})" if dumps.problems else ""
        raise TinkerNomicsError(f"{label}: no verl step lines (`step:N - key:value - …`); is this the trainer's "
                                f"console output?{cut}")
    config, notes = one_run_config(dumps.dumps, label)
    facts, where = config_facts(config) if config else ({}, {})
    kind = "verl console log"
    notes += dumps.problems
    if three_decimals and not repr_values:
        kind += " (values to 3 decimals, 2025 verl)"
        notes.append("verl's 2024–2025 console logger prints every value to three decimals, so times are known to "
                     "±0.0005 s and mean lengths to ±0.0005 tokens per sequence")
    elif repr_values:
        kind += " (full-precision values, 2026 verl)"
    if not config:
        notes.append("no config dump found in the log (the pprint'ed dict TaskRunner prints at start-up), so the "
                     "model, GPU count and batch come from the options" if not dumps.problems else
                     "without a readable config dump, the model, GPU count and batch come from the options")
    if val_only:
        notes.append(f"{val_only} validation-only record(s) without a step time (e.g. validation before "
                     f"training, step 0): their time is not logged and not in the sums")
    if cut_off is not None:
        notes.append(f"the log's last line ({cut_off}) stops mid-step, with no line ending (a run still writing "
                     f"it?): that step is not read; the steps before it are")
    return _finish(table, label, kind, facts, where, notes, keys, facts_override, windows=windows)


def _per_record(config: dict) -> float | None:
    """The trainer steps each fully-async record covers, from its config; None where it does not say."""
    facts, _ = config_facts(config)
    return facts.get("steps_per_record")


def _parse_step_line(text: str, label: str, number: int, keys: set) -> tuple[dict, bool, bool]:
    """The wanted values of one `step:N - key:value - …` line; errors name the line and the column."""
    values = {}
    repr_values = three_decimals = False
    column = 1
    for i, item in enumerate(text.split(" - ")):
        if i > 0:
            key, sep, raw = item.rpartition(":")
            if not sep or not key:
                raise TinkerNomicsError(f"{label}: line {number} column {column}: {item[:40]!r} is not key:value")
            keys.add(key)
            if key in WANTED or key.startswith(VALIDATION_PREFIX):
                if key in WANTED:
                    try:
                        parse_number_text(raw)
                    except ValueError:
                        raise TinkerNomicsError(f"{label}: line {number} column {column + len(key) + 1}: {key} is "
                                                f"{raw[:40]!r}, not a number") from None
                values[key] = raw
                if "(" in raw:
                    repr_values = True
                elif re.fullmatch(r"-?\d+\.\d{3}", raw):
                    three_decimals = True
                elif re.fullmatch(r"-?\d+\.\d{4,}(e-?\d+)?", raw):
                    repr_values = True
        column += len(item) + 3
    return values, repr_values, three_decimals


def read_records(records, label: str, kind: str | None, text_numbers: bool, facts_override: dict | None = None,
                 notes=(), run_name=None, config: dict | None = None, framework: str = FRAMEWORK,
                 read_config=None, rename=None) -> HostedRun:
    """verl metrics from the file logger's JSON lines (`{"step": N, "data": {...}}`) or a W&B table (`_step`);
    `config` the run's config where the source holds it (W&B's run file). A stream.Table gives its kind, notes and
    run name once read. A fork that logs verl's metrics (runs.easyr1) passes its `framework`, its config's reader
    (`read_config`, as config_facts) and `rename`, which turns each of its records into verl's names."""
    table = StepTable(label, text_numbers)
    keys: set[str] = set()
    val_only = 0
    windows = _Windows(label, _per_record(config) if config else None)
    for where, raw in records:
        if rename is not None:
            raw = rename(raw)
        if "data" in raw and "step" in raw:
            data = raw["data"]
            if not isinstance(data, dict):
                raise TinkerNomicsError(f"{label}: {where[0]} {where[1]}: 'data' is not a JSON object")
            step = raw["step"]
        else:
            data = raw
            step = raw.get("_step", raw.get("step"))
        keys.update(data)
        rec = _record(where, step, data)
        if rec is None:
            if any(k.startswith(("val-", "val/")) for k in data):   # verl's val-core/, EasyR1's val/
                val_only += 1
            continue
        if step is None:
            raise TinkerNomicsError(f"{label}: {where[0]} {where[1]}: no step number (a 'step' or W&B '_step')")
        windows.apply(rec, data)
        table.add(rec)
    kind, run_name, notes = stream.described(records, framework, kind, run_name, notes)
    if val_only:
        notes.append(f"{val_only} validation-only record(s) without a step time (e.g. validation before "
                     f"training, step 0): their time is not logged and not in the sums")
    facts, where = (read_config or config_facts)(config) if config else ({}, {})
    return _finish(table, label, kind, facts, where, notes, keys, facts_override, run_name, windows, framework)


def _finish(table: StepTable, label: str, kind: str, facts: dict, where: dict, notes: list, keys: set,
            facts_override: dict | None, run_name: str | None = None, windows: _Windows | None = None,
            framework: str = FRAMEWORK) -> HostedRun:
    facts, where, notes = dict(facts), dict(where), list(notes)
    recipe = facts.get("async_recipe")
    if recipe is None and (windows is not None and (windows.windows or windows.unknown)
                           or any(k in keys for k in FULLY_ASYNC_KEYS)):
        recipe = "fully-async"
    elif recipe is None and any(k in keys for k in ONE_STEP_OFF_KEYS):
        recipe = "one-step-off"
    if recipe and "off_policy" not in facts:   # a log without its config: the recipe's keys say it
        facts["off_policy"] = 1.0
        where["off_policy"] = (f"verl's {recipe} recipe, by the log's "
                               f"{', '.join(sorted(k for k in keys if k in ONE_STEP_OFF_KEYS + FULLY_ASYNC_KEYS))}")
    whole = None
    if recipe:
        facts["async_recipe"] = recipe
        whole = _whole_generation({k: 0.0 for k in keys})
        if whole is None:   # its generation timer is the wait for the batch, not its generation
            facts["generation_exposed"] = True
    if windows is not None and windows.windows:
        notes.append(f"verl's fully-async records each sum the timers of the trainer steps since the last weight sync "
                     f"({'the rise of ' + LOCAL_STEP if windows.counted else where.get('steps_per_record')}): each is "
                     f"read as that many steps, its times divided among them")
    if windows is not None and windows.unknown:
        notes.append(f"{windows.unknown} fully-async record(s) sum an unknown number of trainer steps (the log has "
                     f"neither async_training.trigger_parameter_sync_step nor {LOCAL_STEP}): each is read as one "
                     f"step, its times and tokens those of all the steps it covers")
    steps, derived_notes, facts, where, model = settle(table, facts, where, facts_override)
    notes = notes + derived_notes
    if recipe:
        notes.append(f"verl's {recipe} recipe: the rollout engine generates on GPUs of its own, a batch ahead of the "
                     f"trainer; " + (f"{whole} is the generation of the batch each step trains, which ran "
                                     f"beside the step before, so the phases add up to more than the step"
                                     if whole else
                                     "its generation timer is the wait for the next batch (the part of generation "
                                     "training did not hide)")
                     + ("" if "rollout_gpus" in facts else
                        "; the log does not say how the GPUs were split: --num-gpus counts both pools (the trainer's "
                        "and the rollout's), --rollout-gpus the rollout's"))
    if is_legacy(keys):
        kind = kind.replace(", 2025 verl)", ")").replace(", 2026 verl)", ")") + ", from verl's first releases (timing/ keys)"
        notes.append("verl's first releases log no step timer (timing/gen, timing/ref, … timing/update_actor, no "
                     "timing/step): each step's time is the sum of its timers, which run one after another; the "
                     "driver's work between them (metrics, checkpoint saves) is not in it")
    inside = validation_inside(steps)
    if inside is False:
        notes.append("timing_s/step leaves validation out (2026 verl runs _validate() after the step timer): "
                     "GPU-hours from step times exclude it; the wall-clock adds it")
    elif inside is True:
        notes.append("timing_s/step includes validation on the steps that run it (" +
                     ("verl ≤ mid-2025 times _validate() inside the step)" if framework == FRAMEWORK else
                      f"{framework} times its validation inside the step)"))
    return HostedRun(steps, label, framework, kind, model, facts, where, inside, tuple(notes), run_name,
                     frozenset(keys))


def validation_inside(steps) -> bool | None:
    """Whether the logged step time holds the validation time, read off the log itself: on every step that ran
    a validation, step ≥ validation + generation (up to rounding) means it is inside. None: no validation."""
    ran = steps[steps["validation_seconds"].notna()]
    if ran.empty:
        return None
    gen = ran["generation_seconds"].fillna(0.0)
    return bool((ran["step_seconds"] + ROUNDING_SLACK_S >= ran["validation_seconds"] + gen).all())
