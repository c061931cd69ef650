"""Running the same RL job on rented GPUs: rollout and training hours, overlap, GPU-hours and dollars."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..sources.calibration import ModelParameters
from ..sources.defaults import number
from ..sources.hardware import GPU, GpuSpecs
from ..sources.model_record import ModelArch
from . import memory, rl_phases, roofline, training


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
    logprob_hours: np.ndarray | float = 0.0   # calibrated: the log-prob passes (old policy, reference)
    refit_hours: np.ndarray | float = 0.0     # calibrated: the weights handed to the rollout engine
    other_hours: np.ndarray | float = 0.0     # calibrated: the fixed cost of each step outside its phases
    train_mfu: np.ndarray | float = 0.0       # the update's model-FLOPs utilisation (seed, exact: the input)

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
                      np.broadcast_to(need, shape), train_mfu=np.broadcast_to(np.asarray(mfu, dtype=float), shape))


def calibrated_self_hosted_cost(*, arch: ModelArch, gpus: GpuSpecs, params: ModelParameters, steps, samples_per_step,
                                output_per_rollout, prefill_per_rollout, sequence, train_tokens, concurrency,
                                cache_hit_rate, off_policy, num_gpus, gpu_hourly_usd, rollout_efficiency, mfu,
                                fine_tune, sandbox_usd, sandbox_wait_hours=0.0, time_factor=1.0,
                                response_max_tokens=None, reference=True, critic=False, optimizer_steps=None,
                                rollout_tensor_parallel=None, rollout_memory_fraction=None, micro_batch_tokens=None,
                                micro_batch_samples=None) -> SelfHosted:
    """The calibrated method: each step phase by phase (model/rl_phases.py: generation at the batch that fits, in
    waves with the drain of the longest responses, log-prob passes, the update, the refit and a fixed overhead),
    on `num_gpus` GPUs or, where they cannot hold the colocated job, on the smallest count that can (`feasible`
    says so). `rollout_efficiency` replaces the fitted decode bandwidth efficiency and `mfu` the whole update (a
    user's own figures); `time_factor` multiplies the GPU-bound phases (the Monte-Carlo's model error). The GPU
    figures may be arrays (one entry per GPU type), broadcasting with everything else."""
    requested = np.asarray(num_gpus, dtype=float)
    prompt = np.asarray(prefill_per_rollout, dtype=float) * (1.0 - np.asarray(cache_hit_rate, dtype=float))
    output = np.asarray(output_per_rollout, dtype=float)
    samples = np.asarray(samples_per_step, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        trained_per_sample = np.where(samples > 0, np.asarray(train_tokens, dtype=float)
                                      / (np.asarray(steps, dtype=float) * np.maximum(samples, 1e-300)), 0.0)
    f = rl_phases.rl_features(arch, gpus, requested, samples, prompt, output, response_max_tokens,
                              fine_tune=fine_tune, critic=critic, reference=reference, off_policy=off_policy,
                              response_max_over_mean=params.response_max_over_mean,
                              trained_tokens_per_sample=trained_per_sample, optimizer_steps=optimizer_steps,
                              rollout_tensor_parallel=rollout_tensor_parallel,
                              rollout_memory_fraction=rollout_memory_fraction, micro_batch_tokens=micro_batch_tokens,
                              micro_batch_samples=micro_batch_samples)
    phases = rl_phases.phase_seconds(f, params, rollout_efficiency, mfu, time_factor)
    s = np.asarray(steps, dtype=float)
    gpus_used = np.maximum(requested, f.fitting_gpus)
    sandbox_wait = np.asarray(sandbox_wait_hours, dtype=float)
    generation_hours = s * phases.generation_seconds / 3600.0
    decode_hours = s * phases.decode_seconds / 3600.0
    prefill_hours = s * phases.prefill_seconds / 3600.0
    rollout_hours = generation_hours + sandbox_wait
    trainer_hours = s * (phases.logprob_seconds + phases.training_seconds) / 3600.0
    refit_other = s * (phases.refit_seconds + phases.other_seconds) / 3600.0
    k = np.asarray(off_policy, dtype=float)
    if np.ndim(k) == 0:
        wallclock = (np.maximum(rollout_hours, trainer_hours) if k > 0 else rollout_hours + trainer_hours) + refit_other
    else:
        wallclock = np.where(k > 0, np.maximum(rollout_hours, trainer_hours), rollout_hours + trainer_hours) \
            + refit_other
    gpu_hours = wallclock * gpus_used
    hourly = np.asarray(gpu_hourly_usd, dtype=float)
    sampled = s * samples * output
    with np.errstate(divide="ignore", invalid="ignore"):
        decode_tps = np.where(decode_hours > 0, sampled / (decode_hours * 3600.0), 0.0)
        train_tps = np.where(phases.training_seconds > 0, np.asarray(train_tokens, dtype=float)
                             / np.maximum(s, 1e-300) / phases.training_seconds, 0.0)
    kv_bytes = memory.kv_cache_bytes(memory.kv_bytes_per_token(arch, "exact"), concurrency, sequence,
                                     memory.recurrent_bytes_per_sequence(arch, "exact"))
    shape = np.shape(wallclock)

    def b(x):
        return np.broadcast_to(x, shape)

    return SelfHosted(b(gpus_used), b(f.fitting_gpus), b(f.tensor_parallel), b(decode_tps), b(train_tps),
                      b(decode_hours), b(prefill_hours), b(sandbox_wait), b(rollout_hours),
                      b(s * phases.training_seconds / 3600.0), wallclock, gpu_hours, b(hourly), gpu_hours * hourly,
                      b(np.asarray(sandbox_usd, dtype=float)), b(kv_bytes / 1e9), b(f.waves <= 1), b(f.concurrency),
                      b(f.concurrency), b(f.waves), b(f.feasible), b(f.fitting_gpus),
                      logprob_hours=b(s * phases.logprob_seconds / 3600.0),
                      refit_hours=b(s * phases.refit_seconds / 3600.0), other_hours=b(s * phases.other_seconds / 3600.0),
                      train_mfu=b(rl_phases.achieved_mfu(f, phases)))
