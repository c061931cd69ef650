"""The chapters' quoted values (tinker_nomics/faces/prose.py) and the converter from glue roles
(tools/convert_prose.py): what they store, what they refuse, and that converting twice changes nothing."""
from __future__ import annotations

import ast
import importlib.util
import json

import pytest

from conftest import REPO
from tinker_nomics.faces.prose import Prose, ProseText

spec = importlib.util.spec_from_file_location("convert_prose", REPO / "tools" / "convert_prose.py")
convert_prose = importlib.util.module_from_spec(spec)
spec.loader.exec_module(convert_prose)


def test_values_are_glued_as_text_without_quotes():
    glued = {}
    prose = Prose(glue=lambda name, value: glued.__setitem__(name, value))
    prose.total = "$99.20"
    prose["share_0"] = 0.25
    assert glued == {"total": "$99.20", "share_0": "0.25"}
    assert isinstance(prose.total, ProseText) and repr(prose.total) == "$99.20"   # JupyterLab's text/plain
    assert prose["share_0"] == "0.25" and list(prose) == ["total", "share_0"]


@pytest.mark.parametrize("name", ["1st", "with space", "class", "_private", "a-b"])
def test_names_eval_cannot_reach_are_refused(name):
    with pytest.raises(ValueError, match="identifier"):
        Prose(glue=lambda *_: None)[name] = "x"


def test_an_unset_name_says_so():
    with pytest.raises(AttributeError, match="no prose value named 'missing'"):
        Prose(glue=lambda *_: None).missing


CHAPTER = {
    "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": [
            "import numpy as np\n", "from myst_nb import glue\n", "\n", "from tinker_nomics import fmt\n", "\n", "\n",
            "def g(name, value):\n", "    \"\"\"Glue a value.\"\"\"\n", "    glue(name, value, display=False)\n", "\n",
            "\n", "x = 2\n"]},
        {"cell_type": "code", "metadata": {"tags": ["remove-cell"]}, "outputs": [], "execution_count": None,
         "source": ["g(\"total\", fmt.usd(x))\n", "for n in (1, 2):\n", "    g(f\"n{n}\", f\"{n}\")\n",
                    "g(\"sentence\", \"yes\" if x\n", "  else \"no\")\n", "glue(\"raw\", str(x), display=False)"]},
        {"cell_type": "markdown", "metadata": {}, "source": [
            "Costs {glue:text}`total`, then {glue:text}`n1` and {glue}`sentence`; {doc}`other` stays."]},
    ],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_converter_rewrites_roles_and_glue_calls_and_is_idempotent():
    once = convert_prose.convert_notebook(json.loads(json.dumps(CHAPTER)))
    code0, code1, markdown = ("".join(c["source"]) for c in once["cells"])
    assert markdown == ("Costs {eval}`prose.total`, then {eval}`prose.n1` and {eval}`prose.sentence`; "
                        "{doc}`other` stays.")
    assert "myst_nb" not in code0 and "def g" not in code0 and "prose = Prose()" in code0
    assert "from tinker_nomics.faces.prose import Prose" in code0
    assert "prose.total = fmt.usd(x)" in code1 and 'prose[f"n{n}"] = f"{n}"' in code1
    assert "prose.raw = str(x)" in code1 and "prose.sentence = (" in code1
    for code in (code0, code1):
        ast.parse(code)                                   # multi-line values keep their continuation
    twice = convert_prose.convert_notebook(json.loads(json.dumps(once)))
    assert twice == once


def test_converted_chapter_runs(tmp_path):
    once = convert_prose.convert_notebook(json.loads(json.dumps(CHAPTER)))
    glued = {}
    namespace = {"Prose": lambda: Prose(glue=lambda n, v: glued.__setitem__(n, v))}
    code0, code1 = ("".join(c["source"]) for c in once["cells"][:2])
    exec(compile(code0.replace("from tinker_nomics.faces.prose import Prose\n", ""), "cell0", "exec"), namespace)
    exec(compile(code1, "cell1", "exec"), namespace)
    assert glued == {"total": "$2.00", "n1": "1", "n2": "2", "sentence": "yes", "raw": "2"}
