"""Render the run-validation chapter (notebooks/run_validation.ipynb) for someone's own run.

The notebook is executed with papermill (parameters `run_path` and the options the run was checked with: `model`,
`prices`, `price_as`, `group_size`, `run_name`, `ran_on`, `gpu`, `num_gpus`, ...) into a temporary folder, then copied into the report folder with the validation's JSON and its
text summary, so a failure leaves nothing behind. The report folder must not exist (or `force`), and it may
never be inside the run's log folder: nothing is ever written there.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from ..errors import TinkerNomicsError

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "run_validation.ipynb"
REPORT_FILES = ("run_validation.ipynb", "validation.json", "summary.txt")


def log_folder(run_path) -> Path:
    """The folder a run's logs live in: the path itself for a folder, else the file's folder."""
    p = Path(run_path).resolve()
    return p if p.is_dir() else p.parent


def check_report_dir(out_dir, run_path, force: bool = False) -> Path:
    """The resolved report folder, or an error: inside the log folder, or existing without `force`."""
    out = Path(out_dir).resolve()
    logs = log_folder(run_path)
    if out == logs or logs in out.parents:
        raise TinkerNomicsError(f"report folder {out_dir} is inside the run's log folder {logs}; nothing is written "
                                f"there, pick a folder outside it")
    if out.exists() and not out.is_dir():
        raise TinkerNomicsError(f"report folder {out_dir} exists and is not a folder")
    if out.exists() and not force:
        raise TinkerNomicsError(f"report folder {out_dir} exists; pass --force to overwrite its report files")
    return out


def render_report(validation, out_dir, run_path, model: str | None = None, prices: str | None = None,
                  price_as: str | None = None, group_size: float | None = None, run_name: str | None = None,
                  force: bool = False, timeout: int = 600, parameters: dict | None = None) -> Path:
    """Execute the chapter for this run into `out_dir`; returns the executed notebook's path. `validation` is
    what runs.ledger.check_run returned (anything with to_dict() and render()); `parameters` are further
    notebook parameters (the options the run was checked with)."""
    out = check_report_dir(out_dir, run_path, force)
    if not NOTEBOOK.is_file():
        raise TinkerNomicsError(f"the chapter notebook {NOTEBOOK} is missing (reports need the repository checkout)")
    try:
        import papermill
    except ImportError:
        raise TinkerNomicsError("papermill is not installed (pip install papermill ipykernel matplotlib myst-nb)") \
            from None
    given = {"model": model, "prices": prices, "price_as": price_as, "group_size": group_size, "run_name": run_name,
             **(parameters or {})}
    parameters = {"run_path": str(Path(run_path).resolve()), **given}
    with tempfile.TemporaryDirectory(prefix="tinker-nomics-report-") as tmp:
        executed = Path(tmp) / REPORT_FILES[0]
        try:
            papermill.execute_notebook(str(NOTEBOOK), str(executed), parameters=parameters, cwd=str(NOTEBOOK.parent),
                                       kernel_name="python3", progress_bar=False, execution_timeout=timeout)
        except Exception as exc:  # PapermillExecutionError and kernel failures: one line, no traceback
            first = str(exc).strip().splitlines()
            reason = next((line for line in reversed(first) if line.strip()), type(exc).__name__)
            raise TinkerNomicsError(f"the report notebook failed: {reason[:300]}") from None
        (Path(tmp) / REPORT_FILES[1]).write_text(json.dumps(validation.to_dict(), indent=2) + "\n")
        (Path(tmp) / REPORT_FILES[2]).write_text(validation.render() + "\n")
        out.mkdir(parents=True, exist_ok=True)
        for name in REPORT_FILES:
            shutil.copyfile(Path(tmp) / name, out / name)
    return out / REPORT_FILES[0]
