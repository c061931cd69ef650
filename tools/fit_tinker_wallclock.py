"""Fit Tinker's step time to the Tinker runs whose wall-clock was logged, and write it with its inputs.

    .venv/bin/python tools/fit_tinker_wallclock.py          # (make tinker-wallclock) rewrite the two tables
    .venv/bin/python tools/fit_tinker_wallclock.py --check  # exit 1 if the committed tables differ from a fresh fit

Writes data/services/tinker_step_times.csv (each measured run: its steps, mean step seconds, completion tokens
per rollout and tokens sampled per step, with where each came from) and data/services/tinker_wallclock.csv (the
two fitted terms and the leave-one-run-out spread). The fit is tinker_nomics.analysis.tinker_wallclock; this
script only writes it. The `fitted` column is the date of the run; --check compares every other column.
"""
from __future__ import annotations

import csv
import datetime
import io
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tinker_nomics.analysis import tinker_wallclock as tw  # noqa: E402

STEP_TIMES = REPO / "data" / tw.STEP_TIMES
FIT = REPO / "data" / tw.FIT
STEP_COLUMNS = ["run", "model", "steps", "step_seconds", "completion_tokens_per_rollout", "sampled_tokens_per_step",
                "source"]
FIT_COLUMNS = ["parameter", "value", "unit", "runs", "source", "inputs", "fitted"]


def _csv(rows: list[dict], columns: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def tables(today: str) -> tuple[str, str]:
    runs = tw.measured_runs()
    fit = tw.fit(runs)
    steps = [{"run": r.run, "model": r.model, "steps": r.steps, "step_seconds": f"{r.step_seconds:.6g}",
              "completion_tokens_per_rollout": f"{r.completion_tokens_per_rollout:.6g}",
              "sampled_tokens_per_step": f"{r.sampled_tokens_per_step:.6g}", "source": r.source} for r in runs]
    names = "; ".join(fit.runs)
    source = "tools/fit_tinker_wallclock.py: least squares on relative error over the runs in data/" + tw.STEP_TIMES
    inputs = "step seconds = a × completion tokens per rollout + b × tokens sampled per step"
    errors = ", ".join(f"{run} {e:+.3f}" for run, e in zip(fit.runs, fit.loo_log_errors))
    rows = [
        {"parameter": "seconds_per_sequence_token", "value": f"{fit.seconds_per_sequence_token:.6g}",
         "unit": "seconds per completion token of one rollout (a)", "runs": names, "source": source,
         "inputs": inputs, "fitted": today},
        {"parameter": "seconds_per_batch_token", "value": f"{fit.seconds_per_batch_token:.6g}",
         "unit": "seconds per token sampled in the step (b)", "runs": names, "source": source, "inputs": inputs,
         "fitted": today},
        {"parameter": "log_sd", "value": f"{fit.log_sd:.6g}", "unit": "standard deviation of log(predicted/measured)",
         "runs": names, "source": source + "; leave-one-run-out: each run predicted by a fit on the others",
         "inputs": f"log errors: {errors}", "fitted": today},
    ]
    return _csv(steps, STEP_COLUMNS), _csv(rows, FIT_COLUMNS)


def _without_dates(text: str) -> str:
    return "\n".join(line.rsplit(",", 1)[0] if i and line else line for i, line in enumerate(text.splitlines()))


def main(argv: list[str]) -> int:
    steps, fit = tables(datetime.date.today().isoformat())
    if "--check" in argv:
        same = STEP_TIMES.read_text() == steps and _without_dates(FIT.read_text()) == _without_dates(fit)
        print("committed Tinker step-time fit is up to date" if same else
              "data/services/tinker_*.csv differ from a fresh fit: run make tinker-wallclock")
        return 0 if same else 1
    STEP_TIMES.write_text(steps)
    FIT.write_text(fit)
    print(f"wrote {STEP_TIMES.relative_to(REPO)} and {FIT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
