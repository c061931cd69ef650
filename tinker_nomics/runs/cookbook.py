"""tinker-cookbook's metric vocabulary: which logged keys are the billed tokens, evals, times and costs, and the
run settings in its config.json (shared/reference/tinker-cookbook-facts.md §1 lists what it logs).

`from_records` turns records of any file shape (runs.files) into the tidy table (runs.runlog.RunLog).
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
from array import array
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pandas as pd

from ..errors import TinkerNomicsError
from ..sources.numbers import is_finite, shown
from . import stream
from .files import STEP_KEYS, exists, is_compressed, is_null, jsonl_lines, load_json, no_step_time, parse_line
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
# The keys that count (tokens, episodes): sums of whole things (tinker-cookbook-facts.md §1), so a fraction is a
# broken value, not a measurement. The same keys under an evaluator's `test/…/` prefix count too.
COUNT_KEYS = (TRAIN_AC, TRAIN_OB, *TRAIN_CACHED, EPISODES, LOGGED_TRAINED)

# A sanity bound, not a measurement: no RL step samples 10^15 tokens (the largest runs in
# data/measurements/published_runs.csv are far below 10^12 tokens in total). Above it a count is corrupt.
MAX_TOKENS_PER_STEP = 1e15
MAX_STEP = 10 ** 12

CONFIG_KEYS = ("model_name", "groups_per_batch", "batch_size", "group_size", "max_tokens", "eval_every",
               "num_substeps", "lora_rank", "learning_rate", "max_steps_off_policy", "log_path", "wandb_name")


_UNDERSCORED = {k.replace("/", "_"): k for k in KNOWN_KEYS}
_UNDERSCORED_EVAL = re.compile(r"^(test_(?:[a-z0-9]+_)*?)env_all_(total_ac_tokens|total_ob_tokens|total_episodes|"
                               r"total_cached_ob_tokens|reward_total)$")


def alias_name(key: str) -> str:
    """`env_all_total_ac_tokens` -> `env/all/total_ac_tokens` (how some W&B exports spell keys); other keys as
    they are."""
    if key in _UNDERSCORED:
        return _UNDERSCORED[key]
    m = _UNDERSCORED_EVAL.match(key)
    if m:
        prefix = m.group(1).replace("_", "/")
        metric = "reward/total" if m.group(2) == "reward_total" else m.group(2)
        return f"{prefix}env/all/{metric}"
    return key


def alias(rec: dict) -> dict:
    """Accept W&B's underscored spellings of the known keys (alias_name), unless the record has the slashed ones."""
    if TRAIN_AC in rec or TRAIN_OB in rec:
        return rec
    return {alias_name(key): value for key, value in rec.items()}


_MISSING = object()
_EXACT = 2 ** 53   # integers below this convert to float exactly


class _Reader:
    """Checks and converts one record's values, naming the file, line and key on failure."""

    def __init__(self, label: str, where: str, rec: dict, null_is_absent: bool, text_numbers: bool,
                 whole_counts: bool = True):
        self.label, self.where, self.rec = label, where, rec
        self.null_is_absent, self.text_numbers, self.whole_counts = null_is_absent, text_numbers, whole_counts

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
                if "_" in value:   # Python's digit separators ('1_000') are no logger's output
                    raise ValueError(value)
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

    def count(self, key: str | None, required: bool = False) -> float:
        """A count (tokens, episodes): a whole number unless `whole_counts` is off (a downsampled chart-panel
        export, whose values are bucket averages); NaN for a key of None (none of a key's spellings logged)."""
        if key is None:
            return math.nan
        value = self.number(key, required, 0.0, MAX_TOKENS_PER_STEP)
        if self.whole_counts and value == value and not value.is_integer():
            self.fail(f"{key} is {shown(value)}, not a whole number (a count)")
        return value

    def seconds(self, key: str | None) -> float:
        """A step time: more than 0 s (NaN logged, or no key, is a step without its time)."""
        if key is None:
            return math.nan
        value = self.number(key, maximum=MAX_TOKENS_PER_STEP, nan_ok=True)
        if value == 0.0:
            self.fail(no_step_time(key, value))
        return value

    def first_key(self, keys: Iterable[str]) -> str | None:
        """The first of `keys` (one value's spellings) the record logs."""
        return next((key for key in keys if key in self.rec and not (self.null_is_absent and is_null(self.rec[key]))),
                    None)

    def step(self) -> int:
        key = next((k for k in STEP_KEYS if k in self.rec), None)
        if key is None:
            self.fail("no step number (a 'step' or W&B '_step' field)")
        value = self.number(key, required=True, minimum=0.0, maximum=MAX_STEP)
        if value != int(value):
            self.fail(f"{key} is {value:g}, not a whole number")
        return int(value)


TRAIN_COLUMNS = ("train_completion_tokens", "train_prompt_tokens", "cached_prompt_tokens", "episodes", "turns",
                 "reward", "step_seconds", "logged_cost_usd", "logged_trained_tokens")
EVAL_COLUMNS = ("eval_completion_tokens", "eval_prompt_tokens", "eval_cached_prompt_tokens", "eval_episodes",
                "eval_reward")


def _train_values(r: _Reader) -> tuple:
    """A training record's numbers in TRAIN_COLUMNS order, each checked (the careful path, with the errors)."""
    return (r.count(TRAIN_AC, required=True), r.count(TRAIN_OB, required=True),
            _checked_cached(r, r.count(r.first_key(TRAIN_CACHED)), TRAIN_OB),
            r.count(EPISODES), r.number(TURNS, maximum=MAX_TOKENS_PER_STEP, nan_ok=True),
            r.number(REWARD, minimum=None, nan_ok=True), r.seconds(r.first_key(STEP_TIME)),
            r.number(LOGGED_COST, nan_ok=True), r.count(LOGGED_TRAINED))


# The checks of _train_values for the common case, in TRAIN_COLUMNS order: (keys tried in turn, lowest, highest,
# required, whole). A value passes when it is an int or float with lowest <= value <= highest, and a whole number
# where `whole` (NaN fails every comparison, so it goes down the careful path, which knows where NaN is allowed).
# A step time's lowest is the smallest float above 0: 0 s goes down the careful path, which refuses it.
_TOP = float(MAX_TOKENS_PER_STEP)
_ABOVE_ZERO = math.ulp(0.0)
_FAST_SPEC = (((TRAIN_AC,), 0.0, _TOP, True, True), ((TRAIN_OB,), 0.0, _TOP, True, True),
              (TRAIN_CACHED, 0.0, _TOP, False, True), ((EPISODES,), 0.0, _TOP, False, True),
              ((TURNS,), 0.0, _TOP, False, False),
              ((REWARD,), -sys.float_info.max, sys.float_info.max, False, False),
              (STEP_TIME, _ABOVE_ZERO, _TOP, False, False), ((LOGGED_COST,), 0.0, sys.float_info.max, False, False),
              ((LOGGED_TRAINED,), 0.0, _TOP, False, True))


def _fast_train_values(rec: dict):
    """The numbers of _train_values for the common record (every value present is an int or float in range:
    no text, null, NaN, infinity, bool, huge integer or fractional count), with no per-value objects; None sends
    the record down the careful path, which raises the right error or handles the exception."""
    out = []
    append, nan = out.append, math.nan
    for keys, low, high, required, whole in _FAST_SPEC:
        for key in keys:
            if key in rec:
                v = rec[key]
                kind = type(v)
                if (kind is int and -_EXACT < v < _EXACT or kind is float and (not whole or v.is_integer())) \
                        and low <= v <= high:
                    append(float(v))
                    break
                return None
        else:
            if required:
                return None
            append(nan)
    if out[2] == out[2] and out[2] > out[1] * (1 + 1e-9):   # more cached than prompt tokens: an error
        return None
    return out


class _Plan:
    """What a record with a given set of keys needs: the key renames (W&B's underscored spellings), its eval
    prefixes and its cumulative keys. Records of one log share a few key sets, so this is worked out once
    per set, not once per line."""
    __slots__ = ("rename", "eval_prefixes", "cumulative", "keys")

    def __init__(self, raw: dict):
        renames = {} if TRAIN_AC in raw or TRAIN_OB in raw else \
            {k: alias_name(k) for k in raw if alias_name(k) != k}
        self.rename = renames or None
        rec = alias(raw) if renames else raw
        self.keys = tuple(rec)
        self.eval_prefixes, self.cumulative = [], []
        for key in rec:
            if key.startswith("test/"):
                m = EVAL_AC.match(key)
                if m:
                    self.eval_prefixes.append(m.group(1))
            elif key.startswith(CUMULATIVE_PREFIXES):
                self.cumulative.append(key)


MAX_PLANS = 4096   # distinct key sets remembered; a log with more (random records) is planned line by line


class Accumulator:
    """A run's per-step numbers, summed as its records stream past: each training record's numbers go into
    one compact array per column (TRAIN_COLUMNS), evals into a small table by step. `add` takes a record as a
    dict (any file shape); `add_train` takes numbers a typed decoder already checked (TypedLines)."""

    def __init__(self, file_label: str, null_is_absent: bool = False, text_numbers: bool = False,
                 whole_counts: bool = True):
        self.file_label, self.null_is_absent, self.text_numbers = file_label, null_is_absent, text_numbers
        self.whole_counts = whole_counts   # off only for a downsampled chart-panel export (bucket averages)
        self.steps, self.lines = array("q"), array("q")
        self.values = array("d")   # row after row of TRAIN_COLUMNS: one C call per record to append
        self.evals: dict[int, list] = {}   # step -> [ac, ob, cached, episodes, reward sum, reward count, line]
        self.logged_totals: dict[str, float] = {}
        self.seen_keys: set[str] = set()
        self.plans: dict[tuple, _Plan] = {}
        self.any_record = False
        self.cut_off: int | None = None   # the last line, cut mid-record by a run still writing it (not read)

    def add_train(self, step: int, line: int, row) -> None:
        self.any_record = True
        self.steps.append(step)
        self.lines.append(line)
        self.values.extend(row)

    def add(self, where, raw: dict) -> None:
        self.any_record = True
        null_is_absent = self.null_is_absent
        key_set = tuple(raw)
        plan = self.plans.get(key_set)
        if plan is None:
            plan = _Plan(raw)
            self.seen_keys.update(plan.keys)
            if len(self.plans) < MAX_PLANS:
                self.plans[key_set] = plan
        rec = raw if plan.rename is None else {plan.rename.get(k, k): v for k, v in raw.items()}
        r = None
        for key in plan.cumulative:
            if not is_null(rec[key]):
                r = r or self._reader(where, rec)
                self.logged_totals[key] = r.number(key, minimum=0.0)
        has_train = TRAIN_AC in rec and not (null_is_absent and is_null(rec[TRAIN_AC]))
        if not has_train and TRAIN_OB in rec and not (null_is_absent and is_null(rec[TRAIN_OB])):
            r = r or self._reader(where, rec)
            r.fail(f"has {TRAIN_OB} but no {TRAIN_AC} (a token column the bill needs)")
        if not has_train and not plan.eval_prefixes:
            return
        step = rec.get("step")
        if type(step) is not int or not 0 <= step <= MAX_STEP:
            r = r or self._reader(where, rec)
            step = r.step()
        if has_train:
            row = _fast_train_values(rec)
            if row is None:
                r = r or self._reader(where, rec)
                row = _train_values(r)
            self.add_train(step, where[1], row)
        for prefix in plan.eval_prefixes:
            r = r or self._reader(where, rec)
            ac = r.count(prefix + TRAIN_AC, required=True)
            ob = r.count(prefix + TRAIN_OB, required=True)
            cached = _checked_cached(r, r.count(prefix + TRAIN_CACHED[0]), prefix + TRAIN_OB)
            episodes = r.count(prefix + EPISODES)
            reward = r.number(prefix + REWARD, minimum=None, nan_ok=True)
            slot = self.evals.setdefault(step, [0.0, 0.0, math.nan, 0.0, 0.0, 0, where[1]])
            slot[0] += ac
            slot[1] += ob
            if not math.isnan(cached):
                slot[2] = cached + (0.0 if math.isnan(slot[2]) else slot[2])
            if not math.isnan(episodes):
                slot[3] += episodes
            if not math.isnan(reward):
                slot[4] += reward
                slot[5] += 1

    def _reader(self, where, rec) -> _Reader:
        return _Reader(self.file_label, where, rec, self.null_is_absent, self.text_numbers, self.whole_counts)

    def finish(self, source: str, kind: str, config: dict | None = None, run_name: str | None = None,
               extra_notes: Iterable[str] = ()) -> RunLog:
        """The tidy table, with notes on repeated and missing steps; an error when nothing was trained."""
        file_label, config = self.file_label, dict(config or {})
        if not self.any_record:
            raise TinkerNomicsError(f"{file_label}: no records")
        if not self.steps:
            hint = ""
            if any(k in self.seen_keys for k in ("train_mean_nll", "loss:sum")):
                hint = "; this looks like a supervised run, which has no rollouts to bill"
            raise TinkerNomicsError(f"{file_label}: no training steps: no record has {TRAIN_AC} (missing token "
                                    f"columns; a tinker-cookbook RL log or its W&B history is expected){hint}")
        buffers = [self.steps, self.lines, self.values]   # handed over: freed as soon as the columns are built
        self.steps, self.lines, self.values = array("q"), array("q"), array("d")
        table, notes = _tidy_table(buffers, self.evals, file_label, self.null_is_absent)
        if self.cut_off is not None:
            notes.append(stream.cut_note(self.cut_off))
        return RunLog(table, source, kind, config.get("model_name"), config, _mode(self.seen_keys),
                      run_name or config.get("wandb_name"), tuple(extra_notes) + tuple(notes), self.logged_totals,
                      frozenset(self.seen_keys))


def from_records(records, file_label: str, source: str, kind: str, config: dict | None = None,
                 null_is_absent: bool = False, text_numbers: bool = False, run_name: str | None = None,
                 extra_notes: Iterable[str] = (), whole_counts: bool = True) -> RunLog:
    """The tidy table (runs.runlog) from a stream of records of any file shape (runs.files). `whole_counts` off
    lets a count be fractional (a downsampled chart-panel export averages them; its reader checks the rest)."""
    acc = Accumulator(file_label, null_is_absent, text_numbers, whole_counts)
    for where, rec in records:
        acc.add(where, rec)
    return acc.finish(source, kind, config, run_name, extra_notes)


# A log at least this large is read by several processes at once, one part each (see from_jsonl); smaller ones
# would spend more on starting the processes (about a second) than they save.
PARALLEL_MIN_BYTES = 256 * 1024 * 1024
MAX_PROCESSES = 4


def from_jsonl(path, file_label: str, source: str, kind: str, config: dict | None = None) -> RunLog:
    """A tinker-cookbook metrics.jsonl, read line by line. A line that only repeats keys already seen is
    decoded straight into its checked numbers (TypedLines); any other line (the first, an eval line, a line
    with a new key or a value the typed decoder refuses) is read in full as a dict, with every check and
    error message of `Accumulator.add`. Both paths give the same table.

    A large log (PARALLEL_MIN_BYTES) is cut at line starts into one part per CPU, read by that many processes,
    and the parts' arrays joined in file order: the same table, sooner. Any trouble in a part (a bad line,
    a process that cannot start) and the log is read again in one pass, which reports the first bad line
    by its number in the file."""
    acc = None
    processes = min(os.cpu_count() or 1, MAX_PROCESSES)
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    if processes > 1 and size >= PARALLEL_MIN_BYTES and not is_compressed(path):
        acc = _read_in_parts(path, file_label, size, processes)
    if acc is None:
        acc = _read_part(path, file_label)[0]
    return acc.finish(source, kind, config)


def _read_part(path, file_label: str, start: int = 0, stop: int | None = None, report=None):
    """(Accumulator, lines in the part) for the lines starting in [start, stop), numbered from 1 at start."""
    acc = Accumulator(file_label)
    typed = TypedLines.create()
    tally: dict = {}
    steps_append, lines_append, values_extend = acc.steps.append, acc.lines.append, acc.values.extend
    for number, raw, terminated in jsonl_lines(path, file_label, start, stop, tally, report):
        if typed is not None and typed.decoder is not None:   # the hot loop: a training line of known keys
            try:
                s = typed.decoder.decode(raw)
            except typed.error:
                s = None
            if s is not None:
                ac, ob, step = s.ac, s.ob, s.step
                cached = s.cached if s.cached == s.cached else s.cached2
                if ac is not UNSET_ and ob is not UNSET_ and step is not UNSET_ and not cached > ob * (1 + 1e-9):
                    steps_append(step)
                    lines_append(number)
                    values_extend((ac, ob, cached, s.episodes, s.turns, s.reward,
                                   s.seconds if s.seconds == s.seconds else s.seconds2, s.cost, s.trained))
                    acc.any_record = True
                    continue
        try:
            rec = parse_line(raw, number, file_label, terminated)
        except TinkerNomicsError:
            if terminated:
                raise
            acc.cut_off = number   # only the file's last line lacks a line ending
            break
        acc.add(("line", number), rec)
        if typed is not None:
            typed.learn(rec)
    return acc, tally.get("lines", 0)


def _read_part_main() -> None:
    """`python -c` entry of a part's process: argv = path, label, start, stop, result file. Writes the bytes it
    has read to stdout, a line per block (for the parent's progress bar), and the part as plain data to the
    result file; exit status 3 when the part has a bad line (the parent then reads the log in one pass)."""
    import pickle
    path, label, start, stop, result = sys.argv[1:6]

    def report(n: int) -> None:
        sys.stdout.write(f"{n}\n")
        sys.stdout.flush()
    try:
        acc, lines = _read_part(path, label, int(start), int(stop), report)
    except TinkerNomicsError:
        raise SystemExit(3)
    with open(result, "wb") as fh:
        pickle.dump((acc.steps.tobytes(), acc.lines.tobytes(), acc.values.tobytes(), acc.evals, acc.logged_totals,
                     acc.seen_keys, acc.any_record, lines, acc.cut_off), fh, protocol=pickle.HIGHEST_PROTOCOL)


def _read_in_parts(path, file_label: str, size: int, processes: int):
    """The parts read by separate Python processes and joined in file order (line numbers moved on by the
    lines before each part); None to read the log in one pass instead. The processes are started with
    `python -c` (not multiprocessing), so nothing of the caller's script runs again in them."""
    import pickle
    import selectors
    import subprocess
    import tempfile

    from .files import Progress, split_at_lines
    cuts = split_at_lines(path, file_label, processes)
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    code = "from tinker_nomics.runs.cookbook import _read_part_main; _read_part_main()"
    progress = Progress.for_file(file_label, size)
    running = []
    with tempfile.TemporaryDirectory(prefix="tinker-nomics-parts-") as tmp:
        try:
            for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
                result = Path(tmp) / f"part{i}.pickle"
                proc = subprocess.Popen([sys.executable, "-c", code, str(path), file_label, str(a), str(b), str(result)],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                        env=env)
                running.append((proc, result))
            selector = selectors.DefaultSelector()
            for proc, _ in running:
                selector.register(proc.stdout, selectors.EVENT_READ)
            done = 0
            while selector.get_map():
                for key, _ in selector.select(timeout=0.5):
                    line = key.fileobj.readline()
                    if not line:
                        selector.unregister(key.fileobj)
                        continue
                    done += int(line)
                if progress is not None:
                    progress.update(done)
            if any(proc.wait() != 0 for proc, _ in running):
                return None
            acc, offset = Accumulator(file_label), 0
            for _, result in running:   # one part in memory at a time, joined in file order
                with open(result, "rb") as fh:
                    offset += _join_part(acc, pickle.load(fh), offset)
        except (OSError, ValueError, EOFError, pickle.UnpicklingError):
            return None   # no processes here (a sandbox): one pass does the same work
        finally:
            for proc, _ in running:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
                proc.stdout.close()
            if progress is not None:
                progress.close()
    return acc


def _join_part(acc: Accumulator, part: tuple, offset: int) -> int:
    """A part read by `_read_part_main` appended to `acc`, its line numbers moved on by `offset`; its line count."""
    steps, lines, values, evals, totals, keys, any_record, count, cut_off = part
    if cut_off is not None:
        acc.cut_off = cut_off + offset
    acc.steps.frombytes(steps)
    acc.lines.frombytes((np.frombuffer(lines, dtype=np.int64) + offset).tobytes())
    acc.values.frombytes(values)
    for step, slot in evals.items():
        slot[6] += offset
        mine = acc.evals.get(step)
        if mine is None:
            acc.evals[step] = slot
            continue
        mine[0] += slot[0]
        mine[1] += slot[1]
        if not math.isnan(slot[2]):
            mine[2] = slot[2] + (0.0 if math.isnan(mine[2]) else mine[2])
        mine[3] += slot[3]
        mine[4] += slot[4]
        mine[5] += slot[5]
    acc.logged_totals.update(totals)   # a later part's value is the later one in the file
    acc.seen_keys |= keys
    acc.any_record = acc.any_record or any_record
    return count


try:
    from msgspec import UNSET as UNSET_
except ImportError:
    UNSET_ = object()


_NOT_A_FIELD_NAME = re.compile(r'[\\"\x00-\x1f]')


def _field_name_ok(key: str) -> bool:
    """Whether msgspec can name a struct field after this key (it refuses a backslash, a double quote and control
    characters); a line with any other key is read the dict way, with every check."""
    return _NOT_A_FIELD_NAME.search(key) is None


class TypedLines:
    """Decodes the training lines of a metrics.jsonl straight into checked numbers with msgspec: a struct whose
    fields are every key the log has shown so far (unknown keys are refused, so such a line goes the dict way
    and nothing it carries is missed), the bill's keys typed with their bounds (the checks of _train_values),
    the others decoded as they are. Eval and cumulative keys are never fields: their lines always go the
    dict way. `from_jsonl` runs the decoder in its loop."""

    MAX_REBUILDS = 32   # new key sets after which the log is read as dicts only (a log of random records)

    def __init__(self, msgspec):
        self.msgspec, self.fields, self.decoder, self.rebuilds = msgspec, set(), None, 0
        self.error = msgspec.MsgspecError

    @classmethod
    def create(cls):
        try:
            import msgspec
        except ImportError:   # without msgspec every line goes the dict way: the same table, slower
            return None
        return cls(msgspec)

    def learn(self, rec: dict) -> None:
        new = [k for k in rec if k not in self.fields]
        if not new or self.rebuilds >= self.MAX_REBUILDS:
            return
        if any(k.startswith("test/") or k.startswith(CUMULATIVE_PREFIXES) or alias_name(k) != k
               or not _field_name_ok(k) for k in new):
            return   # such a line needs the dict way every time
        self.fields.update(new)
        self.rebuilds += 1
        self.decoder = self.msgspec.json.Decoder(self._struct())

    def _struct(self):
        ms = self.msgspec
        from typing import Annotated, Any
        count = Annotated[float, ms.Meta(ge=0, le=MAX_TOKENS_PER_STEP, multiple_of=1)]   # whole: tokens, episodes
        mean = Annotated[float, ms.Meta(ge=0, le=MAX_TOKENS_PER_STEP)]
        seconds = Annotated[float, ms.Meta(gt=0, le=MAX_TOKENS_PER_STEP)]   # 0 s goes the dict way, refused there
        real = Annotated[float, ms.Meta(ge=-sys.float_info.max, le=sys.float_info.max)]
        money = Annotated[float, ms.Meta(ge=0, le=sys.float_info.max)]
        typed = {"step": ("step", Annotated[int, ms.Meta(ge=0, le=MAX_STEP)] | ms.UnsetType, ms.UNSET),
                 TRAIN_AC: ("ac", count | ms.UnsetType, ms.UNSET), TRAIN_OB: ("ob", count | ms.UnsetType, ms.UNSET),
                 TRAIN_CACHED[0]: ("cached", count, math.nan), TRAIN_CACHED[1]: ("cached2", count, math.nan),
                 EPISODES: ("episodes", count, math.nan), TURNS: ("turns", mean, math.nan),
                 REWARD: ("reward", real, math.nan), STEP_TIME[0]: ("seconds", seconds, math.nan),
                 STEP_TIME[1]: ("seconds2", seconds, math.nan), LOGGED_COST: ("cost", money, math.nan),
                 LOGGED_TRAINED: ("trained", count, math.nan)}
        spec = []
        for name, (attr, kind, default) in typed.items():   # a key not yet seen accepts no value: its line goes
            kind = kind if name in self.fields else ms.UnsetType  # the dict way once, and the key is learned
            spec.append((attr, kind, ms.field(name=name, default=default)))
        for i, key in enumerate(sorted(self.fields - set(typed))):
            spec.append((f"k{i}", Any, ms.field(name=key, default=None)))
        return ms.defstruct("CookbookLine", spec, forbid_unknown_fields=True)


def _tidy_table(buffers: list, evals, file_label, null_is_absent) -> tuple[pd.DataFrame, list[str]]:
    """The per-step arrays (`buffers`: steps, lines and values, emptied here so that the values are freed once they
    are columns) sorted by (step, line), checked for repeated and missing steps, with each eval joined to the first
    training row of its step (or a row of its own), as runs.runlog describes."""
    values = buffers.pop()
    step = np.frombuffer(buffers.pop(0), dtype=np.int64)
    line = np.frombuffer(buffers.pop(0), dtype=np.int64)
    order = np.lexsort((line, step))
    if np.all(order[1:] > order[:-1]):
        order = None   # already in order, as a log written step by step is
    take = (lambda a: a) if order is None else (lambda a: a[order])
    step, line = take(step), take(line)
    rows = np.frombuffer(values, dtype=np.float64).reshape(-1, len(TRAIN_COLUMNS))
    columns = {name: np.ascontiguousarray(take(rows[:, i])) for i, name in enumerate(TRAIN_COLUMNS)}
    del rows, values
    notes = []
    repeat = step[1:] == step[:-1]
    if repeat.any():
        first = int(step[1:][repeat][0])
        at = np.flatnonzero(step == first)
        shown = ", ".join(str(int(x)) for x in line[at])
        if null_is_absent:
            raise TinkerNomicsError(f"{file_label}: step {first} appears {len(at)} times (rows {shown}): mixed runs "
                                    f"in one export? Export one run")
        count = int(len(np.unique(step[1:][repeat])))
        notes.append(f"{count} step number(s) are logged more than once (first: step {first}, lines {shown}), as "
                     f"when a run resumes from a checkpoint and repeats steps; every logged step was sampled and "
                     f"trained, so each is billed")
    starts = np.r_[True, step[1:] != step[:-1]]   # the first row of each step (the rows are sorted by step)
    unique = step[starts]
    expected = int(unique[-1]) - int(unique[0]) + 1
    if len(unique) < expected:
        gap = int(unique[np.flatnonzero(np.diff(unique) > 1)[0]]) + 1
        notes.append(f"{expected - len(unique)} training step(s) between {int(unique[0])} and {int(unique[-1])} are "
                     f"missing (first: {gap}); their tokens are not in the sums" +
                     ("; run.history() samples 500 rows by default, export with scan_history() for every step"
                      if null_is_absent else ""))

    n = len(step)
    eval_cols = {"eval_completion_tokens": np.zeros(n), "eval_prompt_tokens": np.zeros(n),
                 "eval_cached_prompt_tokens": np.full(n, np.nan), "eval_episodes": np.zeros(n),
                 "eval_reward": np.full(n, np.nan)}
    eval_line = np.zeros(n, dtype=np.int64)
    eval_mask = np.zeros(n, dtype=bool)
    first_rows = np.flatnonzero(starts)
    alone = []   # evals at a step with no training record
    for s, slot in evals.items():
        k = int(np.searchsorted(unique, s))
        if k == len(unique) or unique[k] != s:
            alone.append((s, slot))
            continue
        _put_eval(eval_cols, eval_line, eval_mask, int(first_rows[k]), slot)

    has_train = np.ones(n, dtype=bool)
    line_mask = np.zeros(n, dtype=bool)
    if alone:
        alone.sort()
        m = len(alone)
        step = np.concatenate([step, np.array([s for s, _ in alone], dtype=np.int64)])
        line = np.concatenate([line, np.zeros(m, dtype=np.int64)])
        line_mask = np.concatenate([line_mask, np.ones(m, dtype=bool)])
        has_train = np.concatenate([has_train, np.zeros(m, dtype=bool)])
        for name in TRAIN_COLUMNS:
            fill = 0.0 if name in ("train_completion_tokens", "train_prompt_tokens") else np.nan
            columns[name] = np.concatenate([columns[name], np.full(m, fill)])
        for name in eval_cols:
            eval_cols[name] = np.concatenate([eval_cols[name], np.zeros(m) if name != "eval_cached_prompt_tokens"
                                              and name != "eval_reward" else np.full(m, np.nan)])
        eval_line = np.concatenate([eval_line, np.zeros(m, dtype=np.int64)])
        eval_mask = np.concatenate([eval_mask, np.zeros(m, dtype=bool)])
        for k, (_, slot) in enumerate(alone):
            _put_eval(eval_cols, eval_line, eval_mask, n + k, slot)
        order = np.lexsort((np.where(line_mask, -1, line), ~has_train, step))
        step, line, line_mask, has_train = step[order], line[order], line_mask[order], has_train[order]
        columns = {k: v[order] for k, v in columns.items()}
        eval_cols = {k: v[order] for k, v in eval_cols.items()}
        eval_line, eval_mask = eval_line[order], eval_mask[order]

    data = {"step": step, "has_train": has_train, **columns, **eval_cols,
            "line": pd.arrays.IntegerArray(line, line_mask), "eval_line": pd.arrays.IntegerArray(eval_line, ~eval_mask)}
    table = pd.DataFrame({name: data[name] for name in COLUMNS}, copy=False)
    for column in ("train_completion_tokens", "train_prompt_tokens", "eval_completion_tokens", "eval_prompt_tokens"):
        if not math.isfinite(float(table[column].sum())):
            raise TinkerNomicsError(f"{file_label}: the {column.replace('_', ' ')} do not add up to a finite number")
    return table, notes


def _put_eval(eval_cols: dict, eval_line, eval_mask, i: int, slot: list) -> None:
    ac, ob, cached, episodes, reward_sum, reward_count, line = slot
    eval_cols["eval_completion_tokens"][i] = ac
    eval_cols["eval_prompt_tokens"][i] = ob
    eval_cols["eval_cached_prompt_tokens"][i] = cached
    eval_cols["eval_episodes"][i] = episodes
    eval_cols["eval_reward"][i] = reward_sum / reward_count if reward_count else math.nan
    eval_line[i] = line
    eval_mask[i] = True


def is_count(key: str) -> bool:
    """Whether `key` (slashed, as alias_name spells it) counts whole things: COUNT_KEYS, also under an eval prefix."""
    return key in COUNT_KEYS or (key.startswith("test/") and key.endswith(tuple("/" + k for k in COUNT_KEYS)))


def check_count(file_label: str, where, rec: dict, key: str) -> None:
    """The whole-number check of one count in `rec` (its other checks too), for a reader that turns whole_counts
    off for some values only: a chart-panel export's exact (not downsampled) cells."""
    _Reader(file_label, where, rec, True, True).count(key)


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
    if not exists(path):   # a FIFO or device named config.json is refused by load_json, not skipped
        return {}
    label = str(path)
    obj = load_json(path, label, unique=True)
    if not isinstance(obj, dict):
        raise TinkerNomicsError(f"{label}: not a JSON object")
    return config_from(obj, label)


def config_from(obj: dict, label: str) -> dict:
    """read_config's settings from a config already read (config.json's, or the one a W&B run file holds)."""
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
                raise TinkerNomicsError(f"{label}: {where} is {shown(value)}, not a text")
            config[key] = value
            continue
        if not is_finite(value) or value < 0:
            raise TinkerNomicsError(f"{label}: {where} is {shown(value)}, not a non-negative number")
        config[key] = value
    if "groups_per_batch" not in config and "batch_size" in config:
        config["groups_per_batch"] = config["batch_size"]
    config.pop("batch_size", None)
    return config
