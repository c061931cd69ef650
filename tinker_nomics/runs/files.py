"""File shapes a run history comes in, read as a stream of records: JSON lines, CSV, Parquet, and a JSON
document in the layouts pandas and W&B save tables in.

A record is `((unit, number), {key: value})`: unit and number name the line, row or record for error messages
("line 12", "row 3"), the dict holds what that line logged. Every reader here is a generator: it yields one
record at a time, so a metric vocabulary (runs.cookbook; a verl or TRL reader beside it) can consume any shape
and keep only what it sums, and memory stays flat however long the log is:

    for where, rec in jsonl_records(path, label):      # or csv_records, parquet_records, json_table
        ...                                            # accumulate per-step numbers into compact arrays

Only a JSON document (one array or object for the whole history) is parsed at once: the standard library
cannot parse one in pieces, and W&B saves small tables that way.

Every file is opened through `open_regular`: read only, and only when it is a regular file. A FIFO, a device
(`/dev/zero` behind a symlink) or a socket is refused in one line before a byte is read, so a reader can
neither block forever nor read without end. Bad content raises `TinkerNomicsError` naming the file, the
line or row and the reason; nothing partial is returned.

JSON lines are parsed with msgspec when it is installed (several times faster than the json module on
tinker-cookbook's 2 KB lines; with runs.cookbook's typed decoder it is what lets a million-line log validate
in seconds); a line msgspec refuses is parsed again with the json module, which accepts the NaN and Infinity
literals Python's json.dumps writes, and words the error for a line that really is broken.

For a vocabulary that decodes lines itself, `jsonl_lines` yields (line number, line, newline-terminated), the
line a memoryview into the block being read, and `parse_line` turns one into a dict with the same errors as
`jsonl_records`. `jsonl_lines(path, label, start, stop)` reads one part of a file, cut at line starts by
`split_at_lines`: that is how runs.cookbook reads a large log in several processes at once.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
import sys
import time
from itertools import chain
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..errors import TinkerNomicsError
from ..sources.hf_config import unique_keys
from .compressed import compression_of, decompressing, is_decompressing, not_compressed_parquet

try:
    import msgspec
    _fast_loads = msgspec.json.decode
except ImportError:   # the json module alone still reads every log, only slower
    _fast_loads = json.loads

STEP_KEYS = ("step", "_step")


def no_step_time(key: str, seconds: float) -> str:
    """The reason a logged step time of 0 s is refused, worded alike by every reader: a step that ran took time,
    so 0 s is a broken log line (read as a step, it would bill no GPU time)."""
    return f"{key} is {seconds:g} s, not a step time (a step that ran takes more than 0 s): a broken log line"


RUN_COLUMNS = ("run", "run_name", "run_id", "name", "id")  # a column naming the run in a W&B table export

Record = tuple[tuple[str, int], dict]

# Files at least this large show a progress bar on stderr when stderr is a terminal (at the ~150 MB/s the JSON
# lines reader manages on a 2-core machine, a couple of seconds' work).
PROGRESS_MIN_BYTES = 256 * 1024 * 1024


# ------------------------------------------------------------------------------------------ opening files

def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def open_regular(path, label: str):
    """`path` opened for reading in binary, if it is a regular file; otherwise one line saying what it is.

    It is checked with stat, then opened non-blocking and checked again with fstat on the open descriptor, so a
    FIFO named like a log cannot block the open, and a file swapped between the check and the open cannot slip
    through. A gzip, bzip2 or xz file is read decompressed (runs.compressed)."""
    mode = os.stat(path).st_mode   # a socket cannot even be opened: say what it is
    if not stat.S_ISREG(mode):
        raise TinkerNomicsError(f"{label}: is {_kind(mode)}; only regular files are read")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise TinkerNomicsError(f"{label}: is {_kind(mode)}; only regular files are read")
        os.set_blocking(fd, True)
        kind = compression_of(fd)
    except BaseException:
        os.close(fd)
        raise
    raw = os.fdopen(fd, "rb")
    return raw if kind is None else decompressing(raw, label, kind)


def is_compressed(path) -> bool:
    """Whether the regular file at `path` is compressed (runs.compressed): read in one pass, its size unknown."""
    with open_regular(path, str(path)) as fh:
        return is_decompressing(fh)


def exists(path: Path) -> bool:
    """True for anything at `path`, a dangling symlink or a FIFO included (Path.is_file() is False for a FIFO,
    which would hide it instead of refusing it)."""
    return os.path.lexists(path)


def input_at(target, inputs) -> str | None:
    """The first of the command's input files that `target` is, through symlinks and hard links (one file on
    disk); None when it is none of them. Nothing a command writes may replace what it reads."""
    if not os.path.lexists(target):
        return None
    for given in inputs:
        if given is None or not str(given).strip():
            continue
        try:
            if os.path.samefile(target, given):
                return str(given)
        except OSError:   # a missing input is the readers' error to report
            continue
    return None


def read_bytes(path, label: str) -> bytes:
    """A whole (small) file: a JSON document, a config.json."""
    with open_regular(path, label) as fh:
        return fh.read()


# ------------------------------------------------------------------------------------------ progress

class Progress:
    """A one-line progress bar on stderr for a large file, only when stderr is a terminal."""

    def __init__(self, label: str, total: int):
        self.label, self.total, self.started, self.shown = label, total, time.monotonic(), False

    @classmethod
    def for_file(cls, label: str, total: int) -> "Progress | None":
        stream = sys.stderr
        if total >= PROGRESS_MIN_BYTES and hasattr(stream, "isatty") and stream.isatty():
            return cls(label, total)
        return None

    def update(self, done: int, lines: int | None = None) -> None:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        share = min(done / self.total, 1.0) if self.total else 1.0
        bar = "#" * int(30 * share)
        rate = (f"{lines:,} lines ({lines / elapsed:,.0f}/s)" if lines is not None else
                f"{done / 1e6:,.0f} MB ({done / 1e6 / elapsed:,.0f} MB/s)")
        sys.stderr.write(f"\r{Path(self.label).name}: [{bar:<30}] {100 * share:5.1f}%  {rate}")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


# ------------------------------------------------------------------------------------------ JSON lines

BLOCK_BYTES = 8 * 1024 * 1024   # read this much at a time; memory holds about one block of the file
MAX_LINE_BYTES = 16 * 2 ** 20    # a log line longer than this is not a log line (a binary or corrupt file)


def too_long(label: str, number: int):
    return TinkerNomicsError(f"{label}: line {number}: longer than {MAX_LINE_BYTES // 2 ** 20} MiB (not a text log)")
_WHITESPACE = frozenset(b" \t\r\n\x0b\x0c")
BOM = b"\xef\xbb\xbf"   # UTF-8's byte-order mark, which some editors and Windows tools write first


def jsonl_lines(p, label: str, start: int = 0, stop: int | None = None, tally: dict | None = None,
                report=None) -> Iterator[tuple[int, memoryview, bool]]:
    """(line number, the line without its newline, whether a newline ended it) for each non-blank line of a
    JSON-lines file, read a block at a time; "empty file" when the whole file has none. The line is a
    memoryview into the current block: decode it (msgspec takes it as it is, `parse_line` turns it into a
    dict) or copy it with bytes(). For a vocabulary that decodes lines itself (runs.cookbook.TypedLines).

    A part of the file: `start` (a line start, see `split_at_lines`) to `stop`, numbering lines from 1 at
    `start`; `tally["lines"]` is then set to the number of lines in the part, blank ones included, and an
    empty part is no error. `report(bytes_read)` replaces the terminal progress bar (a reader in another
    process adds to a shared counter)."""
    whole = start == 0 and stop is None
    with open_regular(p, label) as fh:
        compressed = is_decompressing(fh)   # its decompressed size is not known in advance
        total = os.fstat(fh.fileno()).st_size
        stop = (math.inf if compressed else total) if stop is None else stop
        progress = Progress.for_file(label, total) if whole and report is None and not compressed else None
        if start:
            fh.seek(start)
        number = found = 0
        offset = start   # file position of data[0]
        rest = b""
        try:
            while offset < stop:
                block = fh.read(min(BLOCK_BYTES, max(stop - offset - len(rest), 0)) or BLOCK_BYTES)
                data = rest + block if rest else block
                if not data:
                    break
                if offset == 0 and data.startswith(BOM):
                    data, offset = data[len(BOM):], len(BOM)   # a byte-order mark before the first line
                view, find, pos = memoryview(data), data.find, 0
                limit = stop - offset   # lines starting at or after this index belong to the next part
                while pos < limit:
                    end = find(b"\n", pos)
                    if end < 0:
                        break
                    number += 1
                    if end - pos > MAX_LINE_BYTES:
                        raise too_long(label, number)
                    if end > pos and (data[pos] not in _WHITESPACE or not data[pos:end].isspace()):
                        found += 1
                        yield number, view[pos:end], True
                    pos = end + 1
                if pos >= limit or not block:
                    if not block and pos < len(data) and pos < limit:   # the file ends without a newline
                        number += 1
                        if len(data) - pos > MAX_LINE_BYTES:
                            raise too_long(label, number)
                        if not data[pos:].isspace():
                            found += 1
                            yield number, view[pos:], False
                    break
                rest = data[pos:]
                if len(rest) > MAX_LINE_BYTES:   # a line with no end in sight: refused before it fills memory
                    raise too_long(label, number + 1)
                offset += pos
                if report is not None:
                    report(len(block))
                elif progress is not None:
                    progress.update(offset, number)
        finally:
            if progress is not None:
                progress.close()
    if tally is not None:
        tally["lines"] = number
    if not found and whole:
        raise TinkerNomicsError(f"{label}: empty file")


def split_at_lines(p, label: str, parts: int) -> list[int]:
    """Byte offsets cutting a file into `parts` pieces of about equal size, each cut at the start of a line:
    [0, ..., size]."""
    with open_regular(p, label) as fh:
        size = os.fstat(fh.fileno()).st_size
        cuts = [0]
        for k in range(1, parts):
            fh.seek(max(size * k // parts, cuts[-1]))
            while True:
                chunk = fh.read(1 << 16)
                if not chunk:
                    cut = size
                    break
                i = chunk.find(b"\n")
                if i >= 0:
                    cut = fh.tell() - len(chunk) + i + 1
                    break
            cuts.append(cut)
        cuts.append(size)
    return cuts


def named_twice(names, what: str, where: str) -> None:
    """One line when a column (or key) is named twice in `names`: every reader keeps one of the two without a word
    (csv, pyarrow's rows, json), so a duplicate would silently replace the value of the first."""
    seen: dict[str, int] = {}
    for i, name in enumerate(names, start=1):
        if name in seen and str(name).strip():
            raise TinkerNomicsError(f"{where}: the {what} {str(name)[:80]!r} appears twice ({what}s {seen[name]} and "
                                    f"{i}): a reader would keep one of them without a word; keep one")
        seen.setdefault(name, i)


def _pairs_once(label: str, number: int):
    """The json module's object_pairs_hook that refuses a key written twice in one object of a line."""
    def pairs(items: list) -> dict:
        obj = dict(items)
        if len(obj) < len(items):
            named_twice([k for k, _ in items], "key", f"{label}: line {number}")
        return obj
    return pairs


def key_ends(raw: bytes | str) -> int:
    """At least the number of keys (at any depth) a JSON line writes: each key's closing quote is followed by ':' or
    white space. Exactly that number on a plain log line; more where a text value has such a quote in it."""
    if isinstance(raw, str):
        return raw.count('":') + raw.count('" ') + raw.count('"\t') + raw.count('"\r') + raw.count('"\n')
    return raw.count(b'":') + raw.count(b'" ') + raw.count(b'"\t') + raw.count(b'"\r') + raw.count(b'"\n')


def unique_keys_line(obj, raw: bytes | str, number: int, label: str) -> None:
    """Refuses a JSON-lines record that wrote a key twice (json and msgspec keep the last without a word). Cheap on
    a plain record: a line with no more key ends (key_ends) than its decoded object has keys has no key twice;
    only a line with more (a nested object, such a quote inside a text value, or a key twice) is parsed again to
    find out."""
    if key_ends(raw) == len(obj):
        return
    text = raw if isinstance(raw, str) else raw.decode("utf-8", errors="replace")
    try:
        json.loads(text, object_pairs_hook=_pairs_once(label, number))
    except TinkerNomicsError:
        raise
    except (ValueError, RecursionError):   # what the fast parser accepted and json does not: no duplicate found
        pass


def parse_line(raw, number: int, label: str, terminated: bool = True) -> dict:
    """One JSON-lines record (bytes or a memoryview) as a dict, or one line naming the file, line and reason."""
    try:
        obj = _fast_loads(raw)
    except Exception:   # msgspec refuses NaN literals and floats beyond range that the json module accepts
        obj = _careful_line(bytes(raw), number, label, not terminated)
    if type(obj) is not dict:
        raise TinkerNomicsError(f"{label}: line {number}: not a JSON object (got {type(obj).__name__})")
    unique_keys_line(obj, bytes(raw), number, label)
    return obj


def _careful_line(raw: bytes, number: int, label: str, last: bool):
    """A line parsed with the json module, as Python's json.dumps writes them (NaN, Infinity), or the error."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TinkerNomicsError(f"{label}: line {number}: not UTF-8 text") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise TinkerNomicsError(f"{label}: line {number}: not JSON (nested too deeply)") from None
    except ValueError as exc:  # JSONDecodeError, and the int-digits limit
        if last:
            raise TinkerNomicsError(f"{label}: line {number}: truncated last line (the file ends mid-record; "
                                    f"was the run still writing it?)") from None
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise TinkerNomicsError(f"{label}: line {number}: not JSON ({reason})") from None


def jsonl_records(p, label: str) -> Iterator[Record]:
    """One JSON object per line, yielded as it is read (blank lines skipped)."""
    for number, raw, terminated in jsonl_lines(p, label):
        yield ("line", number), parse_line(raw, number, label, terminated)


# ------------------------------------------------------------------------------------------ JSON documents

class JsonLines(Exception):
    """The file is JSON lines, not one JSON document."""


def load_json(p, label: str, lines_ok: bool = False, unique: bool = False) -> Any:
    """One JSON document from `p`, read only; a one-line error naming the file (and line) otherwise.
    With `lines_ok`, a file of JSON lines raises JsonLines for the caller to read it line by line. With `unique`
    (a config a user gives, not a log), a key written twice in one object is an error (hf_config.unique_keys)."""
    data = read_bytes(p, label)
    if not data.strip():
        raise TinkerNomicsError(f"{label}: empty file")
    try:   # a byte-order mark is accepted, as in CSV and JSON lines
        return json.loads(data.decode("utf-8-sig"), object_pairs_hook=unique_keys(label) if unique else None)
    except TinkerNomicsError:   # a key given twice: its own message
        raise
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


def json_table(obj: Any, label: str) -> Iterator[Record]:
    """Records from the layouts a history DataFrame or scan_history() list is saved in."""
    if isinstance(obj, list):
        if not obj:
            raise TinkerNomicsError(f"{label}: no records (an empty list)")
        for i, item in enumerate(obj, start=1):
            if not isinstance(item, dict):
                raise TinkerNomicsError(f"{label}: record {i}: not a JSON object (got {type(item).__name__})")
            yield ("record", i), item
        return
    if isinstance(obj, dict):
        if isinstance(obj.get("columns"), list) and isinstance(obj.get("data"), list):  # orient="split"
            columns = obj["columns"]
            if not obj["data"]:
                raise TinkerNomicsError(f"{label}: no records (empty data)")
            for i, row in enumerate(obj["data"], start=1):
                if not isinstance(row, list) or len(row) != len(columns):
                    raise TinkerNomicsError(f"{label}: data row {i}: expected {len(columns)} values")
                yield ("record", i), {str(k): v for k, v in zip(columns, row)}
            return
        if obj and all(isinstance(v, dict) for v in obj.values()):  # orient="columns": {column: {index: value}}
            index = list(dict.fromkeys(key for column in obj.values() for key in column))
            index.sort(key=lambda k: (0, int(k)) if str(k).lstrip("-").isdigit() else (1, str(k)))
            for i, k in enumerate(index, start=1):
                yield ("record", i), {str(c): obj[c].get(k) for c in obj if k in obj[c]}
            return
        if any(k in obj for k in STEP_KEYS):
            yield ("record", 1), obj
            return
    raise TinkerNomicsError(f"{label}: not a run history (expected a list of records, or JSON lines)")


# ------------------------------------------------------------------------------------------ CSV

def _bad_utf8_row(path, label: str) -> int:
    """The physical line of the first byte that is not UTF-8 (the CSV reader decodes ahead of its rows)."""
    with open_regular(path, label) as fh:
        for number, raw in enumerate(fh, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return 1


def csv_rows(path, label: str) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """The header (stripped) and an iterator of (row number, cells), read as the rows are consumed."""
    fh = open_regular(path, label)
    text = io.TextIOWrapper(fh, encoding="utf-8-sig", newline="")
    reader = csv.reader(text)

    def fail(exc: Exception):
        text.close()
        if isinstance(exc, UnicodeDecodeError):
            raise TinkerNomicsError(f"{label}: row {_bad_utf8_row(path, label)}: not UTF-8 text") from None
        raise TinkerNomicsError(f"{label}: row {reader.line_num}: malformed CSV ({exc})") from None

    try:
        header = next(reader, None)
    except (csv.Error, UnicodeDecodeError) as exc:
        fail(exc)
    if header is None or not any(h.strip() for h in header):
        try:
            rest = any(any(c.strip() for c in cells) for cells in reader)
        except (csv.Error, UnicodeDecodeError) as exc:
            fail(exc)
        text.close()
        raise TinkerNomicsError(f"{label}: row 1: no header" if rest else f"{label}: empty file")
    header = [h.strip() for h in header]
    try:
        named_twice(header, "column", f"{label}: row 1")
    except TinkerNomicsError:
        text.close()
        raise

    def rows():
        with text:
            try:
                for cells in reader:
                    if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
                        raise TinkerNomicsError(f"{label}: row {reader.line_num}: more cells ({len(cells)}) than "
                                                f"header columns ({len(header)})")
                    if any(c.strip() for c in cells):
                        yield reader.line_num, cells
            except (csv.Error, UnicodeDecodeError) as exc:
                fail(exc)
    return header, rows()


def csv_records(header: list[str], rows: Iterable[tuple[int, list[str]]]) -> Iterator[Record]:
    """A table's rows as records of its non-empty cells (an empty cell is "not logged at this step")."""
    for line, cells in rows:
        yield ("row", line), {name: cell.strip() for name, cell in zip(header, cells) if name and cell.strip() != ""}


# ------------------------------------------------------------------------------------------ Parquet

PARQUET_BATCH_CELLS = 1 << 20   # cells turned into Python values at a time: rows per batch = this / the columns
_PLAIN_TYPES = frozenset((float, int, str, bool))


def parquet_rows(parquet, label: str) -> Iterator[dict]:
    """The rows of a pyarrow ParquetFile as dicts of their non-null cells (a null is "not logged at this step"), a
    batch at a time, each column of the batch turned into Python values at once: the batch holds at most
    PARQUET_BATCH_CELLS cells (4,096 rows of a narrow table, 104 of a 10,000-column one), so memory stays flat
    however wide the table is (a W&B history with a metric per layer). NumPy scalars come out as plain numbers."""
    names = [str(name) for name in parquet.schema_arrow.names]
    named_twice(names, "column", label)
    rows = max(1, min(4096, PARQUET_BATCH_CELLS // max(1, len(names))))
    plain = _PLAIN_TYPES
    for batch in parquet.iter_batches(batch_size=rows):
        columns = [column.to_pylist() for column in batch.columns]
        for values in zip(*columns):
            row = {k: v for k, v in zip(names, values) if v is not None}
            for k, v in row.items():
                if type(v) not in plain:
                    row[k] = _plain(v)
            yield row


def _plain(value):
    """A Parquet cell as a plain Python value (NumPy scalars as numbers)."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str, bytes)):
        try:
            return value.item()
        except (ValueError, AttributeError):
            return value
    return value


def parquet_records(paths: list[Path], label: str) -> Iterator[Record]:
    """The rows of one or more Parquet files (a W&B run-history artifact), batch by batch."""
    import pyarrow.parquet as pq

    number = 0
    for path in paths:
        with open_regular(path, str(path)) as fh:
            not_compressed_parquet(fh, str(path))
            if os.fstat(fh.fileno()).st_size == 0:
                raise TinkerNomicsError(f"{path}: empty file")
            try:
                for row in parquet_rows(pq.ParquetFile(fh), str(path)):
                    number += 1
                    yield ("row", number), row
            except TinkerNomicsError:
                raise
            except Exception as exc:  # pyarrow raises several types for a corrupt file; all mean the same here
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise TinkerNomicsError(f"{path}: not a readable Parquet file ({reason[:200]})") from None
    if not number:
        raise TinkerNomicsError(f"{label}: the Parquet history has no rows")


# ------------------------------------------------------------------------------------------ W&B tables

def is_null(value) -> bool:
    return value is None or type(value).__name__ == "NAType" or (isinstance(value, float) and math.isnan(value))


def drop_nulls(records: Iterable[Record]) -> Iterator[Record]:
    """W&B tables have a cell for every metric on every row; an empty one means "not logged at this step"."""
    for where, rec in records:
        yield where, {k: v for k, v in rec.items() if not is_null(v)}


def select_run(records: Iterable[Record], label: str, run: str | None,
               columns: Iterable[str] | None = None) -> Iterator[Record]:
    """The records of one run from a W&B table, as they stream past.

    Without `run`, a table whose run-name column (RUN_COLUMNS) holds several values is refused: its rows mix
    runs. With `run`, only the rows naming it are kept, and it is an error when no column names runs at all
    or no row names that one. The column is the first of RUN_COLUMNS in the table's header (`columns`, for a
    CSV or Parquet table) or, without a header, the first one found in the records."""
    header = None if columns is None else [c for c in RUN_COLUMNS if c in set(columns)]
    column = header[0] if header else None
    seen: dict[str, dict[str, None]] = {}
    kept = 0
    records = iter(records)
    for where, rec in records:
        if run is None:
            for c in RUN_COLUMNS:
                if c in rec:
                    values = seen.setdefault(c, {})
                    values[str(rec[c])] = None
                    if len(values) > 1:
                        for _, more in records:   # name every run in the message
                            if c in more and len(values) < 50:
                                values[str(more[c])] = None
                        shown = sorted(values)
                        extra = f" and {len(shown) - 6} more" if len(shown) > 6 else ""
                        raise TinkerNomicsError(f"{label}: mixed runs in one export (column {c!r}: "
                                                f"{', '.join(shown[:6])}{extra}); pick one with --run NAME")
            yield where, rec
            continue
        if column is None and header is None:
            column = next((c for c in RUN_COLUMNS if c in rec), None)
        if column is None:
            continue
        value = str(rec.get(column))
        if column in rec and len(seen.setdefault(column, {})) < 50:
            seen[column][value] = None
        if value == run:
            kept += 1
            yield where, rec
    if run is not None and not kept:
        if column is None:
            raise TinkerNomicsError(f"{label}: no column names the run ({', '.join(RUN_COLUMNS)}): the export holds "
                                    f"one run, so there is nothing to pick with --run {run!r}")
        raise TinkerNomicsError(f"{label}: no run named {run!r} in column {column!r}; it holds "
                                f"{', '.join(sorted(seen.get(column, {}))[:6])}")


def peek(records: Iterable[Record]) -> tuple[Record | None, Iterator[Record]]:
    """The first record and an iterator that still yields it."""
    records = iter(records)
    first = next(records, None)
    return first, (records if first is None else chain([first], records))


# ------------------------------------------------------------------------------------------ W&B chart panels

DOWNSAMPLED_NOTE = ("the chart-panel export is downsampled (its __MIN and __MAX differ), so per-step values are "
                    "bucket averages and the sums are approximate; export the run history instead")


def chart_columns(header: list[str], label: str, run: str | None) -> tuple[str, dict[str, int], dict[str, list[int]]]:
    """A W&B chart-panel download's header (`Step`, `<run> - <metric>`, `<run> - <metric>__MIN`, `__MAX`): the run
    to read (the only one, or `run`), its metric -> value column, and its metric -> companion columns."""
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
    return run, columns[run], {metric: idx for (name, metric), idx in companions.items() if name == run}
