"""What every command shares: one-line usage errors, number flags, --format, plain-text tables."""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import textwrap

from ... import fmt

from ...errors import TinkerNomicsError
from ...sources.provenance import produced_by


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str):
        # the handler prints "tinker-nomics: error: ", so the subcommand alone leads: "estimate: argument --turns: ..."
        command = self.prog.split(" ", 1)[1] if " " in self.prog else None
        raise TinkerNomicsError(f"{command}: {message}" if command else message)


class _OneOrTheOther(argparse.BooleanOptionalAction):
    """--X / --no-X that refuses both on one command line (plain BooleanOptionalAction lets the last one win)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(namespace, self.dest, None)   # None until one of the two is read (add_on_off's default)
        if given is not None and given != (not option_string.startswith("--no-")):
            raise argparse.ArgumentError(self, f"got both {' and '.join(self.option_strings)}: give one")
        super().__call__(parser, namespace, values, option_string)


def add_on_off(parser, flag: str, help: str) -> None:
    """`flag` and its --no- twin: True, False, or None when neither is given; both at once is a one-line error."""
    parser.add_argument(flag, action=_OneOrTheOther, default=None, help=help)


def number(flag: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expects a number, got {text!r}") from None
        if value in (float("inf"), float("-inf")) and "inf" not in text.lower():   # 1e400: past a float's range
            raise argparse.ArgumentTypeError(f"expects a number a float can hold, got {fmt.printable(text)} (too "
                                             f"large)")
        return value
    return parse


def add_format(p):
    p.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")


def to_json(data: dict) -> str:
    """What `--format json` prints: the command's object, led by what produced it (version, data date); strict
    JSON (NaN and infinities become null, fmt.json_text)."""
    return fmt.json_text({"produced_by": produced_by(), **data})


MIN_CUT_WIDTH = 12     # a text column fitted to the terminal keeps at least this many characters (or its header)


def on_terminal() -> bool:
    """Whether the command's output goes to a terminal (not a pipe, a file or a captured stream)."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):   # no stdout, or a closed one
        return False


def terminal_width() -> int | None:
    """The terminal's width in characters (COLUMNS where the shell sets it, else the terminal's own) when the output
    goes to one, else None: output piped to a file or another program keeps every line whole, whatever COLUMNS
    says. (GNU readline exports COLUMNS=80 and LINES=24 into the environment of any program that loads it when no
    terminal answers, and every child process inherits them: COLUMNS alone does not mean a terminal.)"""
    if not on_terminal():
        return None
    size = shutil.get_terminal_size(fallback=(0, 0))
    return size.columns or None


def table(rows: list[list], header: list[str], cuttable: tuple[str, ...] = (), width: int | None = None) -> str:
    """Rows under a header, columns padded to their widest cell. Where the table is wider than `width` (default:
    the terminal's, when printing to one), the `cuttable` text columns are narrowed, widest first, each cell cut
    at a word with an ellipsis (fmt.cut); where even that does not fit, each row becomes a record of its own lines
    (stacked), so that no line wraps. --format json keeps every cell whole."""
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    width = terminal_width() if width is None else width
    if width:
        floor = {i: max(len(header[i]), MIN_CUT_WIDTH) for i, name in enumerate(header) if name in cuttable}
        while _line_width(widths) > width:
            narrowable = [i for i in floor if widths[i] > floor[i]]
            if not narrowable:
                break
            i = max(narrowable, key=lambda j: widths[j])
            widths[i] = max(floor[i], widths[i] - (_line_width(widths) - width))
        if _line_width(widths) > width:
            return stacked(cells[1:], header, width)
        for r in cells[1:]:
            for i in floor:
                r[i] = fmt.cut(r[i], widths[i])
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


LABEL = re.compile(r"^(\S[^ ]*(?: \S+)? {2,})\S")   # "Best          …": a label padded to the text's column


def wrapped(lines: list[str], width: int | None = None) -> list[str]:
    """Prose lines filled to `width` (default: the terminal's; none when piped), each continuation indented under
    the text of a labelled line ("Spot          …"), as deep as an indented line, or by two spaces; lines that fit
    (a fitted table's) are kept as they are."""
    width = terminal_width() if width is None else width
    if not width:
        return lines
    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        label = LABEL.match(line)
        lead = len(line) - len(line.lstrip(" "))
        indent = " " * len(label.group(1)) if label and len(label.group(1)) < width // 2 else \
            " " * lead if 0 < lead < width // 2 else "  "
        out += textwrap.wrap(line, max(width, MIN_STACK_WIDTH), subsequent_indent=indent, break_on_hyphens=False)
    return out


def _line_width(widths: list[int]) -> int:
    return sum(widths) + 2 * (len(widths) - 1)


STACK_INDENT = "    "
MIN_STACK_WIDTH = 24   # a terminal narrower than this still gets records this wide
EMPTY_CELLS = ("", "-", "—")   # cells that say nothing: a record leaves them out


def stacked(rows: list[list[str]], header: list[str], width: int) -> str:
    """Each row as a record: its first two cells on the first line, then its other cells as `header value` (empty ones
    left out), joined by " · " and filled to `width` under an indent; a blank line between records. Every cell stays whole."""
    width = max(width, MIN_STACK_WIDTH)
    records = []
    for r in rows:
        title = "  ".join(c for c in r[:2] if c)
        lines = textwrap.wrap(title, width, subsequent_indent=STACK_INDENT, break_on_hyphens=False) or [""]
        line = ""
        for piece in (f"{h} {c}" for h, c in zip(header[2:], r[2:]) if c not in EMPTY_CELLS):
            joined = f"{line} · {piece}" if line else piece
            if len(STACK_INDENT + joined) <= width:
                line = joined
                continue
            if line:
                lines.append(STACK_INDENT + line)
            wrapped = textwrap.wrap(piece, width, initial_indent=STACK_INDENT, subsequent_indent=STACK_INDENT,
                                    break_on_hyphens=False)
            lines += wrapped[:-1]
            line = wrapped[-1][len(STACK_INDENT):]
        if line:
            lines.append(STACK_INDENT + line)
        records.append("\n".join(lines))
    return "\n\n".join(records)
