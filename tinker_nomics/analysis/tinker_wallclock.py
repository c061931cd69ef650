"""Fitting Tinker's step time to the Tinker runs whose step times were logged (the model it fits, and the committed
fit's reader, are model/tinker_wallclock.py and sources/tinker_wallclock.py).

Six runs in data/ logged their wall-clock: the four public OmniMath runs (data/runs/omnimath, tinker-cookbook's
`time/total` per step) and the seed's experiments 1a and 1b (data/experiments/seed_experiments.csv). The two terms of

    step seconds = a × completion tokens per rollout  +  b × tokens sampled per step

are fitted by least squares on relative error (tools/fit_tinker_wallclock.py writes data/services/tinker_wallclock.csv
and the per-run inputs data/services/tinker_step_times.csv; a test checks the committed tables are what the fit
gives). The spread of the leave-one-run-out errors, as a log-normal standard deviation, is the Monte-Carlo's Tinker
time error.
"""
from __future__ import annotations

import math
import numpy as np

from ..errors import TinkerNomicsError
from ..model.tinker_wallclock import step_seconds
from ..sources.literature import experiment
from ..sources.tinker_wallclock import FIT, STEP_TIMES, LoggedRun, StepTimeFit

__all__ = ["FIT", "STEP_TIMES", "fit", "measured_runs"]


def measured_runs() -> list[LoggedRun]:
    """The six measured runs, computed from the logs and the seed's recorded figures in data/."""
    from ..runs.read import read_run            # the log readers load only when refitting
    from ..sources.bundled_runs import bundled_runs

    out = []
    for name, bundled in sorted(bundled_runs().items()):
        steps = read_run(bundled.path).steps
        timed = steps[steps["has_train"] & steps["step_seconds"].notna()]
        if timed.empty:
            continue
        completion = float(timed["train_completion_tokens"].sum())
        sampled = completion + float(timed["eval_completion_tokens"].sum())
        out.append(LoggedRun(name, bundled.model, int(len(timed)), float(timed["step_seconds"].mean()),
                             completion / float(timed["episodes"].sum()), sampled / len(timed),
                             f"{bundled.table} {bundled.path.name}: time/total, env/all/total_ac_tokens, "
                             f"env/all/total_episodes and test/ completions of the timed training steps"))
    for name, tokens in (("exp1a", ("train_completion_tokens", "eval_completion_tokens")), ("exp1b", ("sample_tokens",))):
        steps = experiment(name, "steps")
        minutes = experiment(name, "tinker_wallclock_min")
        out.append(LoggedRun(f"seed {name}", "Qwen/Qwen3-4B-Instruct-2507", int(steps), minutes * 60.0 / steps,
                             experiment(name, "avg_completion_tokens"),
                             sum(experiment(name, t) for t in tokens) / steps,
                             f"experiments/seed_experiments.csv {name}: tinker_wallclock_min / steps, "
                             f"avg_completion_tokens, {' + '.join(tokens)}"))
    return out


def _least_squares(runs: list[LoggedRun]) -> tuple[float, float]:
    """a, b >= 0 minimising the sum of squared relative errors (rows scaled by the measured time)."""
    t = np.array([r.step_seconds for r in runs])
    x = np.array([[r.completion_tokens_per_rollout, r.sampled_tokens_per_step] for r in runs]) / t[:, None]
    coef, *_ = np.linalg.lstsq(x, np.ones_like(t), rcond=None)
    if np.all(coef >= 0):
        return float(coef[0]), float(coef[1])
    # one term alone (the non-negative least-squares answer when the joint fit turns one negative)
    best = None
    for j in (0, 1):
        c = float(np.sum(x[:, j]) / np.sum(x[:, j] ** 2))
        err = float(np.sum((x[:, j] * c - 1.0) ** 2))
        if best is None or err < best[0]:
            best = (err, (c, 0.0) if j == 0 else (0.0, c))
    return best[1]


def fit(runs: list[LoggedRun]) -> StepTimeFit:
    """The two terms on all `runs`, and each run's error when it is predicted by a fit on the others."""
    if len(runs) < 3:
        raise TinkerNomicsError("the Tinker step-time fit needs at least three measured runs")
    a, b = _least_squares(runs)
    errors = []
    for i, held in enumerate(runs):
        others = StepTimeFit(*_least_squares(runs[:i] + runs[i + 1:]), log_sd=0.0, runs=())
        predicted = float(step_seconds(held.completion_tokens_per_rollout, held.sampled_tokens_per_step, others))
        errors.append(math.log(predicted / held.step_seconds))
    log_sd = float(np.sqrt(np.mean(np.square(errors))))
    return StepTimeFit(a, b, log_sd, tuple(r.run for r in runs), tuple(errors))

