"""What every command shares: one-line usage errors, number flags, --format, plain-text tables."""
from __future__ import annotations

import argparse
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


def table(rows: list[list], header: list[str]) -> str:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)
