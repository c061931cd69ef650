"""Compressed logs read as they are: a log saved with gzip, bzip2 or xz (`metrics.jsonl.gz`, `verl.log.xz`) is
decompressed while it is read, whatever its name, recognised by its first bytes; a zstd file, which the standard
library cannot read, is refused with the command that decompresses it.

`decompressing(raw, label)` wraps an open binary file: reads return the decompressed bytes, and a damaged or
truncated stream is one line naming the file (TinkerNomicsError), never a zlib or lzma traceback. The size of the
decompressed data is not known in advance, so such a log is read in one pass (no parts, no percentage).
"""
from __future__ import annotations

import io
import os
from pathlib import Path

from ..errors import TinkerNomicsError

# first bytes -> (name, opener module); https://www.rfc-editor.org/rfc/rfc1952 (gzip), bzip2's "BZh",
# https://tukaani.org/xz/xz-file-format.txt (xz), https://www.rfc-editor.org/rfc/rfc8878 (zstd)
MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"))
SUFFIXES = (".gz", ".gzip", ".bz2", ".xz", ".zst")


def compression_of(fd: int) -> str | None:
    """The compression an open file's first bytes announce, or None for a plain file."""
    head = os.pread(fd, 6, 0)
    return next((name for magic, name in MAGIC if head.startswith(magic)), None)


def log_suffix(path) -> str:
    """The suffix that says a log's format, lower-case, past a compression suffix: `.jsonl` for metrics.jsonl.gz."""
    p = Path(path)
    suffix = p.suffix.lower()
    return Path(p.stem).suffix.lower() if suffix in SUFFIXES else suffix


class _Decompressed(io.RawIOBase):
    def __init__(self, inner, raw, label: str, kind: str):
        self.inner, self.raw, self.label, self.kind = inner, raw, label, kind

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.raw.fileno()

    def readinto(self, buffer) -> int:
        try:
            return self.inner.readinto(buffer)
        except EOFError:
            raise TinkerNomicsError(f"{self.label}: the {self.kind} file is truncated (it ends mid-stream)") from None
        except Exception as exc:  # gzip.BadGzipFile, zlib.error, OSError, lzma.LZMAError: a damaged stream
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise TinkerNomicsError(f"{self.label}: not a readable {self.kind} file ({reason[:200]})") from None

    def close(self) -> None:
        if not self.closed:
            try:
                self.inner.close()
            finally:
                self.raw.close()
        super().close()


def is_decompressing(fh) -> bool:
    """Whether an open file (runs.files.open_regular) is read through a decompressor."""
    return isinstance(getattr(fh, "raw", None), _Decompressed)


def not_compressed_parquet(fh, label: str) -> None:
    """Parquet is read by seeking through the file, which a compressed stream cannot do (and Parquet compresses its
    own columns): one line saying so."""
    if is_decompressing(fh):
        raise TinkerNomicsError(f"{label}: a compressed Parquet file; decompress it first (Parquet already "
                                f"compresses its columns)")


def decompressing(raw, label: str, kind: str):
    """`raw` (an open binary file of `kind` compression) read decompressed, as a buffered binary file."""
    if kind == "zstd":
        raw.close()
        raise TinkerNomicsError(f"{label}: compressed with zstd, which this Python cannot read: decompress it first "
                                f"(zstd -d {label})")
    if kind == "gzip":
        import gzip
        inner = gzip.GzipFile(fileobj=raw, mode="rb")
    elif kind == "bzip2":
        import bz2
        inner = bz2.BZ2File(raw, mode="rb")
    else:
        import lzma
        inner = lzma.LZMAFile(raw, mode="rb")
    return io.BufferedReader(_Decompressed(inner, raw, label, kind), buffer_size=1 << 20)
