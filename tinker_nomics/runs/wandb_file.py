"""W&B's own run file, `run-<id>.wandb`, read offline: the history a run logged, its config and the GPUs it ran on.

Every run that logs to W&B (online or offline) writes this file into its folder, `wandb/run-<date>-<id>/` (or
`offline-run-…`), before anything is uploaded: it is the run's history without an export. The layout is the W&B SDK's
(wandb/sdk/internal/datastore.py and wandb-core's leveldb writer, CRCAlgoIEEE):

- a 7-byte header, `:W&B`, the magic 0xBEE1 and version 0 (little-endian);
- then LevelDB's log format (leveldb doc/log_format.md) in blocks of 32,768 bytes counted from the file's start: each
  chunk is a CRC-32 (zlib's, seeded with the CRC of the chunk type byte), a 2-byte length, a type (1 full, 2 first,
  3 middle, 4 last) and the data; a block's last < 7 bytes are zero padding;
- each reassembled record is a `wandb_internal.Record` protocol buffer (wandb/proto/wandb_internal.proto): field 2 a
  HistoryRecord (items: `key` 1 or `nested_key` 2, the value as `value_json` 16 or typed: 3 none, 4 bool,
  5 sint64, 6 double, 7 text, 8 json; `step` 2 holding `num` 1), field 5 a ConfigRecord and field 17 the RunRecord
  (its `config` 4), each config item `key`/`nested_key` and `value_json`; field 26 the EnvironmentRecord
  (`gpu_type` 18, `gpu_count` 19, `gpu_nvidia` 24 each with its `name` 1, `gpu_amd` 26 each with its `series` 8)
  that wandb-metadata.json holds in older releases.

A file still being written ends inside a record: the records before it are read and a note says so. A damaged chunk
is one line naming its byte.
"""
from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path
from typing import Iterator

from ..errors import TinkerNomicsError
from .protobuf import fields, zigzag
from .stream import open_read

HEADER = b":W&B" + struct.pack("<HB", 0xBEE1, 0)
SUFFIX = ".wandb"
BLOCK = 32768
CHUNK_HEADER = 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
MAX_RECORD_BYTES = 64 * 2 ** 20   # a record larger than this is not a run's (a damaged file)
HISTORY, CONFIG, RUN, ENVIRONMENT = 2, 5, 17, 26
RUN_CONFIG = 4
_TYPE_CRC = {t: zlib.crc32(bytes([t])) for t in (FULL, FIRST, MIDDLE, LAST)}


def is_wandb_file(head: bytes) -> bool:
    return head.startswith(HEADER)


def _records(path: Path, label: str, notes: list) -> Iterator[tuple[int, bytes]]:
    """(byte offset, payload) of each record of the file, chunks reassembled and checked."""
    with open_read(path, label) as fh:
        head = fh.read(len(HEADER))
        if not is_wandb_file(head):
            raise TinkerNomicsError(f"{label}: not a W&B run file (it does not start with W&B's header)")
        offset, parts, start = len(HEADER), [], None
        while True:
            left = BLOCK - offset % BLOCK
            if left < CHUNK_HEADER:                      # the block's zero padding
                pad = fh.read(left)
                offset += len(pad)
                if len(pad) < left:
                    break
                continue
            raw = fh.read(CHUNK_HEADER)
            if not raw:
                break
            if len(raw) < CHUNK_HEADER:
                notes.append(f"the file ends inside a record at byte {offset:,} (a run still writing, or a copy cut "
                             f"short): the records before it are read")
                return
            crc, length, kind = struct.unpack("<IHB", raw)
            if kind == 0 and length == 0 and crc == 0:    # a zero-filled tail (preallocated): the rest of the block
                fh.read(left - CHUNK_HEADER)
                offset += left
                continue
            data = fh.read(length)
            if len(data) < length:
                notes.append(f"the file ends inside a record at byte {offset:,} (a run still writing, or a copy cut "
                             f"short): the records before it are read")
                return
            if kind not in _TYPE_CRC or zlib.crc32(data, _TYPE_CRC[kind]) != crc:
                raise TinkerNomicsError(f"{label}: byte {offset:,}: a W&B record chunk fails its checksum (the file "
                                        f"is damaged)")
            if kind in (FULL, FIRST):
                if parts:
                    raise TinkerNomicsError(f"{label}: byte {offset:,}: a record starts inside another (the file is "
                                            f"damaged)")
                start = offset
            elif not parts:
                raise TinkerNomicsError(f"{label}: byte {offset:,}: a record continues with no start (the file is "
                                        f"damaged)")
            parts.append(data)
            if sum(len(p) for p in parts) > MAX_RECORD_BYTES:
                raise TinkerNomicsError(f"{label}: byte {start:,}: a record over {MAX_RECORD_BYTES // 2 ** 20} MiB "
                                        f"(the file is damaged)")
            offset += CHUNK_HEADER + length
            if kind in (FULL, LAST):
                yield start, b"".join(parts)
                parts = []
        if parts:
            notes.append(f"the file ends inside a record at byte {start:,} (a run still writing, or a copy cut "
                         f"short): the records before it are read")


def _text(value: object) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else ""


def _json_value(raw: bytes) -> object:
    """A value_json: a number read as one (most of a history is numbers, and json.loads is slow), else JSON, else
    the text itself."""
    try:
        return int(raw) if raw.isdigit() else float(raw)
    except ValueError:
        pass
    text = _text(raw)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _item(buf: bytes) -> tuple[str, object]:
    """A history or config item: its name (nested keys joined by '.', as W&B's exports name them) and value."""
    key, nested, value = "", [], None
    for f, w, v in fields(buf):
        if f == 1 and w == 2:
            key = _text(v)
        elif f == 2 and w == 2:
            nested.append(_text(v))
        elif f == 16 and w == 2:
            value = _json_value(v)
        elif f == 4 and w == 0:
            value = bool(v)
        elif f == 5 and w == 0:
            value = zigzag(v)
        elif f == 6 and w == 1:
            value = struct.unpack("<d", v)[0]
        elif f in (7, 8) and w == 2:
            value = _text(v)
            if f == 8:
                try:
                    value = json.loads(value)
                except (ValueError, RecursionError):
                    pass
    return (key or ".".join(nested)), value


def history(path: Path, label: str, notes: list) -> Iterator[tuple[tuple[str, int], dict]]:
    """Each history record as a W&B export's row: {name: value} with `_step` (the record's step)."""
    for offset, data in _records(path, label, notes):
        try:
            entry = next((v for f, w, v in fields(data) if f == HISTORY and w == 2), None)
            if entry is None:
                continue
            row, step = {}, None
            for f, w, v in fields(entry):
                if f == 1 and w == 2:
                    name, value = _item(v)
                    if name:
                        row[name] = value
                elif f == 2 and w == 2:
                    step = next((n for sf, sw, n in fields(v) if sf == 1 and sw == 0), 0)
        except (ValueError, struct.error, IndexError, OverflowError):
            raise TinkerNomicsError(f"{label}: byte {offset:,}: a W&B history record that is not a protocol "
                                    f"buffer (the file is damaged)") from None
        if step is not None and "_step" not in row:
            row["_step"] = step
        yield ("byte", offset), row


def run_info(path: Path, label: str) -> tuple[dict, dict]:
    """The run's config ({name: value}, later updates over earlier ones) and its GPUs as wandb-metadata.json names
    them ({"gpu": …, "gpu_count": …, "gpu_nvidia": [{"name": …}]}), from the run, config and environment records."""
    config: dict = {}
    gpus: dict = {}
    for offset, data in _records(path, label, []):
        try:
            for f, w, v in fields(data):
                if w != 2 or f not in (CONFIG, RUN, ENVIRONMENT):
                    continue
                if f == RUN:
                    v = next((c for cf, cw, c in fields(v) if cf == RUN_CONFIG and cw == 2), b"")
                if f in (CONFIG, RUN):
                    for cf, cw, item in fields(v):
                        if cf == 1 and cw == 2:
                            name, value = _item(item)
                            if name:
                                config[name] = value
                    continue
                for ef, ew, ev in fields(v):
                    if ef == 18 and ew == 2:
                        gpus["gpu"] = _text(ev)
                    elif ef == 19 and ew == 0:
                        gpus["gpu_count"] = ev
                    elif ef == 24 and ew == 2:
                        name = next((_text(n) for nf, nw, n in fields(ev) if nf == 1 and nw == 2), "")
                        gpus.setdefault("gpu_nvidia", []).append({"name": name})
                    elif ef == 26 and ew == 2:
                        name = next((_text(n) for nf, nw, n in fields(ev) if nf == 8 and nw == 2), "")
                        gpus.setdefault("gpu_amd", []).append({"series": name})
        except (ValueError, struct.error, IndexError, OverflowError):
            raise TinkerNomicsError(f"{label}: byte {offset:,}: a W&B record that is not a protocol buffer (the "
                                    f"file is damaged)") from None
    config.pop("_wandb", None)
    return config, gpus


def keys(path: Path, label: str, limit: int = 200) -> set[str]:
    """The names the first `limit` history records log: what a detector looks at."""
    out: set[str] = set()
    for i, (_, row) in enumerate(history(path, label, [])):
        out.update(row)
        if i + 1 >= limit:
            break
    return out


def run_file(folder: Path) -> Path | None:
    """The one `run-<id>.wandb` of a W&B run folder, None where it holds none."""
    found = sorted(p for p in folder.glob("*" + SUFFIX) if p.is_file())
    return found[0] if len(found) == 1 else None


def run_folders(folder: Path, limit: int = 1000) -> list[Path]:
    """The run folders of W&B's `wandb/` folder (`run-…` or `offline-run-…`, each holding its run file), by name."""
    found = []
    for i, child in enumerate(sorted(folder.iterdir())):
        if i >= limit:
            break
        if child.name.startswith(("run-", "offline-run-")) and child.is_dir() and run_file(child) is not None:
            found.append(child)
    return found


RUN_FOLDER = re.compile(r"(?:offline-)?run-(?P<when>\d{8}_\d{6})-(?P<id>[^-]+)$")


def sessions(folders: list[Path]) -> list[Path] | None:
    """Run folders that are sessions of one run: W&B names each `run-<date>_<time>-<id>` (`offline-run-…` offline)
    and a resumed run (`wandb.init(resume=…)`, `id=`) keeps its id in a new folder each time it starts. The folders
    oldest first where there are several of one id and no other; None otherwise."""
    found = [(m.group("when"), m.group("id"), f) for f in folders if (m := RUN_FOLDER.match(f.name))]
    if len(folders) < 2 or len(found) != len(folders) or len({run_id for _, run_id, _ in found}) != 1:
        return None
    return [f for _, _, f in sorted(found, key=lambda x: (x[0], x[2].name))]

