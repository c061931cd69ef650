"""Convert chapters from myst-nb glue roles to `{eval}`\\`prose.NAME\\`` (tinker_nomics/faces/prose.py).

    python tools/convert_prose.py notebooks/takeaway.ipynb notebooks/accuracy.ipynb ...
    python tools/convert_prose.py --check notebooks/*.ipynb     # exit 1 if any notebook would change

For each notebook, in place and idempotently (a converted notebook is left byte-for-byte unchanged):
- markdown: `{glue:text}`\\`NAME\\`` and `{glue}`\\`NAME\\`` become `{eval}`\\`prose.NAME\\``;
- code: `from myst_nb import glue` becomes `from tinker_nomics.faces.prose import Prose`, with
  `prose = Prose()` after that cell's imports; every statement `glue(NAME, VALUE, display=False)` becomes
  `prose.NAME = VALUE` (or `prose[NAME] = VALUE` when NAME is computed);
- a notebook's own two-argument wrapper `def g(name, value): glue(name, value, display=False)` is removed and
  its calls `g("NAME", VALUE)` become `prose.NAME = VALUE` (a wrapper that does more, such as formatting, is
  kept with its body converted).
Only the cells that change are rewritten; cell ids, metadata and outputs are kept.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

ROLE = re.compile(r"\{glue(?::text)?\}`([A-Za-z_][A-Za-z0-9_]*)`")
IMPORT_GLUE = "from myst_nb import glue"
IMPORT_PROSE = "from tinker_nomics.faces.prose import Prose"
BIND = "prose = Prose()   # the values the prose quotes: {eval}`prose.NAME` in a markdown cell"


def convert_markdown(text: str) -> str:
    return ROLE.sub(lambda m: f"{{eval}}`prose.{m.group(1)}`", text)


# ------------------------------------------------------------------------------------------------ code


def _segment(source: str, node: ast.AST) -> str:
    return ast.get_source_segment(source, node)


def _assignment(source: str, name_node: ast.expr, value_node: ast.expr) -> str:
    value = _segment(source, value_node)
    if "\n" in value:
        value = f"({value})"   # the call's parentheses carried the line continuation; keep one
    if isinstance(name_node, ast.Constant) and isinstance(name_node.value, str) and name_node.value.isidentifier():
        return f"prose.{name_node.value} = {value}"
    return f"prose[{_segment(source, name_node)}] = {value}"


def _is_glue_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "glue"
            and len(node.args) == 2 and len(node.keywords) == 1 and node.keywords[0].arg == "display"
            and isinstance(node.keywords[0].value, ast.Constant) and node.keywords[0].value.value is False)


def _simple_wrapper(tree: ast.Module) -> ast.FunctionDef | None:
    """`def g(name, value): [docstring] glue(name, value, display=False)` (or already `prose[name] = value`)."""
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == "g"):
            continue
        args = [a.arg for a in node.args.args]
        if len(args) != 2 or node.args.defaults or node.args.vararg or node.args.kwarg:
            return None
        body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) != 1:
            return None
        stmt = body[0]
        if isinstance(stmt, ast.Expr) and _is_glue_call(stmt.value):
            a, b = stmt.value.args
        elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)
              and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == "prose"):
            a, b = stmt.targets[0].slice, stmt.value
        else:
            return None
        if isinstance(a, ast.Name) and isinstance(b, ast.Name) and [a.id, b.id] == args:
            return node
    return None


def _replace(source: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start offset, end offset, text) edits, which must not overlap."""
    for start, end, text in sorted(edits, reverse=True):
        source = source[:start] + text + source[end:]
    return source


def _offsets(source: str):
    """(lineno, UTF-8 column) as ast reports them -> offset into `source`."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return lambda lineno, col: starts[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())


def convert_code(source: str, wrapper_names: set[str]) -> str:
    """One code cell. `wrapper_names` holds "g" when the notebook's g is the simple glue wrapper."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source     # IPython magics and the like: leave the cell alone
    at = _offsets(source)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and _is_glue_call(node.value):
            a, b = node.value.args
            edits.append((at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset),
                          _assignment(source, a, b)))
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
              and node.value.func.id in wrapper_names and len(node.value.args) == 2 and not node.value.keywords):
            a, b = node.value.args
            edits.append((at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset),
                          _assignment(source, a, b)))
        elif isinstance(node, ast.FunctionDef) and node.name in wrapper_names and node in tree.body:
            start = at(node.lineno, node.col_offset)
            end = at(node.end_lineno, node.end_col_offset)
            while end < len(source) and source[end] == "\n":   # the blank lines after it go with it
                end += 1
            edits.append((start, end, ""))
    # Inner edits (a glue call inside the removed wrapper) must not overlap the wrapper's own removal.
    removals = [(s, e) for s, e, t in edits if t == ""]
    edits = [(s, e, t) for s, e, t in edits if t == "" or not any(rs <= s and e <= re_ for rs, re_ in removals)]
    source = _replace(source, edits)
    if IMPORT_GLUE in source:
        lines = source.split("\n")
        lines = [IMPORT_PROSE if line.strip() == IMPORT_GLUE else line for line in lines]
        source = "\n".join(lines)
        tree = ast.parse(source)
        last_import = max((n.end_lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))), default=0)
        lines = source.split("\n")
        lines[last_import:last_import] = ["", BIND]
        source = "\n".join(lines)
    return source


def convert_notebook(notebook: dict) -> dict:
    code_cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    wrappers = set()
    for cell in code_cells:
        try:
            tree = ast.parse(_text(cell))
        except SyntaxError:
            continue
        if _simple_wrapper(tree) is not None:
            wrappers.add("g")
    for cell in notebook["cells"]:
        text = _text(cell)
        new = convert_markdown(text) if cell["cell_type"] == "markdown" else (
            convert_code(text, wrappers) if cell["cell_type"] == "code" else text)
        if new != text:
            cell["source"] = new.splitlines(keepends=True)
    return notebook


def _text(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook would change")
    args = parser.parse_args(argv)
    changed = []
    for path in args.notebooks:
        raw = path.read_text(encoding="utf-8")
        notebook = convert_notebook(json.loads(raw))
        out = json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"   # as nbformat writes
        if out != raw and json.loads(out) != json.loads(raw):
            changed.append(path)
            if not args.check:
                path.write_text(out, encoding="utf-8")
    for path in changed:
        print(f"{'would convert' if args.check else 'converted'} {path}")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
