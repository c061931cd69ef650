"""What produced an output: the package version and the date of the newest recorded row in data/.

`produced_by()` goes into every JSON the command line prints (and into a report's validation.json), so a
saved estimate says which code and which data made it. The data date is the newest value of a `recorded` or
`date` column in any table under data/ (the day a row was looked up or observed: a GPU listing, a model's
architecture, a sandbox rate), not a price list's effective date, which can lie ahead of when it was recorded.
"""
from __future__ import annotations

import csv
import datetime
import functools

from ..errors import TinkerNomicsError
from ..version import __version__
from .tables import data_dir

DATE_COLUMNS = ("recorded", "date")


@functools.lru_cache(maxsize=None)
def data_recorded() -> str:
    """The newest `recorded` or `date` value across data/**/*.csv, as YYYY-MM-DD."""
    root = data_dir()
    newest: datetime.date | None = None
    for path in sorted(root.rglob("*.csv")):
        rel = path.relative_to(root).as_posix()
        try:
            newest = _newest_in(path, rel, newest)
        except UnicodeDecodeError:
            raise TinkerNomicsError(f"{rel}: not UTF-8 text") from None
        except csv.Error as exc:   # e.g. a stray quote that runs a cell past the csv module's field limit
            raise TinkerNomicsError(f"{rel}: malformed CSV ({exc})") from None
    if newest is None:
        raise TinkerNomicsError(f"no table in {root} has a recorded or date column")
    return newest.isoformat()


def _newest_in(path, rel: str, newest: datetime.date | None) -> datetime.date | None:
    """The newest of `newest` and the dates in one table's `recorded` and `date` columns."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        columns = [c for c in DATE_COLUMNS if c in (reader.fieldnames or [])]
        for line_no, row in enumerate(reader, start=2):
            for column in columns:
                text = (row.get(column) or "").strip()
                if not text:
                    continue
                try:
                    day = datetime.date.fromisoformat(text)
                except ValueError:
                    raise TinkerNomicsError(f"{rel} row {line_no} column {column}: {text!r} is not a date "
                                            f"(YYYY-MM-DD)") from None
                newest = day if newest is None or day > newest else newest
    return newest


def produced_by() -> dict:
    """{"tinker_nomics": version, "data_recorded": newest recorded date in data/}."""
    return {"tinker_nomics": __version__, "data_recorded": data_recorded()}
