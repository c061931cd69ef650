"""jupyter-book as tools/build_book.sh runs it: the book's chapters execute in this process (myst-nb hands them to
jupyter-cache's serial executor, which runs nbclient here), so the notebook client is first taught to nudge a
kernel that leaves a cell's request queued (tinker_nomics.runs.report.nudge_quiet_kernels): such a widget cell then
costs NUDGE_SECONDS, not the cell timeout.

    .venv/bin/python tools/book_build.py build -W -n --keep-going .
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_book.cli.main import main  # noqa: E402

from tinker_nomics.runs.report import nudge_quiet_kernels  # noqa: E402

if __name__ == "__main__":
    nudge_quiet_kernels()
    sys.argv[0] = "jupyter-book"
    sys.exit(main())
