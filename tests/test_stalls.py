"""A chapter or book build whose notebook client stalls is stopped at its deadline and run once more.

papermill's client (nbclient) can wait on its kernel with no cell running and no timeout covering the wait (after
the last cell, or on a reply it missed: jupyter/nbclient#312, papermill#711); one such wait held a clean-clone CI run
in `make test` until its 90-minute limit. For a chapter (runs.report.execute_chapter: `validate --report` and the
book's tests) the stall is made for real: a cell stops (SIGSTOP) the process that runs papermill, its kernel's
parent, so the client waits forever exactly as a stalled one does. For the book build (tools/build_book.sh) a
stand-in jupyter-book hangs.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import nbformat
import pytest

from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.runs import report

STALL_CELL = """\
import os, pathlib, signal
stalls = pathlib.Path(marks) / "stalls"
if stalls.exists() and stalls.read_text().count("x") >= max_stalls:
    pass
else:
    stalls.write_text((stalls.read_text() if stalls.exists() else "") + "x")
    os.kill(os.getppid(), signal.SIGSTOP)   # the papermill client, frozen: it never hears the cell finish
"""


SLEEP_CELL = """\
import time
time.sleep(600)   # the client waits, as a stalled one does, for a reply that comes after its deadline
"""


HOLD_CELL = """\
from functools import partial
kernel = get_ipython().kernel
held = []

def hold_one(dispatch, *args):   # the next request is left queued until another message arrives, as a kernel
    if not held:                 # whose event loop missed a wake-up leaves it
        held.append(args)
        return
    kernel.shell_stream.on_recv(partial(kernel.schedule_dispatch, kernel.dispatch_shell), copy=False)
    kernel.schedule_dispatch(dispatch, *held.pop())
    kernel.schedule_dispatch(dispatch, *args)

kernel.shell_stream.on_recv(partial(hold_one, kernel.dispatch_shell), copy=False)
"""


def _chapter(tmp_path: Path, cell: str = STALL_CELL) -> Path:
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("marks = ''\nmax_stalls = 0", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell(cell),
        nbformat.v4.new_code_cell("print('ran to the end')"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "chapter.ipynb"
    nbformat.write(nb, path)
    return path


def _execute(tmp_path: Path, max_stalls: int, deadline: float, cell: str = STALL_CELL):
    """execute_chapter in a thread, so that a stall it does not bound fails this test instead of hanging it."""
    work = tmp_path / "work"
    work.mkdir()
    output = tmp_path / "out.ipynb"
    outcome = {}

    def run():
        try:
            report.execute_chapter(_chapter(tmp_path, cell), output, {"marks": str(tmp_path), "max_stalls": max_stalls},
                                   work, timeout=30, deadline=deadline, what="chapter.ipynb")
            outcome["error"] = None
        except TinkerNomicsError as exc:
            outcome["error"] = str(exc)

    thread = threading.Thread(target=run, daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(timeout=4 * deadline + 60)
    assert not thread.is_alive(), f"execute_chapter still waiting after {time.monotonic() - start:.0f} s"
    return outcome["error"], output, work


def _processes_under(folder: Path) -> list[str]:
    """Processes whose command line names `folder` (the chapter's process, and its kernel's connection file)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if str(folder).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            pass
    return found


@pytest.fixture(autouse=True)
def short_grace(monkeypatch):
    monkeypatch.setattr(report, "STOP_GRACE_SECONDS", 1)   # a stopped process ignores SIGTERM until it is killed


@pytest.mark.slow
def test_a_stalled_chapter_is_stopped_and_run_again(tmp_path):
    error, output, work = _execute(tmp_path, max_stalls=1, deadline=10)
    assert error is None
    assert (tmp_path / "stalls").read_text() == "x"   # one stall, then a whole run
    executed = nbformat.read(output, as_version=4)
    assert "ran to the end" in str(executed.cells[-1].outputs)
    deadline = time.monotonic() + 15   # the stalled run's kernel leaves when it sees its parent gone
    while _processes_under(work) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _processes_under(work) == []


@pytest.mark.slow
def test_a_chapter_that_stalls_twice_is_one_line_and_leaves_where_its_client_waited(tmp_path):
    """Two stalls: one line naming the deadline. Before it is stopped, each stalled run is asked for its Python
    stacks (faulthandler): stalls.log in the work folder says which cell was running and holds the stacks of the
    client (waiting inside nbclient) and of the kernel (busy in that cell)."""
    error, _, work = _execute(tmp_path, max_stalls=0, deadline=8, cell=SLEEP_CELL)
    assert error is not None and "\n" not in error
    assert error.startswith("chapter.ipynb did not finish within 8 s, 2 times"), error
    dumps = (work / "stalls.log").read_text()
    # cell 2: papermill injects the parameters as a cell after the tagged one
    assert dumps.count("stalled after 8 s in cell 2 ('import time', 0 outputs)") == 2, dumps[:2000]
    client, kernel = dumps.split("\nkernel:\n")[0], dumps.split("\nkernel:\n")[1]
    assert "most recent call first" in client and "nbclient" in client and "papermill" in client
    assert "most recent call first" in kernel and "ipykernel" in kernel, kernel[:2000]
    assert "line 2 in <module>" in kernel   # the sleeping line of the cell


@pytest.mark.slow
def test_a_kernel_that_never_starts_a_queued_cell_is_nudged_into_it(tmp_path):
    """The kernel leaves the next cell's request queued, idle, until another message arrives (what both stacks of a
    real stall showed): the client's kernel_info nudge after NUDGE_SECONDS of quiet wakes it, the cell runs, the
    chapter finishes well inside its deadline, and stalls.log says it was nudged."""
    start = time.monotonic()
    error, output, work = _execute(tmp_path, max_stalls=0, deadline=60, cell=HOLD_CELL)
    assert error is None, error
    assert time.monotonic() - start < 60   # one run, not a stop and a retry
    assert "ran to the end" in str(nbformat.read(output, as_version=4).cells[-1].outputs)
    kept = (work / "stalls.log").read_text()
    assert kept.startswith("finished after 1 nudge(s) of a quiet kernel:"), kept
    assert "stalled after" not in kept


@pytest.mark.slow
def test_a_long_quiet_cell_is_not_nudged(tmp_path):
    """A cell that computes for longer than NUDGE_SECONDS without a word has started (its kernel said busy): no
    nudge, nothing in stalls.log."""
    error, output, work = _execute(tmp_path, max_stalls=0, deadline=60,
                                   cell=f"import time\ntime.sleep({report.NUDGE_SECONDS * 1.5:g})")
    assert error is None, error
    assert "ran to the end" in str(nbformat.read(output, as_version=4).cells[-1].outputs)
    assert not (work / "stalls.log").exists()


# ------------------------------------------------------------------------------------ the book build (make book)

@pytest.mark.parametrize("runs_to_stall", [1, 2])
def test_a_stalled_book_build_is_stopped_and_run_again(tmp_path, runs_to_stall):
    """tools/build_book.sh on a copy of itself, with a stand-in jupyter-book that hangs on its first
    `runs_to_stall` runs: the build is stopped at BUILD_DEADLINE_S and run once more; two stalls fail it."""
    import shutil
    import stat
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    (tmp_path / "tools").mkdir()
    shutil.copy(repo / "tools" / "build_book.sh", tmp_path / "tools" / "build_book.sh")
    fake_vendor = tmp_path / "tools" / "vendor_js.sh"
    fake_vendor.write_text("#!/bin/sh\nexit 0\n")
    fake_book = tmp_path / "jupyter-book"
    fake_book.write_text(f"""#!/bin/sh
echo run >> "{tmp_path}/runs"
if [ "$(wc -l < "{tmp_path}/runs")" -le {runs_to_stall} ]; then sleep 60; fi
mkdir -p _build/html
""")
    for script in (fake_vendor, fake_book):
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    start = time.monotonic()
    done = subprocess.run(["bash", "tools/build_book.sh"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "JUPYTER_BOOK": str(fake_book), "BUILD_DEADLINE_S": "2"}, timeout=120)
    assert time.monotonic() - start < 50   # stopped at its deadline, not after the stand-in's minute
    assert "attempt 1 of 2 stopped" in done.stderr
    if runs_to_stall == 1:
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "_build" / "html" / ".built").is_file()
    else:
        assert done.returncode != 0 and "attempt 2 of 2 stopped" in done.stderr
        assert not (tmp_path / "_build" / "html" / ".built").exists()
    assert (tmp_path / "runs").read_text().count("run") == 2
