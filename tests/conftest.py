"""Shared fixtures for the book tests (tests/test_notebooks.py, tests/test_book_site.py).

Executing a notebook is the slow part on a 2-core machine, so each notebook in the table of contents
runs at most once, across the test session and the book build: `notebook_runs` executes it with papermill
(as a reader would, the `parameters` cell left untouched) into a temporary folder, and stores the result in
the book's jupyter-cache, so the book build that follows reuses that execution instead of running it again;
where a build already ran it for this package and data (`make book` before `make test-slow`, as CI does), the
cache's run is read instead of running it again.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SITE = REPO / "_build" / "html"
BUILT_STAMP = SITE / ".built"  # touched by tools/build_book.sh after a successful build
BUILD_SCRIPT = REPO / "tools" / "build_book.sh"  # what `make book` runs
_EXECUTE = yaml.safe_load((REPO / "_config.yml").read_text())["execute"]
JUPYTER_CACHE = REPO / _EXECUTE["cache"]
STALLS = REPO / "_build" / "stalls"   # the stacks of a chapter's client that stalled (run_papermill)
NOTEBOOK_TIMEOUT_S = _EXECUTE["timeout"]
# A change to any of these makes the built site stale.
BOOK_SOURCES = ("_config.yml", "_toc.yml", "book/**/*", "notebooks/*.ipynb", "tinker_nomics/**/*.py", "data/**/*")


def toc_documents() -> list[Path]:
    """Source files of every page listed in _toc.yml, in reading order."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    names: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if key in node:
                    names.append(str(node[key]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    documents = []
    for name in names:
        candidates = [REPO / name] if Path(name).suffix else [REPO / f"{name}{ext}" for ext in (".ipynb", ".md")]
        found = [path for path in candidates if path.is_file()]
        if not found:
            raise FileNotFoundError(f"_toc.yml lists {name!r} but no {name}.ipynb or {name}.md exists")
        documents.append(found[0])
    return documents


def toc_notebooks() -> list[Path]:
    return [path for path in toc_documents() if path.suffix == ".ipynb"]


def page_name(document: Path) -> str:
    """'notebooks/hello_calculator' for REPO/notebooks/hello_calculator.ipynb."""
    return document.relative_to(REPO).with_suffix("").as_posix()


@dataclass
class NotebookRun:
    source: Path
    output: Path
    seconds: float
    error: str | None  # None when every cell ran


class NotebookRuns:
    """Runs each notebook at most once per session and caches successful runs for the book build. A notebook the
    book build already executed for this very package and data (its jupyter-cache, refreshed when tinker_nomics/ or
    data/ change, holds a run of the same code cells) is not run again: that run's outputs are read instead, and any
    error output in them is the run's error."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self._runs: dict[Path, NotebookRun] = {}

    def run(self, source: Path) -> NotebookRun:
        if source not in self._runs:
            cached = _cached_run(source)
            self._runs[source] = cached if cached is not None else self._execute(source)
        return self._runs[source]

    def _execute(self, source: Path) -> NotebookRun:
        output = self.workdir / source.relative_to(REPO)
        start = time.perf_counter()
        error = run_papermill(source, output)
        seconds = time.perf_counter() - start
        if error is None:
            _store_in_book_cache(source, output, seconds)
        return NotebookRun(source, output, seconds, error)


def run_papermill(source: Path, output: Path, parameters: dict | None = None) -> str | None:
    """Execute `source` into `output` with papermill as a reader would (in its own folder, the python3 kernel, the
    book's cell timeout): None when every cell ran, else the reason in one line. It runs in a child process with a
    deadline of one cell timeout for the whole chapter (the slowest takes about 25 s) and one retry
    (runs.report.execute_chapter): papermill's client can wait on its kernel forever after the cells ran
    (jupyter/nbclient#312, papermill#711), which once hung a CI run until its time limit. A stall that the retry
    got past is a warning in the test summary, the stalled client's stacks kept in _build/stalls/."""
    from tinker_nomics.errors import TinkerNomicsError
    from tinker_nomics.runs.report import execute_chapter

    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tinker-nomics-papermill-") as workdir:
        try:
            execute_chapter(source, output, parameters or {}, Path(workdir), NOTEBOOK_TIMEOUT_S,
                            deadline=NOTEBOOK_TIMEOUT_S, what=source.name)
            error = None
        except TinkerNomicsError as exc:   # names the failed cell's exception, or the stall
            error = str(exc)
        stalls = Path(workdir) / "stalls.log"
        if stalls.is_file():
            kept = STALLS / f"{source.stem}-{time.strftime('%Y%m%dT%H%M%S')}.log"
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_bytes(stalls.read_bytes())
            warnings.warn(f"{source.name} stalled (its kernel nudged, or the run stopped past {NOTEBOOK_TIMEOUT_S} s "
                          f"and run again); what happened: {kept.relative_to(REPO)}")
    return error


def _store_in_book_cache(source: Path, executed: Path, seconds: float) -> None:
    """Put papermill's outputs into the jupyter-cache the way myst-nb would have stored them.

    The cache matches on code-cell sources plus cell metadata, and papermill adds its own cell
    metadata, so the outputs are copied back onto the untouched source notebook before caching.
    """
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    notebook = nbformat.read(source, as_version=4)
    result = nbformat.read(executed, as_version=4)
    if len(notebook.cells) != len(result.cells):
        return  # papermill injected a cell; the executed notebook is not the source's run
    for cell, ran in zip(notebook.cells, result.cells):
        if cell.cell_type == "code":
            cell.outputs = ran.outputs
            cell.execution_count = ran.execution_count
    for key in ("language_info", "widgets"):
        if key in result.metadata:
            notebook.metadata[key] = result.metadata[key]
    cache = get_cache(str(JUPYTER_CACHE))
    cache.cache_notebook_bundle(
        CacheBundleIn(notebook, str(source), data={"execution_seconds": seconds}),
        check_validity=False,
        overwrite=True,
    )


def _cached_run(source: Path) -> NotebookRun | None:
    """The book cache's run of `source` (the build's, or an earlier papermill run of this session's package), or
    None where it holds none."""
    if not JUPYTER_CACHE.exists():
        return None
    import nbformat
    from jupyter_cache import get_cache

    cache = get_cache(str(JUPYTER_CACHE))
    try:
        record = cache.match_cache_notebook(nbformat.read(source, as_version=4))
    except KeyError:
        return None
    notebook = cache.get_cache_bundle(record.pk).nb
    errors = [f"{o.get('ename')}: {o.get('evalue')}" for cell in notebook.cells if cell.cell_type == "code"
              for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    code = [cell for cell in notebook.cells if cell.cell_type == "code" and cell.source.strip()]
    if not errors and any(cell.get("execution_count") is None for cell in code):
        errors = ["the cached run left a code cell unexecuted"]
    return NotebookRun(source, Path(cache.get_cache_record(record.pk).uri), 0.0, errors[0] if errors else None)


def _is_cached(source: Path) -> bool:
    if not JUPYTER_CACHE.exists():
        return False
    import nbformat
    from jupyter_cache import get_cache

    try:
        get_cache(str(JUPYTER_CACHE)).match_cache_notebook(nbformat.read(source, as_version=4))
    except KeyError:
        return False
    return True


def _site_is_stale() -> bool:
    if not (SITE / "index.html").is_file() or not BUILT_STAMP.is_file():
        return True
    built = BUILT_STAMP.stat().st_mtime
    return any(
        path.is_file() and path.stat().st_mtime > built for pattern in BOOK_SOURCES for path in REPO.glob(pattern)
    )


def _run_build_script(*args: str) -> None:
    env = {key: value for key, value in os.environ.items() if key != "JUPYTER_BOOK"}
    proc = subprocess.run(
        ["bash", str(BUILD_SCRIPT), *args],
        cwd=REPO,
        env={**env, "JUPYTER_BOOK_PYTHON": sys.executable},   # tools/book_build.py under this interpreter
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        log = (proc.stdout + proc.stderr)[-6000:]
        command = " ".join(["tools/build_book.sh", *args])
        pytest.fail(f"{command} failed (exit {proc.returncode}):\n{log}", pytrace=False)


@pytest.fixture(scope="session")
def notebook_runs():
    _run_build_script("--refresh-cache")  # drop cached outputs made with an older package before seeding
    with tempfile.TemporaryDirectory(prefix="tinker-nomics-notebooks-") as workdir:
        yield NotebookRuns(Path(workdir))


@pytest.fixture(scope="session")
def built_site(notebook_runs) -> Path:
    """_build/html, rebuilt with tools/build_book.sh (= `make book`) when any source is newer."""
    if _site_is_stale():
        for notebook in toc_notebooks():
            if not _is_cached(notebook):
                notebook_runs.run(notebook)  # the build then finds this run in its cache
        _run_build_script()
    return SITE


# ----------------------------------------------------------------------------- the browser tests
# One local server and one headless Chromium per session, shared by every browser test file
# (tests/test_book_site.py, tests/test_beyond_browser.py): Playwright's sync API runs one instance at a time.

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature fixed by the base class
        pass


@pytest.fixture(scope="session")
def site_url(built_site):
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def load_tool(name: str):
    """A module from tools/ (tools/find_browser.py is shared with the Makefile's browser-deps)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


find_browser = load_tool("find_browser")


def realdata(name: str):
    """The real data folder `name` beside the repository (tools/realdata.py), read in place; the test skips,
    saying so, where this machine does not have it (it carries no licence, so the repository never copies it)."""
    path = load_tool("realdata").realdata(name)
    if not path.is_dir():
        pytest.skip(f"{path} is absent: the real data is read in place, never copied into the repository")
    return path


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright  # imported here: the fast tests need no Playwright

    try:
        found = find_browser.find_browser()   # CHROMIUM=, PATH and usual paths, then Playwright's own download
    except find_browser.BrowserNotFound as exc:
        pytest.fail(str(exc), pytrace=False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(found.path), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


# Since 2026-12-03 every registry GPU has a sourced dense BF16 peak (the A10G and the RTX PRO 6000 Blackwell Server
# were the last without one). Tests of the refusal a peak-less GPU gets take those two peaks away again (the
# `peakless` fixture), as a registry row without a peak reads; the Server Edition is one the GPU offers rent.
from tinker_nomics.sources import gpus as _registry_gpus  # noqa: E402

PEAKLESS = sorted(n for n, g in _registry_gpus().items() if not g.bf16_dense_tflops) or ["A10G", "RTX PRO 6000 Blackwell Server"]


@pytest.fixture
def peakless(monkeypatch):
    """The registry with the dense BF16 peak of each PEAKLESS GPU removed (a no-op for GPUs that lack one)."""
    from dataclasses import replace

    from tinker_nomics import sources
    from tinker_nomics.sources import hardware
    table = dict(hardware.gpus())
    for name in PEAKLESS:
        table[name] = replace(table[name], bf16_dense_tflops=None, seed_bf16_dense_tflops=None)
    monkeypatch.setattr(hardware, "gpus", lambda: table)
    monkeypatch.setattr(sources, "gpus", lambda: table)
    return table
