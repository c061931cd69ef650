"""No formulas in the chapters' code cells: every computed value comes from a tested package function.

The rule (README, DESIGN.md): notebooks tell the story and call `tinker_nomics`; a ratio, a difference, a share,
1 − p or a unit conversion written in a code cell is arithmetic nobody tests. For every notebook in _toc.yml this
test parses each code cell and flags arithmetic binary operators (+ − × ÷ ** // %, and their augmented
assignments such as `x += 1`) unless the operation cannot be arithmetic:

- `+` where one operand is a string or a list display: concatenation (Python adds no number to a str or list);
  a string is a literal, an f-string, a conditional between strings, a `.join(...)`/`.format(...)` call on a
  string, or a concatenation of those;
- `%` whose left operand is a string literal: %-formatting;
- `*` between a string, list or tuple display and an integer literal: repetition to a fixed length.

What remains is listed in ALLOWED below, one entry per expression with the reason; an entry that no longer
matches any cell fails too, so the list cannot go stale. Display scaling (KB, TFLOPS, GB from a size in GB,
percentages) goes through `tinker_nomics.fmt` instead.

Not caught: arithmetic hidden in calls (`sum(...)`, `np.median(...)`, `max(a, b)`) and comparisons. Those are
reviewed by hand; this test catches the operators, which are the common case.

The checker is tested on planted examples, so a regression in it cannot silently pass every chapter.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from conftest import REPO, toc_notebooks

ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.Mod, ast.MatMult)

# (notebook, expression as ast.unparse prints it) -> why it stays. Keep it short.
ALLOWED = {
    ("notebooks/errata.ipynb", "[plots.COLORS['tinker']] * len(cases)"):
        "one bar colour per caching case, repeated to the number of cases (layout, not a number)",
}


# ----------------------------------------------------------------------------------------- the checker


def _is_str(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.IfExp):
        return _is_str(node.body) and _is_str(node.orelse)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_str(node.left) or _is_str(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("join", "format") and _is_str(node.func.value)
    return False


def _is_list(node: ast.AST) -> bool:
    if isinstance(node, (ast.List, ast.ListComp)):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_list(node.left) or _is_list(node.right)
    return False


def _is_int_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def is_arithmetic(op: ast.operator, left: ast.AST, right: ast.AST) -> bool:
    """Whether `left op right` may compute a number (False only where Python makes it concatenation,
    formatting or repetition to a literal length)."""
    if not isinstance(op, ARITHMETIC):
        return False
    if isinstance(op, ast.Add) and (_is_str(left) or _is_str(right) or _is_list(left) or _is_list(right)):
        return False
    if isinstance(op, ast.Mod) and _is_str(left):
        return False
    if isinstance(op, ast.Mult):
        sequence = (ast.List, ast.Tuple, ast.ListComp)
        for seq, count in ((left, right), (right, left)):
            if (_is_str(seq) or isinstance(seq, sequence)) and _is_int_literal(count):
                return False
    return True


def code_of(cell_source: str) -> str:
    """A code cell as plain Python (IPython magics and shell escapes turned into calls)."""
    return TransformerManager().transform_cell(cell_source)


def formulas(source: str) -> list[str]:
    """The arithmetic expressions in one code cell, as ast.unparse prints them (outermost first)."""
    found = []
    for node in ast.walk(ast.parse(code_of(source))):
        if isinstance(node, ast.BinOp) and is_arithmetic(node.op, node.left, node.right):
            found.append(ast.unparse(node))
        elif isinstance(node, ast.AugAssign) and is_arithmetic(node.op, node.target, node.value):
            found.append(ast.unparse(node))
    return found


def notebook_formulas(path: Path) -> list[tuple[int, str]]:
    """(cell index, expression) for every arithmetic expression in the notebook's code cells."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        out += [(index, expression) for expression in formulas(source)]
    return out


def violations(path: Path, name: str, allowed=ALLOWED) -> list[str]:
    """Arithmetic in the notebook's code cells that the allowlist does not name."""
    return [f"cell {index}: {expression}" for index, expression in notebook_formulas(path)
            if (name, expression) not in allowed]


# ----------------------------------------------------------------------------------------- the chapters

NOTEBOOKS = toc_notebooks()


@pytest.mark.parametrize("source", NOTEBOOKS, ids=[p.relative_to(REPO).as_posix() for p in NOTEBOOKS])
def test_chapter_code_cells_hold_no_formulas(source):
    found = violations(source, source.relative_to(REPO).as_posix())
    assert not found, (f"{source.name}: arithmetic in code cells; move it into the package as a named, tested "
                       f"function (or use a tinker_nomics.fmt helper for display scaling):\n  " + "\n  ".join(found))


def test_allowlist_entries_still_match():
    """Every ALLOWED entry names an expression that is still in its notebook (no stale exceptions)."""
    for (name, expression), reason in ALLOWED.items():
        assert reason, f"{name}: {expression} needs a reason"
        present = [e for _, e in notebook_formulas(REPO / name)]
        assert expression in present, f"ALLOWED entry no longer in {name}: {expression!r}; remove it"


# ----------------------------------------------------------------------------------------- the checker itself


@pytest.mark.parametrize("planted", [
    "ratio = a.sample / b.sample",
    "g('p_self', probability_text(1 - mc.p_tinker_cheaper))",
    "g('size', fmt.gb(float(est.checkpoint_gb) * 1e9))",
    "x = f\"{100 * r.mfu:g}%\"",                       # arithmetic inside an f-string is still arithmetic
    "share = shares['sample'] + shares['train']",
    "saving = d.steps[2][1] - d.steps[3][1]",
    "total += row.usd",
    "half = n // 2",
    "area = side ** 2",
    "rest = n % 7",
    "band = (k1,) * n",                                 # repetition by a computed count is not exempt
    "label = short(m) + suffix",                        # operands of unknown type: could be numbers
])
def test_checker_flags_arithmetic(planted):
    assert formulas(planted), f"the checker missed the arithmetic in {planted!r}"


@pytest.mark.parametrize("allowed", [
    "title = 'The winner changes for ' + ', '.join(flips) + '.'",
    "label = short(r.model) + ('*' if r.successor else '')",
    "text = f'{a:g} tokens' + (' (capped)' if capped else '')",
    "cost = '~' + usd(x)",
    "names = [f'Tinker, {c.label}' for c in cases] + ['self-hosted']",
    "values = [c.total_usd for c in cases] + [hosted]",
    "rule = '-' * 40",
    "pair = [None] * 2",
    "line = '%d rows' % n",
])
def test_checker_allows_concatenation_formatting_and_literal_repetition(allowed):
    assert not formulas(allowed), f"false positive in {allowed!r}: {formulas(allowed)}"


def test_checker_looks_inside_f_strings_and_magics():
    assert formulas("x = f'{a / b:.2f}'") == ["a / b"]
    assert formulas("%matplotlib inline\nx = a - b\n!ls") == ["a - b"]


def test_checker_fails_on_a_planted_notebook(tmp_path):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["Costs 3 / 4 of the bill."]},
             {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": ["g('share', fmt.pct(compare.meters_share(est)))\n", "title = 'a' + b"]}]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps(notebook))
    assert violations(path, "chapter.ipynb") == []       # markdown may hold anything; calls and concatenation pass
    cells.append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                  "source": ["g('ratio', fmt.ratio(a.sample / b.sample))"]})
    path.write_text(json.dumps(notebook))
    assert violations(path, "chapter.ipynb") == ["cell 2: a.sample / b.sample"]
    allow = {("chapter.ipynb", "a.sample / b.sample"): "planted"}
    assert violations(path, "chapter.ipynb", allow) == []
    cells[2]["source"] = ["colors = [c] * len(xs) + [d]"]          # only the repetition is arithmetic-like
    path.write_text(json.dumps(notebook))
    assert violations(path, "chapter.ipynb", {("chapter.ipynb", "[c] * len(xs)"): "planted"}) == []
    assert violations(path, "chapter.ipynb", {}) == ["cell 2: [c] * len(xs)"]
