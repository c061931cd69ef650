"""The chapter notebooks: committed clean, and each one runs top to bottom under papermill.

Execution happens once per session (tests/conftest.py: `notebook_runs`), into a temporary folder;
nothing is written into the repository. The book build reuses these runs through its jupyter-cache.
"""

import json

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
def test_notebook_runs_under_papermill(source, notebook_runs):
    run = notebook_runs.run(source)
    assert run.error is None, f"{source.name} failed after {run.seconds:.1f} s:\n{run.error}"


def _snapshots():
    from tinker_nomics.sources import snapshots
    return list(snapshots())


@pytest.mark.slow
@pytest.mark.parametrize("snapshot", _snapshots())
def test_takeaway_runs_at_every_listed_snapshot(snapshot, tmp_path):
    """The takeaway leads with the answer at a price list (`-p prices`); it must run at every list the package
    holds, retired models billed on their successors wherever a list has dropped them."""
    source = REPO / "notebooks" / "takeaway.ipynb"
    out = tmp_path / f"takeaway-{snapshot}.ipynb"
    error = run_papermill(source, out, {"prices": snapshot})
    assert error is None, error
    executed = json.loads(out.read_text())
    glued = "".join(str(o) for c in executed["cells"] for o in c.get("outputs", []))
    assert snapshot in glued
