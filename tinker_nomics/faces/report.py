"""`validate --report DIR`: one check of a run (what `runs.ledger.check_run` returned) made into a report folder.

    run_validation.ipynb   the run-validation chapter executed for this run (papermill), reading the check's page data
    validation.json        the check's JSON, as `validate --format json` prints it (the run's summary)
    summary.txt            the check's text, as `validate` prints it
    report.html            a self-contained page of the same check, for a browser (faces.report_html)

All four come from the one check, so they cannot disagree. The page data (analysis.run_report) is compact whatever
the log's length: headline numbers, the first rows of the tidy table, figure series of at most a few thousand
points. runs.report writes the folder (where it may go, temporary folders, the chapter in a child process).
"""
from __future__ import annotations

from pathlib import Path

from .. import fmt
from ..analysis.run_report import page_json, report_page
from ..runs.report import write_report
from ..sources.provenance import produced_by
from .report_html import report_html

PAGE_PARAMETER = "report_file"   # the chapter's parameter naming the page data file


def render_report(result, out_dir, run_path, force: bool = False, parameters: dict | None = None, inputs=(),
                  timeout: int = 600) -> Path:
    """The report folder for `result` (module docstring); `parameters` are the options the run was checked with
    (they label the page, and `price_as`, `group_size` and `model` also bill the compared price lists). Returns the
    executed chapter's path."""
    parameters = dict(parameters or {})
    page = report_page(result, price_as=parameters.get("price_as"), group_size=parameters.get("group_size"),
                       model=parameters.get("model"))
    made_by = produced_by()
    summary = result.render()
    files = {"validation.json": (fmt.json_text({"produced_by": made_by, **result.to_dict(per_step=False)}) + "\n")
             .encode(),
             "summary.txt": (summary + "\n").encode(),
             "report.html": report_html(page, summary, made_by).encode()}
    hand_over = {PAGE_PARAMETER: page_json(page)}
    return write_report(out_dir, run_path, files, hand_over, parameters, force, inputs, timeout)
