"""EasyR1's logs (hiyouga/EasyR1, a fork of verl for vision-language RL): its metrics are verl's, a few renamed, so
they are read by runs.verl after the renaming; its console and file logger have shapes of their own.

Where each name is defined (hiyouga/EasyR1; /work/notes/s5/easyr1.md has the commits read):

- `RayPPOTrainer.fit` (verl/trainer/ray_trainer.py) times `step` around `gen`, `reward`, `old`, `ref`, `values`,
  `adv`, `update_critic`, `update_actor` and, on the steps that run them, `validation` and `save_checkpoint`;
  `compute_timing_metrics` (verl/trainer/metrics.py) logs each as `timing_s/<name>`, and `compute_throughout_metrics`
  and `compute_length_metrics` log `perf/total_num_tokens` (prompt + response tokens of the trained batch),
  `perf/time_per_step`, `response_length/mean` and `prompt_length/mean` as verl does. Renamed from verl's: `old`
  (verl's `old_log_prob`), `validation` (`testing`), `perf/mfu_actor` (`perf/mfu/actor`). There is no timer of the
  weight hand-off: vLLM's wake-up and the weight sync run inside `gen`.
- The console logger (`trainer.logger` holds `console`) prints `Step N`, then the step's metrics as block YAML
  (`yaml.dump` of the metrics split on `/`: nested two spaces a level, keys sorted, floats rounded to three
  decimals unless Python writes them in exponent form), then a blank line; each line behind Ray's `(main_task pid=N)`
  or `(Runner pid=N)` prefix. Before training, `main.py` prints the config as indented JSON (`json.dumps(config,
  indent=2)`).
- The file logger (`file`) writes `experiment_log.jsonl` beside `experiment_config.json` in trainer.
  save_checkpoint_path: one `{"step": N, <the metrics nested as in the console>}` line a step.
- W&B and TensorBoard get the flat names (`timing_s/old`, `perf/mfu_actor`).

The first EasyR1 (February 2025) was verl itself (verl's names, verl's one-line console): runs.verl reads it.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import TinkerNomicsError
from . import stream, verl
from .hosted import HostedRun

FRAMEWORK = "EasyR1"
RENAMED = {"timing_s/old": "timing_s/old_log_prob", "timing_s/validation": "timing_s/testing",
           "perf/mfu_actor": "perf/mfu/actor", "timing_per_token_ms/old": "timing_per_token_ms/old_log_prob"}
# EasyR1's own names (any one, beside verl's metrics, marks its log)
SIGNATURE = ("timing_s/old", "perf/mfu_actor", "timing_s/validation")
CONFIG_FACTS = {   # fact -> dotted path in EasyR1's config (verl/trainer/config.py, the worker configs)
    "model_path": "worker.actor.model.model_path",
    "prompts_per_step": "data.rollout_batch_size",
    "group_size": "worker.rollout.n",
    "n_gpus_per_node": "trainer.n_gpus_per_node",
    "nnodes": "trainer.nnodes",
    "lora_rank": "worker.actor.model.lora.rank",
    "adv_estimator": "algorithm.adv_estimator",
    "use_kl_loss": "algorithm.use_kl_loss",
    "disable_kl": "algorithm.disable_kl",
    "max_prompt_length": "data.max_prompt_length",
    "max_response_length": "data.max_response_length",
    "test_freq": "trainer.val_freq",
    "save_freq": "trainer.save_freq",
    "val_before_train": "trainer.val_before_train",
    "rollout_tp": "worker.rollout.tensor_parallel_size",
    "rollout_memory_fraction": "worker.rollout.gpu_memory_utilization",
    "enforce_eager": "worker.rollout.enforce_eager",
    "mini_batch_prompts": "worker.actor.global_batch_size",
    "ppo_epochs": "worker.actor.ppo_epochs",
    "dynamic_batch": "worker.actor.dynamic_batching",
    "micro_batch_samples": "worker.actor.micro_batch_size_per_device_for_update",
    "logprob_micro_batch_samples": "worker.actor.micro_batch_size_per_device_for_experience",
    "remove_padding": "worker.actor.padding_free",
    "param_offload": "worker.actor.offload.offload_params",
    "optimizer_offload": "worker.actor.offload.offload_optimizer",
    "gradient_checkpointing": "worker.actor.model.enable_gradient_checkpointing",
    "experiment_name": "trainer.experiment_name",
}
LOG_FILE, CONFIG_FILE = "experiment_log.jsonl", "experiment_config.json"
STEP_HEADER = re.compile(r"^Step (\d+)$")
YAML_LINE = re.compile(r"^(?P<indent> *)(?P<key>[^\s:][^:]*):(?: (?P<value>.*))?$")
MAX_CONFIG_LINES = 20000


def is_easyr1_keys(keys) -> bool:
    return any(k in keys for k in SIGNATURE) and verl.is_verl_keys(set(keys) | {RENAMED.get(k, k) for k in keys})


def looks_like_console(line: str, before: str | None) -> bool:
    """A line of metrics' YAML after a `Step N` header (Ray's prefix stripped from both)."""
    return before is not None and STEP_HEADER.match(before) is not None and re.match(r"^[a-z_]+:$", line) is not None


def flattened(record: dict, prefix: str = "", rename: bool = True) -> dict:
    """A record nested as EasyR1's loggers nest it (`{"timing_s": {"gen": …}}`) with flat names (`timing_s/gen`),
    EasyR1's own renamed to verl's (RENAMED) unless `rename` is off."""
    out = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flattened(value, name + "/", rename))
        else:
            out[RENAMED.get(name, name) if rename else name] = value
    return out


def config_facts(config: dict) -> tuple[dict, dict]:
    """What EasyR1's config says of the run (CONFIG_FACTS), as runs.verl's facts: its KL is a loss term
    (use_kl_loss) or, unless disable_kl, a penalty in the reward, either way with the reference model's pass."""
    facts, where = verl.config_facts(config, CONFIG_FACTS)
    if facts.get("disable_kl") is False and facts.get("use_kl_loss") is not True:
        facts["use_kl_in_reward"], where["use_kl_in_reward"] = True, "algorithm.disable_kl false, use_kl_loss false"
    if facts.get("disable_kl") is True:
        facts["use_kl_loss"] = False
    return facts, where


def read_records(records, label: str, kind: str | None, text_numbers: bool, facts_override: dict | None = None,
                 notes=(), run_name=None, config: dict | None = None) -> HostedRun:
    """EasyR1's metrics, flat (W&B, TensorBoard) or nested (the file logger), read as verl's."""
    return verl.read_records(records, label, kind, text_numbers, facts_override, notes, run_name, config, FRAMEWORK,
                             config_facts, _renamed)


def _renamed(raw: dict) -> dict:
    """One record with verl's names, its step kept where verl's reader looks for it."""
    step = raw.get("step", raw.get("_step"))
    data = flattened({k: v for k, v in raw.items() if k not in ("step", "_step")})
    return {"step": step, "data": data}


def read_file_logger(path: Path, label: str, facts_override: dict | None = None) -> HostedRun:
    """experiment_log.jsonl, with experiment_config.json beside it where it is."""
    config = _config_file(path.parent / CONFIG_FILE)
    return read_records(stream.GrowingJsonLines(path, label), label, "EasyR1 file logger (experiment_log.jsonl)", False,
                        facts_override, config=config)


def _config_file(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        value = stream.json_document(path, str(path))
    except (TinkerNomicsError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def read_console(path: Path, label: str, facts_override: dict | None = None) -> HostedRun:
    """EasyR1's console log, line by line: the config's JSON before training, each `Step N` and its metrics' YAML."""
    steps, notes = [], []
    config, config_lines, config_start = None, None, 0
    block, step, indents = None, None, []
    for number, line in stream.text_lines(path, label):
        text, _ = verl.strip_line(line)
        text = text.rstrip()
        if block is not None:
            m = YAML_LINE.match(text) if text else None
            if m is not None and (m.group("indent") or not text.startswith(" ")):
                _add(block, indents, m, label, number)
                continue
            steps.append((("line", step[1]), {"step": step[0], **block}))
            block = None
        if config_lines is not None:
            config_lines.append(text)
            if text == "}":
                try:
                    parsed = json.loads("\n".join(config_lines))
                except ValueError:
                    parsed = None
                    notes.append(f"the config printed at lines {config_start}-{number} is not JSON; it is not read")
                if isinstance(parsed, dict) and config is None:
                    config = parsed
                config_lines = None
            elif len(config_lines) > MAX_CONFIG_LINES:
                notes.append(f"the config printed from line {config_start} does not close within "
                             f"{MAX_CONFIG_LINES:,} lines; it is not read")
                config_lines = None
            continue
        m = STEP_HEADER.match(text)
        if m:
            block, step, indents = {}, (int(m.group(1)), number), []
        elif text == "{" and config is None:
            config_lines, config_start = [text], number
    if block is not None:
        steps.append((("line", step[1]), {"step": step[0], **block}))
    if not steps:
        raise TinkerNomicsError(f"{label}: no EasyR1 step blocks (`Step N` and its metrics); is this the trainer's "
                                f"console output?")
    if config is None:
        notes.append("no config found in the log (the JSON main.py prints before training), so the model, GPU count "
                     "and batch come from the options")
    notes.append("EasyR1's console prints each value to three decimals (Python's exponent form below 1e-4)")
    return read_records(steps, label, "EasyR1 console log", True, facts_override, notes, config=config)


def _add(block: dict, indents: list, m, label: str, number: int) -> None:
    """One YAML line of a step's metrics into `block`, nested by its indent (two spaces a level)."""
    depth = len(m.group("indent")) // 2
    del indents[depth:]
    key = m.group("key").strip().strip("'\"")
    node = block
    for parent in indents:
        node = node.setdefault(parent, {})
        if not isinstance(node, dict):
            raise TinkerNomicsError(f"{label}: line {number}: {key!r} sits under a value, not a mapping")
    value = m.group("value")
    if value is None or value == "":
        node[key] = {}
        indents.append(key)
    else:
        node[key] = value.strip().strip("'\"")
