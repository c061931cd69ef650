"""File shapes a run history comes in, read into records: JSON lines, a JSON document in the layouts pandas and
W&B save tables in, and Parquet. Each record is ((unit, number), {key: value}), where unit/number name the line,
row or record for error messages. Files are only ever opened for reading.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import TinkerNomicsError

STEP_KEYS = ("step", "_step")


RUN_COLUMNS = ("run", "run_name", "run_id", "name", "id")  # a column naming the run in a W&B table export


def jsonl_records(p: Path, label: str) -> list[tuple[tuple[str, int], dict]]:
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


class JsonLines(Exception):
    """The file is JSON lines, not one JSON document."""


def load_json(p: Path, label: str, lines_ok: bool = False) -> Any:
    """One JSON document from `p`, read only; a one-line error naming the file (and line) otherwise.
    With `lines_ok`, a file of JSON lines raises JsonLines for the caller to read it line by line."""
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
            raise JsonLines() from None
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        where = f"line {exc.lineno}: " if isinstance(exc, json.JSONDecodeError) else ""
        raise TinkerNomicsError(f"{label}: {where}not JSON ({reason})") from None


def json_table(obj: Any, label: str) -> list[tuple[tuple[str, int], dict]]:
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


def plain(value):
    if hasattr(value, "item") and not isinstance(value, (list, dict, str, bytes)):
        try:
            return value.item()
        except (ValueError, AttributeError):
            return value
    return value


def is_null(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def drop_nulls(records):
    """W&B tables have a cell for every metric on every row; an empty one means "not logged at this step"."""
    return [(where, {k: v for k, v in rec.items() if not is_null(v)}) for where, rec in records]


def pick_run(records, label: str, run: str | None):
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
