"""FLOP accounting of one RLVR step, and why FLOPs mislead: the seed's FLOP-accounting page as functions.

Per step with B prompts, G rollouts, L completion tokens, K substeps and N active parameters:
rollout B·G·L·2N (bandwidth-bound decode), reference log-probs B·G·L·2N (compute-bound prefill),
training K·B·G·L·6N (full fine-tune; 4N with LoRA), optimizer O(trainable parameters).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import memory, roofline, training
from .registry import GPU, ModelArch, number


@dataclass(frozen=True)
class StepFlops:
    rollout: np.ndarray
    reference: np.ndarray
    train: np.ndarray
    optimizer_params: float     # parameters the optimizer updates (its cost scales with these, not with tokens)


def step_flops(prompts_per_step, group_size, completion_tokens, active_params, substeps=1, fine_tune="full",
               trainable_params=None) -> StepFlops:
    tokens = np.asarray(prompts_per_step, dtype=float) * group_size * completion_tokens
    forward = number("forward_flops_per_param")
    per_token_train = training.flops_per_param_per_token(fine_tune)
    return StepFlops(tokens * forward * active_params, tokens * forward * active_params,
                     tokens * substeps * per_token_train * active_params,
                     float(active_params if trainable_params is None else trainable_params))


def utilization_adjusted_flops_per_param():
    """GPU-time per token in units of N: rollout 2N at ~3% MFU ≈ 67N; training 6N at ~35% ≈ 17N."""
    forward = number("forward_flops_per_param")
    full = number("train_flops_per_param_full")
    rollout = forward / number("flop_page_rollout_mfu")
    train = full / number("flop_page_train_mfu")
    return rollout, train, rollout / train


def lora_flop_saving():
    """Share of training FLOPs LoRA skips: 1 − 4N/6N."""
    return 1.0 - number("train_flops_per_param_lora") / number("train_flops_per_param_full")


def growth_token_increase(length_growth):
    """Extra tokens a run pays for growth: the average multiplier minus one ((1 + g)/2 − 1)."""
    return (1.0 + np.asarray(length_growth, dtype=float)) / 2.0 - 1.0


@dataclass(frozen=True)
class StepTable:
    completion_tokens: np.ndarray
    tokens_per_step: np.ndarray
    rollout_flops: np.ndarray
    train_flops: np.ndarray
    rollout_seconds: np.ndarray
    train_seconds: np.ndarray

    @property
    def rollout_share(self):
        return self.rollout_seconds / (self.rollout_seconds + self.train_seconds)


def per_step_table(arch: ModelArch, gpu: GPU, num_gpus, prompts_per_step, group_size, completion_tokens,
                   method="seed", efficiency=None, mfu=None, fine_tune_time="lora") -> StepTable:
    """The seed's per-step table: FLOP columns at 2N / 6N; rollout time from the bandwidth roofline with the
    batch spread over the GPUs and KV length L; train time at 4N (LoRA) and MFU, as the page computed it."""
    efficiency = number("flop_page_mbu") if efficiency is None else efficiency
    mfu = number("flop_page_train_mfu") if mfu is None else mfu
    total, active = arch.params(method)
    length = np.asarray(completion_tokens, dtype=float)
    flops = step_flops(prompts_per_step, group_size, length, active)
    tokens = np.asarray(prompts_per_step, dtype=float) * group_size * length
    tps = roofline.decode_tokens_per_second(
        concurrency=np.asarray(prompts_per_step, dtype=float) * group_size, num_gpus=num_gpus,
        replica_gpus=memory.replica_gpus(total, gpu),
        weight_bytes_per_step=lambda batch: roofline.weight_bytes_read(arch, batch, method),
        kv_bytes_per_token=memory.kv_bytes_per_token(arch, method), context=length, state_bytes_per_sequence=0.0,
        bandwidth_bytes_per_s=gpu.bandwidth_bytes_per_s, peak_flops=gpu.peak_flops(method),
        flops_per_token=number("forward_flops_per_param") * active, efficiency=efficiency,
        compute_bound=method != "seed")
    train_tps = training.train_tokens_per_second(
        num_gpus, gpu.peak_flops(method), mfu, training.flops_per_param_per_token(fine_tune_time) * active)
    return StepTable(length, tokens, flops.rollout, flops.train, tokens / tps, tokens / train_tps)


@dataclass(frozen=True)
class HardwareCheck:
    critical_batch: float            # sequences per GPU where decode turns compute-bound
    concurrent_sequences: float
    kv_cache_bytes: float
    weights_bytes: float             # weight memory the KV cache cannot use
    total_memory_bytes: float
    max_sequences: float
    memory_utilization: float
    arithmetic_intensity: float
    compute_bound: bool


def hardware_check(arch: ModelArch, gpu: GPU, num_gpus, prompts_per_step, group_size, tokens_per_sequence,
                   method="seed") -> HardwareCheck:
    """Can the GPUs hold and keep busy B·G concurrent rollouts? (the seed's 'hardware reality check')."""
    total, active = arch.params(method)
    concurrent = float(prompts_per_step * group_size)
    kv_token = memory.kv_bytes_per_token(arch, method)
    state = memory.recurrent_bytes_per_sequence(arch, method)
    kv = float(memory.kv_cache_bytes(kv_token, concurrent, tokens_per_sequence, state))
    weights = float(memory.weight_bytes(total) * number("kv_fit_weight_multiplier"))
    total_mem = float(num_gpus * gpu.memory_bytes)
    b_crit = float(roofline.critical_batch(gpu.peak_flops(method), gpu.bandwidth_bytes_per_s))
    intensity = float(roofline.arithmetic_intensity(concurrent))
    return HardwareCheck(b_crit, concurrent, kv, weights, total_mem,
                         float(memory.max_concurrent_sequences(total, gpu, num_gpus, kv_token, tokens_per_sequence,
                                                               state)),
                         (weights + kv) / total_mem, intensity, intensity > b_crit)


def mla_kv_compression(arch: ModelArch) -> float:
    """How much smaller an MLA latent cache is than caching every head's K and V: 1 − latent / per-head."""
    if not arch.is_mla:
        raise ValueError(f"{arch.model} does not use multi-head latent attention")
    per_head = arch.num_layers * arch.num_heads * (arch.qk_nope_head_dim + arch.qk_rope_head_dim + arch.v_head_dim) \
        * number("bytes_per_param")
    return 1.0 - arch.kv_bytes_per_token / per_head
