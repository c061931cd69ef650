"""Sourced, dated tables in data/, loaded with a schema check, and lenient name lookup.

Every table row carries its source. A malformed row stops loading with one line naming the file, the row
(1-based, header = row 1) and the column. Names resolve leniently: case, punctuation and an `org/` prefix do
not matter (`qwen3-8b` = `Qwen/Qwen3-8B`); an unknown name lists the closest known ones.
"""
from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from ..errors import TinkerNomicsError, UnknownNameError, _squash
from .shipped import CHECKOUT, shipped

# ----------------------------------------------------------------------------------------------- tables


def data_dir() -> Path:
    """The registry folder: $TINKER_NOMICS_DATA, else the data/ the package ships (sources.shipped)."""
    env = os.environ.get("TINKER_NOMICS_DATA")
    if env:
        if not Path(env).is_dir():
            raise TinkerNomicsError(f"registry folder {env} (TINKER_NOMICS_DATA) not found")
        return Path(env)
    path = shipped("data")
    if path is None or not path.is_dir():
        raise TinkerNomicsError(f"registry folder not found: neither tinker_nomics/data in the installed package nor "
                                f"{CHECKOUT / 'data'} beside it (reinstall tinker-nomics, or set TINKER_NOMICS_DATA "
                                f"to a data/ folder)")
    return path


def parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("not finite")
    return value


def _to_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise ValueError("not a boolean")


PARSERS: dict[str, Callable[[str], object]] = {"str": str, "float": parse_float, "int": int, "bool": _to_bool}


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = "str"        # str | float | int | bool
    required: bool = True    # an empty cell is an error when required, None otherwise


def load_table(relpath: str, columns: Iterable[Column]) -> list[dict]:
    """Read data/<relpath> and check every row against `columns`; extra columns are kept as text."""
    path = data_dir() / relpath
    columns = list(columns)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            missing = [c.name for c in columns if c.name not in header]
            if missing:
                raise TinkerNomicsError(f"{relpath}: missing column(s) {', '.join(missing)}")
            rows = []
            for line_no, raw in enumerate(reader, start=2):
                if None in raw:
                    raise TinkerNomicsError(f"{relpath} row {line_no}: more cells than header columns")
                row = dict(raw)
                for col in columns:
                    text = (raw.get(col.name) or "").strip()
                    if text == "":
                        if col.required:
                            raise TinkerNomicsError(f"{relpath} row {line_no} column {col.name}: empty but required")
                        row[col.name] = None
                        continue
                    try:
                        row[col.name] = PARSERS[col.kind](text)
                    except (ValueError, TypeError):
                        raise TinkerNomicsError(
                            f"{relpath} row {line_no} column {col.name}: {text!r} is not a valid {col.kind}") from None
                row["_row"] = line_no
                rows.append(row)
    except FileNotFoundError:
        raise TinkerNomicsError(f"registry table {path} not found") from None
    except UnicodeDecodeError:
        raise TinkerNomicsError(f"{relpath}: not UTF-8 text") from None
    except csv.Error as exc:
        raise TinkerNomicsError(f"{relpath}: malformed CSV ({exc})") from None
    if not rows:
        raise TinkerNomicsError(f"{relpath}: no rows")
    return rows


# ----------------------------------------------------------------------------------------------- names


def build_index(names_by_key: dict[str, Iterable[str]]) -> dict[str, str]:
    """Map every squashed alias to its canonical key."""
    index: dict[str, str] = {}
    for canonical, aliases in names_by_key.items():
        for alias in [canonical, *aliases]:
            index.setdefault(_squash(alias), canonical)
    return index


def find(name: str, index: dict[str, str]) -> str | None:
    """The canonical key `name` stands for in `index` (its squashed form, or its last path part's), or None."""
    key = _squash(name)
    if key in index:
        return index[key]
    if "/" in name and _squash(name.split("/")[-1]) in index:
        return index[_squash(name.split("/")[-1])]
    return None


def lookup(kind: str, name: str, index: dict[str, str], known: Iterable[str], hint: str = "") -> str:
    if not isinstance(name, str) or not name.strip():
        raise TinkerNomicsError(f"{kind} name must be a non-empty string, got {name!r}")
    found = find(name, index)
    if found is None:
        raise UnknownNameError(kind, name, known, hint)
    return found


