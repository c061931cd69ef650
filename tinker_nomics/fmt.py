"""Numbers for people: dollars, token counts, hours, percentages. Shared by the CLI, notebooks and plots."""
from __future__ import annotations

import math


def usd(x: float, cents: bool | None = None) -> str:
    """$99.20, $1,610, $38.7K for big values when compact; cents below $1,000 unless told otherwise."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if cents is None:
        cents = abs(x) < 1000
    return f"-${abs(x):,.2f}" if x < 0 and cents else (f"${x:,.2f}" if cents else f"${x:,.0f}")


def usd_short(x: float) -> str:
    x = float(x)
    if abs(x) >= 1e6:
        return f"${x / 1e6:.2f}M"
    if abs(x) >= 1e4:
        return f"${x / 1e3:.1f}K"
    return usd(x)


def tokens(x: float) -> str:
    """117.96M, 70.65B, 181.0K tokens."""
    x = float(x)
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(x) >= scale:
            return f"{x / scale:,.2f}{suffix}"
    return f"{x:,.0f}"


def hours(x: float) -> str:
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if x < 1 / 60:
        return f"{x * 3600:.1f} s"
    if x < 1:
        return f"{x * 60:.1f} min"
    if x < 48:
        return f"{x:.2f} h"
    return f"{x:,.0f} h ({x / 24:.1f} days)"


def seconds(x: float) -> str:
    x = float(x)
    return f"{x:.1f} s" if x < 60 else f"{x / 60:.1f} min"


def pct(x: float, digits: int = 1) -> str:
    return f"{100 * float(x):.{digits}f}%"


def signed_pct(x: float, digits: int = 1) -> str:
    return f"{100 * float(x):+.{digits}f}%"


def ratio(x: float) -> str:
    return f"{float(x):.1f}×"


def gb(x_bytes: float) -> str:
    x = float(x_bytes) / 1e9
    return f"{x:,.1f} GB" if x >= 1 else f"{x * 1e3:,.0f} MB"
