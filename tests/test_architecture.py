"""The package's layout rule: five wings, one way down.

    faces → analysis → runs → model → sources        (errors, fmt and version may be imported from anywhere)

Every module's imports are read with `ast` (module-level and function-level alike, so a cycle cannot hide in a
function), resolved to the modules they name, and checked: a wing imports only its own wing and the wings below
it, errors/fmt/version import no wing, and the import graph has no cycle. A failure names the two modules. The checker
is itself tested on a planted upward import and a planted cycle, in a copy of the real package.
"""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "tinker_nomics"
WINGS = ("sources", "model", "runs", "analysis", "faces")           # bottom to top
SHARED = ("errors", "fmt", "version")                               # usable from any wing
PUBLIC = ("tinker_nomics", "tinker_nomics.__main__")                # the public API sits above everything


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The package modules `path` imports, anywhere in the file."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != name.split(".")[0]:
                continue
            for alias in node.names:   # `from pkg import submodule` depends on the submodule itself
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
    found.discard(name)
    return {m for m in found if m in known}


def graph(root: Path) -> dict[str, set[str]]:
    mods = modules(root)
    known = set(mods)
    return {name: imports(path, name, known) for name, path in mods.items()}


def rank(module: str, root_name: str) -> float:
    """Height of a module: wings 0..4 bottom to top, shared helpers below them all, the public API on top."""
    if module in (root_name, f"{root_name}.__main__"):
        return len(WINGS)
    part = module.split(".")[1]
    if part in SHARED:
        return -1
    return WINGS.index(part) if part in WINGS else len(WINGS)


def upward_imports(g: dict[str, set[str]]) -> list[str]:
    root_name = next(iter(g)).split(".")[0]
    bad = []
    for module, targets in sorted(g.items()):
        for target in sorted(targets):
            if rank(target, root_name) > rank(module, root_name):
                bad.append(f"{module} imports {target}, a wing above it")
    return bad


def cycles(g: dict[str, set[str]]) -> list[str]:
    """One line per import cycle (Tarjan's strongly connected components), naming two modules on it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(g):
        if v not in index:
            visit(v)
    out = []
    for component in found:
        a = component[0]
        b = next(m for m in component[1:] if a in g[m] or m in g[a]) if len(component) > 1 else a
        out.append(f"import cycle between {a} and {b} (the cycle: {', '.join(component)})")
    return out


# ----------------------------------------------------------------------------------------- the real package


def test_the_tree_shows_the_wings():
    wings = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert wings == sorted(WINGS)
    loose = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert loose == sorted(["__init__", "__main__", *SHARED])


def test_every_import_points_down():
    assert upward_imports(graph(PACKAGE)) == []


def test_no_import_cycle():
    assert cycles(graph(PACKAGE)) == []


def test_the_public_api_is_unchanged():
    import tinker_nomics
    from tinker_nomics import Estimate, Scenario, estimate  # noqa: F401  (the contract's names)
    assert callable(estimate) and hasattr(Scenario, "from_workload") and tinker_nomics.__version__


# ----------------------------------------------------------------------------------------- the checker itself


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "tinker_nomics"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_checker_finds_a_planted_upward_import(package_copy: Path):
    tables = package_copy / "sources" / "tables.py"
    tables.write_text(tables.read_text() + "\nfrom ..faces import cli\n")
    assert upward_imports(graph(package_copy)) == [
        "tinker_nomics.sources.tables imports tinker_nomics.faces.cli, a wing above it"]


def test_checker_finds_a_planted_function_level_upward_import(package_copy: Path):
    tokens = package_copy / "model" / "tokens.py"
    tokens.write_text(tokens.read_text() + "\n\ndef hidden():\n    from ..analysis.compare import cheaper_factor\n")
    assert upward_imports(graph(package_copy)) == [
        "tinker_nomics.model.tokens imports tinker_nomics.analysis.compare, a wing above it"]


def test_checker_finds_a_planted_cycle_within_a_wing(package_copy: Path):
    tables = package_copy / "sources" / "tables.py"
    tables.write_text(tables.read_text() + "\n\ndef hidden():\n    from .prices import get_price\n")
    found = cycles(graph(package_copy))
    assert len(found) == 1
    assert "tinker_nomics.sources.prices" in found[0] and "tinker_nomics.sources.tables" in found[0]


def test_shared_helpers_import_no_wing(package_copy: Path):
    fmt = package_copy / "fmt.py"
    fmt.write_text(fmt.read_text() + "\nfrom .model import tokens\n")
    assert upward_imports(graph(package_copy)) == ["tinker_nomics.fmt imports tinker_nomics.model.tokens, a wing above it"]
