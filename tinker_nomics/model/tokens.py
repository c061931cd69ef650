"""Token streams of an RLVR run: what is sampled, trained on and prefilled.

All functions take NumPy arrays (or scalars) and broadcast. Names follow the cost model:
B prompts per step, G rollouts per prompt, S steps, L completion tokens, P prompt tokens, K substeps,
N turns, O output tokens per turn, Obs observation tokens per turn, k the off-policy bound.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..sources.defaults import number


def growth_multiplier(length_growth):
    """Average length over a run whose completions grow linearly by `length_growth` (end/start): (1 + g) / 2."""
    return (1.0 + np.asarray(length_growth, dtype=float)) / 2.0


def abort_rate(off_policy):
    """Share of rollouts discarded as too stale: 0.20 / k for k >= 2, none below (the seed's rule)."""
    k = np.asarray(off_policy, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = number("abort_rate_numerator") / k
    return np.where(k >= number("abort_min_off_policy"), rate, 0.0)


def abort_multiplier(off_policy):
    """Extra rollouts sampled to replace the aborted ones: 1 / (1 - abort_rate)."""
    return 1.0 / (1.0 - abort_rate(off_policy))


def multi_turn_prefill(turns, prompt_tokens, output_per_turn, observation_per_turn):
    """Prompt tokens a rollout sends over N turns when each turn resends the whole history:
    N·P + (O + Obs)·N·(N-1)/2 (quadratic in N)."""
    n = np.asarray(turns, dtype=float)
    return n * prompt_tokens + (np.asarray(output_per_turn) + observation_per_turn) * n * (n - 1.0) / 2.0


@dataclass(frozen=True)
class Rollout:
    """Tokens of one average rollout (after length growth and failure overhead)."""
    output: np.ndarray          # sampled tokens
    prefill: np.ndarray         # prompt tokens sent to the sampler, summed over turns
    sequence: np.ndarray        # tokens of the training datum (prompt + everything after it, shared prefix once)
    decode_context: np.ndarray  # mean context length while its tokens are generated (exact KV traffic)
    turns: np.ndarray


def rollout(completion_tokens, prompt_tokens, length_growth, turns, output_per_turn, observation_per_turn,
            failure_overhead=0.0) -> Rollout:
    """Single turn when turns <= 1: L·growth output and P prompt. Multi-turn otherwise: turns·(1 + failure
    overhead) turns of O·growth output and Obs observation each, the history resent every turn."""
    g = growth_multiplier(length_growth)
    n_raw = np.asarray(turns, dtype=float)
    multi = n_raw > 1
    n = np.where(multi, n_raw * (1.0 + np.asarray(failure_overhead, dtype=float)), 1.0)
    p = np.asarray(prompt_tokens, dtype=float)
    obs = np.asarray(observation_per_turn, dtype=float)
    out_turn = np.where(multi, np.asarray(output_per_turn, dtype=float), np.asarray(completion_tokens, dtype=float)) * g
    output = n * out_turn
    prefill = np.where(multi, multi_turn_prefill(n, p, out_turn, obs), p)
    sequence = p + output + np.where(multi, (n - 1.0) * obs, 0.0)
    # Turn t (0-based) starts from P + t·(O + Obs) of context and adds O tokens while decoding.
    decode_context = p + (n - 1.0) * (out_turn + obs) / 2.0 + out_turn / 2.0
    return Rollout(output, prefill, sequence, decode_context, n)


def longest_sequence(completion_tokens, prompt_tokens, length_growth, turns, output_per_turn, observation_per_turn,
                     failure_overhead=0.0):
    """The tokens one rollout holds by the run's end, when its completions have grown to their end length (L·g):
    the prompt and its completion, or, multi-turn, the whole conversation (every turn's output and observation)."""
    g = np.asarray(length_growth, dtype=float)
    n_raw = np.asarray(turns, dtype=float)
    multi = n_raw > 1
    n = np.where(multi, n_raw * (1.0 + np.asarray(failure_overhead, dtype=float)), 1.0)
    end = np.where(multi, np.asarray(output_per_turn, dtype=float), np.asarray(completion_tokens, dtype=float)) * g
    return np.asarray(prompt_tokens, dtype=float) + n * end + np.where(
        multi, (n - 1.0) * np.asarray(observation_per_turn, dtype=float), 0.0)


def eval_runs(steps, eval_every):
    """Evaluations in a run: the cookbook evaluates before step i when i % eval_every == 0, so ceil(S / every)."""
    s = np.asarray(steps, dtype=float)
    every = np.asarray(eval_every, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        runs = np.ceil(s / every)
    return np.where(every > 0, runs, 0.0)


@dataclass(frozen=True)
class TokenStreams:
    sample: np.ndarray            # billed sampled tokens: training rollouts + eval rollouts
    train: np.ndarray             # billed trained tokens
    prefill: np.ndarray           # billed prompt tokens: training rollouts + eval rollouts
    eval_sample: np.ndarray
    eval_prefill: np.ndarray
    rollouts: np.ndarray          # training rollouts over the run (B·G·S)
    self_hosted_sample: np.ndarray   # sampled tokens including rollouts aborted for staleness
    self_hosted_prefill: np.ndarray


def token_streams(prompts_per_step, group_size, steps, per_rollout: Rollout, substeps=1, off_policy=0,
                  train_on="sequence", eval_every=0, eval_prompts=0, abort_prefill=True) -> TokenStreams:
    """Sum a run's tokens. `train_on` = "completion" (the seed: train = sampled tokens × K) or "sequence"
    (what Tinker bills: prompt + completion of every training datum × K). Aborted stale rollouts are
    sampled again on your own GPUs (their prompts prefilled again unless `abort_prefill` is False, the
    seed's simplification); Tinker's bill does not depend on k."""
    rollouts = np.asarray(prompts_per_step, dtype=float) * group_size * steps
    evals = eval_runs(steps, eval_every) * np.asarray(eval_prompts, dtype=float)
    eval_sample = evals * per_rollout.output
    eval_prefill = evals * per_rollout.prefill
    sample = rollouts * per_rollout.output
    prefill = rollouts * per_rollout.prefill
    datum = per_rollout.output if train_on == "completion" else per_rollout.sequence
    train = rollouts * datum * substeps
    extra = abort_multiplier(off_policy)
    billed_sample, billed_prefill = sample + eval_sample, prefill + eval_prefill
    return TokenStreams(billed_sample, train, billed_prefill, eval_sample, eval_prefill, rollouts,
                        _with_aborts(billed_sample, sample, extra, eval_sample),
                        _with_aborts(billed_prefill, prefill, extra if abort_prefill else 1.0, eval_prefill))


def _with_aborts(billed, tokens, extra, evals):
    """tokens × extra + evals: what your GPUs process, aborted rollouts redone; with none to redo (the scalar 1,
    k < 2) that is the billed stream itself, the same array rather than a copy."""
    return billed if np.ndim(extra) == 0 and extra == 1.0 else tokens * extra + evals


def prefill_after_cache(prefill_tokens, cache_hit_rate):
    """Prompt tokens a prefix cache does not serve, which your GPUs still process: prefill · (1 − hit rate)."""
    return np.asarray(prefill_tokens, dtype=float) * (1.0 - np.asarray(cache_hit_rate, dtype=float))
