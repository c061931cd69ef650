"""Running the same RL job on rented GPUs: the phases of each step, overlap, GPU-hours and dollars.

Every method runs the one phase model of model/rl_phases.py; they differ in the terms they switch on
(rl_phases.TERMS) and in their parameters: the calibrated method its fitted ones (sources.calibration), the seed
and exact methods their input efficiencies — the rollout efficiency on every decode byte (and, where the step may be
compute-bound, every decode FLOP), the prefill MFU on the prompts, the MFU on the update — with no overhead, drain,
log-prob pass or refit (`method_parameters`). The seed also counts the model at its nominal size with the seed's
KV cache of 16 KB per billion active parameters (`nominal`)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..sources.calibration import PARAMETER_NAMES, ModelParameters
from ..sources.defaults import number
from ..sources.hardware import GPU, GpuSpecs, gpu_specs
from ..sources.model_record import ModelArch
from . import memory, rl_phases, tokens


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
    separate: np.ndarray | bool = False       # generation beside the trainer, overlapping (calibrated k >= 1: on
                                              # their own GPUs where that is faster; seed, exact: on the same ones)

    @property
    def total_usd(self):
        return self.compute_usd + self.sandbox_usd

    @property
    def trainer_hours(self):
        """The trainer's passes: the log-prob passes and the update (what runs beside generation off-policy)."""
        return self.logprob_hours + self.train_hours


def nominal(arch: ModelArch) -> ModelArch:
    """The seed's view of a model: its nominal total and active sizes (the size in its name), dense, no separate
    output head, and a KV cache of the seed's 16 KB per billion active parameters per token, no other state."""
    return dataclasses.replace(
        arch, total_params=arch.seed_total_b * 1e9, active_params=arch.seed_active_b * 1e9,
        active_params_incl_embed=arch.seed_active_b * 1e9, vocab_size=0, tied_embeddings=False, num_experts=None,
        experts_per_token=None, kv_bytes_per_token=memory.kv_bytes_per_token(arch, "seed"),
        recurrent_bytes_per_sequence=0, sliding_window=None)


def method_parameters(rollout_efficiency, compute_bound: bool) -> ModelParameters:
    """The seed's and exact method's parameters in the phase model: the rollout efficiency on every decode byte and,
    where the step may be compute-bound, on every FLOP (infinite: bandwidth only); nothing else."""
    values = {name: 0.0 for name in PARAMETER_NAMES}
    values.update(decode_bandwidth_efficiency=rollout_efficiency,
                  decode_compute_efficiency=rollout_efficiency if compute_bound else np.inf,
                  weight_only_efficiency=1.0, train_gemm_efficiency=1.0, moe_gemm_share=1.0,
                  train_flops_per_byte=np.inf, response_max_over_mean=1.0)
    return ModelParameters(**values)


def phase_cost(*, method: str, arch: ModelArch, gpus: GpuSpecs, params: ModelParameters, steps, samples_per_step,
               output_per_rollout, prefill_per_rollout, decode_context=None, kv_context=None, sequence,
               train_tokens, concurrency, cache_hit_rate, off_policy, num_gpus, gpu_hourly_usd, fine_tune,
               sandbox_usd, rollout_efficiency=None, mfu=None, prefill_efficiency=None, sandbox_wait_hours=0.0,
               time_factor=1.0, multi_turn=False, response_max_tokens=None, reference=True, critic=False,
               optimizer_steps=None, rollout_tensor_parallel=None, rollout_memory_fraction=None,
               micro_batch_tokens=None, micro_batch_samples=None, padded_tokens_per_sample=None,
               critic_padded_tokens_per_sample=None, update_epochs=None, rollout_eager=False,
               logprob_micro_batch_tokens=None, logprob_micro_batch_samples=None, reference_micro_batch_tokens=None,
               reference_micro_batch_samples=None, values_micro_batch_tokens=None,
               values_micro_batch_samples=None, critic_micro_batch_tokens=None,
               critic_micro_batch_samples=None, rollout_samples=None, rollout_rounds=None,
               max_num_seqs=None, param_offload=False, optimizer_offload=False, critic_param_offload=False,
               critic_optimizer_offload=False, recompute=True, rollout_precision="bf16",
               rollout_kv_precision="bf16", train_precision="bf16", rollout_gpus=None,
               old_logprob_pass=True, lora_merged=False, cpu_optimizer=False) -> SelfHosted:
    """A run of `steps` steps of `samples_per_step` rollouts (`output_per_rollout` sampled tokens, and
    `prefill_per_rollout` prompt tokens processed, each) on `num_gpus` GPUs, phase by phase (model/rl_phases.py)
    under `method`'s terms and `params`; where the GPUs cannot hold the job it runs on the smallest count that can
    (`feasible` says so). `rollout_efficiency` replaces the decode bandwidth efficiency, `mfu` the whole update, and
    `time_factor` multiplies the GPU-bound phases (the Monte-Carlo's model error). The GPU figures may be arrays.
    `rollout_rounds` rounds of `rollout_samples` sequences each generate what a step trains `samples_per_step` of
    (dynamic sampling; rl_phases._features). `rollout_precision` and `rollout_kv_precision` are the rollout
    engine's weights and cache (FP8 rollout: the trainer stays in BF16 and hands BF16 weights over);
    `train_precision` the trainer's GEMMs (fp8: Transformer Engine's FP8 training). `rollout_gpus`: an off-policy
    run's own split (the engine on that many GPUs, the trainer on the rest; rl_phases._features);
    `old_logprob_pass` False: the old policy's log-probs come from the engine, not a pass of their own;
    `lora_merged`: the rollout engine gets a LoRA adapter merged into its weights, not served unmerged;
    `cpu_optimizer`: the actor trains with FSDP2's CPUOffloadPolicy (rl_phases._cpu_optimizer_seconds)."""
    terms = rl_phases.TERMS[method]
    output = np.asarray(output_per_rollout, dtype=float)
    samples = np.asarray(samples_per_step, dtype=float)
    s = np.asarray(steps, dtype=float)
    f = rl_phases.rl_features(arch, gpus, np.asarray(num_gpus, dtype=float), samples,
                              tokens.prefill_after_cache(prefill_per_rollout, cache_hit_rate), output,
                              response_max_tokens, fine_tune=fine_tune, critic=critic, reference=reference,
                              off_policy=off_policy, response_max_over_mean=params.response_max_over_mean,
                              trained_tokens_per_sample=_per_sample(train_tokens, s, samples),
                              optimizer_steps=optimizer_steps, rollout_tensor_parallel=rollout_tensor_parallel,
                              rollout_memory_fraction=rollout_memory_fraction, micro_batch_tokens=micro_batch_tokens,
                              micro_batch_samples=micro_batch_samples, padded_tokens_per_sample=padded_tokens_per_sample,
                              critic_padded_tokens_per_sample=critic_padded_tokens_per_sample,
                              update_epochs=update_epochs, rollout_eager=rollout_eager,
                              logprob_micro_batch_tokens=logprob_micro_batch_tokens,
                              logprob_micro_batch_samples=logprob_micro_batch_samples,
                              reference_micro_batch_tokens=reference_micro_batch_tokens,
                              reference_micro_batch_samples=reference_micro_batch_samples,
                              values_micro_batch_tokens=values_micro_batch_tokens,
                              values_micro_batch_samples=values_micro_batch_samples,
                              critic_micro_batch_tokens=critic_micro_batch_tokens,
                              critic_micro_batch_samples=critic_micro_batch_samples, terms=terms,
                              rollout_samples=rollout_samples, rollout_rounds=rollout_rounds,
                              max_num_seqs=max_num_seqs, param_offload=param_offload,
                              optimizer_offload=optimizer_offload, critic_param_offload=critic_param_offload,
                              critic_optimizer_offload=critic_optimizer_offload, recompute=recompute,
                              precision=rollout_precision, kv_precision=rollout_kv_precision,
                              train_precision=train_precision, rollout_gpus=rollout_gpus,
                              old_logprob_pass=old_logprob_pass, lora_merged=lora_merged,
                              cpu_optimizer=cpu_optimizer,
                              decode_context=decode_context,
                              kv_context=kv_context, concurrency=concurrency, multi_turn=multi_turn,
                              compact_plan=True)   # every figure is broadcast to the run's shape below
    sandbox_wait = np.asarray(sandbox_wait_hours, dtype=float)
    step_wait = 0.0   # each step's share of the wait (none without steps)
    if np.any(sandbox_wait != 0):
        with np.errstate(divide="ignore", invalid="ignore"):
            step_wait = np.where(s > 0, sandbox_wait * 3600.0 / np.where(s > 0, s, 1.0), 0.0)
    phases = rl_phases.phase_seconds(f, params, rollout_efficiency, mfu, time_factor, prefill_efficiency, step_wait)
    train_mfu = rl_phases.achieved_mfu(f, phases)
    gpus_used, fitting, replica, in_flight, waves, feasible = (
        rl_phases.kept(f, phases, name) for name in ("gpus_used", "fitting_gpus", "tensor_parallel", "concurrency",
                                                      "waves", "feasible"))
    separate = phases.separate
    del f   # the other features are done with: a million-scenario sweep reuses their memory for what follows
    decode_hours = s * phases.decode_seconds / 3600.0
    prefill_hours = s * phases.prefill_seconds / 3600.0
    rollout_hours = s * phases.generation_seconds / 3600.0 + sandbox_wait
    wallclock = rl_phases.overlap(rollout_hours, s * (phases.logprob_seconds + phases.training_seconds) / 3600.0,
                                  separate) \
        + s * (phases.refit_seconds + phases.other_seconds) / 3600.0
    gpu_hours = wallclock * gpus_used
    hourly = np.asarray(gpu_hourly_usd, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        generated = samples if rollout_samples is None else np.asarray(rollout_samples, dtype=float)
        rounds = 1.0 if rollout_rounds is None else np.asarray(rollout_rounds, dtype=float)
        decode_tps = np.where(decode_hours > 0, s * rounds * generated * output / (decode_hours * 3600.0), 0.0)
        train_tps = np.where(phases.training_seconds > 0, np.asarray(train_tokens, dtype=float)
                             / np.maximum(s, 1e-300) / phases.training_seconds, 0.0)
    kv_token = memory.kv_bytes_per_token(arch, "exact")
    if terms.plan == "engine":
        kv_gb = memory.kv_cache_bytes(kv_token, concurrency, sequence,
                                      memory.recurrent_bytes_per_sequence(arch, "exact", sequence)) / 1e9
        fits = waves <= 1
    else:   # the seed's rule: every sequence's cache for its whole length against the memory 2.4 × the weights leave
        held = kv_context if kv_context is not None else sequence
        kv_bytes = memory.kv_cache_bytes(kv_token, concurrency, held,
                                         memory.recurrent_bytes_per_sequence(arch, "exact", held))
        fits = kv_bytes <= memory.kv_memory_available(float(arch.total_params), gpus, gpus_used)
        kv_gb = kv_bytes / 1e9
    shape = np.broadcast_shapes(np.shape(wallclock), np.shape(hourly), np.shape(sandbox_usd))

    def b(x):
        return np.broadcast_to(x, shape)

    return SelfHosted(b(gpus_used), b(fitting), b(replica), b(decode_tps), b(train_tps),
                      b(decode_hours), b(prefill_hours), b(sandbox_wait), b(rollout_hours),
                      b(s * phases.training_seconds / 3600.0), b(wallclock), b(gpu_hours), b(hourly),
                      b(gpu_hours * hourly),
                      b(np.asarray(sandbox_usd, dtype=float)), b(kv_gb), b(fits), b(in_flight),
                      b(in_flight), b(waves), b(feasible), b(fitting),
                      logprob_hours=b(s * phases.logprob_seconds / 3600.0),
                      refit_hours=b(s * phases.refit_seconds / 3600.0), other_hours=b(s * phases.other_seconds / 3600.0),
                      train_mfu=b(train_mfu), separate=b(separate))


def _per_sample(train_tokens, steps, samples):
    """Tokens each sample trains on: the run's trained tokens over its steps × samples per step (0 without samples)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(samples > 0, np.asarray(train_tokens, dtype=float) / (steps * np.maximum(samples, 1e-300)),
                        0.0)


def self_hosted_cost(*, arch: ModelArch, gpu, method: str, compute_bound: bool, sample_tokens, prefill_tokens,
                     train_tokens, concurrency, decode_context, kv_context, cache_hit_rate, off_policy, num_gpus,
                     gpu_hourly_usd, rollout_efficiency, mfu, prefill_mfu, fine_tune, sandbox_usd,
                     sandbox_wait_hours=0.0, multi_turn=False) -> SelfHosted:
    """The seed or exact method over a run's token totals: the phase model with that method's terms and its input
    efficiencies (`phase_cost`), every sequence of a step starting at once (`concurrency` of them)."""
    seed = method == "seed"
    model = nominal(arch) if seed else arch
    conc = np.asarray(concurrency, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        output = np.asarray(sample_tokens, dtype=float) / conc
        prompt = np.asarray(prefill_tokens, dtype=float) / conc
    return phase_cost(method=method, arch=model, gpus=gpu if isinstance(gpu, GpuSpecs) else gpu_specs(gpu),
                      params=method_parameters(rollout_efficiency, compute_bound), steps=1.0, samples_per_step=conc,
                      output_per_rollout=output, prefill_per_rollout=prompt, decode_context=decode_context,
                      kv_context=kv_context, sequence=kv_context, train_tokens=train_tokens, concurrency=conc,
                      cache_hit_rate=cache_hit_rate, off_policy=off_policy, num_gpus=num_gpus,
                      gpu_hourly_usd=gpu_hourly_usd, fine_tune=fine_tune, sandbox_usd=sandbox_usd, mfu=mfu,
                      prefill_efficiency=prefill_mfu, sandbox_wait_hours=sandbox_wait_hours, multi_turn=multi_turn)


def calibrated_self_hosted_cost(*, arch: ModelArch, gpus: GpuSpecs, params: ModelParameters, **kwargs) -> SelfHosted:
    """The calibrated method: the phase model with every term on, at the fitted `params` (`phase_cost`)."""
    return phase_cost(method="calibrated", arch=arch, gpus=gpus, params=params, **kwargs)
