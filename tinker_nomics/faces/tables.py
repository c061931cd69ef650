"""One table style for the book: every table a chapter shows goes through `show`.

    from tinker_nomics.faces import tables
    tables.show(frame)                               # display a DataFrame, a pandas Styler or a list of row dicts
    tables.show(frame, caption="Tinker as of 2026-01-05", formats={"tokens": fmt.tokens})
    tables.table(frame)                              # the Table itself (HTML and text), without displaying it

What it guarantees, so no raw DataFrame reaches a page:
- numbers go through `fmt` (a column's own formatter from `formats`, else `fmt.number`): no `11837640.0`;
- headers read as words: an input's Python name becomes its display name (faces.labels), other `snake_case`
  becomes `snake case`, and units stay in them as the author wrote them;
- a meaningful index (anything but 0, 1, 2, …) is the first column, headed by its name, and never repeated;
- number-like columns ($99.20, 117.96M, 3.5×, +2.1%, 128 KB) are right-aligned with tabular figures, text left;
  their figures never break, but their headers wrap between words, so a long header does not widen the table;
- a line breaks between words or after the slash of an org/model name, never inside a hyphenated word (a run
  id, a date, a model name) or a short range ("(0.10–0.20)") unless it is longer than LONGEST_UNBROKEN (a range:
  LONGEST_UNBROKEN_RANGE) characters;
- cells have padding; a table wider than the page scrolls sideways inside its own box, with a shadow on the
  edge that has more to show (the cue) and a keyboard-focusable region.
The result renders as HTML in the built book, in JupyterLab and in papermill outputs (`_repr_html_`), and as
plain text elsewhere.
"""
from __future__ import annotations

import html
import math
import numbers
import re
from typing import Callable, Mapping

from .. import fmt
from . import labels

CLASS = "tn-table"
# Number-like: an optional sign, currency or ~, digits, and a short unit or suffix ("$1.2K", "3.5×", "128 KB",
# "12%", "+2.10%", "1.32 h", "21.7 min"). A cell such as "H100 SXM" or "Qwen3-8B" is text.
NUMBER_LIKE = re.compile(r"^[~≈<>]?\s?[+\-−]?\s?[$€£]?\s?\d[\d,]*(\.\d+)?\s?(%|×|x|[KMBT]|[A-Za-z/\-]{1,12}(\s[a-z]+)?)?"
                         r"(\s?(/|per)\s?[\w\-]+)?$")
EMPTY = {"", "—", "–", "-", "n/a", "None", "nan"}

STYLE = f"""<style>
.{CLASS}-wrap{{overflow-x:auto;max-width:100%;margin:0.6em 0 1.2em 0;
  background:linear-gradient(to right,#fff 30%,rgba(255,255,255,0)),linear-gradient(to left,#fff 30%,rgba(255,255,255,0)) 100% 0,
    radial-gradient(farthest-side at 0 50%,rgba(0,0,0,.4),rgba(0,0,0,0)),radial-gradient(farthest-side at 100% 50%,rgba(0,0,0,.4),rgba(0,0,0,0)) 100% 0;
  background-repeat:no-repeat;background-size:40px 100%,40px 100%,22px 100%,22px 100%;
  background-attachment:local,local,scroll,scroll}}
.{CLASS}-wrap:focus{{outline:2px solid #4C72B0;outline-offset:2px}}
table.{CLASS}{{border-collapse:collapse;font-size:0.9em;line-height:1.35;margin:0;background:transparent;width:auto}}
.{CLASS}-caption{{text-align:left;font-weight:600;margin:0.6em 0 0.35em 0;color:#333}}
table.{CLASS} th,table.{CLASS} td{{padding:0.3em 0.5em;border-bottom:1px solid #e3e3e3;vertical-align:top;
  text-align:left;background:transparent}}
table.{CLASS} thead th{{border-bottom:2px solid #999;font-weight:600;vertical-align:bottom}}
table.{CLASS} tbody th{{font-weight:600}}
table.{CLASS} .num{{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}}
table.{CLASS} thead th.num{{white-space:normal}}
table.{CLASS} td.text{{min-width:14em;max-width:40em}}
.{CLASS}-word{{white-space:nowrap}}
</style>"""


class Table:
    """A rendered table: HTML for notebooks and the book, text for anything else."""

    def __init__(self, header: list[str], rows: list[list[str]], numeric: list[bool], caption: str | None,
                 label_column: bool):
        self.header, self.rows, self.numeric = header, rows, numeric
        self.caption, self.label_column = caption, label_column

    def _repr_html_(self) -> str:
        def cell(tag, text, j, scope=""):
            classes = "num" if self.numeric[j] else ("text" if len(text) > 40 else "")
            attributes = (f' class="{classes}"' if classes else "") + (f' scope="{scope}"' if scope else "")
            return f"<{tag}{attributes}>{_unbroken_words(html.escape(text))}</{tag}>"

        head = "".join(cell("th", h, j, "col") for j, h in enumerate(self.header))
        body = []
        for row in self.rows:
            cells = [cell("th", v, j, "row") if (j == 0 and self.label_column) else cell("td", v, j)
                     for j, v in enumerate(row)]
            body.append(f"<tr>{''.join(cells)}</tr>")
        # The caption sits above the scrolling box, so on a phone it wraps at the column instead of scrolling away.
        caption = f'<p class="{CLASS}-caption">{html.escape(self.caption)}</p>' if self.caption else ""
        label = html.escape(self.caption or (self.header[0] if self.header else "table"))
        return (f'{STYLE}{caption}<div class="{CLASS}-wrap" role="region" tabindex="0" aria-label="{label}">'
                f'<table class="{CLASS}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
                f"</table></div>")

    def __repr__(self) -> str:
        widths = [max(len(h), *(len(r[j]) for r in self.rows)) if self.rows else len(h)
                  for j, h in enumerate(self.header)]
        def line(values):
            return "  ".join(v.rjust(w) if self.numeric[j] else v.ljust(w) for j, (v, w) in
                             enumerate(zip(values, widths))).rstrip()
        lines = ([self.caption] if self.caption else []) + [line(self.header)] + [line(r) for r in self.rows]
        return "\n".join(lines)


# A hyphenated word ("Qwen3-8B"), or a range joined by an en dash ("($135–$176)", "(0.10–0.20)")
HYPHENATED = re.compile(r"[^\s<>]*(?:\w-\w|[\w%]–[\w$])[^\s<>]*")
LONGEST_UNBROKEN = 24   # characters: "qwen3-30b-instruct-v3b" stays whole, "NVIDIA-Nemotron-3-Super-120B-A12B" may break
LONGEST_UNBROKEN_RANGE = 12   # "(0.10–0.20)" and "($135–$176)" stay whole; "($50,062–$105,581)" may break at its dash
SLASH_BETWEEN_WORDS = re.compile(r"(?<=[A-Za-z]{2})/(?=[A-Za-z])")   # "Qwen/Qwen3", not "$0.22/M"
# An instance type longer than LONGEST_UNBROKEN made of underscored parts ("runpod__4xA5000_24GB__32__116") may break
# after its underscores, as a long hyphenated word does at its hyphens
SNAKE = re.compile(r"(?<![\w<])[\w.]*_[\w.]*")


def _unbroken_words(escaped: str) -> str:
    """Hyphenated words ("gptoss-20b-v3b", "2026-01-05", "Qwen3-8B") and short ranges ("(0.10–0.20)", a P10–P90
    beside its value) kept whole: a browser may otherwise break a narrow column after any hyphen or dash, leaving
    "(0.10–" on one line and "0.20)" on the next. A range longer than LONGEST_UNBROKEN_RANGE may break at its dash
    (a wide bill's range kept whole would widen its column past the page). Lines still break between words, after the slash of a path-like name
    ("Qwen/" then "Qwen3-8B"), so an organisation prefix does not widen a column, and at the hyphens of a word
    longer than LONGEST_UNBROKEN, which would otherwise set the width of its column alone."""
    def whole(match):
        word = match.group(0)
        longest = LONGEST_UNBROKEN if "-" in word else LONGEST_UNBROKEN_RANGE
        return word if len(html.unescape(word)) > longest else f'<span class="{CLASS}-word">{word}</span>'
    joined = "/<wbr>".join(HYPHENATED.sub(whole, part) for part in SLASH_BETWEEN_WORDS.split(escaped))
    return SNAKE.sub(lambda m: m.group(0) if len(m.group(0)) <= LONGEST_UNBROKEN
                     else re.sub(r"(_+)(?=\w)", r"\1<wbr>", m.group(0)), joined)


def header_text(name) -> str:
    """A column name as a reader's header: an input's Python name becomes its display name (faces.labels:
    `length_growth` → 'length growth, end ÷ start (g)'), any other `snake_case` → `snake case`; tuples
    (MultiIndex) joined by ' · '."""
    if isinstance(name, tuple):
        return " · ".join(header_text(part) for part in name if str(part))
    if name is None:
        return ""
    text = str(name)
    if text in labels.NAMES:
        return labels.label(text)
    raw = set(labels.raw_names(text))          # a workload name (math_rl) is a name, and stays
    return labels.SNAKE.sub(lambda m: m.group(0).replace("_", " ") if m.group(0) in raw else m.group(0), text)


def cell_text(value, formatter: Callable | None = None) -> str:
    """A cell for reading: a column formatter when given, `fmt.number` for numbers, text as it is."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if type(value).__name__ in ("NAType", "NaTType"):
        return "—"
    if formatter is not None:
        return str(formatter(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Number):
        return fmt.number(value)
    return str(value)


def is_number_like(text: str) -> bool:
    return bool(NUMBER_LIKE.match(text.strip()))


def _frame(data):
    """(DataFrame, index hidden?) from a DataFrame, a Styler or rows."""
    import pandas as pd

    if hasattr(data, "data") and hasattr(data, "hide"):            # a pandas Styler: its data, and whether
        hidden = getattr(data, "hide_index_", False)               # .hide(axis="index") was called
        return data.data, all(hidden) if isinstance(hidden, list) else bool(hidden)
    if isinstance(data, pd.DataFrame):
        return data, False
    return pd.DataFrame(list(data)), True


def table(data, caption: str | None = None, formats: Mapping[str, Callable] | None = None) -> Table:
    """The book's table for `data` (a DataFrame, a Styler, or an iterable of row dicts)."""
    import pandas as pd

    frame, index_hidden = _frame(data)
    formats = dict(formats or {})
    keep_index = not index_hidden and not (isinstance(frame.index, pd.RangeIndex) and frame.index.name is None)
    header, columns = [], []
    if keep_index:
        names = [n for n in frame.index.names]
        header.append(" · ".join(header_text(n) for n in names if n is not None))
        index_values = frame.index.tolist()
        columns.append([cell_text(" · ".join(map(str, v)) if isinstance(v, tuple) else v,
                                  formats.get(frame.index.name)) for v in index_values])
    for name in frame.columns:
        header.append(header_text(name))
        columns.append([cell_text(v, formats.get(name)) for v in frame[name].tolist()])
    rows = [list(r) for r in zip(*columns)] if columns else []
    numeric = []
    for j, values in enumerate(columns):
        filled = [v for v in values if v.strip() not in EMPTY]
        numeric.append(bool(filled) and not (keep_index and j == 0)
                       and sum(is_number_like(v) for v in filled) >= 0.8 * len(filled))
    return Table(header, rows, numeric, caption, label_column=keep_index)


def show(data, caption: str | None = None, formats: Mapping[str, Callable] | None = None) -> None:
    """Display the book's table for `data` (`table(...)`) where the cell's output goes, and return nothing: every
    `show` in a cell shows, not only the last one (use `table(...)` for the object itself)."""
    from IPython.display import display

    display(table(data, caption=caption, formats=formats))
