"""Tinker's step-time fit as committed: data/services/tinker_wallclock.csv (the two fitted terms and the
leave-one-run-out spread) and data/services/tinker_step_times.csv (the logged Tinker runs it was fitted to).

tools/fit_tinker_wallclock.py writes both tables from analysis/tinker_wallclock.py's least squares; this module only
reads them, checked. The arithmetic of a step (the fitted terms times a run's tokens) is model/tinker_wallclock.py.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..errors import TinkerNomicsError
from .tables import Column, load_table

STEP_TIMES = "services/tinker_step_times.csv"
FIT = "services/tinker_wallclock.csv"
PARAMETERS = ("seconds_per_sequence_token", "seconds_per_batch_token", "log_sd")


@dataclass(frozen=True)
class StepTimeFit:
    """step seconds = a × completion tokens per rollout + b × tokens sampled per step, and how far off it is."""
    seconds_per_sequence_token: float     # a
    seconds_per_batch_token: float        # b
    log_sd: float                         # leave-one-run-out spread of log(predicted / measured)
    runs: tuple[str, ...]                 # the runs it was fitted to
    loo_log_errors: tuple[float, ...] = ()   # each run's leave-one-run-out log error (a fresh fit only)

    @property
    def sequence_tokens_per_second(self) -> float:
        """How fast one rollout's tokens come: 1 / a."""
        return 1.0 / self.seconds_per_sequence_token

    @property
    def batch_tokens_per_second(self) -> float:
        """The pool's throughput for one job: 1 / b."""
        return 1.0 / self.seconds_per_batch_token

    @property
    def spread_factor(self) -> float:
        """One standard deviation of the step-time error as a factor: exp(log_sd)."""
        return math.exp(self.log_sd)


@dataclass(frozen=True)
class LoggedRun:
    """One Tinker run the fit was made on (a row of data/services/tinker_step_times.csv)."""
    run: str
    model: str
    steps: int
    step_seconds: float
    completion_tokens_per_rollout: float
    sampled_tokens_per_step: float
    source: str


@functools.lru_cache(maxsize=None)
def committed_fit() -> StepTimeFit:
    """The fit tools/fit_tinker_wallclock.py wrote to data/services/tinker_wallclock.csv."""
    rows = load_table(FIT, [Column("parameter"), Column("value", "float"), Column("unit"), Column("runs"),
                            Column("source"), Column("inputs"), Column("fitted")])
    values = {r["parameter"]: r["value"] for r in rows}
    missing = [p for p in PARAMETERS if p not in values]
    if missing:
        raise TinkerNomicsError(f"{FIT}: missing parameter(s) {', '.join(missing)}")
    negative = [p for p in PARAMETERS if not values[p] >= 0]
    if negative:
        raise TinkerNomicsError(f"{FIT}: {', '.join(negative)} must be a number >= 0")
    return StepTimeFit(values["seconds_per_sequence_token"], values["seconds_per_batch_token"], values["log_sd"],
                       tuple(rows[0]["runs"].split("; ")))


@functools.lru_cache(maxsize=None)
def logged_runs() -> tuple[LoggedRun, ...]:
    """The runs the committed fit was made on, with their measured step times and token counts."""
    rows = load_table(STEP_TIMES, [Column("run"), Column("model"), Column("steps", "int"),
                                   Column("step_seconds", "float"), Column("completion_tokens_per_rollout", "float"),
                                   Column("sampled_tokens_per_step", "float"), Column("source")])
    return tuple(LoggedRun(r["run"], r["model"], r["steps"], r["step_seconds"], r["completion_tokens_per_rollout"],
                           r["sampled_tokens_per_step"], r["source"]) for r in rows)


def measured_models() -> list[str]:
    """The models of the runs the committed fit was made on, short names (gpt-oss-20b, Qwen3-30B-A3B, ...)."""
    return sorted({r.model.split("/")[-1] for r in logged_runs()})
