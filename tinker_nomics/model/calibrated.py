"""The calibrated method's rollout and training model: the roofline made to match published measurements.

Built on the exact method (architecture-exact bytes and FLOPs, MoE experts touched, sharded replicas), with
the structure that leave-one-source-out checks against published decode and RL-step measurements supported
(the accuracy chapter; tools/calibrate.py fits the efficiencies and writes data/calibration/efficiencies.csv):

  engine memory   a serving engine holds `memory_fraction` of each GPU's memory, weights included (vLLM's
                  gpu_memory_utilization); the KV cache gets what the weights leave. A replica spans the
                  smallest power-of-two number of GPUs whose memory holds the weights and one full sequence.
  concurrency     the sequences decoded at once: the requested ones, capped by the KV cache (at the mean
                  context of a sequence) and, for RL rollouts, by the engine's max_num_seqs; a rollout larger
                  than that runs in waves.
  decode step     memory time (weights touched + KV read) at `bandwidth` efficiency (one for dense models,
                  one for mixture-of-experts) PLUS compute time (2·N_active + attention FLOPs per token) at
                  `compute` efficiency (they do not overlap at decode batch sizes), plus a tensor-parallel
                  synchronisation of `tp_sync` seconds per layer per doubling of the replica.
  prefill         the prompts' FLOPs at the same compute efficiency (chunked prefill shares the decode steps).
  RL generation   waves × output length decode steps at the batch that fits, the prefill, and the tail: the
                  longest sequences keep decoding alone for `tail` × the mean output length.
  RL training     (6N full or 4N LoRA + attention) FLOPs per trained token at a fitted MFU, one for dense and
                  one for mixture-of-experts models; off-policy k >= 1 overlaps generation and training.

Everything broadcasts over NumPy arrays; the architecture and the GPU are scalars.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import TinkerNomicsError
from ..sources.calibration import Efficiencies
from ..sources.defaults import number
from ..sources.hardware import GPU
from ..sources.model_record import ModelArch
from . import memory, roofline, training

# Bytes per weight or cached value at each precision a user can name.
PRECISION_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}
PRECISIONS = tuple(PRECISION_BYTES)


def precision_bytes(name: str, what: str = "precision") -> float:
    key = str(name).strip().lower()
    if key not in PRECISION_BYTES:
        raise TinkerNomicsError(f"{what} must be one of {', '.join(PRECISIONS)}, got {name!r}")
    return PRECISION_BYTES[key]


def peak_flops(gpu: GPU, precision: str = "bf16") -> float:
    """Dense peak FLOP/s for GEMMs at a weight precision: BF16 for bf16/fp16; the FP8 figure for fp8, int8 and
    int4 (the registry has no INT8/FP4 peak; where it has no FP8 peak either, the BF16 one)."""
    key = str(precision).strip().lower()
    if key in ("fp8", "int8", "int4") and gpu.fp8_dense_tflops:
        return gpu.fp8_dense_tflops * 1e12
    return gpu.peak_flops("exact")


def kv_scale(kv_precision: str) -> float:
    """KV bytes relative to the registry's BF16 figures."""
    return precision_bytes(kv_precision, "kv_precision") / PRECISION_BYTES["bf16"]


# ------------------------------------------------------------------------------------------------ memory

def sequence_kv_bytes(arch: ModelArch, tokens, kv_precision: str = "bf16"):
    """Cache of one sequence of `tokens` tokens: token-linear KV plus constant state, at `kv_precision`."""
    scale = kv_scale(kv_precision)
    return memory.kv_bytes_per_token(arch, "exact") * scale * np.asarray(tokens, dtype=float) \
        + memory.recurrent_bytes_per_sequence(arch, "exact") * scale


def smallest_replica(arch: ModelArch, gpu: GPU, full_sequence_tokens, memory_fraction, weight_bytes_per_param=2.0,
                     kv_precision: str = "bf16"):
    """GPUs one engine copy needs: the smallest power of two whose `memory_fraction` of memory holds the
    weights and one full sequence's cache."""
    need = (float(arch.total_params) * np.asarray(weight_bytes_per_param, dtype=float)
            + sequence_kv_bytes(arch, full_sequence_tokens, kv_precision)) \
        / (np.asarray(memory_fraction, dtype=float) * gpu.memory_bytes)
    return np.power(2.0, np.ceil(np.log2(np.maximum(need, 1.0))))


def kv_capacity(arch: ModelArch, gpu: GPU, tensor_parallel, mean_context_tokens, memory_fraction,
                weight_bytes_per_param=2.0, kv_precision: str = "bf16"):
    """Sequences one replica decodes at once: the memory left after the weights over one sequence's cache at
    its mean context (sequences in flight are, on average, half-way through their output)."""
    budget = np.asarray(memory_fraction, dtype=float) * np.asarray(tensor_parallel, dtype=float) * gpu.memory_bytes \
        - float(arch.total_params) * np.asarray(weight_bytes_per_param, dtype=float)
    per_sequence = sequence_kv_bytes(arch, mean_context_tokens, kv_precision)
    with np.errstate(divide="ignore", invalid="ignore"):
        fit = np.where(per_sequence > 0, np.floor(np.maximum(budget, 0.0) / per_sequence), np.inf)
    return fit


# ------------------------------------------------------------------------------------------------ decode

@dataclass(frozen=True)
class DecodeStep:
    seconds: np.ndarray           # one decode step of one replica
    memory_seconds: np.ndarray    # weights and KV read, at the bandwidth efficiency
    compute_seconds: np.ndarray   # FLOPs at the compute efficiency
    sync_seconds: np.ndarray      # tensor-parallel synchronisation


def decode_step(arch: ModelArch, gpu: GPU, eff: Efficiencies, tensor_parallel, batch, context,
                weight_bytes_per_param=2.0, kv_precision: str = "bf16", precision: str = "bf16",
                bandwidth_efficiency=None) -> DecodeStep:
    """Seconds of one decode step of a replica of `tensor_parallel` GPUs decoding `batch` sequences at a mean
    `context`. `bandwidth_efficiency` overrides the fitted one (a user's --rollout-efficiency)."""
    tp = np.asarray(tensor_parallel, dtype=float)
    b = np.maximum(np.asarray(batch, dtype=float), 1.0)
    ctx = np.asarray(context, dtype=float)
    weights = roofline.weight_bytes_read(arch, b, "exact", weight_bytes_per_param)
    kv = b * sequence_kv_bytes(arch, ctx, kv_precision)
    eta = eff.bandwidth(arch) if bandwidth_efficiency is None else np.asarray(bandwidth_efficiency, dtype=float)
    mem = (weights + kv) / (tp * gpu.bandwidth_bytes_per_s) / eta
    flops = b * (number("forward_flops_per_param") * float(arch.active_params)
                 + roofline.attention_flops_per_token(arch, ctx))
    comp = flops / (tp * peak_flops(gpu, precision)) / eff.compute
    sync = arch.num_layers * eff.tp_sync_seconds * np.log2(np.maximum(tp, 1.0))
    return DecodeStep(mem + comp + sync, mem, comp, np.broadcast_to(sync, np.shape(mem)))


def prefill_seconds(arch: ModelArch, gpu: GPU, eff: Efficiencies, tensor_parallel, prompt_tokens_per_sequence,
                    sequences, precision: str = "bf16"):
    """Seconds a replica spends on the prompts of `sequences` sequences (causal attention over the prompt)."""
    p = np.asarray(prompt_tokens_per_sequence, dtype=float)
    flops = np.asarray(sequences, dtype=float) * p * (
        number("forward_flops_per_param") * float(arch.active_params) + roofline.attention_flops_per_token(arch, p / 2.0))
    return flops / (np.asarray(tensor_parallel, dtype=float) * peak_flops(gpu, precision)) / eff.compute


@dataclass(frozen=True)
class DecodeThroughput:
    output_tokens_per_second: np.ndarray
    concurrency: np.ndarray          # sequences decoded at once, all replicas
    requested: np.ndarray
    tensor_parallel: np.ndarray
    replicas: np.ndarray
    bound: np.ndarray                # "bandwidth", "compute" or "memory" (the KV cache capped the batch)
    feasible: np.ndarray             # the weights and one sequence fit in one replica
    step: DecodeStep


def decode_throughput(arch: ModelArch, gpu: GPU, eff: Efficiencies, num_gpus, concurrency, input_tokens,
                      output_tokens, precision: str = "bf16", kv_precision: str = "bf16", tensor_parallel=None,
                      memory_fraction=None) -> DecodeThroughput:
    """Output tokens/s of an engine serving `concurrency` requests of `input_tokens` in and `output_tokens` out
    on `num_gpus` GPUs (one tensor-parallel replica over all of them unless `tensor_parallel` says otherwise),
    prefill included, as a throughput benchmark measures it."""
    bpp = precision_bytes(precision)
    fraction = number("engine_memory_fraction") if memory_fraction is None else memory_fraction
    n = np.asarray(num_gpus, dtype=float)
    tp = n if tensor_parallel is None else np.asarray(tensor_parallel, dtype=float)
    replicas = np.maximum(np.floor(n / tp), 1.0)
    i, o = np.asarray(input_tokens, dtype=float), np.asarray(output_tokens, dtype=float)
    cap = kv_capacity(arch, gpu, tp, i + o / 2.0, fraction, bpp, kv_precision)
    one = kv_capacity(arch, gpu, tp, i + o, fraction, bpp, kv_precision) >= 1
    requested = np.asarray(concurrency, dtype=float)
    batch = np.maximum(np.minimum(requested / replicas, cap), 1.0)
    step = decode_step(arch, gpu, eff, tp, batch, i + o / 2.0, bpp, kv_precision, precision)
    prefill = prefill_seconds(arch, gpu, eff, tp, i, batch, precision)
    tps = replicas * batch * o / (o * step.seconds + prefill)
    capped = requested / replicas > cap
    bound = np.where(capped, "memory", np.where(step.compute_seconds > step.memory_seconds, "compute", "bandwidth"))
    return DecodeThroughput(tps, batch * replicas, requested, np.broadcast_to(tp, np.shape(tps)),
                            np.broadcast_to(replicas, np.shape(tps)), bound, np.broadcast_to(one, np.shape(tps)), step)


# ------------------------------------------------------------------------------------------------ RL step

@dataclass(frozen=True)
class Rollout:
    """How one RL step's generation runs on the GPUs."""
    tensor_parallel: np.ndarray     # GPUs per engine copy
    replicas: np.ndarray
    concurrency: np.ndarray         # sequences decoded at once, all replicas
    waves: np.ndarray               # rounds of generation a step needs at that concurrency
    feasible: np.ndarray            # the weights and one full sequence fit on the GPUs given
    min_gpus: np.ndarray            # the smallest GPU count whose memory holds one replica
    decode_seconds: np.ndarray      # per step, waves of decode plus the tail
    prefill_seconds: np.ndarray     # per step
    step: DecodeStep


def rollout(arch: ModelArch, gpu: GPU, eff: Efficiencies, num_gpus, samples, prompt_tokens, output_tokens,
            context_tokens=None, sequence_tokens=None, bandwidth_efficiency=None, precision: str = "bf16",
            kv_precision: str = "bf16") -> Rollout:
    """One step's generation: `samples` sequences of `prompt_tokens` prompt (uncached share) and `output_tokens`
    sampled tokens on `num_gpus` GPUs, replicas of the smallest power-of-two size that holds the weights and
    one full sequence in the rollout engine's memory share, at most the engine's max_num_seqs per replica,
    in waves. `context_tokens` is the mean context while decoding (default prompt +
    half the output) and `sequence_tokens` a sequence's full length (default prompt + output)."""
    bpp = precision_bytes(precision)
    p, o = np.asarray(prompt_tokens, dtype=float), np.asarray(output_tokens, dtype=float)
    ctx = p + o / 2.0 if context_tokens is None else np.asarray(context_tokens, dtype=float)
    full = p + o if sequence_tokens is None else np.asarray(sequence_tokens, dtype=float)
    n = np.asarray(num_gpus, dtype=float)
    # A colocated job's rollout engine gets the RL framework's share of memory; where that cannot hold a
    # replica on the GPUs given, the engine takes a serving engine's share (the trainer's state offloaded).
    shared = number("rollout_memory_fraction")
    alone = number("engine_memory_fraction")
    need_shared = smallest_replica(arch, gpu, full, shared, bpp, kv_precision)
    need_alone = smallest_replica(arch, gpu, full, alone, bpp, kv_precision)
    fraction = np.where(need_shared <= n, shared, alone)
    need = np.where(need_shared <= n, need_shared, need_alone)
    feasible = need <= n
    tp = np.minimum(need, np.power(2.0, np.floor(np.log2(np.maximum(n, 1.0)))))
    replicas = np.maximum(np.floor(n / tp), 1.0)
    cap = np.maximum(kv_capacity(arch, gpu, tp, ctx, fraction, bpp, kv_precision), 1.0)
    per_replica = np.asarray(samples, dtype=float) / replicas
    batch = np.maximum(np.minimum(np.minimum(per_replica, cap), number("rollout_max_num_seqs")), 1.0)
    waves = np.ceil(per_replica / batch - 1e-9)
    step = decode_step(arch, gpu, eff, tp, batch, ctx, bpp, kv_precision, precision, bandwidth_efficiency)
    last = decode_step(arch, gpu, eff, tp, 1.0, full, bpp, kv_precision, precision, bandwidth_efficiency)
    decode = waves * o * step.seconds + eff.tail * o * last.seconds
    prefill = prefill_seconds(arch, gpu, eff, tp, p, per_replica, precision)
    return Rollout(tp, replicas, batch * replicas, waves, np.broadcast_to(feasible, np.shape(decode)),
                   np.broadcast_to(need, np.shape(decode)), decode, prefill, step)


def train_seconds(arch: ModelArch, gpu: GPU, eff: Efficiencies, num_gpus, trained_tokens, context_tokens,
                  fine_tune: str = "full", mfu=None):
    """Seconds to train on `trained_tokens` tokens: FLOPs per token (LoRA 4N or full 6N, plus the backward
    attention) over the GPUs' BF16 peak at the fitted MFU of the model's class (or `mfu`)."""
    per_token = training.flops_per_param_per_token(fine_tune) * float(arch.active_params) \
        + 3.0 * roofline.attention_flops_per_token(arch, context_tokens)
    utilization = eff.mfu(arch) if mfu is None else np.asarray(mfu, dtype=float)
    tps = training.train_tokens_per_second(num_gpus, gpu.peak_flops("exact"), utilization, per_token)
    return np.asarray(trained_tokens, dtype=float) / tps


def step_seconds(generation, train, off_policy):
    """A step's wall-clock: generation then training when on-policy (k = 0); overlapped (the longer) when k >= 1."""
    return training.wallclock_hours(generation, train, off_policy)
