"""Files a command writes beside what it reads (`--save-calibration FILE`, `--per-step FILE`): where one may go, and
how it is written.

A destination is never inside the run's log folder, never a symbolic link, never an existing file without
`force`, never one of the command's inputs (through a symbolic or hard link either: `files.input_at`), and in a
folder that exists and takes files; each rule is one line naming the path. The file is written whole or not at
all: into a temporary file in the same folder, then renamed over the name, so a full or read-only disk leaves
nothing behind and a link of that name is replaced, never written through.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

from ..errors import TinkerNomicsError
from .files import input_at


def check_output_file(path, what: str, flag: str, log_path, force: bool = False, inputs=()) -> Path:
    """`path` if `what` (e.g. "calibration file") may be written there (module docstring), else a one-line error."""
    if path is None or not str(path).strip():
        raise TinkerNomicsError(f"{flag} needs a file name")
    out = Path(path)
    resolved = out.resolve()
    logs = Path(log_path).resolve()
    folder = logs if logs.is_dir() else logs.parent
    if resolved == logs or folder in resolved.parents:
        raise TinkerNomicsError(f"{what} {path} is inside the run's log folder {folder}; nothing is written there, "
                                f"pick a path outside it")
    if out.is_symlink():
        raise TinkerNomicsError(f"{what} {path} is a symlink; nothing is written through one")
    if out.exists() and not out.is_file():
        raise TinkerNomicsError(f"{what} {path} exists and is not a regular file")
    same = input_at(out, (log_path, *inputs))
    if same is not None:
        raise TinkerNomicsError(f"{what} {path} is the input {same} (the same file on disk); nothing the command "
                                f"reads is overwritten, --force or not")
    if out.exists() and not force:
        raise TinkerNomicsError(f"{what} {path} exists; pass --force to replace it")
    if not resolved.parent.is_dir():
        raise TinkerNomicsError(f"{what} {path}: the folder {resolved.parent} does not exist")
    if not os.access(resolved.parent, os.W_OK | os.X_OK):
        raise TinkerNomicsError(f"{what} {path}: cannot write in {resolved.parent} (permission denied or a read-only "
                                f"file system)")
    return out


def write_output_file(path, what: str, write: Callable) -> Path:
    """`write(binary file)` into a temporary file beside `path`, renamed over it when done; an OSError (a full or
    read-only disk) is one line, and the temporary file is removed on every way out."""
    out = Path(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.tmp-", dir=out.resolve().parent)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, out)
    except OSError as exc:
        raise TinkerNomicsError(f"{what} {path}: cannot write it ({exc.strerror or exc}); nothing was written") \
            from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
    return out


TABLE_FORMATS = {".parquet": "Parquet", ".jsonl": "JSON lines", ".ndjson": "JSON lines"}
# Rows converted at a time (a Parquet row group; JSON lines encoded from one dict per row): memory holds one chunk,
# not a copy of a 10^6-row table.
CHUNK_ROWS = 20_000


def check_table_file(path, flag: str, log_path, force: bool = False, inputs=()) -> Path:
    """A per-step file's destination: the rules of check_output_file, and a name saying its format."""
    out = check_output_file(path, "per-step file", flag, log_path, force, inputs)
    if out.suffix.lower() not in TABLE_FORMATS:
        raise TinkerNomicsError(f"per-step file {path}: name it .parquet (Parquet) or .jsonl (JSON lines); the "
                                f"extension says the format")
    return out


def write_table_file(frame, path) -> Path:
    """A table's rows as Parquet or JSON lines (by the file's extension), written whole or not at all. JSON lines
    hold null where the table holds NaN or a missing value (strict JSON), floats in their shortest exact form."""
    out = Path(path)
    if out.suffix.lower() == ".parquet":
        def write(fh):
            import pyarrow as pa
            import pyarrow.parquet as pq
            schema = pa.Schema.from_pandas(frame.iloc[:0], preserve_index=False)
            with pq.ParquetWriter(fh, schema) as writer:   # a row group per chunk: one chunk in memory at a time
                for start in range(0, max(len(frame), 1), CHUNK_ROWS):
                    writer.write_table(pa.Table.from_pandas(frame.iloc[start:start + CHUNK_ROWS], schema=schema,
                                                            preserve_index=False))
    else:
        def write(fh):
            import msgspec
            encoder, names = msgspec.json.Encoder(), [str(c) for c in frame.columns]
            for start in range(0, len(frame), CHUNK_ROWS):
                part = frame.iloc[start:start + CHUNK_ROWS]
                columns = [_plain_list(part[c]) for c in part.columns]
                fh.write(encoder.encode_lines([dict(zip(names, row)) for row in zip(*columns)]))
    return write_output_file(out, "per-step file", write)


def _plain_list(column) -> list:
    """A column as Python values, None where it is missing or not finite (JSON has no NaN)."""
    import numpy as np
    import pandas as pd
    values = column.to_numpy()
    if values.dtype.kind == "f":
        finite = np.isfinite(values)
        out = values.tolist()
        return out if finite.all() else [v if ok else None for v, ok in zip(out, finite.tolist())]
    if values.dtype.kind in "biu":
        return values.tolist()
    return [None if v is None or (not isinstance(v, str) and pd.isna(v)) else v for v in values.tolist()]
