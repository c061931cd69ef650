"""What every command shares: one-line usage errors, number flags, --format, plain-text tables."""
from __future__ import annotations

import argparse
import shutil

from ... import fmt

from ...errors import TinkerNomicsError
from ...sources.provenance import produced_by


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str):
        raise TinkerNomicsError(f"{self.prog}: {message}")


def number(flag: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expects a number, got {text!r}") from None
        return value
    return parse


def add_format(p):
    p.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")


def to_json(data: dict) -> str:
    """What `--format json` prints: the command's object, led by what produced it (version, data date); strict
    JSON (NaN and infinities become null, fmt.json_text)."""
    return fmt.json_text({"produced_by": produced_by(), **data})


MIN_CUT_WIDTH = 12     # a text column fitted to the terminal keeps at least this many characters (or its header)


def terminal_width() -> int | None:
    """The terminal's width in characters when the output goes to one (or COLUMNS says it), else None: output
    piped to a file or another program keeps every table at full width."""
    size = shutil.get_terminal_size(fallback=(0, 0))
    return size.columns or None


def table(rows: list[list], header: list[str], cuttable: tuple[str, ...] = (), width: int | None = None) -> str:
    """Rows under a header, columns padded to their widest cell. Where the table is wider than `width` (default:
    the terminal's, when printing to one), the `cuttable` text columns are narrowed, widest first, each cell cut
    at a word with an ellipsis (fmt.cut); --format json keeps every cell whole."""
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    width = terminal_width() if width is None else width
    if width:
        floor = {i: max(len(header[i]), MIN_CUT_WIDTH) for i, name in enumerate(header) if name in cuttable}
        while sum(widths) + 2 * (len(widths) - 1) > width:
            narrowable = [i for i in floor if widths[i] > floor[i]]
            if not narrowable:
                break
            i = max(narrowable, key=lambda j: widths[j])
            widths[i] = max(floor[i], widths[i] - (sum(widths) + 2 * (len(widths) - 1) - width))
        for r in cells[1:]:
            for i in floor:
                r[i] = fmt.cut(r[i], widths[i])
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)
