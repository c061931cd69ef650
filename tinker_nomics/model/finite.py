"""Every number an Estimate reports is finite, or the input that made it overflow is refused.

Inputs are checked one by one against their bounds (scenario.BOUNDS), but finite inputs can still multiply
past the largest float: `steps=1e308` gives infinite token counts, and infinity minus infinity gives NaN
dollars. `finite_only` wraps `estimate()`: NumPy's overflow warnings are silenced while it runs (the result
is checked instead), and a result with any non-finite number raises one line that names the input most
likely responsible: the one furthest from 1 in orders of magnitude (a huge count, or a utilization so small
that a time divides by it).
"""
from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from ..errors import TinkerNomicsError

# An input this many orders of magnitude from 1 is named as the cause of an overflow (1e15 tokens, steps,
# GPUs or dollars is beyond any RL run; a utilization of 1e-15 is zero in all but name).
EXTREME_DECADES = 15.0


def finite_only(estimate_fn):
    """Decorate `estimate(scenario)` so that it returns only finite results (see the module docstring)."""
    @functools.wraps(estimate_fn)
    def checked(scenario, *args, **kwargs):
        with np.errstate(over="ignore", invalid="ignore"):
            result = estimate_fn(scenario, *args, **kwargs)
        check_finite(result)
        return result
    return checked


def numbers(est) -> dict[str, np.ndarray]:
    """Every computed number of an Estimate by name (token streams, per-rollout sizes, Tinker's bill and wall-clock,
    the self-hosted side and the LoRA sizes when it has an architecture)."""
    out: dict[str, np.ndarray] = {}
    parts = {"tokens": est.tokens, "per_rollout": est.per_rollout, "tinker": est.tinker}
    if est.self_hosted is not None:
        parts["self_hosted"] = est.self_hosted
        out["lora.parameters"], out["lora.checkpoint_gb"] = est.lora_parameters, est.checkpoint_gb
    for prefix, part in parts.items():
        for f in dataclasses.fields(part):
            out[f"{prefix}.{f.name}"] = getattr(part, f.name)
        if hasattr(part, "total_usd"):
            out[f"{prefix}.total_usd"] = part.total_usd
    if est.tinker_time is not None:      # Tinker's side, named as the JSON names it
        for f in dataclasses.fields(est.tinker_time):
            out[f"tinker.{f.name}"] = getattr(est.tinker_time, f.name)
    return out


# The self-hosted dollars of a GPU without a sourced $/GPU-hour (scenario.unpriced_rate): not computed, so NaN,
# which the JSON shows as null beside the note saying why; every other number must still be finite.
UNPRICED_DOLLARS = ("self_hosted.gpu_hourly_usd", "self_hosted.compute_usd", "self_hosted.total_usd")
# Tinker's dollars and hours of a run Tinker does not offer (Estimate.tinker_not_offered: its list prices neither the
# model nor a successor): not computed, NaN, null in JSON beside the note; the token streams and the self-hosted side
# stay finite.
NOT_OFFERED_DOLLARS = ("tinker.sample_usd", "tinker.train_usd", "tinker.prefill_usd", "tinker.sandbox_usd",
                       "tinker.storage_usd", "tinker.total_usd")
NOT_OFFERED_HOURS = ("tinker.step_seconds", "tinker.sandbox_wait_hours", "tinker.wallclock_hours")


def check_finite(est) -> None:
    from .scenario import unpriced_rate
    allowed = set(UNPRICED_DOLLARS if unpriced_rate(est.scenario.gpu_hourly_usd, est.scenario.gpu_hourly_usd_source)
                  else ())
    if est.tinker_not_offered is not None:
        allowed.update(NOT_OFFERED_DOLLARS + NOT_OFFERED_HOURS)
    bad, first = None, None
    for name, value in numbers(est).items():
        if name in allowed:
            continue
        array = np.asarray(value)
        if array.dtype.kind not in "fc":
            continue
        if np.isfinite(array).all():   # the usual case, in one pass
            continue
        broken = ~np.isfinite(array)
        if np.any(broken):
            first = first or name
            bad = broken if bad is None else np.logical_or(*np.broadcast_arrays(bad, broken))
    if bad is None:
        return
    index = tuple(int(i[0]) for i in np.nonzero(bad)) if bad.ndim else ()
    field, value = culprit(est.scenario, index)
    many = f" ({int(bad.sum())} of {bad.size} scenarios)" if bad.ndim else ""
    if field is None:
        raise TinkerNomicsError(f"the estimate's {first} is not a finite number for these inputs{many}: no input is "
                                f"out of range, so this is a defect of the model; please report it with the inputs")
    size = "too large" if abs(value) > 1 else "too small"
    raise TinkerNomicsError(f"{field} is {size} ({value:g}){many}: the estimate overflows and its results would "
                            f"not be finite numbers")


def culprit(scenario, index: tuple) -> tuple[str | None, float]:
    """The numeric input furthest from 1 in orders of magnitude at `index`, if it is extreme enough to blame."""
    best, best_value, best_decades = None, math.nan, EXTREME_DECADES
    for f in dataclasses.fields(scenario):
        value = getattr(scenario, f.name)
        if value is None or isinstance(value, (str, bool, np.bool_)):
            continue
        array = np.asarray(value)
        if array.dtype.kind not in "iuf":
            continue
        if array.ndim:   # the element that broadcasts to `index` (a length-1 axis repeats its only element)
            at = index[len(index) - array.ndim:] if index else (0,) * array.ndim
            x = float(array[tuple(i if n > 1 else 0 for i, n in zip(at, array.shape))])
        else:
            x = float(array)
        if x == 0 or not math.isfinite(x):
            continue
        decades = abs(math.log10(abs(x)))
        if decades > best_decades:
            best, best_value, best_decades = f.name, x, decades
    return best, best_value
