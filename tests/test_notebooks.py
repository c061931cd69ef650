"""The chapter notebooks: committed clean, and each one runs top to bottom under papermill.

Execution happens once per session (tests/conftest.py: `notebook_runs`), into a temporary folder;
nothing is written into the repository. The book build reuses these runs through its jupyter-cache, and
a run the build made for this package and data is read from that cache instead of made again.
"""

import importlib.util
import json
import re

import pytest

from conftest import REPO, run_papermill, toc_notebooks

NOTEBOOKS = toc_notebooks()
IDS = [path.relative_to(REPO).as_posix() for path in NOTEBOOKS]


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_notebook_is_committed_clean(source):
    """No stored outputs (the build makes them) and the venv's `python3` kernel (others raise NoSuchKernel)."""
    notebook = json.loads(source.read_text())
    with_outputs = [
        index for index, cell in enumerate(notebook["cells"])
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]
    assert not with_outputs, f"code cells {with_outputs} have stored outputs; clear them before committing"
    kernel = notebook["metadata"].get("kernelspec", {}).get("name")
    assert kernel == "python3", f"kernelspec name is {kernel!r}; set it to 'python3'"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_notebook_has_one_parameters_cell(source):
    """papermill puts `-p` values after the cell tagged `parameters`; at most one may carry the tag."""
    notebook = json.loads(source.read_text())
    tagged = [cell for cell in notebook["cells"] if "parameters" in cell.get("metadata", {}).get("tags", [])]
    assert len(tagged) <= 1, "more than one cell is tagged 'parameters'"
    assert all(cell["cell_type"] == "code" for cell in tagged), "the 'parameters' tag is on a non-code cell"


@pytest.mark.slow
@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_notebook_runs_top_to_bottom(source, notebook_runs):
    """Under papermill, as a reader runs it; or, where the book build already ran it for this package and data, that
    run's outputs, which must hold no error and leave no code cell unexecuted (conftest.NotebookRuns)."""
    run = notebook_runs.run(source)
    assert run.error is None, f"{source.name} failed after {run.seconds:.1f} s:\n{run.error}"


def _snapshots():
    from tinker_nomics.sources import snapshots
    return list(snapshots())


def _papermill_snapshots():
    """The oldest list and one named by a period (2026-H1): the chapter runs under papermill at these (each run is a
    kernel, ~9 s), and at its default "latest", the newest list, in test_notebook_runs_top_to_bottom;
    test_takeaway_answers_at_every_listed_snapshot makes its list-dependent calls at every list in-process."""
    listed = _snapshots()
    period = [s for s in listed if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", s)]
    return list(dict.fromkeys([listed[0], *period[:1]]))


@pytest.mark.slow
@pytest.mark.parametrize("snapshot", _papermill_snapshots())
def test_takeaway_runs_at_listed_snapshots(snapshot, tmp_path):
    """The takeaway leads with the answer at a price list (`-p prices`); it runs under papermill at the oldest list
    and a period-named one (the newest is its default), retired models billed on their successors wherever a list
    has dropped them."""
    source = REPO / "notebooks" / "takeaway.ipynb"
    out = tmp_path / f"takeaway-{snapshot}.ipynb"
    error = run_papermill(source, out, {"prices": snapshot})
    assert error is None, error
    executed = json.loads(out.read_text())
    glued = "".join(str(o) for c in executed["cells"] for o in c.get("outputs", []))
    assert snapshot in glued


@pytest.mark.parametrize("snapshot", _snapshots())
def test_takeaway_answers_at_every_listed_snapshot(snapshot):
    """Every call the takeaway makes with its `prices` parameter, at every list the package holds: the answers,
    the headline table, the swe_rl estimate and the calculator it opens on."""
    from tinker_nomics import Scenario, estimate
    from tinker_nomics.analysis import compare
    from tinker_nomics.analysis.bottom_line import answers
    from tinker_nomics.sources import resolve_snapshot

    workloads = ["math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl"]   # the chapter's WORKLOADS
    resolved = resolve_snapshot(snapshot)
    assert resolve_snapshot("latest") == _snapshots()[-1]   # the chapter's default, run under papermill
    answered = answers(workloads, prices=resolved)
    rows = compare.headline_table(workloads, prices=resolved)
    assert answered and len(rows) == len(workloads)
    assert Scenario.from_workload("math_rl", prices=resolved).resolved().prices == resolved
    assert float(estimate(Scenario.from_workload("swe_rl", prices=resolved)).tinker.total_usd) > 0
    if importlib.util.find_spec("ipywidgets"):
        from tinker_nomics.faces.widgets import Calculator
        assert Calculator("swe_rl", compact=True, prices=snapshot).widget is not None


def test_a_cached_run_with_an_error_output_is_a_failed_run(tmp_path, monkeypatch):
    """The book cache's run stands in for papermill only as evidence: an error output in it is the run's error, and
    a code cell it left unexecuted fails it too."""
    import conftest
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    monkeypatch.setattr(conftest, "JUPYTER_CACHE", tmp_path / "cache")
    source = tmp_path / "chapter.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("1 / 0")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, source)
    assert conftest._cached_run(source) is None                     # no cache: papermill runs it
    ran = nbformat.read(source, as_version=4)
    ran.cells[0].execution_count = 1
    ran.cells[1].execution_count = 2
    ran.cells[1].outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                                                   traceback=[])]
    get_cache(str(tmp_path / "cache")).cache_notebook_bundle(CacheBundleIn(ran, str(source)), check_validity=False)
    assert conftest._cached_run(source).error == "ZeroDivisionError: division by zero"
    ran.cells[1].outputs, ran.cells[1].execution_count = [], None
    get_cache(str(tmp_path / "cache")).cache_notebook_bundle(CacheBundleIn(ran, str(source)), check_validity=False,
                                                             overwrite=True)
    assert "unexecuted" in conftest._cached_run(source).error
    ran.cells[1].execution_count = 2
    get_cache(str(tmp_path / "cache")).cache_notebook_bundle(CacheBundleIn(ran, str(source)), check_validity=False,
                                                             overwrite=True)
    assert conftest._cached_run(source).error is None
