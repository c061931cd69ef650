"""One RL step on your own GPUs from what a run measured: samples, prompt and response length per sample.

`rl_steps` maps measured per-step inputs onto the self-hosted model (selfhosted.self_hosted_cost) with the same
conventions `estimate()` uses for a single-turn scenario with no evals and no stale rollouts, so a finished run's
steps are re-predicted by exactly the arithmetic a plan would have used:

  seed  — the KV cache and decode context are the completion only; training counts the completion tokens;
          decode is bandwidth-only (the seed's site);
  exact — decode context = prompt + half the completion, the KV cache holds prompt + completion; training counts
          prompt + completion (every trained token); decode may be compute-bound above the critical batch;
  calibrated — the phase model (selfhosted.calibrated_self_hosted_cost, model/rl_phases.py: generation at the
          batch that fits with the drain of the longest responses, log-prob passes, the update, the refit and a
          fixed overhead, at the fitted parameters); `rollout_efficiency` and `mfu`, when given, replace the fitted
          decode bandwidth efficiency and the whole update.

Every argument may be an array (one value per logged step); results broadcast. Nothing here prices Tinker, so a
model without a Tinker price can still be re-predicted.
"""
from __future__ import annotations

import numpy as np

from ..errors import TinkerNomicsError
from ..sources.architectures import ModelArch
from ..sources.calibration import parameters
from ..sources.defaults import number
from ..sources.hardware import GPU, gpu_specs
from . import tokens
from .scenario import METHODS
from .selfhosted import SelfHosted, calibrated_self_hosted_cost, self_hosted_cost

def rl_steps(*, arch: ModelArch, gpu: GPU, num_gpus, samples, prompt_tokens, response_tokens, method: str,
             fine_tune: str, rollout_efficiency=None, mfu=None, prefill_mfu=None, off_policy=0.0,
             gpu_hourly_usd=0.0, run_facts: dict | None = None) -> SelfHosted:
    """The self-hosted model's rollout, training and step hours for steps of `samples` sequences with
    `prompt_tokens` and `response_tokens` each on average (per-sequence means, not totals). Efficiencies default
    to the package's defaults (data/assumptions/defaults.csv), for the calibrated method to its fitted values.
    `run_facts` (calibrated) carries what the run's log says of its set-up: `critic`, `reference`,
    `optimizer_steps`, `response_max_tokens`, `rollout_tensor_parallel`, `rollout_memory_fraction`, the trainer's
    micro-batches, the update's epochs (`update_epochs`) and, where it pads sequences, `padded_tokens_per_sample`
    (`critic_...` for the critic)."""
    if method not in METHODS:
        raise TinkerNomicsError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "calibrated":
        per = tokens.rollout(response_tokens, prompt_tokens, length_growth=1.0, turns=1.0, output_per_turn=0.0,
                             observation_per_turn=0.0)
        n = np.asarray(samples, dtype=float)
        return calibrated_self_hosted_cost(
            arch=arch, gpus=gpu_specs(gpu), params=parameters(), steps=1.0, samples_per_step=n,
            output_per_rollout=per.output, prefill_per_rollout=per.prefill, sequence=per.sequence,
            train_tokens=n * per.sequence, concurrency=n, cache_hit_rate=0.0, off_policy=off_policy,
            num_gpus=num_gpus, gpu_hourly_usd=gpu_hourly_usd, rollout_efficiency=rollout_efficiency, mfu=mfu,
            fine_tune=fine_tune, sandbox_usd=0.0, **(run_facts or {}))
    seed = method == "seed"
    eff = number("rollout_efficiency") if rollout_efficiency is None else rollout_efficiency
    util = number("mfu") if mfu is None else mfu
    pre = number("prefill_mfu") if prefill_mfu is None else prefill_mfu
    per = tokens.rollout(response_tokens, prompt_tokens, length_growth=1.0, turns=1.0, output_per_turn=0.0,
                         observation_per_turn=0.0)
    n = np.asarray(samples, dtype=float)
    trained_per_sample = per.output if seed else per.sequence
    return self_hosted_cost(
        arch=arch, gpu=gpu, method="seed" if seed else "exact", compute_bound=not seed,
        sample_tokens=n * per.output, prefill_tokens=n * per.prefill, train_tokens=n * trained_per_sample,
        concurrency=n, decode_context=per.output if seed else per.decode_context,
        kv_context=per.output if seed else per.sequence, cache_hit_rate=0.0, off_policy=off_policy,
        num_gpus=num_gpus, gpu_hourly_usd=gpu_hourly_usd, rollout_efficiency=eff, mfu=util, prefill_mfu=pre,
        fine_tune=fine_tune, sandbox_usd=0.0)
