"""Fit the phase model to the published measurements and write the fit, with its inputs and held-out errors.

    .venv/bin/python tools/calibrate.py            # (make calibrate) rewrite data/calibration/*.csv
    .venv/bin/python tools/calibrate.py --check    # exit 1 if the committed tables differ from a fresh fit

Inputs: data/measurements/decode_cases.csv, rl_step_cases.csv and rl_phase_cases.csv (usable rows;
tools/build_measurement_cases.py builds them from the raw published rows), the architectures, GPUs, links and
engine defaults in data/. The fit and its leave-one-family-out judgement are tinker_nomics.analysis.calibration;
this script writes the result and fails (exit 1, naming it) when a fitted parameter ends on a bound of its search
range: a value the measurements push against a limit is a defect of the model, not a result.
The `fitted` column is the date of the run; --check compares every other column (numbers to 0.1%).
"""
from __future__ import annotations

import csv
import datetime
import io
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tinker_nomics.analysis import calibration  # noqa: E402

FOLDER = REPO / "data" / "calibration"
PARAMETER_COLUMNS = ["parameter", "value", "unit", "low", "high", "how", "cases", "families", "held_out_median_abs_error",
                     "fitted", "source", "inputs", "note"]
ERROR_COLUMNS = ["quantity", "regime", "cases", "families", "median_abs_error", "median_signed_error", "log_sd",
                 "fitted", "source", "note"]
SOURCE = "tools/calibrate.py (make calibrate) on data/measurements/*_cases.csv"


def render(rows: list[dict], columns: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def error_rows(fitted_on: str) -> list[dict]:
    frame = calibration.errors_by_regime()
    return [{"quantity": r.quantity, "regime": r.regime, "cases": str(r.cases), "families": str(r.families),
             "median_abs_error": f"{r.median_abs_error:.4f}", "median_signed_error": f"{r.median_signed_error:.4f}",
             "log_sd": f"{r.log_sd:.4f}", "fitted": fitted_on, "source": SOURCE,
             "note": calibration.REGIME_LABELS[r.regime] + "; held out: each case predicted by a fit without its "
                                                           "family"}
            for r in frame.itertuples()]


def _without_dates(text: str) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "fitted"} for row in csv.DictReader(io.StringIO(text))]


def _same_cell(a: str, b: str) -> bool:
    """Text equal, or numbers within 0.1% of each other (or 1e-4 apart): the last printed digit of a fit can differ
    between CPUs, whose vector units sum in different orders."""
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return abs(x - y) <= max(1e-3 * max(abs(x), abs(y)), 1e-4)


def same_table(committed: str, fresh: str) -> bool:
    old, new = _without_dates(committed), _without_dates(fresh)
    return len(old) == len(new) and all(o.keys() == n.keys() and all(_same_cell(o[k], n[k]) for k in o)
                                        for o, n in zip(old, new))


def main(argv: list[str]) -> int:
    today = datetime.date.today().isoformat()
    tables = {"parameters.csv": render([{**r, "source": SOURCE} for r in calibration.parameter_rows(today)],
                                       PARAMETER_COLUMNS),
              "errors_by_regime.csv": render(error_rows(today), ERROR_COLUMNS)}
    bounded = [r for r in csv.DictReader(io.StringIO(tables["parameters.csv"]))
               if r["how"].startswith("searched") and calibration.on_bound(r["parameter"], float(r["value"]))]
    if "--check" in argv:
        stale = [name for name, text in tables.items()
                 if not (FOLDER / name).is_file()
                 or not same_table((FOLDER / name).read_text(encoding="utf-8"), text)]
        if stale:
            print(f"stale: data/calibration/{', '.join(stale)} (run make calibrate)", file=sys.stderr)
            return 1
    else:
        FOLDER.mkdir(parents=True, exist_ok=True)
        for name, text in tables.items():   # whole or not at all: a command reading the fit meanwhile sees one
            partial = FOLDER / f".{name}.partial"
            partial.write_text(text, encoding="utf-8")
            os.replace(partial, FOLDER / name)
        for row in csv.DictReader(io.StringIO(tables["parameters.csv"])):
            where = f"[{row['low']}, {row['high']}]" if row["low"] else row["how"]
            print(f"{row['parameter']:36s} {row['value']:>12s}  {where}")
        for row in csv.DictReader(io.StringIO(tables["errors_by_regime.csv"])):
            print(f"held out {row['quantity']:11s} {row['regime']:13s} {int(row['cases']):4d} cases "
                  f"{int(row['families']):2d} families  median |error| {float(row['median_abs_error']):.0%}")
    if bounded:
        for row in bounded:
            print(f"on a bound: {row['parameter']} = {row['value']} (range {row['low']}–{row['high']})",
                  file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
