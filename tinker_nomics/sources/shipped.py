"""Where the files that travel with the package are: the sourced tables (data/) and the chapter that
`tinker-nomics validate --report` renders (notebooks/run_validation.ipynb).

In an installed wheel they are inside the package, as tinker_nomics/data and tinker_nomics/notebooks
(pyproject.toml maps the repository's own folders there at build time, so git holds one copy), and
importlib.resources finds them. In a checkout, and in the editable install `make install` makes, the package
folder has no such entries: they are the repository's data/ and notebooks/ beside it.
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]   # the repository, when the package runs from one


def shipped(name: str) -> Path | None:
    """tinker_nomics/<name> when the installed package carries it, else <checkout>/<name>, else None."""
    inside = resources.files("tinker_nomics") / name
    if isinstance(inside, Path) and inside.exists():   # a zipped package is not supported: no real folder
        return inside
    beside = CHECKOUT / name
    return beside if beside.exists() else None
