"""Reading a user's log file as a stream of lines or records, read-only, with one-line errors.

The self-hosted readers (runs.verl, runs.trl, runs.tinker_usage) read through these helpers so that memory stays
flat in the number of lines: a console log or a JSON-lines file is read one line at a time, a CSV one row at a
time, a Parquet file one row group at a time. Files are opened only through runs.files.open_regular: only regular
files (a FIFO, device or socket named like a log is refused instead of blocking or reading forever), always in
binary read mode, never written.

Records are ((unit, number), {key: value}) pairs, where unit/number name the line, row or record for error
messages, as in runs.files. A W&B table (history CSV, JSON, JSON lines, Parquet; the chart-panel CSV) comes out as
records keyed by metric name with W&B's `_step`; empty cells are left out ("not logged at this step").
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from ..errors import TinkerNomicsError
from .compressed import log_suffix, not_compressed_parquet
from .files import (BOM, DOWNSAMPLED_NOTE, MAX_LINE_BYTES, JsonLines, chart_columns, csv_records, csv_rows,
                    drop_nulls, json_table, load_json, open_regular, select_run, too_long)

Record = tuple[tuple[str, int], dict]


def check_regular(path: Path, label: str) -> None:
    """Refuse anything but a regular file (following symlinks), before reading it (runs.files.open_regular)."""
    try:
        open_regular(path, label).close()
    except FileNotFoundError:
        raise TinkerNomicsError(f"{label}: no such file or folder") from None
    except PermissionError:
        raise TinkerNomicsError(f"{label}: cannot read it (permission denied)") from None


def open_read(path: Path, label: str):
    """The file opened for binary reading, only if it is a regular file (runs.files.open_regular)."""
    try:
        return open_regular(path, label)
    except FileNotFoundError:
        raise TinkerNomicsError(f"{label}: no such file or folder") from None
    except IsADirectoryError:
        raise TinkerNomicsError(f"{label}: is a folder where a file was expected") from None
    except PermissionError:
        raise TinkerNomicsError(f"{label}: cannot read it (permission denied)") from None
    except OSError as exc:
        raise TinkerNomicsError(f"{label}: cannot read it ({exc.strerror or exc})") from None


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")   # UTF-16's byte-order marks (UTF-32's begin with one of them too)


def utf8_text(data: bytes, label: str) -> bytes:
    """`data`, the head of a text log, unless it is UTF-16 or UTF-32 text (a spreadsheet's "Unicode" export): one line
    asking for UTF-8, rather than 'no keys of a known log' from reading it as bytes."""
    if data.startswith(UTF16_BOMS):
        raise TinkerNomicsError(f"{label}: UTF-16 text (its byte-order mark says so); logs are read as UTF-8: save it "
                                f"as UTF-8")
    return data


def head(path: Path, label: str, size: int = 8192) -> bytes:
    """The first bytes of a file (for recognising its format)."""
    with open_read(path, label) as fh:
        return fh.read(size)


def text_lines(path: Path, label: str, ends: dict | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text without its line ending), one line at a time. `ends["unterminated"]` is set to the last
    line's number, before it is yielded, when no line ending closes it (a log still being written)."""
    with open_read(path, label) as fh:
        number = 0
        while True:
            raw = fh.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise too_long(label, number)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise TinkerNomicsError(f"{label}: line {number}: not UTF-8 text") from None
            if number == 1 and text.startswith("\ufeff"):
                text = text[1:]
            if ends is not None and not raw.endswith(b"\n"):
                ends["unterminated"] = number
            yield number, text.rstrip("\r\n")


def json_lines(path: Path, label: str, cut_off: dict | None = None) -> Iterator[Record]:
    """One JSON object per non-empty line. The bare NaN/Infinity tokens Python's json module writes (verl's older
    file logger) are accepted here; whether a value may be NaN is the vocabulary's decision. With `cut_off` (a
    dict), a last line that stops mid-record with no line ending (a log still being written) ends the records and
    is named in `cut_off["line"]`; without it, such a line is an error like any other."""
    last = None
    ends: dict = {}
    for number, text in text_lines(path, label, ends):
        if not text.strip():
            continue
        last = number
        try:
            obj = json.loads(text)
        except RecursionError:
            raise TinkerNomicsError(f"{label}: line {number}: not JSON (nested too deeply)") from None
        except ValueError as exc:
            if cut_off is not None and ends.get("unterminated") == number:
                cut_off["line"] = number
                return
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise TinkerNomicsError(f"{label}: line {number}: not JSON ({reason})") from None
        if not isinstance(obj, dict):
            raise TinkerNomicsError(f"{label}: line {number}: not a JSON object (got {type(obj).__name__})")
        yield ("line", number), obj
    if last is None:
        raise TinkerNomicsError(f"{label}: empty file")


def cut_note(line: int) -> str:
    """What a reader says of a last line that a run still writing its log left unfinished."""
    return (f"the log's last line ({line}) stops mid-record, with no line ending (a run still writing it?): that "
            f"record is not read; the records before it are")


class GrowingJsonLines:
    """The records of a JSON-lines log that its run may still be writing: a last line cut mid-record (no line
    ending) ends the records, and `notes` says so once they are read; a broken line anywhere else is an error."""

    def __init__(self, path: Path, label: str):
        self.path, self.label = path, label
        self.notes: list[str] = []

    def __iter__(self) -> Iterator[Record]:
        cut: dict = {}
        yield from json_lines(self.path, self.label, cut_off=cut)
        if "line" in cut:
            self.notes.append(cut_note(cut["line"]))


ARRAY_CHUNK = 1 << 20   # characters read at a time by json_array


def opens_an_array(path: Path, label: str) -> bool:
    """Whether the file's first character after white space (and a byte-order mark) is '['."""
    return head(path, label, 4096).removeprefix(BOM).lstrip()[:1] == b"["


def json_array(path: Path, label: str, chunk: int = ARRAY_CHUNK) -> Iterator[Record]:
    """The objects of a top-level JSON array (a W&B history saved as a list of records), one at a time, so that
    memory stays flat however long the file is: the json module's own decoder (NaN and Infinity as it reads
    them) runs over a window that holds one record at a time. Each must be a JSON object; the errors are
    json_table's and load_json's."""
    import codecs
    decoder = json.JSONDecoder()
    text = codecs.getincrementaldecoder("utf-8-sig")()
    with open_read(path, label) as fh:
        buf, pos, ended = "", 0, False
        lines_before = 0   # line breaks in the text dropped from the window, so errors name the file's line

        def drop():
            nonlocal buf, pos, lines_before
            lines_before += buf.count("\n", 0, pos)
            buf, pos = buf[pos:], 0

        def refill():
            nonlocal buf, ended
            data = fh.read(chunk)
            try:
                more = text.decode(data, final=not data)
            except UnicodeDecodeError:
                raise TinkerNomicsError(f"{label}: not UTF-8 text") from None
            ended = not data
            drop()
            buf += more

        def skip_space():
            nonlocal pos
            while True:
                while pos < len(buf) and buf[pos] in " \t\r\n":
                    pos += 1
                if pos < len(buf) or ended:
                    return
                refill()

        def broken(reason: str, at: int | None = None):
            line = lines_before + buf.count("\n", 0, pos if at is None else at) + 1
            raise TinkerNomicsError(f"{label}: line {line}: not JSON ({reason})")

        refill()
        skip_space()
        if buf[pos:pos + 1] != "[":
            broken("expected a list of records")
        pos += 1
        number = 0
        while True:
            skip_space()
            if pos >= len(buf):
                broken("the list of records is not closed")
            if buf[pos] == "]":
                pos += 1
                skip_space()
                if pos < len(buf):
                    broken("extra data after the list of records")
                break
            if number:
                if buf[pos] != ",":
                    broken(f"expected ',' after record {number}")
                pos += 1
                skip_space()
            while True:
                try:
                    item, end = decoder.raw_decode(buf, pos)
                except RecursionError:
                    broken("nested too deeply")
                except ValueError as exc:   # JSONDecodeError, and the int-digits limit
                    if ended or len(buf) - pos > MAX_LINE_BYTES:   # no record is that long: a broken one
                        decode_error = isinstance(exc, json.JSONDecodeError)
                        broken(exc.msg if decode_error else str(exc), exc.pos if decode_error else None)
                    refill()
                    continue
                if end >= len(buf) and not ended and not isinstance(item, (dict, list)):
                    refill()                 # a number or name at the window's edge may go on in the next part
                    continue
                break
            pos = end
            number += 1
            if not isinstance(item, dict):
                raise TinkerNomicsError(f"{label}: record {number}: not a JSON object (got {type(item).__name__})")
            yield ("record", number), item
            if pos > chunk:                  # drop what has been read
                drop()
    if not number:
        raise TinkerNomicsError(f"{label}: no records (an empty list)")


def json_document(path: Path, label: str) -> object:
    """A whole JSON document (W&B JSON exports and trainer_state.json are one document, not lines); JsonLines
    when the file is JSON lines saved under a .json name."""
    check_regular(path, label)
    return load_json(path, label, lines_ok=True)


class Table:
    """The records of a W&B table export, streamed, with what was learned while reading (its kind, notes)."""

    def __init__(self, path: Path, label: str, run: str | None = None):
        self.path, self.label, self.run = path, label, run
        self.kind = ""
        self.notes: list[str] = []
        self.run_name: str | None = None

    def __iter__(self) -> Iterator[Record]:
        suffix = log_suffix(self.path)
        if suffix == ".parquet":
            yield from self._parquet()
        elif suffix == ".csv":
            yield from self._csv()
        elif suffix in (".jsonl", ".ndjson"):
            self.kind = "W&B history (JSON lines)"
            yield from self._one_run(self._growing())
        else:
            yield from self._json()

    def _growing(self) -> Iterator[Record]:
        lines = GrowingJsonLines(self.path, self.label)
        yield from lines
        self.notes.extend(lines.notes)

    def _one_run(self, records: Iterator[Record], columns=None) -> Iterator[Record]:
        """The records of one run, as every table reader picks it (runs.files.select_run): rows of several runs
        without `run` are refused as mixed, an unknown `run` names the runs the table holds."""
        first_row: dict[float, int] = {}   # W&B's _step is unique within a run: a repeat is a second run's row
        for where, rec in select_run(drop_nulls_stream(records), self.label, self.run, columns):
            step = rec.get("_step")
            if step is not None:
                try:
                    key = float(step)
                except (TypeError, ValueError, OverflowError):
                    key = None   # not a number, or too long for one: the step reader says which
                if key is not None:
                    if key in first_row:
                        raise TinkerNomicsError(f"{self.label}: {where[0]} {where[1]}: W&B's _step {step} appears "
                                                f"again (first at {where[0]} {first_row[key]}): rows of two runs in "
                                                f"one export? Export one run")
                    first_row[key] = where[1]
            yield where, rec
        if self.run is not None:
            self.run_name = self.run

    # -- shapes

    def _json(self) -> Iterator[Record]:
        if opens_an_array(self.path, self.label):   # W&B's records layout: read record by record, memory flat
            self.kind = "W&B history (JSON)"
            yield from self._one_run(json_array(self.path, self.label))
            return
        try:
            obj = json_document(self.path, self.label)
        except JsonLines:
            self.kind = "W&B history (JSON lines)"
            yield from self._one_run(self._growing())
            return
        self.kind = "W&B history (JSON)"
        yield from self._one_run(json_table(obj, self.label))

    def _csv(self) -> Iterator[Record]:
        check_regular(self.path, self.label)
        header, rows = csv_rows(self.path, self.label)
        chart = "Step" in header and any(" - " in h for h in header)
        counted = _counted(rows, self.label)
        if chart:
            self.kind = "W&B chart-panel CSV"
            self.run_name, metrics, companions = chart_columns(header, self.label, self.run)
            for line, cells in counted:
                yield ("row", line), self._chart_record(header, cells, metrics, companions)
            return
        self.kind = "W&B history (CSV)"
        yield from self._one_run(csv_records(header, counted), header)

    def _chart_record(self, header, cells, metrics: dict[str, int], companions) -> dict:
        rec = {}
        step_col = header.index("Step")
        if step_col < len(cells) and cells[step_col].strip():
            rec["_step"] = cells[step_col].strip()
        for metric, i in metrics.items():
            if i < len(cells) and cells[i].strip():
                rec[metric] = cells[i].strip()
                spread = {cells[j].strip() for j in companions.get(metric, []) if j < len(cells) and cells[j].strip()}
                if len(spread) > 1 and not self.notes:
                    self.notes.append(DOWNSAMPLED_NOTE)
        return rec

    def _parquet(self) -> Iterator[Record]:
        import pyarrow.parquet as pq

        self.kind = "W&B history (Parquet)"
        fh = open_read(self.path, self.label)
        with fh:
            not_compressed_parquet(fh, self.label)
            try:
                parquet = pq.ParquetFile(fh)
            except Exception as exc:  # pyarrow raises several types for a corrupt file; all mean the same here
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise TinkerNomicsError(f"{self.label}: not a readable Parquet file ({reason[:200]})") from None
            number = 0

            def records():
                nonlocal number
                try:
                    for batch in parquet.iter_batches(batch_size=4096):
                        for row in batch.to_pylist():
                            number += 1
                            yield ("row", number), {str(k): _plain(v) for k, v in row.items()}
                except Exception as exc:  # a corrupt row group
                    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise TinkerNomicsError(f"{self.label}: row {number + 1}: not readable ({reason[:200]})") \
                        from None

            yield from self._one_run(records(), parquet.schema_arrow.names)
            if not number:
                raise TinkerNomicsError(f"{self.label}: the Parquet history has no rows")


def described(records, framework: str, kind: str | None, run_name: str | None, notes) -> tuple:
    """(kind, run name, notes) of records a reader has just read: a Table's own (its kind after the framework's
    name, its run and what it noted while reading) added to the reader's, else the reader's as given."""
    if isinstance(records, Table):
        return f"{framework} {records.kind}", records.run_name, list(notes) + records.notes
    if isinstance(records, GrowingJsonLines):
        return kind, run_name, list(notes) + records.notes
    return kind, run_name, list(notes)


def drop_nulls_stream(records: Iterator[Record]) -> Iterator[Record]:
    for where, rec in records:
        yield from drop_nulls([(where, rec)])


def _counted(rows: Iterator[tuple[int, list[str]]], label: str) -> Iterator[tuple[int, list[str]]]:
    """A CSV's data rows, and an error when there is none under the header."""
    any_row = False
    for row in rows:
        any_row = True
        yield row
    if not any_row:
        raise TinkerNomicsError(f"{label}: no data rows under the header")


def _plain(value):
    """A Parquet cell as a plain Python value (NumPy scalars as numbers)."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str, bytes)):
        try:
            return value.item()
        except (ValueError, AttributeError):
            return value
    return value
