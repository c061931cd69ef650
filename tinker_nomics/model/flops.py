"""FLOP accounting of one RLVR step, and why FLOPs mislead: the seed's FLOP-accounting page as functions.

Per step with B prompts, G rollouts, L completion tokens, K substeps and N active parameters:
rollout B·G·L·2N (bandwidth-bound decode), reference log-probs B·G·L·2N (compute-bound prefill),
training K·B·G·L·6N (full fine-tune; 4N with LoRA), optimizer O(trainable parameters).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..sources.architectures import ModelArch
from ..sources.defaults import assumption, number
from ..sources.hardware import GPU
from ..sources.tables import Column, load_table
from . import lora, memory, roofline, tokens, training


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

    @property
    def flop_ratio(self):
        """Training FLOPs over rollout FLOPs (3 at 6N against 2N)."""
        return self.train_flops / self.rollout_flops

    @property
    def time_ratio(self):
        """Rollout time over training time."""
        return self.rollout_seconds / self.train_seconds


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
    state = memory.recurrent_bytes_per_sequence(arch, method, tokens_per_sequence)
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


# ------------------------------------------------------------------------------------------------------
# The FLOP accounting chapter: components of a step, throughput and the hardware check per GPU, decode
# utilization. Added for notebooks/flop_accounting.ipynb; tested in tests/test_flops_chapter.py.
# ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Component:
    name: str
    formula: str                # the seed's formula, in words a table can show
    flops: float                # FLOPs per step (NaN for the optimizer, which scales with parameters)
    per_token_flops_per_param: float
    bottleneck: str


def step_components(arch: ModelArch, prompts_per_step, group_size, completion_tokens, substeps=1,
                    method="seed", lora_rank=None) -> list[Component]:
    """The seed's component table for one step, with training at 6N (full) and 4N (LoRA) and the optimizer's
    parameter counts (every weight for full fine-tuning, the adapter for LoRA)."""
    total, active = arch.params(method)
    full = step_flops(prompts_per_step, group_size, completion_tokens, active, substeps, "full")
    with_lora = step_flops(prompts_per_step, group_size, completion_tokens, active, substeps, "lora")
    forward = number("forward_flops_per_param")
    adapter = float(lora.lora_params(arch, lora_rank, "seed" if method == "seed" else "exact"))
    return [
        Component("rollout (sampling)", "B·G·L·2N", float(full.rollout), forward,
                  "memory bandwidth: every token rereads the weights and its KV cache"),
        Component("reference log-probs", "B·G·L·2N", float(full.reference), forward,
                  "compute: one parallel forward pass over finished sequences"),
        Component("training, full fine-tune", "K·B·G·L·6N", float(full.train),
                  training.flops_per_param_per_token("full"), "compute: large matrix-matrix products"),
        Component("training, LoRA", "K·B·G·L·4N", float(with_lora.train),
                  training.flops_per_param_per_token("lora"), "compute: no weight gradients for frozen layers"),
        Component("optimizer step, full fine-tune", "O(trainable parameters)", float("nan"), float(total),
                  "memory bandwidth: reads and writes Adam moments"),
        Component("optimizer step, LoRA", "O(adapter parameters)", float("nan"), adapter,
                  "negligible: the adapter is a fraction of a percent of the weights"),
    ]


def achieved_mfu(flops, seconds, num_gpus, peak_flops):
    """Model FLOPs utilization actually reached: useful FLOPs over (time × GPUs × peak)."""
    return np.asarray(flops, dtype=float) / (np.asarray(seconds, dtype=float) * np.asarray(num_gpus, dtype=float)
                                             * peak_flops)


def step_table_mfu(table: StepTable, gpu: GPU, num_gpus, method="seed"):
    """(rollout MFU, training MFU) that a per-step table implies, length by length. Training FLOPs are the
    table's 6N column over its train time (computed at 4N), as the seed's page pairs them."""
    peak = gpu.peak_flops(method)
    return (achieved_mfu(table.rollout_flops, table.rollout_seconds, num_gpus, peak),
            achieved_mfu(table.train_flops, table.train_seconds, num_gpus, peak))


def gpu_time_per_token(mfu_rollout, mfu_train, fine_tune="full"):
    """GPU-time per token in units of N FLOPs: 2N / rollout MFU and (6N or 4N) / training MFU, and their ratio."""
    rollout = number("forward_flops_per_param") / np.asarray(mfu_rollout, dtype=float)
    train = training.flops_per_param_per_token(fine_tune) / np.asarray(mfu_train, dtype=float)
    return rollout, train, rollout / train


@dataclass(frozen=True)
class Throughput:
    """Rollout and training throughput of one configuration, and whether the hardware can carry the batch."""
    method: str
    num_gpus: float
    min_gpus: float                 # colocated RL minimum (weights × copies × 1.8)
    replica_gpus: float             # GPUs one rollout-engine copy of the weights spans
    replicas: float
    concurrent_sequences: float     # B·G
    sequences_per_replica: float    # what one replica decodes at once
    tokens_per_sequence: float      # KV length: completion × the average growth multiplier
    single_stream_tps: float        # one sequence on one replica: bandwidth over the weight bytes
    seed_effective_tps: float       # the seed's "effective": single stream × replicas × efficiency
    batched_tps: float              # all B·G sequences decoding together (the roofline with KV reads)
    train_tps: float
    critical_batch: float           # peak FLOP/s over bytes/s, sequences per replica
    arithmetic_intensity: float     # FLOPs per byte of one decode step of a replica
    compute_bound: bool             # intensity above the critical batch
    kv_cache_bytes: float
    kv_available_bytes: float
    kv_fits: bool
    max_sequences: float
    weights_bytes: float            # footprint the KV cache cannot use (the seed's weights × 2.4)
    total_memory_bytes: float
    memory_utilization: float
    decode_mfu: float               # batched decode FLOPs over the cluster's peak


def throughput(arch: ModelArch, gpu: GPU, num_gpus, prompts_per_step, group_size, completion_tokens,
               length_growth=None, efficiency=None, mfu=None, method="seed", fine_tune="lora") -> Throughput:
    """Decode and training tokens/s for a cluster, and the hardware check done per rollout replica.

    The seed checked 1,024 concurrent sequences against the critical batch as if one GPU decoded them all;
    here the B·G sequences are spread over the replicas (one GPU each when the model fits on one), and the
    regime is decided per replica. The seed method keeps the seed's weights-only arithmetic intensity
    (intensity = sequences per replica); the exact method adds the KV-cache bytes each step reads, counts the
    MoE experts a batch touches, and lets decode become compute-bound above the critical batch."""
    efficiency = number("flop_page_mbu") if efficiency is None else efficiency
    mfu = number("flop_page_train_mfu") if mfu is None else mfu
    length_growth = number("length_growth") if length_growth is None else length_growth
    total, active = arch.params(method)
    n = float(num_gpus)
    per_token_kv = float(memory.kv_bytes_per_token(arch, method))
    length = float(tokens.growth_multiplier(length_growth) * completion_tokens)
    state = float(memory.recurrent_bytes_per_sequence(arch, method, length))
    concurrent = float(prompts_per_step * group_size)
    replica = float(min(memory.replica_gpus(total, gpu), max(n, 1.0)))
    replicas = max(np.floor(n / replica), 1.0)
    forward = number("forward_flops_per_param") * active
    peak = gpu.peak_flops(method)

    kv = float(memory.kv_cache_bytes(per_token_kv, concurrent, length, state))
    available = float(memory.kv_memory_available(total, gpu, n))
    max_seqs = float(memory.max_concurrent_sequences(total, gpu, n, per_token_kv, length, state))
    in_flight = concurrent if method == "seed" else float(np.clip(concurrent, 1.0, max(max_seqs, 1.0)))
    batch = in_flight / replicas
    weights_read = float(roofline.weight_bytes_read(arch, batch, method))
    if method == "seed":
        intensity = float(roofline.arithmetic_intensity(batch))
    else:
        intensity = float(roofline.arithmetic_intensity(batch, weights_read, batch * (per_token_kv * length + state),
                                                        forward))
    single = float(roofline.single_stream_tokens_per_second(
        replica * gpu.bandwidth_bytes_per_s, roofline.weight_bytes_read(arch, 1.0, method)))
    batched = float(roofline.decode_tokens_per_second(
        concurrency=in_flight, num_gpus=n, replica_gpus=replica,
        weight_bytes_per_step=lambda b: roofline.weight_bytes_read(arch, b, method),
        kv_bytes_per_token=per_token_kv, context=length, state_bytes_per_sequence=state,
        bandwidth_bytes_per_s=gpu.bandwidth_bytes_per_s, peak_flops=peak, flops_per_token=forward,
        efficiency=efficiency, compute_bound=method != "seed"))
    train_tps = float(training.train_tokens_per_second(n, peak, mfu,
                                                       training.flops_per_param_per_token(fine_tune) * active))
    b_crit = float(roofline.critical_batch(peak, gpu.bandwidth_bytes_per_s))
    weights = float(memory.weight_bytes(total) * number("kv_fit_weight_multiplier"))
    total_memory = n * gpu.memory_bytes
    return Throughput(method, n, float(memory.min_gpus(total, gpu, fine_tune)), replica, float(replicas),
                      concurrent, batch, length, single, single * replicas * efficiency, batched, train_tps, b_crit,
                      intensity, intensity > b_crit, kv, available, kv <= available, max_seqs, weights, total_memory,
                      (weights + kv) / total_memory,
                      float(achieved_mfu(batched * forward, 1.0, n, peak)))


def registry_dates() -> dict[str, list[str]]:
    """The dates the GPU and architecture tables were recorded (each row carries its own)."""
    out = {}
    for label, path, key in (("GPUs", "hardware/gpus.csv", "gpu"), ("model architectures", "models/model_archs.csv",
                                                                    "hf_id")):
        rows = load_table(path, [Column(key), Column("recorded")])
        out[label] = sorted({r["recorded"] for r in rows})
    return out


def flop_page_lengths() -> list[int]:
    """Completion lengths of the seed's per-step table (data/assumptions/defaults.csv: flop_page_lengths)."""
    return [int(x) for x in str(assumption("flop_page_lengths")).split()]


def lora_adapter_share(arch: ModelArch, rank=None, method="seed") -> float:
    """LoRA adapter parameters as a share of the model's parameters (what the optimizer step still touches)."""
    total, _ = arch.params(method)
    return float(lora.lora_params(arch, rank, "seed" if method == "seed" else "exact")) / total


def growth_lengths(completion_tokens, length_growth=None):
    """(start, end, average) completion length of a run whose completions grow linearly by `length_growth`."""
    growth = number("length_growth") if length_growth is None else length_growth
    start = np.asarray(completion_tokens, dtype=float)
    return start, start * growth, start * tokens.growth_multiplier(growth)
