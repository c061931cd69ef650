"""Numbers read from a user's files (JSON configs, logs, calibration files): a JSON integer can have hundreds of
digits, which no float holds, and `math.isfinite` raises OverflowError on it instead of answering. Every reader asks
here instead, so such a value is refused in one line like any other out-of-range number."""
from __future__ import annotations

import math


def finite_number(value) -> float | None:
    """A number (not a bool) that fits a finite float, as that float; else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def is_finite(value) -> bool:
    """Whether `value` is a number (not a bool) that fits a finite float."""
    return finite_number(value) is not None


def shown(value, limit: int = 60) -> str:
    """`value` as an error message quotes it: its repr, cut to `limit` characters (a pasted number can have
    hundreds of digits)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
