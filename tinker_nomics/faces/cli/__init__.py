"""The `tinker-nomics` command line, one module per verb: estimate, predict, plan, the listings (workloads,
models, gpus, prices) and validate.

Exit status 0 on success, 2 on bad arguments or bad input with one line on stderr naming the bad value.
"""
from __future__ import annotations

import os
import re
import signal
import sys
import traceback

from ...errors import INVISIBLE, TinkerNomicsError
from ...version import __version__
from . import estimate, listings, plan, predict, validate
from .common import OneLineParser, wrapped
from .estimate import NUMERIC_FLAGS

__all__ = ["NUMERIC_FLAGS", "build_parser", "main"]

COMMANDS = {"estimate": estimate.run, "predict": predict.run, "plan": plan.run, "workloads": listings.cmd_workloads, "models": listings.cmd_models,
            "gpus": listings.cmd_gpus, "prices": listings.cmd_prices, "validate": validate.run}


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="tinker-nomics",
                           description="What RL fine-tuning costs on Tinker versus your own GPUs.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    estimate.add_parser(sub)
    predict.add_parser(sub)
    plan.add_parser(sub)
    listings.add_parsers(sub)
    validate.add_parser(sub)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised where the command is, so that every `finally` runs (temporary files removed, a report's
    chapter process stopped) before the command exits. A BaseException, like KeyboardInterrupt: no `except
    Exception` on the way swallows it."""


def _terminate(signum, frame):
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    previous = _install(signal.SIGTERM, _terminate)
    try:
        parser = build_parser()   # inside the try: the parser lists the presets, so it reads data/ already
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return 2
        text = COMMANDS[args.command](args)
        as_json = getattr(args, "format", "table") == "json"
        if not as_json:   # JSON stays one document; prose fills the terminal
            # a control character quoted from a user's file (an escape code in a log's name) is shown escaped
            text = TERMINAL_CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
            text = "\n".join(wrapped(text.split("\n")))
        print(encodable(text, sys.stdout, as_json))
        return 0
    except TinkerNomicsError as exc:
        print(encodable(f"tinker-nomics: error: {exc}", sys.stderr), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as exc:   # a path the system cannot follow or open: a symbolic-link loop, a folder not readable
        where = exc.filename if exc.filename is not None else "a file"
        reason = (exc.strerror or type(exc).__name__).lower()
        message = TinkerNomicsError(f"{where}: cannot read it ({reason})")   # control characters escaped
        print(encodable(f"tinker-nomics: error: {message}", sys.stderr), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tinker-nomics: interrupted (Ctrl-C)", file=sys.stderr)
        return 130
    except Terminated:
        print("tinker-nomics: terminated (SIGTERM)", file=sys.stderr)
        return 143
    except Exception as exc:  # a bug, not a user mistake: one line unless debugging
        if os.environ.get("TINKER_NOMICS_DEBUG"):
            traceback.print_exc()
        else:
            print(f"tinker-nomics: internal error: {type(exc).__name__}: {exc} "
                  f"(set TINKER_NOMICS_DEBUG=1 for the traceback, and please report it)", file=sys.stderr)
        return 1
    finally:
        _install(signal.SIGTERM, previous)


# every control character but the line breaks and tabs the commands print themselves, and the invisible ones
# (errors.CONTROL's set)
TERMINAL_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE}]")


def encodable(text: str, stream, as_json: bool = False) -> str:
    """`text` as `stream` can write it: unchanged on a UTF-8 stream; on a narrower one (a Windows console's cp1252,
    PYTHONIOENCODING=cp437) a character it lacks ('≈', '×', 'Σ') becomes '?' in prose, and JSON escapes it (\\uXXXX),
    which keeps the document exact."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        pass
    if as_json:
        def escaped(match):
            code = ord(match.group())
            if code <= 0xFFFF:
                return f"\\u{code:04x}"
            code -= 0x10000
            return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
        return re.sub(r"[^\x00-\x7f]", escaped, text)
    try:
        return text.encode(encoding, "replace").decode(encoding)
    except LookupError:
        return text.encode("ascii", "replace").decode("ascii")


def _install(signum, handler):
    """signal.signal where a handler can be set (the main thread of the main interpreter); the previous one."""
    try:
        return signal.signal(signum, handler)
    except (ValueError, TypeError):   # not the main thread (a test runner's worker): leave signals alone
        return None
