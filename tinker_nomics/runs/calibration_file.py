"""Calibrating the self-hosted model from your own run: `validate RUN --save-calibration FILE` writes the rollout
efficiency and MFU that would have matched the run (runs.reconcile), with the run they came from;
`estimate --calibration FILE` uses them in place of the defaults.

The file is JSON:

    {"kind": "tinker-nomics calibration", "version": 1,
     "rollout_efficiency": 0.21,   # fitted on the generation phase (null when the log has no generation time)
     "mfu": 0.017,                 # the step MFU: reproduces the measured step time with the rollout as measured
     "phase_mfu": 0.03,            # the actor update alone (for reference; estimate uses "mfu")
     "method": "seed",             # the method the efficiencies belong to; estimate uses it unless --method
     "basis": {...}, "run": {"source": ..., "framework": ..., "model": ..., "gpu": ..., "num_gpus": ..., ...}}

The file is written whole or not at all (a temporary file in the same folder, then renamed), never through a
symlink, never over an existing file without `force`, and never inside the run's log folder.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from .. import fmt
from ..errors import TinkerNomicsError
from ..sources.numbers import is_finite, shown
from ..model.scenario import METHODS
from . import stream
from .outputs import check_output_file, write_output_file

KIND = "tinker-nomics calibration"
VERSION = 1


@dataclass(frozen=True)
class CalibrationFile:
    rollout_efficiency: float | None
    mfu: float
    method: str
    run: dict
    source: str

    def overrides(self) -> dict:
        """Scenario fields the calibration sets."""
        out = {"mfu": self.mfu, "method": self.method}
        if self.rollout_efficiency is not None:
            out["rollout_efficiency"] = self.rollout_efficiency
        return out

    def note(self) -> str:
        r = self.run
        eff = "the default rollout efficiency (none was fitted from the run)" \
            if self.rollout_efficiency is None else f"rollout efficiency {self.rollout_efficiency:.4g}"
        said = fmt.printable
        parts = [said(r.get("model"), "model not named"), f"{_gpus(r)}{said(r.get('gpu'), 'GPU not named')}"]
        parts += [f"{said(r[k])} {what}" for k, what in (("fine_tune", "fine-tuning"), ("steps", "steps"))
                  if r.get(k) is not None]
        return (f"{eff} and MFU {self.mfu:.4g} (method {self.method}) from calibration {self.source}: fitted on "
                f"{said(r.get('framework'), 'a')} run {said(Path(str(r.get('source') or '?')).name)} "
                f"({', '.join(parts)})")


# A sanity bound, not a measurement: a fitted efficiency below a millionth of the GPUs' peak is a corrupt file or a
# failed fit, and would turn every estimate made with it into millions of GPU-hours.
MIN_EFFICIENCY = 1e-6


def _gpus(run: dict) -> str:
    return f"{run['num_gpus']:g} × " if "num_gpus" in run else "GPU count not recorded, "


def _as_written(value) -> str:
    """A value of the file as JSON writes it (null, true, "0.3"), a number as `shown` cuts it."""
    if isinstance(value, (bool, str, list, dict)) or value is None:
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 40 else text[:37] + "..."
    return shown(value)


def _share(value, name: str, label: str, required: bool) -> float | None:
    if value is None and not required:
        return None
    if not is_finite(value) \
            or not 0 < value <= 1:
        raise TinkerNomicsError(f"{label}: {name} is {_as_written(value)}; it must be a number in (0, 1]")
    if value < MIN_EFFICIENCY:
        raise TinkerNomicsError(f"{label}: {name} is {shown(value)}, implausibly small for a fitted efficiency (below "
                                f"{MIN_EFFICIENCY:g}): a bad calibration value")
    return float(value)


def check_record(record: dict, label: str) -> CalibrationFile:
    """A calibration dict checked: efficiencies in (0, 1], a known method, the run it came from."""
    if not isinstance(record, dict) or record.get("kind") != KIND:
        raise TinkerNomicsError(f"{label}: not a tinker-nomics calibration file (no \"kind\": \"{KIND}\")")
    if record.get("version") != VERSION:
        raise TinkerNomicsError(f"{label}: calibration version {_as_written(record.get('version'))}; this tinker-nomics reads "
                                f"version {VERSION}")
    method = record.get("method")
    if method not in METHODS:
        raise TinkerNomicsError(f"{label}: method is {_as_written(method)}, not one of {', '.join(METHODS)}")
    efficiency = _share(record.get("rollout_efficiency"), "rollout_efficiency", label, False)
    mfu = _share(record.get("mfu"), "mfu", label, True)
    run = record.get("run")
    if not isinstance(run, dict):
        raise TinkerNomicsError(f"{label}: no \"run\" object saying where the calibration came from")
    gpus = run.get("num_gpus", 1)
    if not is_finite(gpus) or gpus < 1:
        raise TinkerNomicsError(f"{label}: run.num_gpus is {json.dumps(gpus)[:40]}, not a GPU count (a number >= 1)")
    return CalibrationFile(efficiency, mfu, method, run, label)


def calibration_record(fitted: dict) -> dict:
    """The file's content from `HostedValidation.calibration()`; an error when a fitted value cannot serve as an
    efficiency (missing, or above 1: faster than the model allows)."""
    record = {"kind": KIND, "version": VERSION, **fitted}
    eff = fitted.get("rollout_efficiency")
    if eff is not None and not (isinstance(eff, float) and math.isfinite(eff)):
        record["rollout_efficiency"] = None
    for name in ("rollout_efficiency", "mfu"):
        value = record.get(name)
        if value is None and name == "rollout_efficiency":
            continue
        if value is None or not math.isfinite(value) or not 0 < value <= 1:
            shown = "none" if value is None or not math.isfinite(value) else f"{value:.3g}"
            raise TinkerNomicsError(f"cannot save a calibration: the fitted {name.replace('_', ' ')} is {shown}, "
                                    f"outside (0, 1] (above 1 the run was faster than the model allows at full "
                                    f"utilization; none: the log does not time that phase)")
    check_record(json.loads(json.dumps(record, default=_plain)), "the fitted calibration")
    return record


def _plain(value):
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(type(value).__name__)


def check_destination(path, log_path, force: bool = False, inputs=()) -> Path:
    """Where the file may be written (runs.outputs.check_output_file)."""
    return check_output_file(path, "calibration file", "--save-calibration", log_path, force, inputs)


def save_calibration(record: dict, path, log_path, force: bool = False, inputs=()) -> Path:
    out = check_destination(path, log_path, force, inputs)
    text = json.dumps(record, indent=2, default=_plain) + "\n"
    return write_output_file(out, "calibration file", lambda fh: fh.write(text.encode()))


def load_calibration(path) -> CalibrationFile:
    p = Path(path)
    label = str(path)
    stream.check_regular(p, label)
    try:
        record = stream.json_document(p, label)
    except Exception as exc:  # JsonLines: a file of several JSON documents is not a calibration either
        if isinstance(exc, TinkerNomicsError):
            raise
        raise TinkerNomicsError(f"{label}: not a tinker-nomics calibration file") from None
    return check_record(record, label)
