"""Public run logs bundled in data/runs/ (data/runs/*/runs.csv), with the settings their authors reported."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from ..errors import TinkerNomicsError
from .tables import Column, data_dir, load_table


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
