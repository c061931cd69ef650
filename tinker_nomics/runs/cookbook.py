"""tinker-cookbook's metric vocabulary: which logged keys are the billed tokens, evals, times and costs, and the
run settings in its config.json (shared/reference/tinker-cookbook-facts.md §1 lists what it logs).

`from_records` turns records of any file shape (runs.files) into the tidy table (runs.runlog.RunLog).
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from ..errors import TinkerNomicsError
from .files import STEP_KEYS, is_null, load_json
from .runlog import COLUMNS, RunLog

TRAIN_AC = "env/all/total_ac_tokens"
TRAIN_OB = "env/all/total_ob_tokens"
TRAIN_CACHED = ("env/all/total_cached_ob_tokens", "tokens/prefill_cached")
EPISODES = "env/all/total_episodes"
TURNS = "env/all/turns_per_episode"
REWARD = "env/all/reward/total"
STEP_TIME = ("time/total", "time/training_loop/total")
LOGGED_COST = "cost/step_usd"
LOGGED_TRAINED = "tokens/trained"
CUMULATIVE_PREFIXES = ("tokens/cumulative/", "cost/cumulative_usd")
# An evaluator's keys: `test/env/all/…` (sync, [git]) or `test/<evaluator>/env/all/…` (e.g. `test/test/`).
EVAL_AC = re.compile(r"^(test/(?:[^/]+/)*?)env/all/total_ac_tokens$")
KNOWN_KEYS = (TRAIN_AC, TRAIN_OB, *TRAIN_CACHED, EPISODES, TURNS, REWARD, *STEP_TIME, LOGGED_COST, LOGGED_TRAINED)

# A sanity bound, not a measurement: no RL step samples 10^15 tokens (the largest runs in
# data/measurements/published_runs.csv are far below 10^12 tokens in total). Above it a count is corrupt.
MAX_TOKENS_PER_STEP = 1e15
MAX_STEP = 10 ** 12

CONFIG_KEYS = ("model_name", "groups_per_batch", "batch_size", "group_size", "max_tokens", "eval_every",
               "num_substeps", "lora_rank", "learning_rate", "max_steps_off_policy", "log_path", "wandb_name")


def alias(rec: dict) -> dict:
    """Accept `env_all_total_ac_tokens` for `env/all/total_ac_tokens` (how some W&B exports spell keys)."""
    if TRAIN_AC in rec or TRAIN_OB in rec:
        return rec
    underscored = {k.replace("/", "_"): k for k in KNOWN_KEYS}
    renamed = {}
    for key, value in rec.items():
        if key in underscored:
            renamed[underscored[key]] = value
        else:
            m = re.match(r"^(test_(?:[a-z0-9]+_)*?)env_all_(total_ac_tokens|total_ob_tokens|total_episodes|"
                         r"total_cached_ob_tokens|reward_total)$", key)
            if m:
                prefix = m.group(1).replace("_", "/")
                metric = "reward/total" if m.group(2) == "reward_total" else m.group(2)
                renamed[f"{prefix}env/all/{metric}"] = value
            else:
                renamed[key] = value
    return renamed


_MISSING = object()
_EXACT = 2 ** 53   # integers below this convert to float exactly


class _Reader:
    """Checks and converts one record's values, naming the file, line and key on failure."""

    def __init__(self, label: str, where: str, rec: dict, null_is_absent: bool, text_numbers: bool):
        self.label, self.where, self.rec = label, where, rec
        self.null_is_absent, self.text_numbers = null_is_absent, text_numbers

    def fail(self, reason: str):
        unit, number = self.where
        raise TinkerNomicsError(f"{self.label}: {unit} {number}: {reason}")

    def number(self, key: str, required: bool = False, minimum: float | None = 0.0,
               maximum: float | None = None, nan_ok: bool = False) -> float:
        """The value of `key` as a finite float (NaN when absent and not required). A NaN value is an error
        unless `nan_ok` (a mean such as the reward may be undefined; a token count may not)."""
        value = self.rec.get(key, _MISSING)
        kind = type(value)
        if kind is int or kind is float:  # the common case, checked without the general path below
            if kind is int and -_EXACT < value < _EXACT:
                value = float(value)
                if (minimum is None or value >= minimum) and (maximum is None or value <= maximum):
                    return value
            elif kind is float and value == value and -math.inf < value < math.inf \
                    and (minimum is None or value >= minimum) and (maximum is None or value <= maximum):
                return value
        if value is _MISSING or (self.null_is_absent and is_null(value)):
            if required:
                self.fail(f"no {key} (a token column the bill needs)")
            return math.nan
        if isinstance(value, bool) or value is None:
            self.fail(f"{key} is {json.dumps(value)}, not a number")
        if isinstance(value, str):
            if not self.text_numbers:
                self.fail(f"{key} is the text {value[:40]!r}, not a number")
            try:
                value = float(value)
            except ValueError:
                self.fail(f"{key} is {value[:40]!r}, not a number")
        if not isinstance(value, (int, float)):
            self.fail(f"{key} is a {type(value).__name__}, not a number")
        try:
            value = float(value)
        except OverflowError:
            self.fail(f"{key} is too large to be a count")
        if math.isnan(value):
            if (self.null_is_absent or nan_ok) and not required:
                return math.nan
            self.fail(f"{key} is NaN")
        if math.isinf(value):
            self.fail(f"{key} is infinite")
        if minimum is not None and value < minimum:
            self.fail(f"{key} is negative ({value:g})")
        if maximum is not None and value > maximum:
            self.fail(f"{key} is {value:g}, implausibly large (over {maximum:g})")
        return value

    def count(self, key: str, required: bool = False) -> float:
        return self.number(key, required, 0.0, MAX_TOKENS_PER_STEP)

    def first(self, keys: Iterable[str], **kw) -> float:
        for key in keys:
            if key in self.rec and not (self.null_is_absent and is_null(self.rec[key])):
                return self.number(key, **kw)
        return math.nan

    def step(self) -> int:
        key = next((k for k in STEP_KEYS if k in self.rec), None)
        if key is None:
            self.fail("no step number (a 'step' or W&B '_step' field)")
        value = self.number(key, required=True, minimum=0.0, maximum=MAX_STEP)
        if value != int(value):
            self.fail(f"{key} is {value:g}, not a whole number")
        return int(value)


def from_records(records, file_label: str, source: str, kind: str, config: dict | None = None,
                  null_is_absent: bool = False, text_numbers: bool = False, run_name: str | None = None,
                  extra_notes: Iterable[str] = ()) -> RunLog:
    if not records:
        raise TinkerNomicsError(f"{file_label}: no records")
    config = dict(config or {})
    train_rows: list[dict] = []
    evals: dict[int, dict] = {}
    logged_totals: dict[str, float] = {}
    seen_keys: set[str] = set()
    for where, raw in records:
        rec = alias(raw)
        seen_keys.update(rec)
        r = _Reader(file_label, where, rec, null_is_absent, text_numbers)
        eval_prefixes = []
        for key in rec:
            first = key[:1]
            if first != "t" and first != "c":
                continue
            if key.startswith("test/"):
                m = EVAL_AC.match(key)
                if m:
                    eval_prefixes.append(m.group(1))
            elif key.startswith(CUMULATIVE_PREFIXES) and not is_null(rec[key]):
                logged_totals[key] = r.number(key, minimum=0.0)
        has_train = TRAIN_AC in rec and not (null_is_absent and is_null(rec[TRAIN_AC]))
        if not has_train and TRAIN_OB in rec and not (null_is_absent and is_null(rec[TRAIN_OB])):
            r.fail(f"has {TRAIN_OB} but no {TRAIN_AC} (a token column the bill needs)")
        if not has_train and not eval_prefixes:
            continue
        step = r.step()
        if has_train:
            line = where[1]
            train_rows.append({
                "step": step, "has_train": True,
                "train_completion_tokens": r.count(TRAIN_AC, required=True),
                "train_prompt_tokens": r.count(TRAIN_OB, required=True),
                "cached_prompt_tokens": _checked_cached(r, r.first(TRAIN_CACHED, maximum=MAX_TOKENS_PER_STEP),
                                                        TRAIN_OB),
                "episodes": r.count(EPISODES),
                "turns": r.number(TURNS, maximum=MAX_TOKENS_PER_STEP, nan_ok=True),
                "reward": r.number(REWARD, minimum=None, nan_ok=True),
                "step_seconds": r.first(STEP_TIME, maximum=MAX_TOKENS_PER_STEP, nan_ok=True),
                "logged_cost_usd": r.number(LOGGED_COST, nan_ok=True),
                "logged_trained_tokens": r.count(LOGGED_TRAINED),
                "line": line})
        for prefix in eval_prefixes:
            ac = r.count(prefix + TRAIN_AC, required=True)
            ob = r.count(prefix + TRAIN_OB, required=True)
            cached = _checked_cached(r, r.count(prefix + TRAIN_CACHED[0]), prefix + TRAIN_OB)
            episodes = r.count(prefix + EPISODES)
            reward = r.number(prefix + REWARD, minimum=None, nan_ok=True)
            slot = evals.setdefault(step, {"eval_completion_tokens": 0.0, "eval_prompt_tokens": 0.0,
                                           "eval_cached_prompt_tokens": math.nan, "eval_episodes": 0.0,
                                           "rewards": [], "eval_line": where[1]})
            slot["eval_completion_tokens"] += ac
            slot["eval_prompt_tokens"] += ob
            if not math.isnan(cached):
                slot["eval_cached_prompt_tokens"] = cached + (0.0 if math.isnan(slot["eval_cached_prompt_tokens"])
                                                              else slot["eval_cached_prompt_tokens"])
            if not math.isnan(episodes):
                slot["eval_episodes"] += episodes
            if not math.isnan(reward):
                slot["rewards"].append(reward)
    if not train_rows:
        hint = ""
        if any(k in seen_keys for k in ("train_mean_nll", "loss:sum")):
            hint = "; this looks like a supervised run, which has no rollouts to bill"
        raise TinkerNomicsError(f"{file_label}: no training steps: no record has {TRAIN_AC} (missing token "
                                f"columns; a tinker-cookbook RL log or its W&B history is expected){hint}")

    notes = list(extra_notes)
    train_rows.sort(key=lambda row: (row["step"], row["line"]))
    by_step: dict[int, list[dict]] = {}
    for row in train_rows:
        by_step.setdefault(row["step"], []).append(row)
    repeated = {s: rows for s, rows in by_step.items() if len(rows) > 1}
    if repeated:
        first = min(repeated)
        lines = ", ".join(str(row["line"]) for row in repeated[first])
        if null_is_absent:
            raise TinkerNomicsError(f"{file_label}: step {first} appears {len(repeated[first])} times (rows {lines}): "
                                    f"mixed runs in one export? Export one run")
        notes.append(f"{len(repeated)} step number(s) are logged more than once (first: step {first}, lines {lines}), "
                     f"as when a run resumes from a checkpoint and repeats steps; every logged step was sampled and "
                     f"trained, so each is billed")
    steps_logged = sorted(by_step)
    expected = steps_logged[-1] - steps_logged[0] + 1
    if len(steps_logged) < expected:
        missing = expected - len(steps_logged)
        gap = next(s for s in range(steps_logged[0], steps_logged[-1] + 1) if s not in by_step)
        notes.append(f"{missing} training step(s) between {steps_logged[0]} and {steps_logged[-1]} are missing "
                     f"(first: {gap}); their tokens are not in the sums" +
                     ("; run.history() samples 500 rows by default, export with scan_history() for every step"
                      if null_is_absent else ""))

    rows = [dict(row) for row in train_rows]
    for row in rows:
        row.update(eval_completion_tokens=0.0, eval_prompt_tokens=0.0, eval_cached_prompt_tokens=math.nan,
                   eval_episodes=0.0, eval_reward=math.nan, eval_line=None)
    first_of_step = {}
    for row in rows:
        first_of_step.setdefault(row["step"], row)
    for step, slot in evals.items():
        target = first_of_step.get(step)
        if target is None:
            target = {"step": step, "has_train": False, "train_completion_tokens": 0.0, "train_prompt_tokens": 0.0,
                      "cached_prompt_tokens": math.nan, "episodes": math.nan, "turns": math.nan,
                      "reward": math.nan, "step_seconds": math.nan, "logged_cost_usd": math.nan,
                      "logged_trained_tokens": math.nan, "line": None}
            rows.append(target)
        rewards = slot.pop("rewards")
        target.update(slot)
        target["eval_reward"] = sum(rewards) / len(rewards) if rewards else math.nan
    rows.sort(key=lambda row: (row["step"], not row["has_train"], row["line"] if row["line"] is not None else -1))
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["step"] = table["step"].astype("int64")
    table["has_train"] = table["has_train"].astype(bool)
    for column in ("line", "eval_line"):
        table[column] = pd.array([None if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)
                                  for v in table[column]], dtype="Int64")
    for column in COLUMNS:
        if column not in ("step", "has_train", "line", "eval_line"):
            table[column] = table[column].astype("float64")
    for column in ("train_completion_tokens", "train_prompt_tokens", "eval_completion_tokens", "eval_prompt_tokens"):
        if not math.isfinite(float(table[column].sum())):
            raise TinkerNomicsError(f"{file_label}: the {column.replace('_', ' ')} do not add up to a finite number")
    table = table.reset_index(drop=True)

    mode = _mode(seen_keys)
    model = config.get("model_name")
    return RunLog(table, source, kind, model, config, mode, run_name or config.get("wandb_name"), tuple(notes),
                  logged_totals, frozenset(seen_keys))


def _checked_cached(r: _Reader, cached: float, prompt_key: str) -> float:
    if not math.isnan(cached):
        prompt = r.rec.get(prompt_key)
        if isinstance(prompt, (int, float)) and not isinstance(prompt, bool) and cached > float(prompt) * (1 + 1e-9):
            r.fail(f"cached prompt tokens ({cached:g}) exceed the prompt tokens {prompt_key} ({float(prompt):g})")
    return cached


def _mode(keys: set[str]) -> str:
    if "training_client/step" in keys:
        return "async + stream-minibatch" if any(k.startswith("sampling_client/") for k in keys) else "async"
    if any(k.startswith("sampling_client/") for k in keys):
        return "stream-minibatch"
    if "progress/batch" in keys:
        return "sync"
    return "unknown"


def read_config(path: Path) -> dict:
    """The run settings the bill and the calibration use, found anywhere in a nested config.json."""
    if not path.is_file():
        return {}
    label = str(path)
    obj = load_json(path, label)
    if not isinstance(obj, dict):
        raise TinkerNomicsError(f"{label}: not a JSON object")
    found: dict[str, Any] = {}
    queue: list[tuple[str, Any]] = [("", obj)]
    while queue:  # breadth first: the shallowest occurrence of a key wins
        prefix, node = queue.pop(0)
        if isinstance(node, dict):
            for key, value in node.items():
                # batch_size means groups per batch only inside the dataset builder (math_rl's builders)
                wanted = key in CONFIG_KEYS and (key != "batch_size" or "dataset" in prefix)
                if wanted and key not in found and not isinstance(value, (dict, list)) and value is not None:
                    found[key] = (value, f"{prefix}{key}")
                if isinstance(value, (dict, list)):
                    queue.append((f"{prefix}{key}.", value))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                if isinstance(value, (dict, list)):
                    queue.append((f"{prefix}{i}.", value))
    config: dict[str, Any] = {"config_path": label}
    for key, (value, where) in found.items():
        if key in ("model_name", "log_path", "wandb_name"):
            if not isinstance(value, str):
                raise TinkerNomicsError(f"{label}: {where} is {value!r}, not a text")
            config[key] = value
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise TinkerNomicsError(f"{label}: {where} is {value!r}, not a non-negative number")
        config[key] = value
    if "groups_per_batch" not in config and "batch_size" in config:
        config["groups_per_batch"] = config["batch_size"]
    config.pop("batch_size", None)
    return config
