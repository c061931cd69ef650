"""Running the same RL job on rented GPUs: rollout and training hours, overlap, GPU-hours and dollars."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..sources.calibration import Efficiencies
from ..sources.defaults import number
from ..sources.hardware import GPU
from ..sources.model_record import ModelArch
from . import calibrated, memory, roofline, training


@dataclass(frozen=True)
class SelfHosted:
    num_gpus: np.ndarray               # GPUs used: the requested count, raised to min_gpus
    min_gpus: np.ndarray
    replica_gpus: np.ndarray           # GPUs one rollout-engine copy of the weights spans
    decode_tokens_per_second: np.ndarray
    train_tokens_per_second: np.ndarray
    decode_hours: np.ndarray
    prefill_hours: np.ndarray
    sandbox_wait_hours: np.ndarray     # GPUs idle while each step's rollouts wait on their sandboxes
    rollout_hours: np.ndarray
    train_hours: np.ndarray
    wallclock_hours: np.ndarray
    gpu_hours: np.ndarray
    gpu_hourly_usd: np.ndarray
    compute_usd: np.ndarray
    sandbox_usd: np.ndarray
    kv_cache_gb: np.ndarray
    kv_cache_fits: np.ndarray
    concurrent_sequences: np.ndarray   # sequences decoded at once (limited by KV memory in the exact method)
    rollout_concurrency: np.ndarray    # sequences the rollout decodes at once (what fits; the seed: the whole batch)
    rollout_waves: np.ndarray          # rounds a step's rollout takes at that concurrency
    feasible: np.ndarray               # the requested GPUs hold the model (and, calibrated, one sequence's cache)
    fitting_gpus: np.ndarray           # the smallest GPU count that holds them (the count used when larger)

    @property
    def total_usd(self):
        return self.compute_usd + self.sandbox_usd


def self_hosted_cost(*, arch: ModelArch, gpu: GPU, method: str, compute_bound: bool, sample_tokens, prefill_tokens,
                     train_tokens, concurrency, decode_context, kv_context, cache_hit_rate, off_policy, num_gpus,
                     gpu_hourly_usd, rollout_efficiency, mfu, prefill_mfu, fine_tune, sandbox_usd,
                     sandbox_wait_hours=0.0, multi_turn=False) -> SelfHosted:
    total, active = arch.params(method)
    need = memory.min_gpus(total, gpu, fine_tune)
    gpus_used = np.maximum(np.asarray(num_gpus, dtype=float), need)
    peak = gpu.peak_flops(method)
    kv_token = memory.kv_bytes_per_token(arch, method)
    state = memory.recurrent_bytes_per_sequence(arch, method)
    forward = number("forward_flops_per_param")

    # One rollout-engine copy spans `replica` GPUs (1 whenever the model fits on one GPU, the seed's case).
    replica = np.minimum(memory.replica_gpus(total, gpu), gpus_used)
    if method == "seed":
        attention = 0.0
        in_flight = np.asarray(concurrency, dtype=float)
    else:
        attention = roofline.attention_flops_per_token(arch, decode_context)
        fit = memory.max_concurrent_sequences(total, gpu, gpus_used, kv_token, kv_context, state)
        in_flight = np.clip(np.asarray(concurrency, dtype=float), 1.0, np.maximum(fit, 1.0))

    decode_tps = roofline.decode_tokens_per_second(
        concurrency=in_flight, num_gpus=gpus_used, replica_gpus=replica,
        weight_bytes_per_step=lambda batch: roofline.weight_bytes_read(arch, batch, method),
        kv_bytes_per_token=kv_token, context=decode_context, state_bytes_per_sequence=state,
        bandwidth_bytes_per_s=gpu.bandwidth_bytes_per_s, peak_flops=peak,
        flops_per_token=forward * active + attention, efficiency=rollout_efficiency, compute_bound=compute_bound)
    decode_hours = np.asarray(sample_tokens, dtype=float) / decode_tps / 3600.0
    # Prompt processing is compute-bound; prefix-cache hits skip it.
    prefill_flops = np.asarray(prefill_tokens, dtype=float) * (1.0 - np.asarray(cache_hit_rate)) * forward * active
    if method == "seed":  # the seed counts prompt processing only in its agentic multi-turn mode
        prefill_flops = np.where(np.asarray(multi_turn), prefill_flops, 0.0)
    prefill_hours = training.compute_hours(prefill_flops, gpus_used, peak, prefill_mfu)
    # A step's rollouts run their sandboxes in parallel, so each step waits about one rollout's sandbox time.
    sandbox_wait = np.asarray(sandbox_wait_hours, dtype=float)
    rollout_hours = decode_hours + prefill_hours + sandbox_wait

    train_flops_per_token = training.flops_per_param_per_token(fine_tune) * active \
        + (0.0 if method == "seed" else 3.0 * attention)
    train_tps = training.train_tokens_per_second(gpus_used, peak, mfu, train_flops_per_token)
    train_hours = np.asarray(train_tokens, dtype=float) / train_tps / 3600.0

    wallclock = training.wallclock_hours(rollout_hours, train_hours, off_policy)
    gpu_hours = wallclock * gpus_used
    kv_bytes = memory.kv_cache_bytes(kv_token, concurrency, kv_context, state)
    fits = kv_bytes <= memory.kv_memory_available(total, gpu, gpus_used)
    hourly = np.asarray(gpu_hourly_usd, dtype=float)
    waves = np.ceil(np.asarray(concurrency, dtype=float) / np.maximum(in_flight, 1.0) - 1e-9)
    shape = np.shape(wallclock)
    return SelfHosted(gpus_used, np.broadcast_to(need, np.shape(gpus_used)), replica, decode_tps, train_tps,
                      decode_hours, prefill_hours, np.broadcast_to(sandbox_wait, np.shape(decode_hours)),
                      rollout_hours, train_hours, wallclock, gpu_hours, hourly,
                      gpu_hours * hourly, np.asarray(sandbox_usd, dtype=float), kv_bytes / 1e9, fits, in_flight,
                      np.broadcast_to(in_flight, shape), np.broadcast_to(waves, shape),
                      np.broadcast_to(np.asarray(num_gpus, dtype=float) >= need, shape),
                      np.broadcast_to(need, shape))


def calibrated_self_hosted_cost(*, arch: ModelArch, gpu: GPU, eff: Efficiencies, steps, samples_per_step,
                                output_per_rollout, prefill_per_rollout, decode_context, sequence, train_tokens,
                                concurrency, cache_hit_rate, off_policy, num_gpus, gpu_hourly_usd,
                                rollout_efficiency, mfu, fine_tune, sandbox_usd, sandbox_wait_hours=0.0,
                                time_factor=1.0) -> SelfHosted:
    """The calibrated method: each step's rollout runs at the concurrency that fits in waves
    (calibrated.rollout), training at the fitted MFU; if the requested GPUs cannot hold the colocated job or
    one replica and one sequence, the cost is computed on the smallest count that can, and `feasible` says so.
    `time_factor` multiplies the GPU-bound hours (generation and training): the model's own error, drawn by the
    Monte-Carlo around 1."""
    total, active = arch.params("exact")
    train_need = memory.min_gpus(total, gpu, fine_tune)
    requested = np.asarray(num_gpus, dtype=float)
    prompt = np.asarray(prefill_per_rollout, dtype=float) * (1.0 - np.asarray(cache_hit_rate, dtype=float))
    first = calibrated.rollout(arch, gpu, eff, requested, samples_per_step, prompt, output_per_rollout,
                               decode_context, sequence, rollout_efficiency)
    need = np.maximum(train_need, first.min_gpus)
    gpus_used = np.maximum(requested, need)
    plan = calibrated.rollout(arch, gpu, eff, gpus_used, samples_per_step, prompt, output_per_rollout,
                              decode_context, sequence, rollout_efficiency)
    s = np.asarray(steps, dtype=float)
    factor = np.asarray(time_factor, dtype=float)
    decode_hours = s * plan.decode_seconds / 3600.0 * factor
    prefill_hours = s * plan.prefill_seconds / 3600.0 * factor
    sandbox_wait = np.asarray(sandbox_wait_hours, dtype=float)
    rollout_hours = decode_hours + prefill_hours + sandbox_wait
    train_hours = calibrated.train_seconds(arch, gpu, eff, gpus_used, train_tokens, decode_context, fine_tune,
                                           mfu) / 3600.0 * factor
    wallclock = training.wallclock_hours(rollout_hours, train_hours, off_policy)
    gpu_hours = wallclock * gpus_used
    hourly = np.asarray(gpu_hourly_usd, dtype=float)
    sampled = s * np.asarray(samples_per_step, dtype=float) * output_per_rollout
    with np.errstate(divide="ignore", invalid="ignore"):
        decode_tps = np.where(decode_hours > 0, sampled / (decode_hours * 3600.0), 0.0)
        per_token = training.flops_per_param_per_token(fine_tune) * active \
            + 3.0 * roofline.attention_flops_per_token(arch, decode_context)
        train_tps = training.train_tokens_per_second(gpus_used, gpu.peak_flops("exact"),
                                                     eff.mfu(arch) if mfu is None else mfu, per_token)
    kv_bytes = memory.kv_cache_bytes(memory.kv_bytes_per_token(arch, "exact"), concurrency, sequence,
                                     memory.recurrent_bytes_per_sequence(arch, "exact"))
    shape = np.shape(wallclock)
    feasible = requested >= need
    return SelfHosted(np.broadcast_to(gpus_used, shape), np.broadcast_to(need, shape),
                      np.broadcast_to(plan.tensor_parallel, shape), np.broadcast_to(decode_tps, shape),
                      np.broadcast_to(train_tps, shape), decode_hours, prefill_hours,
                      np.broadcast_to(sandbox_wait, shape), rollout_hours, train_hours, wallclock, gpu_hours, hourly,
                      gpu_hours * hourly, np.asarray(sandbox_usd, dtype=float), kv_bytes / 1e9,
                      np.broadcast_to(plan.waves <= 1, shape), np.broadcast_to(plan.concurrency, shape),
                      np.broadcast_to(plan.concurrency, shape), np.broadcast_to(plan.waves, shape),
                      np.broadcast_to(feasible, shape), np.broadcast_to(need, shape))
