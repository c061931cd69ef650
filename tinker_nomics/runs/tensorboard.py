"""TensorBoard event files (`events.out.tfevents.*`) read as a stream of per-step records, without TensorFlow.

verl (`trainer.logger` with `tensorboard`), NeMo RL (`logger.tensorboard_enabled`) and transformers' TensorBoard
callback (TRL) write their scalars through a `SummaryWriter` (torch.utils.tensorboard or tensorboardX): the same
tag and step as their W&B metrics. The file is a TFRecord stream (tensorflow/core/lib/io/record_writer.cc): each
record is an 8-byte little-endian length, a 4-byte masked CRC-32C of the length, the data, and a 4-byte masked
CRC-32C of the data. Each record is an `Event` protocol buffer (tensorflow/core/util/event.proto): `wall_time`
(field 1, double), `step` (2, int64), `summary` (5) holding `value`s (1), each with a `tag` (1) and either a
`simple_value` (2, float: what `add_scalar` writes) or a `tensor` (8, a TensorProto: TF2's `tf.summary.scalar`,
a float or double scalar in `float_val` (5), `double_val` (6) or `tensor_content` (4)).

Only the tags a reader asks for (by prefix) are kept; a step's values are gathered until two more steps have
arrived after it (tags written later than that are found, and the file read again waiting longer: read_steps), so
memory does not grow with the number of steps (a GPU monitor logging on another clock is left out by the
prefixes). A record whose length or data fails its checksum is a damaged file (one line naming its offset), never a
silently wrong number; a truncated last record (a run stopped mid-write) ends the stream with a note.
"""
from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Iterator

from ..errors import TinkerNomicsError
from .compressed import is_decompressing
from .stream import open_read
from .protobuf import fields, signed

EVENT_FILE = "events.out.tfevents."
MAX_RECORD_BYTES = 1 << 26        # a scalar event is tens of bytes; an image or graph event is skipped whole
PENDING_STEPS = 2                 # steps gathered before the oldest is emitted (events arrive in step order)
MAX_EVENT_FILES = 200


def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    """TFRecord's masked CRC-32C (record_writer.cc MaskedCrc)."""
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def is_event_file(path: Path) -> bool:
    return path.name.startswith(EVENT_FILE)


def event_files(folder: Path) -> list[Path]:
    """The event files in `folder` and below (TensorBoard writes them a few folders down: run/experiment/...)."""
    found = []
    for path in sorted(folder.rglob(EVENT_FILE + "*")):
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(folder).parts):
            found.append(path)
            if len(found) > MAX_EVENT_FILES:
                break
    return found


def _cut_note(offset: int) -> str:
    return f"the event file ends in a cut record at byte {offset:,} (a run stopped mid-write): the steps before it are read"


def _skip(fh, size: int | None, n: int) -> bool:
    """Moves `n` bytes on (a record not read); False when the file ends first. `size` is the file's size, None for
    a compressed stream, which is read through instead of seeked."""
    if size is not None:
        if n > size - fh.tell():
            return False
        fh.seek(n, 1)
        return True
    while n > 0:
        chunk = fh.read(min(n, 1 << 20))
        if not chunk:
            return False
        n -= len(chunk)
    return True


def _records(path: Path, label: str, notes: list) -> Iterator[tuple[int, bytes]]:
    """(offset, data) of every TFRecord record of the file. A record whose length runs past the end of the file
    (whatever the length, up to 2^64 - 1) is a cut record: the file ends there."""
    with open_read(path, label) as fh:
        size = None if is_decompressing(fh) else os.fstat(fh.fileno()).st_size
        offset = 0
        while True:
            header = fh.read(12)
            if not header:
                return
            if len(header) < 12:
                notes.append(_cut_note(offset))
                return
            length, length_crc = struct.unpack("<QI", header)
            if masked_crc(header[:8]) != length_crc:
                raise TinkerNomicsError(f"{label}: byte {offset:,}: not a TensorBoard event record (its length "
                                        f"fails its checksum)")
            if length > MAX_RECORD_BYTES:   # an image, histogram or graph event: no scalar of ours
                if not _skip(fh, size, length + 4):
                    notes.append(_cut_note(offset))
                    return
                notes.append(f"a record of {length:,} bytes at byte {offset:,} was skipped (not a scalar)")
                offset += 12 + length + 4
                continue
            data = fh.read(length + 4)
            if len(data) < length + 4:
                notes.append(_cut_note(offset))
                return
            body = data[:length]
            if masked_crc(body) != struct.unpack("<I", data[length:])[0]:
                raise TinkerNomicsError(f"{label}: byte {offset:,}: a TensorBoard event record fails its checksum "
                                        f"(the file is damaged)")
            yield offset, body
            offset += 12 + length + 4


def _tensor_scalar(buf: bytes) -> float | None:
    """A float or double scalar from a TensorProto (TF2 summaries); None for anything else."""
    dtype, content = None, None
    floats: list[float] = []
    for field, wire, value in fields(buf):
        if field == 1 and wire == 0:
            dtype = value
        elif field == 4 and wire == 2:
            content = value
        elif field == 5:     # float_val, packed or not
            floats += list(struct.unpack(f"<{len(value) // 4}f", value)) if wire == 2 else [
                struct.unpack("<f", value)[0]]
        elif field == 6:     # double_val
            floats += list(struct.unpack(f"<{len(value) // 8}d", value)) if wire == 2 else [
                struct.unpack("<d", value)[0]]
    if floats:
        return floats[0] if len(floats) == 1 else None
    if content is not None:
        if dtype == 1 and len(content) == 4:
            return struct.unpack("<f", content)[0]
        if dtype == 2 and len(content) == 8:
            return struct.unpack("<d", content)[0]
    return None


def _scalars(event: bytes, wanted) -> tuple[int, list[tuple[str, float]]]:
    """The step and the wanted (tag, value) scalars of one Event (a step of 0 is not written: proto3 leaves
    defaults out)."""
    step, out = 0, []
    for field, wire, value in fields(event):
        if field == 2 and wire == 0:
            step = signed(value)
        elif field == 5 and wire == 2:
            for f, w, v in fields(value):
                if f != 1 or w != 2:
                    continue
                tag, number = None, None
                for vf, vw, vv in fields(v):
                    if vf == 1 and vw == 2:
                        tag = vv.decode("utf-8", errors="replace")
                    elif vf == 2 and vw == 5:
                        number = struct.unpack("<f", vv)[0]
                    elif vf == 8 and vw == 2:
                        number = _tensor_scalar(vv)
                if tag is not None and number is not None and wanted(tag):
                    out.append((tag, float(number)))
    return step, out


LATE_STEPS_KEPT = 1024            # steps whose tags are remembered after they are emitted, to tell late tags


class LateTags(Exception):
    """Tags of a step already emitted arrived (more than `window` steps late): read the file again with `window`."""

    def __init__(self, window: int, step: int):
        super().__init__(window, step)
        self.window, self.step = window, step


def records(path: Path, label: str, prefixes: tuple[str, ...], notes: list,
            window: int = PENDING_STEPS) -> Iterator[tuple[tuple[str, int], dict]]:
    """One record per step, in step order, with the scalars whose tag starts with one of `prefixes`, as W&B rows
    are (`_step` the step); ((unit, number), {tag: value}). A step's tags are gathered until `window` later steps
    have arrived. Tags of a step already emitted, none of which that step's record had, are late tags of that
    step, not a repeat of it: LateTags, with the window that gathers them (see `read_steps`). Tags that step
    already had are a repeated step (a second record for it)."""
    def wanted(tag: str) -> bool:
        return tag.startswith(prefixes)

    pending: dict[int, dict] = {}
    first_seen: dict[int, int] = {}
    arrived: dict[int, int] = {}         # step -> how many steps had arrived before it (the last LATE_STEPS_KEPT)
    emitted: dict[int, frozenset] = {}   # step -> its tags, for the last LATE_STEPS_KEPT steps emitted
    shapes: dict[frozenset, frozenset] = {}
    count = 0

    def emit(done: int):
        row = pending.pop(done)
        tags = frozenset(row)
        emitted[done] = shapes.setdefault(tags, tags)
        if len(emitted) > LATE_STEPS_KEPT:
            del emitted[next(iter(emitted))]
        return ("event at byte", first_seen.pop(done)), row

    for offset, data in _records(path, label, notes):
        try:
            step, values = _scalars(data, wanted)
        except (ValueError, TypeError, struct.error, IndexError, OverflowError):
            raise TinkerNomicsError(f"{label}: byte {offset:,}: not a TensorBoard event (a broken protocol "
                                    f"buffer)") from None
        if not values:
            continue
        row = pending.get(step)
        if row is None:
            done = emitted.get(step)
            if done is not None and step in arrived and done.isdisjoint(tag for tag, _ in values):
                raise LateTags(count - arrived[step] + 1, step)
            row = pending[step] = {"_step": step}
            first_seen[step] = offset
            arrived[step] = count
            count += 1
            if len(arrived) > LATE_STEPS_KEPT:
                del arrived[next(iter(arrived))]
        row.update(values)
        while len(pending) > window:   # the step that arrived first: `window` steps have arrived since
            yield emit(next(iter(pending)))
    for step in sorted(pending):
        yield emit(step)


def read_steps(read, files: list[Path], prefixes: tuple[str, ...], notes: list):
    """`read(rows, notes)` (a framework's reader) over the records of `files` read one after the other; when some
    tags arrive late (LateTags), they are read again with a window that gathers them into their step, and a note
    says so."""
    window, late_note = PENDING_STEPS, []
    while True:
        tried = list(notes) + late_note
        rows = (row for f in files for row in records(f, str(f), prefixes, tried, window))
        try:
            return read(rows, tried)
        except LateTags as late:
            if late.window <= window:   # cannot happen: each try gathers more
                raise
            window = late.window
            late_note = late_note or [f"some tags of step {late.step} were written after later steps' (TensorBoard "
                                      f"records written late): each tag is read with its own step"]


HPARAMS_TAG = "_hparams_/session_start_info"


def _hparam_value(buf: bytes):
    """A google.protobuf.Value: number (2), string (3) or bool (4); None for anything else."""
    for field, wire, value in fields(buf):
        if field == 2 and wire == 1:
            return struct.unpack("<d", value)[0]
        if field == 3 and wire == 2:
            return value.decode("utf-8", errors="replace")
        if field == 4 and wire == 0:
            return bool(value)
    return None


def _session_hparams(metadata: bytes) -> dict:
    """The hyperparameters of an `add_hparams` session-start summary: SummaryMetadata.plugin_data (1) .content (2)
    is an HParamsPluginData (tensorboard/plugins/hparams/plugin_data.proto) whose session_start_info (3) maps
    names to values (hparams, 1)."""
    out = {}
    for field, wire, plugin in fields(metadata):
        if field != 1 or wire != 2:
            continue
        content = next((v for f, w, v in fields(plugin) if f == 2 and w == 2), b"")
        for f, w, start in fields(content):
            if f != 3 or w != 2:
                continue
            for hf, hw, entry in fields(start):
                if hf != 1 or hw != 2:
                    continue
                key = value = None
                for ef, ew, ev in fields(entry):
                    if ef == 1 and ew == 2:
                        key = ev.decode("utf-8", errors="replace")
                    elif ef == 2 and ew == 2:
                        value = _hparam_value(ev)
                if key is not None and value is not None:
                    out[key] = value
    return out


def hparams(path: Path, label: str) -> dict:
    """The hyperparameters an event file holds (`SummaryWriter.add_hparams` writes them to an event file of their
    own, in a folder below the run's), flattened names as the writer gave them; {} when it holds none."""
    out: dict = {}
    notes: list[str] = []
    for offset, data in _records(path, label, notes):
        try:
            for field, wire, summary in fields(data):
                if field != 5 or wire != 2:
                    continue
                for f, w, value in fields(summary):
                    if f != 1 or w != 2:
                        continue
                    parts = {vf: vv for vf, vw, vv in fields(value) if vw == 2}
                    if parts.get(1, b"").decode("utf-8", errors="replace") == HPARAMS_TAG and 9 in parts:
                        out.update(_session_hparams(parts[9]))
        except (ValueError, TypeError, struct.error, IndexError, OverflowError):
            raise TinkerNomicsError(f"{label}: byte {offset:,}: not a TensorBoard event (a broken protocol "
                                    f"buffer)") from None
    return out


def keys(path: Path, label: str, prefixes: tuple[str, ...], limit: int = 50) -> set[str]:
    """The tags of the first `limit` steps: what a detector looks at."""
    out: set[str] = set()
    try:
        for i, (_, rec) in enumerate(records(path, label, prefixes, [])):
            out.update(rec)
            if i + 1 >= limit:
                break
    except LateTags:   # the tags of the steps so far are enough to tell the log
        pass
    return out
