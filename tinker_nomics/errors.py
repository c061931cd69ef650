"""The one exception type users see: a one-line reason that names the bad value."""
from __future__ import annotations

import re
import unicodedata

import difflib
from typing import Iterable


# characters that change how the text around them shows rather than showing themselves: Unicode's format characters
# (category Cf: bidirectional overrides and isolates that make 'evil\u202egol.log' read 'evillog.gol', zero-width
# spaces and joiners, the byte-order mark, invisible operators, tag characters) and the line and paragraph
# separators (Zl, Zp), which start a new line as a line break does
INVISIBLE = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e"
             "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U0001bca0-\U0001bca3"
             "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{INVISIBLE}]")   # C0/C1 controls (escape codes, line breaks), INVISIBLE


class TinkerNomicsError(ValueError):
    """A user-facing problem with inputs, data or logs. str() is one line, fit for a terminal."""

    def __init__(self, message: str):
        one_line = " ".join(str(message).split())
        # a value quoted from a user's file may hold an escape code: shown escaped, it cannot recolour the terminal
        super().__init__(CONTROL.sub(lambda m: repr(m.group())[1:-1], one_line))


class UnknownNameError(TinkerNomicsError, KeyError):
    """A model, GPU, snapshot or workload name that the registries do not hold."""

    def __init__(self, kind: str, name: str, known: Iterable[str], hint: str = "", candidates: list[str] | None = None):
        """`candidates`: the names to offer, where the caller knows them (every part a name's words fit), instead of
        the nearest spellings."""
        known = list(known)
        close = list(candidates) if candidates else closest(name, known)
        message = f"unknown {kind} {name!r}"
        if close:
            message += "; closest: " + ", ".join(close)
        elif known and len(known) <= 12:
            message += "; known: " + ", ".join(known)
        if hint:
            message += f" ({hint})"
        self.kind, self.name, self.closest = kind, name, close
        TinkerNomicsError.__init__(self, message)

    def __str__(self) -> str:  # KeyError would otherwise add quotes
        return self.args[0]


def _squash(text: str) -> str:
    """Case and punctuation dropped, except between two digits, where it keeps a mark: 'opt-1.3b' and 'opt-13b',
    'Qwen2.5-1.5B' and 'Qwen2.5-15B' are different models. Full-width and other compatibility forms read as their
    plain letters (NFKC: 'Ｑｗｅｎ３' is 'Qwen3')."""
    text = re.sub(r"(?<=\d)[^a-z0-9]+(?=\d)", "_", unicodedata.normalize("NFKC", text).lower())
    return "".join(ch for ch in text if ch.isalnum() or ch == "_")


def closest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names nearest to `name`, comparing case- and punctuation-blind, best first: names that start with
    it ("A100" → the A100 entries), then names that hold it ("kimi"), then the nearest by edit distance."""
    known = list(known)
    squashed = _squash(name)
    while True:   # a letter O typed beside a digit is a zero ('H1OO' is H100)
        zeroed = re.sub(r"(?<=\d)o|o(?=\d)", "0", squashed)
        if zeroed == squashed:
            break
        squashed = zeroed
    forms = {k: (_squash(k), _squash(k.split("/")[-1])) for k in known}
    picked: list[str] = []

    def take(names):
        for k in names:
            if k not in picked:
                picked.append(k)

    if squashed:
        take(k for k in known if any(f.startswith(squashed) for f in forms[k]))
        take(k for k in known if any(squashed in f for f in forms[k]))
    by_key: dict[str, str] = {}
    for k in known:
        for form in forms[k]:
            by_key.setdefault(form, k)
    take(by_key[key] for key in difflib.get_close_matches(squashed, list(by_key), n=n * 2, cutoff=0.5))
    return picked[:n]
