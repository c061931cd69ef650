"""Where the real data beside the repository lives: ../shared/realdata/<name> (verl logs, the SkyPilot catalog
snapshot), or <TINKER_NOMICS_REALDATA>/<name> when that is set. These files carry no licence, so the repository
never copies them: the importers and the tests read them in place."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def candidates(name: str) -> list[Path]:
    env = os.environ.get("TINKER_NOMICS_REALDATA")
    if env:
        return [Path(env) / name]
    return [ROOT.parent / "shared" / "realdata" / name, Path("/work/shared/realdata") / name]


def realdata(name: str) -> Path:
    """The folder `name` of the real data: the first candidate that exists, else the first (for the message)."""
    found = candidates(name)
    return next((p for p in found if p.is_dir()), found[0])
