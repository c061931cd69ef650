"""How long a run takes on Tinker: a two-term step time fitted to Tinker runs whose step times were logged.

Tinker publishes no throughput, so the planner needs a measured one. Six runs in data/ logged their wall-clock:
the four public OmniMath runs (data/runs/omnimath, tinker-cookbook's `time/total` per step) and the seed's
experiments 1a and 1b (data/experiments/seed_experiments.csv). One step's seconds are modelled as

    step seconds = a × completion tokens per rollout  +  b × tokens sampled per step

a: the pool decodes one sequence at a time per token (the longest rollouts set the pace of a small batch);
b: the pool's throughput given to one job (a large batch waits for its share). Both are fitted by least squares
on relative error (tools/fit_tinker_wallclock.py writes data/services/tinker_wallclock.csv and the per-run inputs
data/services/tinker_step_times.csv; a test checks the committed tables are what the fit gives). The spread of
the leave-one-run-out errors, as a log-normal standard deviation, is the Monte-Carlo's Tinker time error.

Sandbox time is added per step as on rented GPUs (each step waits about one rollout's sandbox). Queueing, rate
limits and model size are not modelled beyond what the six runs show; the chapter says so.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..errors import TinkerNomicsError
from ..sources.literature import experiment
from ..sources.tables import Column, load_table

STEP_TIMES = "services/tinker_step_times.csv"
FIT = "services/tinker_wallclock.csv"
PARAMETERS = ("seconds_per_sequence_token", "seconds_per_batch_token", "log_sd")


@dataclass(frozen=True)
class TinkerRun:
    """One Tinker run's logged step time and the two token counts the model uses."""
    run: str
    model: str
    steps: int                        # training steps with a logged step time
    step_seconds: float               # mean over those steps
    completion_tokens_per_rollout: float
    sampled_tokens_per_step: float    # training and evaluation completions, per step
    source: str


def measured_runs() -> list[TinkerRun]:
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
        out.append(TinkerRun(name, bundled.model, int(len(timed)), float(timed["step_seconds"].mean()),
                             completion / float(timed["episodes"].sum()), sampled / len(timed),
                             f"{bundled.table} {bundled.path.name}: time/total, env/all/total_ac_tokens, "
                             f"env/all/total_episodes and test/ completions of the timed training steps"))
    for name, tokens in (("exp1a", ("train_completion_tokens", "eval_completion_tokens")), ("exp1b", ("sample_tokens",))):
        steps = experiment(name, "steps")
        minutes = experiment(name, "tinker_wallclock_min")
        out.append(TinkerRun(f"seed {name}", "Qwen/Qwen3-4B-Instruct-2507", int(steps), minutes * 60.0 / steps,
                             experiment(name, "avg_completion_tokens"),
                             sum(experiment(name, t) for t in tokens) / steps,
                             f"experiments/seed_experiments.csv {name}: tinker_wallclock_min / steps, "
                             f"avg_completion_tokens, {' + '.join(tokens)}"))
    return out


@dataclass(frozen=True)
class Fit:
    seconds_per_sequence_token: float
    seconds_per_batch_token: float
    log_sd: float                     # leave-one-run-out spread of log(predicted / measured)
    loo_log_errors: tuple[float, ...]
    runs: tuple[str, ...]

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

    def step_seconds(self, completion_tokens_per_rollout, sampled_tokens_per_step):
        return (self.seconds_per_sequence_token * np.asarray(completion_tokens_per_rollout, dtype=float)
                + self.seconds_per_batch_token * np.asarray(sampled_tokens_per_step, dtype=float))


def _least_squares(runs: list[TinkerRun]) -> tuple[float, float]:
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


def fit(runs: list[TinkerRun]) -> Fit:
    if len(runs) < 3:
        raise TinkerNomicsError("the Tinker step-time fit needs at least three measured runs")
    a, b = _least_squares(runs)
    errors = []
    for i, held in enumerate(runs):
        ai, bi = _least_squares(runs[:i] + runs[i + 1:])
        predicted = ai * held.completion_tokens_per_rollout + bi * held.sampled_tokens_per_step
        errors.append(math.log(predicted / held.step_seconds))
    log_sd = float(np.sqrt(np.mean(np.square(errors))))
    return Fit(a, b, log_sd, tuple(errors), tuple(r.run for r in runs))


# ----------------------------------------------------------------------------------------------- the committed fit


@functools.lru_cache(maxsize=None)
def committed_fit() -> Fit:
    """The fit tools/fit_tinker_wallclock.py wrote to data/services/tinker_wallclock.csv."""
    rows = load_table(FIT, [Column("parameter"), Column("value", "float"), Column("unit"), Column("runs"),
                            Column("source"), Column("inputs"), Column("fitted")])
    values = {r["parameter"]: r["value"] for r in rows}
    missing = [p for p in PARAMETERS if p not in values]
    if missing:
        raise TinkerNomicsError(f"{FIT}: missing parameter(s) {', '.join(missing)}")
    if any(values[p] < 0 for p in PARAMETERS):
        raise TinkerNomicsError(f"{FIT}: a parameter is negative")
    return Fit(values["seconds_per_sequence_token"], values["seconds_per_batch_token"], values["log_sd"], (),
               tuple(rows[0]["runs"].split("; ")))


def measured_models() -> list[str]:
    """The models of the runs the committed fit was made on (data/services/tinker_step_times.csv)."""
    rows = load_table(STEP_TIMES, [Column("run"), Column("model"), Column("source")])
    return sorted({r["model"].split("/")[-1] for r in rows})


def tinker_hours(est, error_factor=1.0):
    """Wall-clock hours of an estimated run on Tinker: steps × fitted step seconds × `error_factor` (the
    Monte-Carlo's draw around 1), plus each step's sandbox wait. Broadcasts like the estimate."""
    s = est.scenario
    steps = np.asarray(s.steps, dtype=float)
    per_step = np.asarray(est.tokens.sample, dtype=float) / steps
    seconds = committed_fit().step_seconds(est.per_rollout.output, per_step) * np.asarray(error_factor, dtype=float)
    sandbox = np.asarray(s.sandbox_seconds_per_rollout, dtype=float)
    return steps * (seconds + sandbox) / 3600.0


def clear_caches() -> None:
    committed_fit.cache_clear()
