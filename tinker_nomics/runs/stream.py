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
from array import array
from pathlib import Path
from typing import Iterator

from ..errors import TinkerNomicsError
from .compressed import log_suffix, not_compressed_parquet
from .files import (BOM, DOWNSAMPLED_NOTE, MAX_LINE_BYTES, STEP_KEYS, JsonLines, chart_columns, csv_records,
                    csv_rows, drop_nulls, json_table, key_ends, load_json, named_twice, open_regular, parquet_rows,
                    peek, select_run, too_long, unique_keys_line)

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
        unique_keys_line(obj, text, number, label)
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
NUMBER_GOES_ON = frozenset("0123456789.eE+-")   # what may follow a number's first part in the same number
WHOLE_MEMBER_CHARS = MAX_LINE_BYTES   # a streamed member this short is decoded whole (as a line is); a longer one by items
TOO_LONG = object()


def opens_an_array(path: Path, label: str) -> bool:
    """Whether the file's first character after white space (and a byte-order mark) is '['."""
    return head(path, label, 4096).removeprefix(BOM).lstrip()[:1] == b"["


class _Window:
    """A sliding window over a UTF-8 JSON file, read `chunk` characters at a time, in which the json module's own
    decoder (NaN and Infinity as it reads them) decodes one value at a time: memory holds one value, not the file.
    Errors name the file's line."""

    def __init__(self, fh, label: str, chunk: int):
        import codecs
        self.fh, self.label, self.chunk = fh, label, chunk
        self.text = codecs.getincrementaldecoder("utf-8-sig")()
        self.decoder = json.JSONDecoder()
        self.buf, self.pos, self.ended = "", 0, False
        self.lines_before = 0   # line breaks in the text dropped from the window
        self.refill()

    def drop(self) -> None:
        self.lines_before += self.buf.count("\n", 0, self.pos)
        self.buf, self.pos = self.buf[self.pos:], 0

    def refill(self, size: int | None = None) -> None:
        data = self.fh.read(max(size or 0, self.chunk))
        try:
            more = self.text.decode(data, final=not data)
        except UnicodeDecodeError:
            raise TinkerNomicsError(f"{self.label}: not UTF-8 text") from None
        self.ended = not data
        self.drop()
        self.buf += more

    def next_char(self) -> str:
        """The next character that is not white space ('' at the end), left unread."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buf) or self.ended:
                return self.buf[self.pos:self.pos + 1]
            self.refill()

    def broken(self, reason: str, at: int | None = None):
        line = self.lines_before + self.buf.count("\n", 0, self.pos if at is None else at) + 1
        raise TinkerNomicsError(f"{self.label}: line {line}: not JSON ({reason})")

    def value(self, whole_below: int | None = None):
        """The next JSON value, whole; with `whole_below`, TOO_LONG (nothing read) once it runs on past that many
        characters."""
        while True:
            try:
                item, end = self.decoder.raw_decode(self.buf, self.pos)
            except RecursionError:
                self.broken("nested too deeply")
            except ValueError as exc:   # JSONDecodeError, and the int-digits limit
                if whole_below is not None and not self.ended:
                    if len(self.buf) - self.pos > whole_below:
                        return TOO_LONG
                    self.refill(whole_below + 1 - (len(self.buf) - self.pos))   # all it may take, in one read
                    continue
                if self.ended or len(self.buf) - self.pos > MAX_LINE_BYTES:   # no value is that long: a broken one
                    decode_error = isinstance(exc, json.JSONDecodeError)
                    self.broken(exc.msg if decode_error else str(exc), exc.pos if decode_error else None)
                self.refill()
                continue
            if not self.ended and isinstance(item, (int, float)) \
                    and (end >= len(self.buf) or self.buf[end] in NUMBER_GOES_ON):
                self.refill()                 # a number cut by the window's edge ('1' of '1.5') goes on in the next
                continue
            if type(item) in (dict, list):
                self.unique_keys(item, end)
            self.pos = end
            if self.pos > self.chunk:         # drop what has been read
                self.drop()
            return item

    def unique_keys(self, item, end: int) -> None:
        """Refuses a value that writes a key twice in one object (the json module keeps the last without a word).
        Cheap on a plain value: one whose text has no more key ends (files.key_ends) than it has keys has no key
        twice; only one with more (a quote followed by a space inside a text, or a key twice) is parsed again."""
        raw = self.buf[self.pos:end]
        if key_ends(raw) == _keys_in(item):
            return

        def pairs(items: list) -> dict:
            obj = dict(items)
            if len(obj) < len(items):
                line = self.lines_before + self.buf.count("\n", 0, self.pos) + 1
                named_twice([k for k, _ in items], "key", f"{self.label}: the value from line {line}")
            return obj
        json.loads(raw, object_pairs_hook=pairs)

    def entries(self, what: str, close: str) -> Iterator[tuple[int, str | None]]:
        """Walks a list or object (its opening character read) up to `close`: each entry's number, and an object
        member's name, with the window at the entry's value, which the caller reads before the next."""
        number = 0
        while True:
            char = self.next_char()
            if not char:
                self.broken(f"the {what} is not closed")
            if char == close:
                self.pos += 1
                return
            if number:
                if char != ",":
                    self.broken(f"expected ',' after item {number} of the {what}")
                self.pos += 1
                self.next_char()
            number += 1
            key = None
            if close == "}":
                key = self.value()
                if not isinstance(key, str):
                    self.broken("expected a member name in quotes")
                if self.next_char() != ":":
                    self.broken(f"expected ':' after {key[:40]!r}")
                self.pos += 1
                self.next_char()
            yield number, key

    def items(self, what: str, close: str) -> Iterator[tuple[int, object]]:
        """(number, value) for each value of the list or object up to `close`: for an object, a (key, value)."""
        for number, key in self.entries(what, close):
            value = self.value()
            yield number, (value if key is None else (key, value))

    def end(self, what: str) -> None:
        """Nothing but white space may follow the document; JsonLines where another object follows."""
        char = self.next_char()
        if char == "{":
            raise JsonLines()
        if char:
            self.broken(f"extra data after the {what}")


def _keys_in(value) -> int:
    """The keys of every object in a decoded JSON value."""
    if type(value) is dict:
        return len(value) + sum(_keys_in(v) for v in value.values() if type(v) in (dict, list))
    return sum(_keys_in(v) for v in value if type(v) in (dict, list))


def json_array(path: Path, label: str, chunk: int = ARRAY_CHUNK) -> Iterator[Record]:
    """The objects of a top-level JSON array (a W&B history saved as a list of records), one at a time, so that
    memory stays flat however long the file is (_Window). Each must be a JSON object; the errors are json_table's
    and load_json's."""
    with open_read(path, label) as fh:
        window = _Window(fh, label, chunk)
        if window.next_char() != "[":
            window.broken("expected a list of records")
        window.pos += 1
        number = 0
        for number, item in window.items("list of records", "]"):
            if not isinstance(item, dict):
                raise TinkerNomicsError(f"{label}: record {number}: not a JSON object (got {type(item).__name__})")
            yield ("record", number), item
        char = window.next_char()
        if char:
            window.broken("extra data after the list of records")
    if not number:
        raise TinkerNomicsError(f"{label}: no records (an empty list)")


class Streamed:
    """A member of a JSON object (json_members) read as it is consumed: a list's items as (number, value), an
    object's as (number, (key, value)); what is not consumed before the next member is read and dropped."""

    def __init__(self, items: Iterator, kind: str):
        self.items, self.kind = items, kind   # kind: "list" or "object"

    def __iter__(self):
        return self.items


def json_members(path: Path, label: str, streamed=lambda key: True, chunk: int | None = None,
                 whole: int | None = None) -> Iterator[tuple[str, object]]:
    """(key, value) for each member of a top-level JSON object, in the file's order, one at a time (_Window): where
    `streamed(key)` and the value is a list or an object, the value is a Streamed over its items, so that a
    trainer_state.json's log_history or a pandas DataFrame's columns never sit in memory whole (one up to `whole`
    characters, WHOLE_MEMBER_CHARS unless given, is decoded whole first). JsonLines where the file is JSON lines
    (objects one after another)."""
    whole = WHOLE_MEMBER_CHARS if whole is None else whole
    chunk = ARRAY_CHUNK if chunk is None else chunk
    with open_read(path, label) as fh:
        window = _Window(fh, label, chunk)
        if window.next_char() != "{":
            window.broken("expected an object")
        window.pos += 1
        names = []   # the members' names, which a file may write twice (the json module keeps the last)
        for _, key in window.entries("object", "}"):
            names.append(key)
            if len(set(names)) < len(names):
                named_twice(names, "member", label)
            opener = window.next_char()
            if streamed(key) and opener in ("[", "{"):
                kind = "list" if opener == "[" else "object"
                decoded = window.value(whole_below=whole)   # a short one at the json module's speed
                if decoded is TOO_LONG:
                    window.pos += 1
                    items = window.items(f"{kind} {key[:40]!r}", "]" if opener == "[" else "}")
                else:
                    items = enumerate(decoded if kind == "list" else decoded.items(), start=1)
                yield key, Streamed(items, kind)
                for _ in items:   # what the caller left unread
                    pass
            else:
                yield key, window.value()
        window.end("object")


def json_records(path: Path, label: str) -> Iterator[Record]:
    """The records of a run history saved as one JSON document, in the layouts files.json_table reads, streamed:
    a list of records (json_array), pandas' "split" layout (its data rows one at a time) and "columns" layout (one
    column at a time, each held as an array of numbers), or one record. JsonLines where the file is JSON lines."""
    if not head(path, label).removeprefix(BOM).strip():
        raise TinkerNomicsError(f"{label}: empty file")
    if opens_an_array(path, label):
        yield from json_array(path, label)
        return
    columns: list[str] | None = None
    by_column: dict[str, _Column] = {}
    others: dict[str, object] = {}
    rows = 0
    for key, value in json_members(path, label):
        if key == "data" and isinstance(value, Streamed) and value.kind == "list" and columns is not None:
            for rows, row in value:   # orient="split": columns, index, then data rows
                if not isinstance(row, list) or len(row) != len(columns):
                    raise TinkerNomicsError(f"{label}: data row {rows}: expected {len(columns)} values")
                yield ("record", rows), dict(zip(columns, row))
            if not rows:
                raise TinkerNomicsError(f"{label}: no records (empty data)")
            return
        if isinstance(value, Streamed) and value.kind == "object":
            by_column[key] = _Column(value, by_column)
        elif isinstance(value, Streamed):
            others[key] = [item for _, item in value]
        else:
            others[key] = value
        if key == "columns" and isinstance(others.get(key), list):
            columns = [str(c) for c in others[key]]
    if by_column and not others:   # orient="columns": {column: {index: value}}
        yield from _column_records(by_column)
        return
    record = {**{k: c.as_dict() for k, c in by_column.items()}, **others}
    if isinstance(record.get("columns"), list) and isinstance(record.get("data"), list):
        yield from json_table(record, label)   # split, with data before its columns
        return
    if any(k in record for k in STEP_KEYS):
        yield ("record", 1), record
        return
    raise TinkerNomicsError(f"{label}: not a run history (expected a list of records, or JSON lines)")


class _Column:
    """One column of pandas' "columns" layout ({index: value}), held compactly: the index once for every column
    that shares it, numbers in an array (None marked apart), anything else as a list."""

    def __init__(self, pairs: Streamed, before: dict[str, "_Column"]):
        keys, values = [], []
        for _, (k, v) in pairs:
            keys.append(k)
            values.append(v)
        shared = next(iter(before.values()), None)
        self.index = shared.index if shared is not None and shared.index == keys else keys
        self.missing = bytearray(v is None for v in values)
        plain = [0 if v is None else v for v in values]
        if all(type(v) is int and -2 ** 63 <= v < 2 ** 63 for v in plain):
            self.values = array("q", plain)
        elif all(type(v) is float or (type(v) is int and abs(v) <= 2 ** 53) for v in plain):   # exact as floats
            self.values = array("d", plain)
        else:
            self.values = values
            self.missing = bytearray(len(values))

    def get(self, i: int):
        return None if self.missing[i] else self.values[i]

    def as_dict(self) -> dict:
        return {k: self.get(i) for i, k in enumerate(self.index)}


def _column_records(by_column: dict[str, _Column]) -> Iterator[Record]:
    """json_table's records of the "columns" layout: one per index value, in the index's order (numbers first)."""
    index = list(dict.fromkeys(k for column in by_column.values() for k in column.index))
    index.sort(key=lambda k: (0, int(k)) if str(k).lstrip("-").isdigit() else (1, str(k)))
    names = [str(name) for name in by_column]
    columns = list(by_column.values())
    if all(c.index is columns[0].index for c in columns):   # pandas' own: every column holds every index value
        at = {k: i for i, k in enumerate(columns[0].index)}
        cells = [(c.values, c.missing) for c in columns]
        for number, k in enumerate(index, start=1):
            i = at[k]
            yield ("record", number), {name: None if missing[i] else values[i]
                                       for name, (values, missing) in zip(names, cells)}
        return
    positions = {id(c.index): {k: i for i, k in enumerate(c.index)} for c in columns}
    for number, k in enumerate(index, start=1):
        record = {}
        for name, column in zip(names, columns):
            i = positions[id(column.index)].get(k)
            if i is not None:
                record[name] = column.get(i)
        yield ("record", number), record


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
        check_regular(self.path, self.label)
        try:
            _, records = peek(json_records(self.path, self.label))   # record by record, memory flat
        except JsonLines:
            self.kind = "W&B history (JSON lines)"
            yield from self._one_run(self._growing())
            return
        self.kind = "W&B history (JSON)"
        yield from self._one_run(records)

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
                    for row in parquet_rows(parquet, self.label):
                        number += 1
                        yield ("row", number), row
                except TinkerNomicsError:
                    raise
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
