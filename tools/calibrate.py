"""Fit the calibrated method's efficiencies to the published measurements and write them, with their inputs.

    .venv/bin/python tools/calibrate.py            # (make calibrate) rewrite data/calibration/efficiencies.csv
    .venv/bin/python tools/calibrate.py --check    # exit 1 if the committed table differs from a fresh fit

Inputs: data/measurements/decode_cases.csv and rl_step_cases.csv (usable rows; tools/build_measurement_cases.py
builds them from the raw published rows), the architectures, GPUs and engine defaults in data/. The fit and its
leave-one-source-out judgement are tinker_nomics.analysis.calibration; this script only writes the result.
The `fitted` column is the date of the run; --check compares every other column.
"""
from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tinker_nomics.analysis import calibration  # noqa: E402

TABLE = REPO / "data" / "calibration" / "efficiencies.csv"
COLUMNS = ["parameter", "class", "value", "unit", "cases", "source", "loso_median_abs_error", "fitted", "inputs",
           "note"]


def render(rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _without_dates(text: str) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "fitted"} for row in csv.DictReader(io.StringIO(text))]


def main(argv: list[str]) -> int:
    rows = calibration.efficiency_rows()
    text = render(rows)
    if "--check" in argv:
        if not TABLE.is_file() or _without_dates(TABLE.read_text(encoding="utf-8")) != _without_dates(text):
            print("stale: data/calibration/efficiencies.csv (run make calibrate)", file=sys.stderr)
            return 1
        return 0
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text(text, encoding="utf-8")
    for row in rows:
        print(f"{row['parameter']:30s} {row['class']:8s} {row['value']:>12s}  LOSO median |error| "
              f"{float(row['loso_median_abs_error']):.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
