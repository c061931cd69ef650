"""The one exception type users see: a one-line reason that names the bad value."""
from __future__ import annotations

import difflib
from typing import Iterable


class TinkerNomicsError(ValueError):
    """A user-facing problem with inputs, data or logs. str() is one line, fit for a terminal."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


class UnknownNameError(TinkerNomicsError, KeyError):
    """A model, GPU, snapshot or workload name that the registries do not hold."""

    def __init__(self, kind: str, name: str, known: Iterable[str], hint: str = ""):
        known = list(known)
        close = closest(name, known)
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
    return "".join(ch for ch in text.lower() if ch.isalnum())


def closest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names nearest to `name`, comparing case- and punctuation-blind, best first."""
    known = list(known)
    by_key: dict[str, str] = {}
    for k in known:
        by_key.setdefault(_squash(k), k)
        by_key.setdefault(_squash(k.split("/")[-1]), k)
    keys = difflib.get_close_matches(_squash(name), list(by_key), n=n * 2, cutoff=0.5)
    picked: list[str] = []
    for key in keys:
        if by_key[key] not in picked:
            picked.append(by_key[key])
    squashed = _squash(name)
    for k in known:  # substring matches help with short inputs like "kimi"
        if squashed and squashed in _squash(k) and k not in picked:
            picked.append(k)
    return picked[:n]
