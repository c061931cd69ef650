"""The RL rollout's host-side cost per sequence per decode step (ModelParameters.rollout_sequence_overhead_seconds).

The serving benchmarks in data/measurements/decode_cases.csv fit a decode step's per-sequence cost; the RL frameworks'
rollouts (verl's timing_s/gen in the real logs of ../shared/realdata/verl_runs, NeMo RL's generation) run slower per
sequence than that, so the phase model adds a second, fitted cost per sequence per decode step to generation only.
These tests pin where it enters: generation grows by exactly decode steps × batch × the cost, nothing else moves,
the serving prediction does not see it, and the seed and exact methods carry none of it (their parameters are
zero there, which keeps the seed figures).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from tinker_nomics.analysis import calibration
from tinker_nomics.model import decode, rl_phases, selfhosted
from tinker_nomics.sources import get_arch, gpu_specs
from tinker_nomics.sources.calibration import parameters


def _phases(cost):
    f = rl_phases.rl_features(get_arch("Qwen/Qwen2.5-7B"), gpu_specs("H100 SXM"), 8.0, 2048.0, 100.0, 400.0,
                              response_max_tokens=1024.0)
    return f, rl_phases.phase_seconds(f, dataclasses.replace(parameters(), rollout_sequence_overhead_seconds=cost))


def test_generation_pays_the_cost_for_every_sequence_of_every_decode_step():
    f, without = _phases(0.0)
    cost = 5e-5
    _, with_cost = _phases(cost)
    per_replica_sequence_steps = float(f.decode_steps * f.decode.batch)
    assert per_replica_sequence_steps > 1000          # a real rollout batch: the cost is not negligible here
    np.testing.assert_allclose(with_cost.generation_seconds - without.generation_seconds,
                               cost * per_replica_sequence_steps, rtol=1e-12)
    for name in ("logprob_seconds", "training_seconds", "refit_seconds", "other_seconds"):
        np.testing.assert_array_equal(getattr(with_cost, name), getattr(without, name))


def test_the_fit_finds_a_cost_inside_its_range():
    # fitted on the RL timings (rl_phase_cases.csv, rl_step_cases.csv): above zero, below its search bound
    low, high, _ = calibration.RANGES["rollout_sequence_overhead_seconds"]
    assert low < parameters().rollout_sequence_overhead_seconds < high
    assert not calibration.on_bound("rollout_sequence_overhead_seconds",
                                    parameters().rollout_sequence_overhead_seconds)


def test_a_serving_prediction_does_not_see_it():
    case = next(c for c in calibration.decode_cases() if not c.screened)
    p = parameters()
    np.testing.assert_array_equal(
        decode.serving_throughput(case.plan, p)[0],
        decode.serving_throughput(case.plan, dataclasses.replace(p, rollout_sequence_overhead_seconds=1e-3))[0])


def test_the_seed_and_exact_methods_carry_none():
    assert selfhosted.method_parameters(0.7, compute_bound=False).rollout_sequence_overhead_seconds == 0.0
    assert selfhosted.method_parameters(0.7, compute_bound=True).rollout_sequence_overhead_seconds == 0.0
