"""The numbers a chapter's prose quotes, from one source for the built book and for JupyterLab.

A code cell names each value on the chapter's `prose` namespace, and a markdown cell quotes it with MyST's
inline `{eval}` role:

    prose = Prose()                                   # code cell
    prose.kv_token = fmt.kb(kv_bytes)
    A token takes {eval}`prose.kv_token` of cache.    # markdown cell

- In JupyterLab (Binder), jupyterlab-myst evaluates `prose.kv_token` in the running kernel when the markdown
  cell runs, so the prose shows the number the reader's own run computed.
- In the book, myst-nb executes notebooks through its cache, where `{eval}` cannot reach a kernel; each value
  is therefore also glued (myst-nb's `glue`) under its name, and the book's Sphinx extension
  (tools/sphinx_prose.py) resolves `{eval}`\\`prose.NAME\\`` to the value glued as NAME.

Values are kept as text (`ProseText`, a `str` whose repr has no quotes), so both renderers paste exactly what
the package formatted.
"""
from __future__ import annotations

import keyword

NAMESPACE = "prose"   # the variable a chapter binds its Prose() to; `{eval}` expressions start with it


class ProseText(str):
    """Text that displays as itself: its repr (what Jupyter shows as text/plain) has no quotes."""

    def __repr__(self) -> str:
        return str.__str__(self)

    def _repr_pretty_(self, printer, cycle) -> None:  # IPython's plain-text formatter
        printer.text(str.__str__(self))


def valid_name(name: str) -> bool:
    """A name `{eval}`\\`prose.NAME\\`` can reach: a Python identifier that is not a keyword or private."""
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name) \
        and not name.startswith("_")


class Prose:
    """A chapter's quoted values: `prose.name = value` or `prose[name] = value` (for names built in a loop).

    Each value is stored as `ProseText` (non-strings through `str`) and glued for the book under its name;
    setting a name twice keeps the last value, as glue does."""

    def __init__(self, glue=None):
        if glue is None:
            from myst_nb import glue as myst_glue   # imported here: the package itself does not need myst-nb

            def glue(name, value):
                myst_glue(name, value, display=False)
        object.__setattr__(self, "_glue", glue)
        object.__setattr__(self, "_values", {})

    def __setattr__(self, name: str, value) -> None:
        if not valid_name(name) or hasattr(type(self), name):
            raise ValueError(f"prose name {name!r} is not a Python identifier that {{eval}} can reach")
        text = ProseText(value if isinstance(value, str) else str(value))
        self._values[name] = text
        self._glue(name, text)

    def __setitem__(self, name: str, value) -> None:
        self.__setattr__(name, value)

    def __getattr__(self, name: str) -> ProseText:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no prose value named {name!r}; set it in a code cell first") from None

    def __getitem__(self, name: str) -> ProseText:
        return self.__getattr__(name)

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def __iter__(self):
        return iter(self._values)

    def __repr__(self) -> str:
        return f"Prose({len(self._values)} values)"
