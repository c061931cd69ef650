"""How the fuzz tests damage a valid log: the ways real files get damaged (truncated, bytes flipped, inserted or
deleted, lines shuffled or duplicated, a number replaced with a value of another type or size). Shared by the
tinker-cookbook readers' fuzz (tests/test_runs_fuzz.py) and the self-hosted ones' (tests/test_hosted_fuzz.py).
"""
import json

from hypothesis import strategies as st

ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.text(max_size=5), st.integers(min_value=-10**30, max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.just(10**400), st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
HOW = ["truncate", "flip", "insert", "delete", "shuffle", "duplicate", "replace"]


def damage(draw, data: bytes, suffix: str) -> bytes:
    """`data` damaged one way, drawn with hypothesis' `draw` (inside an @st.composite strategy)."""
    how = draw(st.sampled_from(HOW))
    if how == "truncate":
        return data[: draw(st.integers(0, len(data)))]
    if how == "flip":
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(data) - 1))
            data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1:]
        return data
    if how == "insert":
        i = draw(st.integers(0, len(data)))
        return data[:i] + draw(st.binary(min_size=1, max_size=8)) + data[i:]
    if how == "delete":
        i = draw(st.integers(0, len(data) - 1))
        return data[:i] + data[i + draw(st.integers(1, 40)):]
    if how in ("shuffle", "duplicate"):
        lines = data.split(b"\n")
        if how == "shuffle":
            lines = draw(st.permutations(lines))
        else:
            i = draw(st.integers(0, len(lines) - 1))
            lines = lines[:i] + [lines[i]] + lines[i:]
        return b"\n".join(lines)
    # a number replaced with a value of another type or size
    text = data.decode("latin-1")
    spots = [i for i, ch in enumerate(text) if ch.isdigit() and (i == 0 or not text[i - 1].isdigit())]
    if not spots:
        return data
    i = draw(st.sampled_from(spots))
    j = i
    while j < len(text) and (text[j].isdigit() or text[j] in ".e-"):
        j += 1
    value = draw(ODD_VALUES)
    literal = json.dumps(value) if suffix not in (".csv", ".log") else str(value)
    return (text[:i] + literal + text[j:]).encode("latin-1", errors="replace")
