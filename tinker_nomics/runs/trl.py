"""TRL's GRPO logs: `trainer_state.json` and W&B exports of the same metrics.

Where each name is defined:

- `trainer_state.json`: transformers' `TrainerState.save_to_json` (src/transformers/trainer_callback.py) writes the
  state with sorted keys; `log_history` holds one entry per `logging_steps` optimizer steps, each
  `{**logs, "step": global_step}` (`Trainer.log`), and a final entry with `train_runtime` (seconds of the whole
  `train()` call, evaluation and checkpoints included).
- GRPO's metrics (huggingface/trl, trl/trainer/grpo_trainer.py; listed in docs/source/grpo_trainer.md, "Logged
  metrics"): `num_tokens`, "the total number of tokens processed so far, including both prompts and completions"
  (cumulative); `step_time`, "the average time (in seconds) taken per training step (including generation)" (since
  huggingface/trl#4516, late 2025); `completions/mean_length` (`completion_length` in early-2025 TRL); `reward`.
  `GRPOTrainer.log` averages every metric over the entries since the last log, so each entry is a window of
  `logging_steps` optimizer steps.
- W&B (transformers' `WandbCallback.on_log`): the same keys under `train/`, with `train/global_step` as the step
  (W&B's own `_step` counts log calls, not optimizer steps); `train_runtime` goes to the run summary, not the history.

- Profiling (trl/extras/profiling.py, `profiling_context` and `profiling_decorator`): the seconds of each timed
  block, as `profiling/Time taken: <trainer class>.<block>`, sent to W&B with `wandb.log` on its own (no step: a row
  of W&B's own between the trainer's log rows) from the main process. The blocks read here are the rollout
  (`vLLM.generate`, `transformers.generate`, `transformers.generate_batch` in `_generate_and_score_completions`) and
  the weight hand-off to vLLM (`_move_model_to_vllm`); each is summed over the rows since the previous log row and
  spread over that row's optimizer steps. The log-prob blocks (`_get_per_token_logps_and_entropies`) are not read:
  the loss's own forward pass runs through the same method, so its time mixes the update with the log-prob passes.

Without profiling rows TRL logs no split between generation and training time, and no prompt length: generated tokens are the mean
completion length × completions per step (which TRL does not record: it is per_device_train_batch_size ×
processes × gradient_accumulation_steps, given here as prompts per step × group size), and prompt tokens are the
logged total minus the generated tokens. No model name and no GPU type or count are in `trainer_state.json`; a
checkpoint folder's `config.json` (`_name_or_path`) names the model.
"""
from __future__ import annotations

import math
import re
from array import array
from pathlib import Path

from ..errors import TinkerNomicsError
from . import stream
from .files import JsonLines
from .hosted import HostedRun, StepRecord, StepTable, settle

FRAMEWORK = "TRL"
STEP_TIME = "step_time"
TOKENS = "num_tokens"
LENGTHS = ("completions/mean_length", "completion_length")
REWARD = "reward"
RUNTIME = "train_runtime"
SIGNATURE = (TOKENS, *LENGTHS, STEP_TIME)
WANDB_PREFIX = "train/"
PROFILING = "profiling/Time taken: "
# profiled blocks (after the trainer class's name) -> the phase they time
PROFILED = {"vLLM.generate": "generation", "transformers.generate": "generation",
            "transformers.generate_batch": "generation", "_move_model_to_vllm": "refit"}
REFIT_PHASES = ("refit",)
PROFILED_ROWS = "_profiled"   # a log row's profiled seconds since the previous one: phase -> [(key, raw value)]
ROW_KEYS = ("step", STEP_TIME, TOKENS, *LENGTHS, REWARD, PROFILED_ROWS)   # what a training entry is read for


def profiled_phase(key: str) -> str | None:
    """The phase a W&B profiling column times (`profiling/Time taken: GRPOTrainer.vLLM.generate` -> generation), or
    None for a block not read."""
    if not key.startswith(PROFILING):
        return None
    _, _, block = key[len(PROFILING):].partition(".")
    return PROFILED.get(block)


def is_trl_keys(keys) -> bool:
    """W&B columns of a TRL run (`train/num_tokens`, …) or trainer_state keys."""
    keys = set(keys)
    return any(k in keys or WANDB_PREFIX + k in keys for k in (TOKENS, *LENGTHS)) and (
        "train/global_step" in keys or "step" in keys or any(WANDB_PREFIX + k in keys for k in SIGNATURE))


# transformers' ProgressCallback and PrinterCallback print each log dict as str(dict), floats as f"{v:.4g}" strings
# (src/transformers/trainer_callback.py): `{'loss': '0.0123', …, 'epoch': '0.01'}`, with no step
_CONSOLE_LINE = re.compile(r"^\s*\{'(loss|reward|num_tokens|completions/mean_length|completion_length|grad_norm)': ")


def looks_like_console(line: str) -> bool:
    """A line of TRL's console output: a printed log dict of GRPO's keys with its epoch."""
    return bool(_CONSOLE_LINE.match(line)) and "'epoch': " in line


def is_trainer_state(obj) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("log_history"), list)


def state_file(path: Path) -> Path | None:
    """trainer_state.json in a run's output folder, or in its newest checkpoint-N/ folder."""
    if (path / "trainer_state.json").is_file():
        return path / "trainer_state.json"
    checkpoints = []
    for child in path.glob("checkpoint-*"):
        tail = child.name.split("-", 1)[1]
        if tail.isdigit() and (child / "trainer_state.json").is_file():
            checkpoints.append((int(tail), child))
    return max(checkpoints)[1] / "trainer_state.json" if checkpoints else None


def model_from_config(folder: Path) -> tuple[str | None, str | None]:
    """The model a checkpoint folder's config.json names (`_name_or_path`), and where it was read."""
    config = folder / "config.json"
    if not config.is_file():
        return None, None
    try:
        obj = stream.json_document(config, str(config))
    except (TinkerNomicsError, JsonLines):
        return None, None
    name = obj.get("_name_or_path") if isinstance(obj, dict) else None
    if isinstance(name, str) and name.strip():
        return name.strip(), f"{config} _name_or_path"
    return None, None


def read_state(path: Path, label: str, facts_override: dict | None = None) -> HostedRun:
    """A trainer_state.json (or a folder holding one, or checkpoint-N/ folders), its log_history read an entry at a
    time (stream.json_members: memory flat however long the run)."""
    file = state_file(path) if path.is_dir() else path
    if file is None:
        raise TinkerNomicsError(f"{label}: no trainer_state.json in the folder or its checkpoint-N/ folders")
    file_label = str(file) if path.is_dir() else label
    stream.check_regular(file, file_label)
    state: dict = {}

    def entries():
        found = False
        try:
            for key, value in stream.json_members(file, file_label, streamed=lambda k: k == "log_history"):
                if key != "log_history":
                    state[key] = value
                    continue
                if not isinstance(value, stream.Streamed) or value.kind != "list":
                    break
                found = True
                for i, entry in value:
                    if not isinstance(entry, dict):
                        raise TinkerNomicsError(f"{file_label}: log_history entry {i}: not a JSON object")
                    yield ("log_history entry", i), entry
        except JsonLines:
            raise TinkerNomicsError(f"{file_label}: JSON lines, not a trainer_state.json document") from None
        if not found:
            raise TinkerNomicsError(f"{file_label}: not a trainer_state.json (no log_history list)")

    model, model_where = model_from_config(file.parent)
    facts, where = {}, {}
    if model:
        facts["model_path"], where["model"] = model, model_where
    return _read(entries(), file_label, "trainer_state.json", facts, where, facts_override,
                 late=lambda: {"global_step": state.get("global_step")})


def read_records(records, label: str, kind: str | None, facts_override: dict | None = None, notes=(),
                 run_name=None, config: dict | None = None) -> HostedRun:
    """A W&B export of a TRL run: `train/…` columns, `train/global_step` as the step; `config` the run's W&B config
    where the source holds it (W&B's run file: transformers' WandbCallback logs the model's config and the
    training arguments, so `_name_or_path` names the model and GRPOConfig's `num_generations` the group size). A
    stream.Table gives its kind, notes and run name once read."""
    def unprefixed():
        profiled: dict[str, list] = {}   # the profiling rows since the last log row
        for where, rec in records:
            for key, value in rec.items():
                phase = profiled_phase(key)
                if phase and value is not None:
                    profiled.setdefault(phase, []).append((key, value))
            out = {k[len(WANDB_PREFIX):]: v for k, v in rec.items() if k.startswith(WANDB_PREFIX)}
            if "global_step" in out:
                out["step"] = out.pop("global_step")
            if TOKENS in out or any(k in out for k in LENGTHS):   # a log row closes the window
                out[PROFILED_ROWS], profiled = profiled, {}
            yield where, out
    facts, where = {}, {}
    name = (config or {}).get("_name_or_path")
    if isinstance(name, str) and name.strip():
        facts["model_path"], where["model"] = name.strip(), "the run's W&B config: _name_or_path"
    group = (config or {}).get("num_generations")
    if isinstance(group, int) and not isinstance(group, bool) and group > 0:
        facts["group_size"], where["group_size"] = float(group), "the run's W&B config: num_generations"
    def described():   # what the table learned while it was read
        table_kind, table_run, table_notes = stream.described(records, FRAMEWORK, kind, run_name, notes)
        return {"kind": table_kind, "run_name": table_run, "notes": table_notes}
    return _read(unprefixed(), label, kind, facts, where, facts_override, late=described)


def _read(entries, label: str, kind: str, facts: dict, where: dict, facts_override: dict | None, late=None) \
        -> HostedRun:
    """The run from its log entries, read once as they come; `late()` gives what is known only once they are read
    (a trainer_state's global_step, a table's kind, notes and run name)."""
    table = StepTable(label, text_numbers=True)
    kept = _Entries()    # the training entries, with only the keys read below (memory: a few numbers a row)
    keys: set[str] = set()
    runtime = None
    for place, entry in entries:
        keys.update(entry)
        if RUNTIME in entry:
            runtime = entry[RUNTIME]   # the final summary entry's; the last one logged
        if TOKENS not in entry and not any(k in entry for k in LENGTHS):
            continue   # an eval entry, the final summary, or another callback's log
        if "step" not in entry:
            raise TinkerNomicsError(f"{label}: {place[0]} {place[1]}: a training entry without its step")
        kept.add(place, entry, _step_of(entry, label, place))
    after = {"global_step": None, "kind": kind, "run_name": None, "notes": [], **(late() if late else {})}
    kind, run_name, notes, global_step = after["kind"], after["run_name"], list(after["notes"]), after["global_step"]
    if not len(kept):
        raise TinkerNomicsError(f"{label}: no GRPO training entries (no {TOKENS} or completions/mean_length)")
    rows = kept.by_step()
    has_time = any(kept.present[STEP_TIME])
    if not has_time:
        return _whole_run(rows, table, label, kind, facts, where, facts_override, runtime, global_step, notes,
                          keys, run_name)
    previous_step, previous_tokens = 0.0, 0.0
    profiled = False
    for place, entry in rows:
        step = _step_of(entry, label, place)
        rec = StepRecord(place, step)
        covered = step - previous_step
        if covered < 1:
            raise TinkerNomicsError(f"{label}: {place[0]} {place[1]}: step {step:g} repeats or goes back from "
                                    f"{previous_step:g}")
        rec.values["steps_covered"] = ("step", covered)
        if STEP_TIME in entry:
            rec.values["step_seconds"] = (STEP_TIME, entry[STEP_TIME])
        if TOKENS in entry and entry[TOKENS] is not None:
            total = table.number(place, TOKENS, entry[TOKENS], 0.0)
            if total + 0.5 < previous_tokens:
                raise TinkerNomicsError(f"{label}: {place[0]} {place[1]}: {TOKENS} falls from {previous_tokens:,.0f} "
                                        f"to {total:,.0f}; it is cumulative")
            rec.values["trained_tokens"] = (TOKENS, total - previous_tokens)
            previous_tokens = total
        length = next((k for k in LENGTHS if entry.get(k) is not None), None)
        if length:
            rec.values["response_mean"] = (length, entry[length])
        if REWARD in entry:
            rec.values["reward"] = (REWARD, entry[REWARD])
        profiled |= _profiled(rec, entry, table, covered)
        previous_step = step
        table.add(rec)
    notes.append("TRL logs each metric as a mean over the optimizer steps since the previous log entry "
                 "(logging_steps); a row stands for that window")
    if profiled:
        notes.append("generation and the weight hand-off to vLLM from TRL's profiling rows (profiling/Time taken: "
                     "…vLLM.generate, …_move_model_to_vllm), summed over each log window and spread over its steps; "
                     "the update and the log-prob passes are not timed apart (one profiled method serves both)")
    return _finish(table, label, kind, facts, where, facts_override, notes, keys, run_name)


class _Entries:
    """The training entries of a log, kept as columns (a few bytes an entry, not a dict): each read key's numbers in
    an array, with whether the entry has the key; a value that is not a plain number (text, a flag, null, the
    profiled rows) is kept apart, by entry, as it was, for the reader's checks to name."""

    def __init__(self):
        self.units: list[str] = []                    # "log_history entry", "record", "line" ...
        self.unit, self.number, self.step = array("B"), array("q"), array("d")
        self.cells = {k: array("d") for k in ROW_KEYS}
        self.present = {k: bytearray() for k in ROW_KEYS}
        self.other: dict[tuple[int, str], object] = {}

    def __len__(self) -> int:
        return len(self.number)

    def add(self, place, entry: dict, step: float) -> None:
        row = len(self.number)
        if place[0] not in self.units:
            self.units.append(place[0])
        self.unit.append(self.units.index(place[0]))
        self.number.append(place[1])
        self.step.append(step)
        for k in ROW_KEYS:
            value = entry.get(k)
            self.present[k].append(k in entry)
            if type(value) is float or (type(value) is int and abs(value) <= 2 ** 53):   # exact as a float
                self.cells[k].append(value)
            else:
                self.cells[k].append(0.0)
                if k in entry:
                    self.other[row, k] = value

    def entry(self, row: int) -> tuple[tuple[str, int], dict]:
        values = {k: self.other.get((row, k), self.cells[k][row]) for k in ROW_KEYS if self.present[k][row]}
        return (self.units[self.unit[row]], self.number[row]), values

    def by_step(self) -> "_InOrder":
        return _InOrder(self, sorted(range(len(self)), key=self.step.__getitem__))


class _InOrder:
    """The kept entries in step order, as (place, entry) pairs made as they are read."""

    def __init__(self, entries: _Entries, order: list[int]):
        self.entries, self.order = entries, order

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, i: int):
        return self.entries.entry(self.order[i])

    def __iter__(self):
        return (self.entries.entry(r) for r in self.order)

    def __reversed__(self):
        return (self.entries.entry(r) for r in reversed(self.order))


def _whole_run(rows, table, label, kind, facts, where, facts_override, runtime, global_step, notes, keys, run_name):
    """TRL before step_time (late 2025): one row for the whole run, timed by train_runtime / global_step."""
    if runtime is None:
        raise TinkerNomicsError(f"{label}: no {STEP_TIME} in any entry (TRL before late 2025) and no {RUNTIME} "
                                f"summary entry: the log holds no time")
    last_place, last = rows[-1]
    steps = _step_of(last, label, last_place) if global_step is None else float(global_step)
    rec = StepRecord(last_place, steps)
    rec.values["steps_covered"] = ("global_step", steps)
    seconds = table.number(last_place, RUNTIME, runtime, 0.0)
    rec.values["step_seconds"] = (RUNTIME, seconds / steps if steps else math.nan)
    tokens = next((e[TOKENS] for _, e in reversed(rows) if e.get(TOKENS) is not None), None)
    if tokens is not None:
        rec.values["trained_tokens"] = (TOKENS, tokens)
    spans, previous = [], 0.0   # each entry is a mean over its window; weight it by the window's length
    for place, entry in rows:
        step = _step_of(entry, label, place)
        key = next((k for k in LENGTHS if entry.get(k) is not None), None)
        if key:
            spans.append((table.number(place, key, entry[key], 0.0), step - previous))
        previous = step
    if spans and sum(w for _, w in spans) > 0:
        rec.values["response_mean"] = (LENGTHS[0], sum(v * w for v, w in spans) / sum(w for _, w in spans))
    table.add(rec)
    notes.append(f"no per-step time in this log (TRL logs step_time from late 2025): the run is one row timed by "
                 f"{RUNTIME} / global_step, which includes evaluation, checkpointing and the start of train()")
    return _finish(table, label, kind, facts, where, facts_override, notes, keys, run_name)


def _profiled(rec: StepRecord, entry: dict, table: StepTable, steps: float) -> bool:
    """The profiled generation and refit seconds of the window a log row closes, per optimizer step; whether
    there were any."""
    found = entry.get(PROFILED_ROWS) or {}
    for phase, items in found.items():
        seconds = sum(table.number(rec.where, key, value, 0.0) for key, value in items) / steps
        key = items[0][0] if len(items) == 1 else f"Σ {items[0][0]} ({len(items)} rows)"
        if phase == "generation":
            rec.values["generation_seconds"] = (key, seconds)
        else:
            rec.phases[phase] = (key, seconds)
    return bool(found)


def _step_of(entry, label, place) -> float:
    value = entry.get("step")
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise TinkerNomicsError(f"{label}: {place[0]} {place[1]}: step is {value[:40]!r}, not a number") \
                from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1 < value <= 1e12 \
            or value != int(value):
        raise TinkerNomicsError(f"{label}: {place[0]} {place[1]}: step is {value!r}, not a step number")
    return float(value)


def _finish(table, label, kind, facts, where, facts_override, notes, keys, run_name) -> HostedRun:
    steps, derived, facts, where, model = settle(table, facts, where, facts_override)
    notes = notes + derived
    if facts.get("samples_per_step") is None:
        notes.append("TRL does not log how many completions a step generates: pass --prompts-per-step and "
                     "--group-size to split its token count into generated and prompt tokens")
    return HostedRun(steps, label, FRAMEWORK, kind, model, facts, where, None, tuple(notes), run_name,
                     frozenset(keys))
