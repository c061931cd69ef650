"""The protocol-buffer wire format, read without the protobuf package: the few message fields the log readers need
(TensorBoard's events, W&B's run file) taken field by field (https://protobuf.dev/programming-guides/encoding/)."""
from __future__ import annotations


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


def fields(buf: bytes) -> list[tuple[int, int, object]]:
    """(field number, wire type, value) of a protocol-buffer message, in order: varints as ints, fixed64/fixed32 as
    bytes, length-delimited fields as bytes. Keys of one or two bytes and one-byte lengths (nearly all of them)
    are read inline."""
    out = []
    i, n = 0, len(buf)
    while i < n:
        key = buf[i]
        if key < 0x80:
            i += 1
        elif i + 1 < n and buf[i + 1] < 0x80:         # a two-byte key: fields 16 to 2047
            key = (key & 0x7F) | buf[i + 1] << 7
            i += 2
        else:
            key, i = varint(buf, i)
        wire = key & 7
        if wire == 2:
            if i >= n:
                raise ValueError("truncated field")
            size = buf[i]
            if size < 0x80:
                i += 1
            else:
                size, i = varint(buf, i)
            end = i + size
            value = buf[i:end]
        elif wire == 0:
            value, end = varint(buf, i)
        elif wire == 1:
            end = i + 8
            value = buf[i:end]
        elif wire == 5:
            end = i + 4
            value = buf[i:end]
        else:
            raise ValueError(f"wire type {wire}")
        if end > n:
            raise ValueError("truncated field")
        out.append((key >> 3, wire, value))
        i = end
    return out


def signed(value: int) -> int:
    """An int64 field's varint as the signed number it encodes (two's complement)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def zigzag(value: int) -> int:
    """A sint64 field's varint as the signed number it encodes."""
    return (value >> 1) ^ -(value & 1)
