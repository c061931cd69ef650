"""Rollout decode throughput on your own GPUs: the memory-bandwidth roofline and its compute ceiling.

One decode step of a replica reads the weights it touches once plus every sequence's KV cache, and emits
one token per sequence:

    bytes_per_step = weight_bytes_read + kv_bytes_per_token · context · batch (+ constant state · batch)
    tokens/s       = batch / max(bytes_per_step / bandwidth, FLOPs_per_step / peak) · efficiency

The seed method keeps only the bandwidth term, with the whole concurrent batch spread evenly over the GPUs,
every GPU holding a full copy of the (active) weights. The exact method shards one copy of the weights over
as many GPUs as it needs (a replica), counts the MoE experts a batch actually touches, and lets the step be
compute-bound above the critical batch.
"""
from __future__ import annotations

import numpy as np

from ..sources.architectures import ModelArch
from ..sources.defaults import number


def single_stream_tokens_per_second(bandwidth_bytes_per_s, weight_bytes):
    """Batch-1 decode: every token reads all weights once (H100 + 16 GB of BF16 weights: 209 tok/s)."""
    return np.asarray(bandwidth_bytes_per_s, dtype=float) / weight_bytes


def critical_batch(peak_flops, bandwidth_bytes_per_s):
    """Batch where decode turns compute-bound: peak FLOP/s over bytes/s (H100: 990e12 / 3.35e12 ≈ 296)."""
    return np.asarray(peak_flops, dtype=float) / bandwidth_bytes_per_s


def arithmetic_intensity(batch, weight_bytes=None, kv_bytes_per_step=0.0, flops_per_token=None):
    """FLOPs per byte moved in one decode step. Weights only (the seed): 2N·b / 2N = b."""
    b = np.asarray(batch, dtype=float)
    if weight_bytes is None:
        return b
    return b * flops_per_token / (np.asarray(weight_bytes, dtype=float) + kv_bytes_per_step)


def routed_expert_params(arch: ModelArch) -> float:
    """Parameters in routed experts (all layers): from total − active = (E − k) · per-expert params."""
    if not arch.is_moe:
        return 0.0
    e, k = arch.num_experts, arch.experts_per_token
    return (arch.total_params - arch.active_params_incl_embed) * e / (e - k)


def weight_bytes_read(arch: ModelArch, batch, method: str = "exact", bytes_per_param=None):
    """Bytes of weights one decode step reads for `batch` concurrent sequences of one replica.
    Seed: the active parameters. Exact: dense weights plus the expected share of routed experts that
    `batch` tokens choosing k of E experts touch, 1 − (1 − k/E)^batch (input embeddings are a lookup).
    `bytes_per_param` (default: the BF16 assumption, 2) prices every weight at one precision, e.g. 1 for
    an FP8 checkpoint; mixed-precision checkpoints (BF16 embeddings, FP8 experts) are not split."""
    per_param = number("bytes_per_param") if bytes_per_param is None else np.asarray(bytes_per_param, dtype=float)
    total, active = arch.params(method)
    if method == "seed" or not arch.is_moe:
        return np.broadcast_to(active * per_param, np.broadcast_shapes(np.shape(batch), np.shape(per_param))) \
            .astype(float)
    e, k = arch.num_experts, arch.experts_per_token
    routed = routed_expert_params(arch)
    touched = 1.0 - np.power(1.0 - k / e, np.maximum(np.asarray(batch, dtype=float), 1.0))
    return (active + routed * (touched - k / e)) * per_param


def attention_flops_per_token(arch: ModelArch, context):
    """Score and value FLOPs per generated token at `context` tokens of history (full and sliding layers)."""
    ctx = np.asarray(context, dtype=float)
    if arch.is_mla:
        per_layer = 2.0 * arch.num_heads * (arch.qk_nope_head_dim + arch.qk_rope_head_dim + arch.v_head_dim)
        if arch.sparse_attention_topk:   # DeepSeek Sparse Attention: the indexer scores every token, the heads
            # attend to the ones it picks
            return per_layer * np.minimum(ctx, arch.sparse_attention_topk) * arch.num_layers \
                + arch.indexer_flops_per_context_token * ctx
        return per_layer * ctx * arch.num_layers
    head_dim = arch.head_dim or arch.hidden_size // arch.num_heads
    per_layer = 4.0 * arch.num_heads * head_dim
    full = per_layer * ctx * arch.full_attention_layers
    if arch.sliding_window:
        sliding_layers = arch.num_layers - arch.full_attention_layers
        full = full + per_layer * np.minimum(ctx, arch.sliding_window) * sliding_layers
    return full


def decode_tokens_per_second(*, concurrency, num_gpus, replica_gpus, weight_bytes_per_step, kv_bytes_per_token,
                             context, state_bytes_per_sequence, bandwidth_bytes_per_s, peak_flops,
                             flops_per_token, efficiency, compute_bound):
    """Cluster decode throughput. `weight_bytes_per_step(batch)` gives the weight bytes a replica reads for a
    batch; `concurrency` sequences are spread over floor(num_gpus / replica_gpus) replicas."""
    replicas = np.maximum(np.floor(np.asarray(num_gpus, dtype=float) / replica_gpus), 1.0)
    batch = np.asarray(concurrency, dtype=float) / replicas
    step_bytes = weight_bytes_per_step(batch) + batch * (np.asarray(kv_bytes_per_token) * context
                                                         + state_bytes_per_sequence)
    memory_time = step_bytes / (replica_gpus * np.asarray(bandwidth_bytes_per_s, dtype=float))
    compute_time = batch * flops_per_token / (replica_gpus * np.asarray(peak_flops, dtype=float))
    step_time = np.where(compute_bound, np.maximum(memory_time, compute_time), memory_time)
    return replicas * batch / step_time * efficiency
