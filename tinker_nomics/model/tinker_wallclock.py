"""How long a run takes on Tinker: a two-term step time fitted to the Tinker runs whose step times were logged.

Tinker publishes no throughput, so the step time is a measured one. One step's seconds are modelled as

    step seconds = a × completion tokens per rollout  +  b × tokens sampled per step

a: the pool decodes one sequence at a time per token (the longest rollouts set the pace of a small batch);
b: the pool's throughput given to one job (a large batch waits for its share). Both were fitted by least squares
on relative error to the logged runs (analysis/tinker_wallclock.py; tools/fit_tinker_wallclock.py writes
data/services/tinker_wallclock.csv, read by sources/tinker_wallclock.py). The spread of the leave-one-run-out
errors, as a log-normal standard deviation, is the Monte-Carlo's Tinker time error: the scenario's
`tinker_time_factor` (1 at the point estimate) multiplies the fitted step seconds.

Sandbox time is added per step as on rented GPUs (each step waits about one rollout's sandbox). Queueing at busy
times, rate limits and model size are not terms: the fit knows them only as far as the logged runs show them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..sources.tinker_wallclock import StepTimeFit, committed_fit


@dataclass(frozen=True)
class TinkerTime:
    """A run's wall-clock on Tinker, broadcast like the estimate."""
    step_seconds: np.ndarray          # one step's fitted seconds × the time factor, without the sandbox wait
    sandbox_wait_hours: np.ndarray    # steps × one rollout's sandbox seconds
    wallclock_hours: np.ndarray       # steps × step seconds + the sandbox wait

    def not_computed(self) -> "TinkerTime":
        """The same shape, every figure NaN: Tinker does not offer the run."""
        return TinkerTime(self.step_seconds * np.nan, self.sandbox_wait_hours * np.nan, self.wallclock_hours * np.nan)


def step_seconds(completion_tokens_per_rollout, sampled_tokens_per_step, fit: StepTimeFit | None = None):
    """The fitted seconds of one step (the committed fit unless `fit` is given)."""
    fit = committed_fit() if fit is None else fit
    return (fit.seconds_per_sequence_token * np.asarray(completion_tokens_per_rollout, dtype=float)
            + fit.seconds_per_batch_token * np.asarray(sampled_tokens_per_step, dtype=float))


def run_time(steps, completion_tokens_per_rollout, sampled_tokens, sandbox_seconds_per_rollout,
             time_factor=1.0) -> TinkerTime:
    """A run of `steps` steps that samples `sampled_tokens` in all (training and evaluation), `time_factor` times
    the fitted step time (the Monte-Carlo's draw around 1), plus each step's sandbox wait."""
    steps = np.asarray(steps, dtype=float)
    seconds = step_seconds(completion_tokens_per_rollout, np.asarray(sampled_tokens, dtype=float) / steps) \
        * np.asarray(time_factor, dtype=float)
    sandbox = steps * np.asarray(sandbox_seconds_per_rollout, dtype=float) / 3600.0
    return TinkerTime(seconds, sandbox, steps * seconds / 3600.0 + sandbox)
