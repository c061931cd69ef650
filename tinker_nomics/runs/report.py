"""Render the run-validation chapter (notebooks/run_validation.ipynb) for someone's own run.

One check of the run makes the whole report, for a Tinker run and a self-hosted one alike: what
`runs.ledger.check_run` returned is written to validation.json (its JSON) and handed to the notebook as a
private pickle (parameter `result_file`, a file of this process's own making, deleted afterwards), so the page
shows that very result instead of checking the run again, and summary.txt is the same result's text: the page
and the summary cannot disagree. The other parameters (the options the run was checked with) only label the
page.

The report folder is checked before any work (`check_report_dir`): not empty, not inside the run's log folder
(with or without `force`), not a symbolic link, with no file in the way of a folder along its path, and, when
it exists, only with `force`. Everything is written into a fresh temporary folder beside it and then moved
into place: the new folder renamed in one step, or, over an existing folder (`force`), each report file
renamed over the old name. A rename replaces a symbolic link in the report folder, it never writes through
it, and a failure leaves nothing behind. Nothing is ever written into the log folder.
"""
from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from pathlib import Path

from .. import fmt
from ..errors import TinkerNomicsError
from .files import input_at
from ..sources.provenance import produced_by
from ..sources.shipped import shipped

NOTEBOOK = "notebooks/run_validation.ipynb"   # shipped in the wheel (sources.shipped)
REPORT_FILES = ("run_validation.ipynb", "validation.json", "summary.txt")


def log_folder(run_path) -> Path:
    """The folder a run's logs live in: the path itself for a folder, else the file's folder."""
    p = Path(run_path).resolve()
    return p if p.is_dir() else p.parent


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path(path.anchor or ".")


def check_report_dir(out_dir, run_path, force: bool = False, inputs=()) -> Path:
    """The resolved report folder, or a one-line error saying why it cannot be one. A report file it would replace
    is never one of the command's `inputs` (`--usage DIR/validation.json`), through a link either."""
    if out_dir is None or not str(out_dir).strip():
        raise TinkerNomicsError("--report needs a folder name (got an empty one)")
    given = Path(out_dir)
    if given.is_symlink():
        raise TinkerNomicsError(f"report folder {out_dir} is a symbolic link; nothing is written through a link, "
                                f"give the folder itself")
    out = given.resolve()
    logs = log_folder(run_path)
    if out == logs or logs in out.parents:
        raise TinkerNomicsError(f"report folder {out_dir} is inside the run's log folder {logs}; nothing is written "
                                f"there, pick a folder outside it")
    base = _nearest_existing(out)
    if base != out and not base.is_dir():
        raise TinkerNomicsError(f"report folder {out_dir}: {base} is a file, not a folder")
    if base != out and not os.access(base, os.W_OK | os.X_OK):
        raise TinkerNomicsError(f"report folder {out_dir}: cannot create it in {base} (permission denied)")
    if base == out:
        if not out.is_dir():
            raise TinkerNomicsError(f"report folder {out_dir} exists and is not a folder")
        if not force:
            raise TinkerNomicsError(f"report folder {out_dir} exists; pass --force to overwrite its report files")
        for name in REPORT_FILES:
            target = out / name
            if target.is_dir() and not target.is_symlink():
                raise TinkerNomicsError(f"report folder {out_dir}: {name} is a folder; the report would replace it")
            same = input_at(target, (run_path, *inputs))
            if same is not None:
                raise TinkerNomicsError(f"report folder {out_dir}: {name} is the input {same} (the same file on "
                                        f"disk); the report never replaces what the command reads, --force or not")
        if not os.access(out, os.W_OK | os.X_OK) or not os.access(out.parent, os.W_OK | os.X_OK):
            raise TinkerNomicsError(f"report folder {out_dir}: cannot write there (permission denied)")
    return out


def render_report(result, out_dir, run_path, force: bool = False, timeout: int = 600,
                  parameters: dict | None = None, inputs=()) -> Path:
    """Execute the chapter for `result` (what runs.ledger.check_run returned: anything with to_dict() and render())
    into `out_dir`; returns the executed notebook's path. `parameters` are further notebook parameters (the options
    the run was checked with)."""
    out = check_report_dir(out_dir, run_path, force, inputs)
    notebook = shipped(NOTEBOOK)
    if notebook is None:
        raise TinkerNomicsError(f"the chapter notebook {NOTEBOOK} is missing from the package (reinstall tinker-nomics)")
    try:
        import papermill
    except ImportError:
        raise TinkerNomicsError("papermill is not installed (pip install papermill ipykernel matplotlib myst-nb)") \
            from None
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    private = Path(tempfile.mkdtemp(prefix="tinker-nomics-report-"))   # the pickle never lands in the report
    try:
        (tmp / REPORT_FILES[1]).write_text(fmt.json_text({"produced_by": produced_by(), **result.to_dict()}) + "\n")
        handed = private / "result.pickle"
        with open(handed, "wb") as fh:
            pickle.dump(result, fh)
        given = {k: v for k, v in (parameters or {}).items() if v is not None}
        given.update(run_path=str(Path(run_path).resolve()), result_file=str(handed))
        try:
            papermill.execute_notebook(str(notebook), str(tmp / REPORT_FILES[0]), parameters=given,
                                       cwd=str(notebook.parent), kernel_name="python3", progress_bar=False,
                                       execution_timeout=timeout)
        except Exception as exc:  # PapermillExecutionError and kernel failures: one line, no traceback
            first = str(exc).strip().splitlines()
            reason = next((line for line in reversed(first) if line.strip()), type(exc).__name__)
            raise TinkerNomicsError(f"the report notebook failed: {reason[:300]}") from None
        (tmp / REPORT_FILES[2]).write_text(result.render() + "\n")
        _move_into_place(tmp, out, out_dir, force)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)
    return out / REPORT_FILES[0]


def _move_into_place(tmp: Path, out: Path, out_dir, force: bool) -> None:
    try:
        if not os.path.lexists(out):
            os.rename(tmp, out)   # one step: the folder appears whole
            return
        if not force or Path(out_dir).is_symlink() or out.is_symlink() or not out.is_dir():
            raise TinkerNomicsError(f"report folder {out_dir} appeared or changed while the report was made; "
                                    f"nothing was written")
        for name in REPORT_FILES:
            os.replace(tmp / name, out / name)   # replaces a link of that name; never writes through it
    except OSError as exc:
        raise TinkerNomicsError(f"report folder {out_dir}: cannot move the report into place "
                                f"({exc.strerror or exc})") from None


def load_report_result(path):
    """What `render_report` handed the notebook (its `result_file`): the check the report's summary.txt shows."""
    with open(path, "rb") as fh:
        return pickle.load(fh)
