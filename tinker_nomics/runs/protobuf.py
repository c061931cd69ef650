"""The protocol-buffer wire format, read without the protobuf package: the few message fields the log readers need
(TensorBoard's events, W&B's run file) taken field by field (https://protobuf.dev/programming-guides/encoding/)."""
from __future__ import annotations

from typing import Iterator


def varint(buf: bytes, i: int) -> tuple[int, int]:
    """The base-128 varint at `buf[i]`: (value, index after it)."""
    shift = value = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7
        if shift > 70:
            raise ValueError("varint too long")


def fields(buf: bytes) -> Iterator[tuple[int, int, object]]:
    """(field number, wire type, value) of a protocol-buffer message: varints as ints, fixed64/fixed32 as bytes,
    length-delimited fields as bytes."""
    i, n = 0, len(buf)
    while i < n:
        key, i = varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 2:
            size, i = varint(buf, i)
            value, i = buf[i:i + size], i + size
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        if i > n:
            raise ValueError("truncated field")
        yield field, wire, value


def signed(value: int) -> int:
    """An int64 field's varint as the signed number it encodes (two's complement)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def zigzag(value: int) -> int:
    """A sint64 field's varint as the signed number it encodes."""
    return (value >> 1) ^ -(value & 1)
