"""Read what a finished RL run left behind into one tidy per-step table.

Sources (shared/reference/tinker-cookbook-facts.md §1 lists what tinker-cookbook logs):

- a tinker-cookbook log folder: `metrics.jsonl` (one JSON object per line, `{"step": N, **metrics}`) and
  `config.json` when present (model_name, batch shape, max_tokens; nested anywhere);
- a bare `metrics.jsonl` file (its sibling `config.json` is read when the file is named `metrics.jsonl`);
- W&B exports of the same metrics: `run.history()` / `scan_history()` saved as CSV, JSON (records, the
  pandas column/split layouts) or JSON lines (`_step` replaces `step`; `_runtime`, `_timestamp` ignored),
  the run-history Parquet artifact (a `.parquet` file or a folder of them), and the chart-panel CSV
  (`Step` and `<run name> - <metric>` columns, `__MIN`/`__MAX` companions ignored).

Every shape the cookbook writes is understood: sync (`progress/batch`), stream-minibatch
(`sampling_client/*`) and async (`training_client/step`) runs; eval metrics on the training line or on
separate lines sharing its step number; eval keys under `test/` or `test/test/` (any evaluator under
`test/`); `env/all/total_cached_ob_tokens`, `tokens/*` and `cost/*` (0.6.1) and its final cumulative row;
`time/total` or `time/training_loop/total`. Other keys (`eval/<benchmark>/…`, `optim/…`) are ignored.

The tidy table (`RunLog.steps`), one row per training step (plus a row for an eval that has no training
line at its step, e.g. the final eval at step = end_batch), sorted by step:

==========================  ======================================================================
column                      meaning
==========================  ======================================================================
step                        the logged step number (`step`, or W&B's `_step`)
has_train                   True when the row is a training step
train_completion_tokens     env/all/total_ac_tokens: sampled tokens of the trained rollouts
train_prompt_tokens         env/all/total_ob_tokens: prompt tokens sent to the sampler (every turn)
cached_prompt_tokens        env/all/total_cached_ob_tokens (else tokens/prefill_cached); NaN = not logged
episodes                    env/all/total_episodes (rollouts = B×G); NaN = not logged
turns                       env/all/turns_per_episode (mean); NaN = not logged
reward                      env/all/reward/total (mean); NaN = not logged
eval_completion_tokens      test/…/env/all/total_ac_tokens at this step, 0 when no eval ran
eval_prompt_tokens          test/…/env/all/total_ob_tokens, 0 when no eval ran
eval_cached_prompt_tokens   test/…/env/all/total_cached_ob_tokens; NaN = not logged
eval_episodes               test/…/env/all/total_episodes, 0 when no eval ran
eval_reward                 test/…/env/all/reward/total; NaN when no eval ran
step_seconds                time/total or time/training_loop/total; NaN = not logged
logged_cost_usd             cost/step_usd (the cookbook's own estimate, eval excluded); NaN = not logged
logged_trained_tokens       tokens/trained (the datums' real length); NaN = not logged
line                        line (JSON lines) or row (tables, header = row 1) of the training record
eval_line                   line or row of the (first) eval record at this step; <NA> when none
==========================  ======================================================================

Bad input raises `TinkerNomicsError` with one line naming the file, the line or row and the reason;
nothing partial is returned. Files are only ever opened for reading.
"""
from __future__ import annotations

import csv
import functools
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from .errors import TinkerNomicsError
from .registry import Column, data_dir, load_table

# ------------------------------------------------------------------------------------------ the keys read

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
STEP_KEYS = ("step", "_step")
RUN_COLUMNS = ("run", "run_name", "run_id", "name", "id")  # a column naming the run in a W&B table export
KNOWN_KEYS = (TRAIN_AC, TRAIN_OB, *TRAIN_CACHED, EPISODES, TURNS, REWARD, *STEP_TIME, LOGGED_COST, LOGGED_TRAINED)

# A sanity bound, not a measurement: no RL step samples 10^15 tokens (the largest runs in
# data/measurements/published_runs.csv are far below 10^12 tokens in total). Above it a count is corrupt.
MAX_TOKENS_PER_STEP = 1e15
MAX_STEP = 10 ** 12

COLUMNS = ["step", "has_train", "train_completion_tokens", "train_prompt_tokens", "cached_prompt_tokens",
           "episodes", "turns", "reward", "eval_completion_tokens", "eval_prompt_tokens",
           "eval_cached_prompt_tokens", "eval_episodes", "eval_reward", "step_seconds", "logged_cost_usd",
           "logged_trained_tokens", "line", "eval_line"]

CONFIG_KEYS = ("model_name", "groups_per_batch", "batch_size", "group_size", "max_tokens", "eval_every",
               "num_substeps", "lora_rank", "learning_rate", "max_steps_off_policy", "log_path", "wandb_name")


@dataclass(frozen=True)
class RunLog:
    """A run read from its logs: the tidy per-step table and what was learned about the run."""
    steps: pd.DataFrame
    source: str                     # the path as given
    kind: str                       # cookbook log folder, metrics.jsonl, W&B history CSV, ...
    model: str | None               # model_name from config.json, as written there
    config: dict = field(default_factory=dict)
    mode: str = "unknown"           # sync, async, stream-minibatch (from the keys the log carries)
    run_name: str | None = None
    notes: tuple[str, ...] = ()     # how the log was read: gaps, repeated steps, downsampling
    logged_totals: dict = field(default_factory=dict)  # the cookbook's cumulative tokens/cost, when logged
    keys: frozenset = frozenset()   # every metric key the log carries

    @property
    def train(self) -> pd.DataFrame:
        """Only the training rows."""
        return self.steps[self.steps["has_train"]]

    @property
    def n_steps(self) -> int:
        return int(self.steps["has_train"].sum())

    @property
    def eval_steps(self) -> pd.DataFrame:
        return self.steps[self.steps["eval_line"].notna()]

    @property
    def cached_logged(self) -> bool:
        return bool(self.train["cached_prompt_tokens"].notna().any())

    @property
    def multi_turn(self) -> bool:
        return bool((self.train["turns"] > 1).any())


# ------------------------------------------------------------------------------------------ entry point


def read_run(path, run: str | None = None) -> RunLog:
    """Read a run's logs (see the module docstring for the accepted shapes) into a `RunLog`.

    `run` picks one run from an export that holds several (a chart-panel CSV, or a W&B table with a
    run-name column); without it, mixed runs are an error.
    """
    p = Path(path)
    label = str(path)
    try:
        if p.is_dir():
            return _read_folder(p, label, run)
        if not p.exists():
            raise TinkerNomicsError(f"{label}: no such file or folder")
        return _read_file(p, label, run)
    except PermissionError:
        raise TinkerNomicsError(f"{label}: cannot read it (permission denied)") from None
    except IsADirectoryError:
        raise TinkerNomicsError(f"{label}: is a folder where a file was expected") from None
    except OSError as exc:
        raise TinkerNomicsError(f"{label}: cannot read it ({exc.strerror or exc})") from None


def _read_folder(folder: Path, label: str, run: str | None) -> RunLog:
    metrics = folder / "metrics.jsonl"
    if metrics.is_file():
        config = _read_config(folder / "config.json")
        return _from_records(_jsonl_records(metrics, str(metrics)), str(metrics), label, "tinker-cookbook log folder",
                             config=config, null_is_absent=False)
    parquet = sorted(folder.glob("*.parquet"))
    if parquet:
        return _read_parquet(parquet, label, run)
    raise TinkerNomicsError(f"{label}: the folder has no metrics.jsonl (a tinker-cookbook log folder) and no "
                            f".parquet files (a W&B run-history artifact)")


def _read_file(p: Path, label: str, run: str | None) -> RunLog:
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        return _read_parquet([p], label, run)
    if suffix == ".csv":
        return _read_csv(p, label, run)
    if suffix in (".jsonl", ".ndjson"):
        config = _read_config(p.parent / "config.json") if p.name == "metrics.jsonl" else {}
        return _from_lines(p, label, run, config)
    if suffix == ".json":
        return _read_json(p, label, run)
    head = _head(p, label)
    if head.startswith(b"{"):
        return _from_lines(p, label, run, {})
    if head.startswith(b"["):
        return _read_json(p, label, run)
    raise TinkerNomicsError(f"{label}: unknown format (expected a log folder, metrics.jsonl, or a W&B export "
                            f"as .csv, .json, .jsonl or .parquet)")


def _head(p: Path, label: str) -> bytes:
    with open(p, "rb") as fh:
        head = fh.read(4096).lstrip()
    if not head:
        raise TinkerNomicsError(f"{label}: empty file")
    return head


def _from_lines(p: Path, label: str, run: str | None, config: dict) -> RunLog:
    records = _jsonl_records(p, label)
    wandb = bool(records) and "step" not in records[0][1] and "_step" in records[0][1]
    if wandb:
        records = _pick_run(_drop_nulls(records), label, run)
        return _from_records(records, label, label, "W&B history (JSON lines)", null_is_absent=True)
    return _from_records(records, label, label, "metrics.jsonl", config=config, null_is_absent=False)


# ------------------------------------------------------------------------------------------ JSON lines


def _jsonl_records(p: Path, label: str) -> list[tuple[tuple[str, int], dict]]:
    with open(p, "rb") as fh:
        data = fh.read()
    if not data.strip():
        raise TinkerNomicsError(f"{label}: empty file")
    lines = data.split(b"\n")
    records = []
    for number, raw in enumerate(lines, start=1):
        last_unterminated = number == len(lines) and raw != b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise TinkerNomicsError(f"{label}: line {number}: not UTF-8 text") from None
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except RecursionError:
            raise TinkerNomicsError(f"{label}: line {number}: not JSON (nested too deeply)") from None
        except ValueError as exc:  # JSONDecodeError, and the int-digits limit
            if last_unterminated:
                raise TinkerNomicsError(f"{label}: line {number}: truncated last line (the file ends mid-record; "
                                        f"was the run still writing it?)") from None
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise TinkerNomicsError(f"{label}: line {number}: not JSON ({reason})") from None
        if not isinstance(obj, dict):
            raise TinkerNomicsError(f"{label}: line {number}: not a JSON object (got {type(obj).__name__})")
        records.append((("line", number), obj))
    return records


# ------------------------------------------------------------------------------------------ W&B JSON


class _JsonLines(Exception):
    """The file is JSON lines, not one JSON document."""


def _load_json(p: Path, label: str, lines_ok: bool = False) -> Any:
    """One JSON document from `p`, read only; a one-line error naming the file (and line) otherwise.
    With `lines_ok`, a file of JSON lines raises _JsonLines for the caller to read it line by line."""
    with open(p, "rb") as fh:
        data = fh.read()
    if not data.strip():
        raise TinkerNomicsError(f"{label}: empty file")
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise TinkerNomicsError(f"{label}: not UTF-8 text") from None
    except RecursionError:
        raise TinkerNomicsError(f"{label}: not JSON (nested too deeply)") from None
    except ValueError as exc:
        if lines_ok and data.lstrip().startswith(b"{") and b"\n" in data.strip():
            raise _JsonLines() from None
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        where = f"line {exc.lineno}: " if isinstance(exc, json.JSONDecodeError) else ""
        raise TinkerNomicsError(f"{label}: {where}not JSON ({reason})") from None


def _read_json(p: Path, label: str, run: str | None) -> RunLog:
    try:
        obj = _load_json(p, label, lines_ok=True)
    except _JsonLines:
        return _from_lines(p, label, run, {})  # JSON lines saved with a .json name
    records = _json_table(obj, label)
    if records and "step" in records[0][1] and "_step" not in records[0][1]:
        return _from_records(records, label, label, "metrics (JSON array)", null_is_absent=False)
    records = _pick_run(_drop_nulls(records), label, run)
    return _from_records(records, label, label, "W&B history (JSON)", null_is_absent=True)


def _json_table(obj: Any, label: str) -> list[tuple[tuple[str, int], dict]]:
    """Records from the layouts a history DataFrame or scan_history() list is saved in."""
    if isinstance(obj, list):
        out = []
        for i, item in enumerate(obj, start=1):
            if not isinstance(item, dict):
                raise TinkerNomicsError(f"{label}: record {i}: not a JSON object (got {type(item).__name__})")
            out.append((("record", i), item))
        if not out:
            raise TinkerNomicsError(f"{label}: no records (an empty list)")
        return out
    if isinstance(obj, dict):
        if isinstance(obj.get("columns"), list) and isinstance(obj.get("data"), list):  # orient="split"
            columns = obj["columns"]
            out = []
            for i, row in enumerate(obj["data"], start=1):
                if not isinstance(row, list) or len(row) != len(columns):
                    raise TinkerNomicsError(f"{label}: data row {i}: expected {len(columns)} values")
                out.append((("record", i), {str(k): v for k, v in zip(columns, row)}))
            if not out:
                raise TinkerNomicsError(f"{label}: no records (empty data)")
            return out
        if obj and all(isinstance(v, dict) for v in obj.values()):  # orient="columns": {column: {index: value}}
            index: list[str] = []
            for column in obj.values():
                for key in column:
                    if key not in index:
                        index.append(key)
            index.sort(key=lambda k: (0, int(k)) if str(k).lstrip("-").isdigit() else (1, str(k)))
            return [(("record", i), {str(c): obj[c].get(k) for c in obj if k in obj[c]})
                    for i, k in enumerate(index, start=1)]
        if any(k in obj for k in STEP_KEYS):
            return [(("record", 1), obj)]
    raise TinkerNomicsError(f"{label}: not a run history (expected a list of records, or JSON lines)")


# ------------------------------------------------------------------------------------------ CSV


def _read_csv(p: Path, label: str, run: str | None) -> RunLog:
    with open(p, "rb") as fh:
        data = fh.read()
    if not data.strip():
        raise TinkerNomicsError(f"{label}: empty file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        row = data[:exc.start].count(b"\n") + 1
        raise TinkerNomicsError(f"{label}: row {row}: not UTF-8 text") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
        rows = []
        for cells in reader:
            rows.append((reader.line_num, cells))
    except csv.Error as exc:
        raise TinkerNomicsError(f"{label}: row {reader.line_num}: malformed CSV ({exc})") from None
    header = [h.strip() for h in header]
    if not any(header):
        raise TinkerNomicsError(f"{label}: row 1: no header")
    for line, cells in rows:
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
            raise TinkerNomicsError(f"{label}: row {line}: more cells ({len(cells)}) than header columns "
                                    f"({len(header)})")
    if "Step" in header and any(" - " in h for h in header):
        return _read_chart_csv(header, rows, label, run)
    records = []
    for line, cells in rows:
        if not any(c.strip() for c in cells):
            continue
        rec = {}
        for name, cell in zip(header, cells):
            if name and cell.strip() != "":
                rec[name] = cell.strip()
        records.append((("row", line), rec))
    if not records:
        raise TinkerNomicsError(f"{label}: no data rows under the header")
    kind = "W&B history (CSV)"
    if "step" in header and "_step" not in header:
        kind = "metrics (CSV)"
    records = _pick_run(records, label, run)
    return _from_records(records, label, label, kind, null_is_absent=True, text_numbers=True)


def _read_chart_csv(header: list[str], rows, label: str, run: str | None) -> RunLog:
    """W&B chart-panel download: `Step`, `<run> - <metric>`, `<run> - <metric>__MIN`, `__MAX`."""
    columns: dict[str, dict[str, int]] = {}   # run -> metric -> column index
    companions: dict[tuple[str, str], list[int]] = {}
    for i, name in enumerate(header):
        if name == "Step" or " - " not in name:
            continue
        base, suffix = name, ""
        for tail in ("__MIN", "__MAX"):
            if name.endswith(tail):
                base, suffix = name[: -len(tail)], tail
        run_name, _, metric = base.rpartition(" - ")
        if suffix:
            companions.setdefault((run_name, metric), []).append(i)
        else:
            columns.setdefault(run_name, {})[metric] = i
    if not columns:
        raise TinkerNomicsError(f"{label}: row 1: a chart-panel CSV without '<run> - <metric>' value columns")
    names = sorted(columns)
    if run is None:
        if len(names) > 1:
            raise TinkerNomicsError(f"{label}: mixed runs in one export ({', '.join(names)}); pick one with "
                                    f"--run NAME")
        run = names[0]
    elif run not in columns:
        raise TinkerNomicsError(f"{label}: no run named {run!r} in this export; it holds {', '.join(names)}")
    step_col = header.index("Step")
    records, downsampled = [], False
    for line, cells in rows:
        if not any(c.strip() for c in cells):
            continue
        rec = {}
        if step_col < len(cells) and cells[step_col].strip():
            rec["_step"] = cells[step_col].strip()
        for metric, i in columns[run].items():
            if i < len(cells) and cells[i].strip():
                rec[metric] = cells[i].strip()
                spread = [cells[j].strip() for j in companions.get((run, metric), []) if j < len(cells)]
                if len(set(s for s in spread if s)) > 1:
                    downsampled = True
        records.append((("row", line), rec))
    if not records:
        raise TinkerNomicsError(f"{label}: no data rows under the header")
    notes = []
    if downsampled:
        notes.append("the chart-panel export is downsampled (its __MIN and __MAX differ), so per-step values are "
                     "bucket averages and the sums are approximate; export the run history instead")
    return _from_records(records, label, label, "W&B chart-panel CSV", null_is_absent=True, text_numbers=True,
                         run_name=run, extra_notes=notes)


# ------------------------------------------------------------------------------------------ Parquet


def _read_parquet(paths: list[Path], label: str, run: str | None) -> RunLog:
    frames = []
    for path in paths:
        with open(path, "rb") as fh:
            data = fh.read()
        if not data:
            raise TinkerNomicsError(f"{path}: empty file")
        try:
            frames.append(pd.read_parquet(io.BytesIO(data)))
        except Exception as exc:  # pyarrow raises several types for a corrupt file; all mean the same here
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise TinkerNomicsError(f"{path}: not a readable Parquet file ({reason[:200]})") from None
    table = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    records = []
    for i, row in enumerate(table.to_dict(orient="records"), start=1):
        records.append((("row", i), {str(k): _plain(v) for k, v in row.items()}))
    if not records:
        raise TinkerNomicsError(f"{label}: the Parquet history has no rows")
    records = _pick_run(_drop_nulls(records), label, run)
    return _from_records(records, label, label, "W&B history (Parquet)", null_is_absent=True)


def _plain(value):
    if hasattr(value, "item") and not isinstance(value, (list, dict, str, bytes)):
        try:
            return value.item()
        except (ValueError, AttributeError):
            return value
    return value


# ------------------------------------------------------------------------------------------ helpers


def _is_null(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _drop_nulls(records):
    """W&B tables have a cell for every metric on every row; an empty one means "not logged at this step"."""
    return [(where, {k: v for k, v in rec.items() if not _is_null(v)}) for where, rec in records]


def _pick_run(records, label: str, run: str | None):
    """Refuse a W&B table that mixes several runs (a run-name column with several values) unless one is picked."""
    for column in RUN_COLUMNS:
        values = {str(rec[column]) for _, rec in records if column in rec}
        if len(values) > 1 or (run is not None and values):
            if run is None:
                shown = sorted(values)
                more = f" and {len(shown) - 6} more" if len(shown) > 6 else ""
                raise TinkerNomicsError(f"{label}: mixed runs in one export (column {column!r}: "
                                        f"{', '.join(shown[:6])}{more}); pick one with --run NAME")
            if run not in values:
                raise TinkerNomicsError(f"{label}: no run named {run!r} in column {column!r}; it holds "
                                        f"{', '.join(sorted(values)[:6])}")
            return [(w, r) for w, r in records if str(r.get(column)) == run]
    return records


def _alias(rec: dict) -> dict:
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
        if value is _MISSING or (self.null_is_absent and _is_null(value)):
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
            if key in self.rec and not (self.null_is_absent and _is_null(self.rec[key])):
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


def _from_records(records, file_label: str, source: str, kind: str, config: dict | None = None,
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
        rec = _alias(raw)
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
            elif key.startswith(CUMULATIVE_PREFIXES) and not _is_null(rec[key]):
                logged_totals[key] = r.number(key, minimum=0.0)
        has_train = TRAIN_AC in rec and not (null_is_absent and _is_null(rec[TRAIN_AC]))
        if not has_train and TRAIN_OB in rec and not (null_is_absent and _is_null(rec[TRAIN_OB])):
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


# ------------------------------------------------------------------------------------------ config.json


def _read_config(path: Path) -> dict:
    """The run settings the bill and the calibration use, found anywhere in a nested config.json."""
    if not path.is_file():
        return {}
    label = str(path)
    obj = _load_json(path, label)
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


# ------------------------------------------------------------------------------------------ bundled runs


@dataclass(frozen=True)
class BundledRun:
    """A public run whose logs ship in data/runs/, with the settings its author reported."""
    run: str
    path: Path
    model: str
    price_as: str | None
    price_as_reason: str
    groups_per_batch: float | None
    group_size: float | None
    max_tokens: float | None
    description: str
    source: str
    table: str                      # the runs.csv that lists it, relative to data/


@functools.lru_cache(maxsize=None)
def bundled_runs() -> dict[str, BundledRun]:
    """The runs in data/runs/*/runs.csv (the four OmniMath logs), keyed by run name."""
    out = {}
    for table in sorted(data_dir().glob("runs/*/runs.csv")):
        rel = table.relative_to(data_dir()).as_posix()
        rows = load_table(rel, [Column("run"), Column("file"), Column("model"), Column("price_as", required=False),
                                Column("price_as_reason", required=False),
                                Column("groups_per_batch", "float", False), Column("group_size", "float", False),
                                Column("max_tokens", "float", False), Column("description"), Column("source")])
        for r in rows:
            path = table.parent / r["file"]
            if not path.is_file():
                raise TinkerNomicsError(f"{rel} row {r['_row']} column file: {r['file']} not found beside it")
            out[r["run"]] = BundledRun(r["run"], path, r["model"], r["price_as"], r["price_as_reason"] or "",
                                       r["groups_per_batch"], r["group_size"], r["max_tokens"], r["description"],
                                       r["source"], rel)
    return out


def bundled_for_path(path) -> BundledRun | None:
    """The bundled run whose log file is `path` (compared by resolved path), if any."""
    try:
        target = Path(path).resolve()
    except (OSError, RuntimeError):
        return None
    for run in bundled_runs().values():
        if run.path.resolve() == target:
            return run
    return None
