"""Numbers for people: dollars, token counts, hours, percentages. Shared by the CLI, notebooks and plots."""
from __future__ import annotations

import math

import numpy as np

from .errors import CONTROL


def usd(x: float, cents: bool | None = None) -> str:
    """$99.20, $1,610, $38.7K for big values when compact; cents below $1,000 unless told otherwise."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if cents is None:
        cents = abs(x) < 1000
    shown = f"{abs(x):,.2f}" if cents else f"{abs(x):,.0f}"
    # a minus only where the printed amount is not zero: -$0.001 reads $0.00, not -$0.00
    return f"-${shown}" if x < 0 and shown.strip("0.,") else f"${shown}"


def usd_short(x: float) -> str:
    x = float(x)
    if abs(x) >= 1e6:
        return f"${x / 1e6:.2f}M"
    if abs(x) >= 1e4:
        return f"${x / 1e3:.1f}K"
    return usd(x)


def tokens(x: float) -> str:
    """117.96M, 70.65B, 181.01K tokens; a round count without its zero decimals: 655K, 896M."""
    x = float(x)
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(x) >= scale:
            text = f"{x / scale:,.2f}"
            return (text[:-3] if text.endswith(".00") else text) + suffix
    return f"{x:,.0f}"


def number(x: float) -> str:
    """A plain quantity for a table cell: whole numbers with thousands separators (11,837,640; 2,048), others
    to three significant digits (0.35, 12.5, 1,234), NaN as n/a."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{float(f'{x:.3g}'):g}" if abs(x) >= 1e-4 else f"{x:.2e}"


def axis_tick(kind: str):
    """A matplotlib tick formatter that labels through this module: "usd" ($500, $1,000, $12.5K), "tokens"
    (100K, 2.5M), "bytes" (80 GB), "count" (2,048), "pct" (25%). Ticks carry no needless decimals ("100K", not "100.00K")."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda value, _position: tick(value, kind))


def tick(value: float, kind: str) -> str:
    """One axis label (see `axis_tick`)."""
    value = float(value)
    if kind == "usd":
        if abs(value) >= 1e4:
            return usd_short(value).replace(".0K", "K").replace(".00M", "M")
        return f"${value:,.0f}" if value == int(value) else f"${value:,.2f}"
    if kind == "tokens":
        for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
            if abs(value) >= scale:
                return f"{value / scale:,.3g}{suffix}"
        return f"{value:,.0f}"
    if kind == "pct":
        return f"{100 * value:.3g}%"
    if kind == "bytes":
        for scale, suffix in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB")):
            if abs(value) >= scale:
                return f"{value / scale:,.3g} {suffix}"
        return f"{value:,.0f} B"
    if kind == "count":
        return number(value)
    raise ValueError(f"unknown tick kind {kind!r}; use usd, tokens, bytes, pct or count")


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
    return f"{x:,.0f} h ({x / 24:,.1f} days)"


def duration(x_hours: float) -> str:
    """A wall-clock for a plan, short: 36 min, 3.3 h, 4.6 days (no nested units, so ranges read cleanly)."""
    x = float(x_hours)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "never"
    if x < 1:
        return f"{x * 60:.0f} min"
    if x < 48:
        return f"{x:.1f} h"
    days = x / 24
    return f"{days:.1f} days" if days < 100 else f"{days:,.0f} days"


def seconds(x: float) -> str:
    x = float(x)
    return f"{x:.1f} s" if x < 60 else f"{x / 60:.1f} min"


def milliseconds(x_seconds: float) -> str:
    """A time in ms (66 ms): per-pass costs."""
    return f"{float(x_seconds) * 1e3:,.0f} ms"


def microseconds(x_seconds: float) -> str:
    """A short time in µs (67 µs): per-layer, per-step costs."""
    return f"{float(x_seconds) * 1e6:,.0f} µs"


def count(n: float, noun: str, plural: str | None = None) -> str:
    """A whole count with its noun, singular or plural: '1 row', '2 rows', '1,024 sequences'."""
    n = float(n)
    return f"{n:,.0f} {noun if n == 1 else (plural or noun + 's')}"


def ratio_span(low: float, high: float) -> str:
    """A range of factors, '1.3×–1.5×', or one factor where both ends print alike."""
    a, b = ratio(low), ratio(high)
    return a if a == b else f"{a}–{b}"


def time_in_unit(x_seconds: float, like: float | None = None) -> tuple[str, str]:
    """A time and its unit, in the unit `like` (default: the time itself) reads best in: µs below a millisecond,
    ms below a second, else s: (text, unit). A range takes its value's unit through `like`."""
    x, ref = float(x_seconds), abs(float(x_seconds if like is None else like))
    scale, unit = (1e6, "µs") if ref < 1e-3 else (1e3, "ms") if ref < 1 else (1.0, "s")
    v = x * scale
    return (f"{v:,.0f}" if abs(v) >= 100 or v == round(v) else f"{v:.3g}"), unit


def pct(x: float, digits: int = 1) -> str:
    return f"{100 * float(x):.{digits}f}%"


def signed(x: float, digits: int = 2) -> str:
    """+0.93, -0.41 as a correlation prints; a value that rounds to zero reads 0.00 (not −0.00)."""
    text = f"{float(x):+.{digits}f}"
    return text[1:] if float(text[1:]) == 0 else text


def signed_pct(x: float, digits: int = 1) -> str:
    """+12.3%, −4.0%; a value that rounds to zero reads 0% (not −0% or +0%)."""
    text = f"{100 * float(x):+.{digits}f}%"
    return text[1:] if float(text[1:-1]) == 0 else text


def signed_pct_beside(x: float, mark: float) -> str:
    """A signed whole percent, or one decimal where the whole percent would read as the mark itself (−35.1%
    beside a 35% mark, which −35% would seem to meet)."""
    return signed_pct(x, 1 if round(abs(100 * float(x))) == round(100 * float(mark)) else 0)


def ratio(x: float) -> str:
    return f"{float(x):.1f}×"


def series(items) -> str:
    """Names as a sentence lists them: "a", "a and b", "a, b and c"."""
    items = [str(x) for x in items]
    if not items:
        return ""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def gb(x_bytes: float) -> str:
    """83.9 GB, 2,000 GB (no tenth of a GB where the size is in the hundreds or more), 186 MB."""
    x = float(x_bytes) / 1e9
    if x >= 100:
        return f"{x:,.0f} GB"
    return f"{x:,.1f} GB" if x >= 1 else f"{x * 1e3:,.0f} MB"


def size_gb(x_gb: float) -> str:
    """A size the package reports in GB (10^9 bytes), shown like `gb`: 83.9 GB, 186 MB."""
    return gb(float(x_gb) * 1e9)


def kb(x_bytes: float, digits: int | None = 0) -> str:
    """Bytes as kilobytes (10^3 bytes): 128 KB; digits=None prints the shortest exact form (16 KB, 0.5 KB)."""
    x = float(x_bytes) / 1e3
    return f"{x:g} KB" if digits is None else f"{x:,.{digits}f} KB"


def tflops(x_flops_per_s: float) -> str:
    """FLOP/s as TFLOPS (10^12), whole: 989 TFLOPS."""
    return f"{float(x_flops_per_s) / 1e12:,.0f} TFLOPS"


def pct_exact(x: float) -> str:
    """A share as a percentage with the digits it has and no more: 0.1 → 10%, 0.0185 → 1.85%."""
    return f"{100 * float(x):g}%"


def signed_usd(x: float) -> str:
    """Dollars with an explicit sign: +$2.42, -$2.35 (a difference, not an amount)."""
    x = float(x)
    if math.isnan(x):
        return usd(x)
    return ("+" if x >= 0 else "-") + usd(abs(x))


# ------------------------------------------------------------------------------------------ JSON


def json_value(value, keep_nan: bool = False):
    """A value fit for strict JSON: NumPy scalars as Python numbers, NaN, infinities and missing values as None
    (JSON has no NaN or Infinity; a reader of the output is told why elsewhere, in the notes). `keep_nan` keeps
    non-finite floats as floats (plain Python values for a file only the package reads back)."""
    if value is None or type(value).__name__ == "NAType":   # pandas.NA, without importing pandas
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if keep_nan or math.isfinite(float(value)) else None
    return value


def json_safe(value, keep_nan: bool = False):
    """A nested structure of dicts, lists, NumPy arrays and scalars as strict-JSON values (NaN and infinities
    as None, unless `keep_nan`), for every JSON the package writes."""
    if isinstance(value, dict):
        return {str(k): json_safe(v, keep_nan) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, keep_nan) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist(), keep_nan)
    return json_value(value, keep_nan)


def json_text(value, indent: int | None = 2) -> str:
    """Strict JSON text (NaN and infinities become null; the caller's notes say why), written by msgspec's encoder
    (several times faster than the json module's indenting one on a run's summary)."""
    import msgspec
    data = msgspec.json.encode(json_safe(value))
    return (msgspec.json.format(data, indent=indent) if indent else data).decode()


def json_records(frame) -> list[dict]:
    """A DataFrame as a list of JSON-ready row dicts."""
    return [{k: json_value(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


# ------------------------------------------------------------------------------------------ text from a log

_MARKDOWN_PUNCTUATION = "\\`*_{}[]()#+-.!|$~:"


def markdown_literal(text) -> str:
    """Text that came from a log (a folder or run name, a model path from a config dump, a metric key) for a Markdown
    paragraph, shown as itself: HTML's special characters as entities (no tag, no attribute, no script), Markdown's
    punctuation escaped with a backslash (no link, emphasis or math), control characters as spaces (no new line,
    so no heading or list)."""
    out = []
    for ch in str(text):
        if ch in "&<>\"'":
            out.append({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[ch])
        elif ch in _MARKDOWN_PUNCTUATION:
            out.append("\\" + ch)
        elif CONTROL.match(ch):   # a control or invisible character (errors.INVISIBLE: a bidi override)
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def cut(text: str, width: int) -> str:
    """`text` in at most `width` characters: cut at the last word that fits, with an ellipsis (never mid-word)."""
    text = str(text)
    if len(text) <= width:
        return text
    head = text[:width - 1]
    space = head.rfind(" ")
    return (head[:space] if space > width // 2 else head).rstrip(" ,;(") + "…"


def printable(value, missing: str = "not recorded", limit: int = 60) -> str:
    """A value from a user's file as one line of a note: `missing` for null, text with a control or invisible
    character shown escaped (an escape code, a line break or a bidi override never reaches the terminal), cut to
    `limit` characters."""
    if value is None:
        return missing
    text = str(value)
    if CONTROL.search(text):
        text = repr(text)[1:-1]
    return text if len(text) <= limit else text[:limit - 3] + "..."
