"""SkyRL's (skyrl-train) PPO / GRPO metrics: a W&B export, W&B's run file, TensorBoard events (its tracker's
tensorboard backend: add_scalar(key, value, step) for every key, skyrl_train/utils/tracking.py) or the console
(its tracker's console backend, ConsoleLogger: loguru's `… | INFO | skyrl_train.utils.tracking:log:N - Step S:`
and the call's metrics pprint'ed below it, each float as text with four decimals; a step's timers and metrics
are two calls at the same step, read as one row).

Where each name is defined (NovaSky-AI/SkyRL, skyrl-train/skyrl_train/trainer.py, `RayPPOTrainer.train`, 2025-2026
code): each step runs under `Timer("step")` and logs its timers as `timing/<name>` at the global step
(`tracker.log({"timing/" + k: v …}, step=global_step)`, a call of its own beside the metrics' at the same step, so
W&B keeps one row per step):

- `timing/step`: the whole step; `timing/generate`: the rollout (`generator.generate`), inside the weights
  manager, whose entry hands the new weights to the inference engines (so the refit is in the step, not in
  generate); `timing/fwd_logprobs_values_reward`: the old policy's and the reference model's log-prob passes and,
  under PPO, the critic's values pass; `timing/train_critic_and_policy` (releases from late 2025 split it into
  `timing/policy_train` and `timing/critic_train`, read as their sum): the update; `timing/eval` and
  `timing/save_checkpoints` when they run (`eval` inside the step timer's row but after the step timer: outside
  `timing/step`).
- `generate/avg_num_tokens`, `generate/max_num_tokens` (`get_rollout_metrics`): the mean and the longest generated
  length of the step's responses; `reward/avg_raw_reward`.

SkyRL logs no prompt length and no sample count: the samples per step are the config's `trainer.train_batch_size`
prompts × `generator.n_samples_per_prompt` (W&B's run file holds the config; an export does not, so
`--prompts-per-step` and `--group-size`), and the prompt tokens come from `--prompt-len` (mean prompt tokens per
sample); without it they stay unknown, with a note, and so do the Tinker price and the model's prediction.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from ..errors import TinkerNomicsError
from . import stream
from .hosted import HostedRun, StepTable, add_keyed_rows, settle
from ..sources.numbers import finite_number
from .verl import MAX_CONFIG_LINES, bracket_depth, strip_line

FRAMEWORK = "SkyRL"

SPLIT_UPDATE = "timing/policy_train + timing/critic_train"   # the update of late-2025 releases under PPO: both timers
COLUMN_KEYS = {   # tidy column -> SkyRL keys, newest first (the first one a record has is read)
    "step_seconds": ("timing/step",),
    "generation_seconds": ("timing/generate",),
    "training_seconds": ("timing/train_critic_and_policy", SPLIT_UPDATE, "timing/policy_train"),
    "validation_seconds": ("timing/eval",),
    "checkpoint_seconds": ("timing/save_checkpoints",),
    "response_mean": ("generate/avg_num_tokens",),
    "response_max": ("generate/max_num_tokens",),
    "reward": ("reward/avg_raw_reward",),
}
PHASES = {   # the top-level phases besides those with a column of their own
    "fwd_logprobs_values_reward": ("timing/fwd_logprobs_values_reward",),
    "critic_train": ("timing/critic_train",),
    "postprocess_generator_output": ("timing/postprocess_generator_output",),
    "convert_to_training_input": ("timing/convert_to_training_input",),
    "compute_advantages_and_returns": ("timing/compute_advantages_and_returns",),
}
LOGPROB_PHASES = ("fwd_logprobs_values_reward",)
REFIT_PHASES = ()        # the weight hand-off runs in the step, under no timer of its own
STEP_KEY = "timing/step"
SIGNATURE = ("timing/fwd_logprobs_values_reward", "timing/train_critic_and_policy")
CONFIG_FACTS = {   # fact -> dotted path in SkyRL's config (skyrl_train/config/ppo_base_config.yaml)
    "model_path": "trainer.policy.model.path",
    "prompts_per_step": "trainer.train_batch_size",
    "group_size": "generator.n_samples_per_prompt",
    "policy_num_gpus_per_node": "trainer.placement.policy_num_gpus_per_node",
    "policy_num_nodes": "trainer.placement.policy_num_nodes",
    "colocate_all": "trainer.placement.colocate_all",
    "rollout_tp": "generator.inference_engine_tensor_parallel_size",
    "rollout_memory_fraction": "generator.gpu_memory_utilization",
    "enforce_eager": "generator.enforce_eager",
    "critic_model_path": "trainer.critic.model.path",
    "use_kl_loss": "trainer.algorithm.use_kl_loss",
    "use_kl_in_reward": "trainer.algorithm.use_kl_in_reward",
    "mini_batch_prompts": "trainer.policy_mini_batch_size",
    "ppo_epochs": "trainer.update_epochs_per_batch",
    "micro_batch_samples": "trainer.micro_train_batch_size_per_gpu",
    "logprob_micro_batch_samples": "trainer.micro_forward_batch_size_per_gpu",
    "lora_rank": "trainer.policy.model.lora.rank",
    "gradient_checkpointing": "trainer.gradient_checkpointing",   # ppo_base_config.yaml: true
    "rollout_max_num_seqs": "generator.max_num_seqs",              # the engines' batch cap: 1024
}


# ConsoleLogger.log's message under loguru's default format ({name}:{function}:{line} - {message})
CONSOLE_HEADER = re.compile(r"skyrl_train\.utils\.tracking:log:\d+ - Step (\d+):\s*$")
NUMPY_SCALAR = re.compile(r"\bnp\.(?:int|uint|float)\d*\(([^()]*)\)")   # numpy 2's repr of an int64 metric


def looks_like_console(line: str) -> bool:
    """A line only SkyRL's console tracker prints: its `Step N:` header."""
    return bool(CONSOLE_HEADER.search(strip_line(line)[0]))


def read_console(path: Path, label: str, facts_override: dict | None = None) -> HostedRun:
    """The driver's stdout: each tracker call's `Step N:` header and its pprint'ed metrics below it (Ray's
    `(actor pid=N)` prefixes stripped); the calls of one step merged into one row."""
    notes: list[str] = []

    def calls():
        step = start = depth = 0
        lines: list[str] | None = None   # the open call's dict lines; None outside a call
        for number, line in stream.text_lines(path, label):
            text = strip_line(line)[0]
            header = CONSOLE_HEADER.search(text)
            if header:
                if lines:
                    raise TinkerNomicsError(f"{label}: line {number}: SkyRL's step {step} metrics from line {start} "
                                            f"are cut off by another step header")
                step, start, depth, lines = int(header.group(1)), number, 0, []
                continue
            if lines is None or not lines and not text.lstrip().startswith("{"):
                lines = None
                continue
            lines.append(text)
            depth += bracket_depth(text)
            if depth <= 0:
                yield step, start, _metrics("\n".join(lines), label, start, number)
                lines = None
            elif len(lines) > MAX_CONFIG_LINES:
                raise TinkerNomicsError(f"{label}: SkyRL's step {step} metrics from line {start} do not close within "
                                        f"{MAX_CONFIG_LINES:,} lines")
        if lines:
            notes.append(f"the log ends inside step {step}'s metrics (from line {start}): that call is not read")

    def rows():
        current, first = None, 0
        for step, start, values in calls():
            if current is not None and current["_step"] != step:
                yield ("line", first), current
                current = None
            if current is None:
                current, first = {"_step": step}, start
            current.update(values)
        if current is not None:
            yield ("line", first), current
    return read_records(rows(), label, "SkyRL console log", facts_override, notes)


def _metrics(body: str, label: str, start: int, end: int) -> dict:
    try:
        value = ast.literal_eval(NUMPY_SCALAR.sub(r"\1", body))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = None
    if not isinstance(value, dict):
        raise TinkerNomicsError(f"{label}: lines {start}-{end}: SkyRL's step metrics are not a Python dict")
    return value


def is_skyrl_keys(keys) -> bool:
    keys = set(keys)
    return STEP_KEY in keys and any(k in keys for k in SIGNATURE)


def _positive(value) -> float | None:
    value = finite_number(value)
    return value if value is not None and value > 0 else None


def config_facts(config: dict) -> tuple[dict, dict]:
    """What SkyRL's config (as W&B's run file holds it, nested or flattened) says of the run: (facts, where)."""
    facts, where = {}, {}
    said = "the run's W&B config: "
    for fact, path in CONFIG_FACTS.items():
        node = config.get(path)   # a flattened config
        if node is None:
            node = config
            for part in path.split("."):
                node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            facts[fact], where[fact] = node, said + path
    if isinstance(facts.get("model_path"), str) and facts["model_path"].strip():
        facts["model_path"], where["model"] = facts["model_path"].strip(), said + CONFIG_FACTS["model_path"]
    else:
        facts.pop("model_path", None)
    for fact in ("prompts_per_step", "group_size", "rollout_tp", "rollout_memory_fraction", "mini_batch_prompts",
                 "ppo_epochs", "micro_batch_samples", "logprob_micro_batch_samples"):
        if fact in facts and _positive(facts[fact]) is None:
            del facts[fact], where[fact]
        elif fact in facts:
            facts[fact] = _positive(facts[fact])
    if facts.get("prompts_per_step") and facts.get("group_size"):
        facts["samples_per_step"] = facts["prompts_per_step"] * facts["group_size"]
        where["samples_per_step"] = said + "trainer.train_batch_size × generator.n_samples_per_prompt"
    per_node, nodes = _positive(facts.get("policy_num_gpus_per_node")), _positive(facts.get("policy_num_nodes"))
    if facts.get("colocate_all") is True and per_node and nodes:   # the engines' GPUs are the policy's, asserted
        facts["num_gpus"] = per_node * nodes
        where["num_gpus"] = said + ("trainer.placement.policy_num_gpus_per_node × policy_num_nodes "
                                    "(colocate_all: every model and the engines share them)")
    if "micro_batch_samples" in facts:
        facts["dynamic_batch"] = False
    if "logprob_micro_batch_samples" in facts:
        facts["logprob_dynamic_batch"] = False
    for flag in ("enforce_eager", "gradient_checkpointing"):
        if not isinstance(facts.get(flag), bool):
            facts.pop(flag, None)
            where.pop(flag, None)
    if "rollout_max_num_seqs" in facts and _positive(facts["rollout_max_num_seqs"]) is None:
        del facts["rollout_max_num_seqs"], where["rollout_max_num_seqs"]
    rank = _positive(facts.get("lora_rank")) or 0.0
    facts["fine_tune"] = "lora" if rank > 0 else "full"
    where["fine_tune"] = said + ("trainer.policy.model.lora.rank > 0" if rank > 0 else
                                 "trainer.policy.model.lora.rank = 0 or absent (full fine-tuning)")
    critic = facts.pop("critic_model_path", None)
    if isinstance(critic, str) and critic.strip():
        facts["critic"], where["critic"] = True, said + "trainer.critic.model.path (a critic is trained)"
        facts["critic_in_phases"] = True   # fwd_logprobs_values_reward holds its values pass
    return facts, where


def _whole_update(records):
    """The rows, each that times the update in two (`timing/policy_train` and `timing/critic_train`, late-2025
    releases under PPO) with their sum as one more key, SPLIT_UPDATE: the update the model predicts holds both."""
    for where, raw in records:
        policy, critic = (_seconds(raw.get(k)) for k in ("timing/policy_train", "timing/critic_train"))
        if policy is not None and critic is not None and raw.get("timing/train_critic_and_policy") is None:
            raw = {**raw, SPLIT_UPDATE: policy + critic}
        yield where, raw


def _seconds(value) -> float | None:
    """A timer's value as W&B gives it (a number, or text in an export), else None (left to the table to refuse)."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    return finite_number(value)


def read_records(records, label: str, kind: str | None, facts_override: dict | None = None, notes=(),
                 run_name=None, config: dict | None = None) -> HostedRun:
    """A W&B export of a SkyRL run (`_step` is its global step), or W&B's run file with its `config`. A
    stream.Table gives its kind, notes and run name once read."""
    table = StepTable(label, text_numbers=True)
    keys, skipped = add_keyed_rows(_whole_update(records), table, label, ("_step", "trainer/global_step"),
                                   COLUMN_KEYS, PHASES)
    kind, run_name, notes = stream.described(records, FRAMEWORK, kind, run_name, notes)
    if skipped:
        notes.append(f"{skipped} row(s) without {STEP_KEY} (the evaluation before training, at step 0): not in the "
                     f"sums")
    facts, where = config_facts(config) if config else ({}, {})
    if "timing/critic_train" in keys:
        facts["critic"], where["critic"] = True, "the log's timing/critic_train (a critic is trained)"
        facts["critic_in_phases"] = True   # fwd_logprobs_values_reward holds its values pass
    steps, derived, facts, where, model = settle(table, facts, where, facts_override)
    notes += derived
    if steps["samples"].isna().any():
        notes.append("SkyRL logs no sample count: pass --prompts-per-step (trainer.train_batch_size) and "
                     "--group-size (generator.n_samples_per_prompt), or give W&B's run file, which holds the config")
    if steps["prompt_tokens"].isna().any():
        notes.append("SkyRL logs no prompt length: pass --prompt-len (mean prompt tokens per sample) for the prompt "
                     "tokens, the Tinker price and the model's prediction")
    inside = False if steps["validation_seconds"].notna().any() else None   # eval runs after the step timer
    return HostedRun(steps, label, FRAMEWORK, kind, model, facts, where, inside, tuple(notes), run_name,
                     frozenset(keys))
