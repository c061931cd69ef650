"""Citations a reader can open (issue 20): where a chapter's prose names a file of the repository's data/, it links to
it (the book's site does not serve data/, the repository does), and every such link names a file that exists."""
from __future__ import annotations

import json
import re

import pytest
import yaml

from conftest import REPO, toc_documents

REPOSITORY = yaml.safe_load((REPO / "_config.yml").read_text())["repository"]["url"]
BARE = re.compile(r"(?<!\[)`(data/[\w./\-]+)`(?!\])")
LINKED = re.compile(r"\]\(" + re.escape(REPOSITORY) + r"/blob/main/([^)\s]+)\)")


def prose(document) -> str:
    if document.suffix == ".md":
        return document.read_text(encoding="utf-8")
    cells = json.loads(document.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@pytest.mark.parametrize("document", toc_documents(), ids=lambda d: d.relative_to(REPO).as_posix())
def test_data_files_are_linked_and_exist(document):
    text = prose(document)
    bare = BARE.findall(text)
    assert not bare, f"data files named without a link a reader can open: {bare}"
    missing = [path for path in LINKED.findall(text) if not (REPO / path).exists()]
    assert not missing, f"links to files the repository does not hold: {missing}"


def test_the_check_finds_a_bare_data_path():
    assert BARE.findall("rates in `data/prices/tinker_prices.csv`.") == ["data/prices/tinker_prices.csv"]
    assert not BARE.findall(f"rates in [`data/prices/tinker_prices.csv`]({REPOSITORY}/blob/main/data/x).")
