"""One decode step of an inference engine, term by term, and what a serving benchmark measures from it.

A replica of `tp` GPUs decodes `batch` sequences whose mean context is `context` tokens. One step emits one token
per sequence and costs

  overhead    a fixed cost per step (kernel launches, scheduling, sampling) plus a cost per sequence in the batch
              (the engine's bookkeeping and sampling grow with it);
  device      the larger of the memory time and the compute time (kernels stream the weights while they compute):
                memory  = (weight bytes read + KV-cache bytes read) / (tp × HBM bandwidth × bandwidth efficiency),
                          weights stored weight-only as int8/int4 read at the bandwidth efficiency times their own
                          dequantisation efficiency;
                compute = (2 · N_active × the GEMMs' rows + batch × attention FLOPs)
                          / (tp × GEMM ceiling × compute efficiency),
                          at FP8 or FP4 when weights and activations are (on GPUs with such tensor cores), else
                          at BF16; the ceiling is
                          the datasheet's dense peak, or the vendor's measured max-achievable FLOP/s where it
                          publishes one (gemm_ceiling). A GEMM multiplies at least the rows of its tensor-core
                          instruction (gemm_rows: 64 with Hopper's and Blackwell's warpgroup MMA, 16 elsewhere),
                          so a small batch costs as much compute as that many rows — each routed expert's GEMM
                          too, over the tokens routed to it. Where the peak is small against the bandwidth (an H20:
                          148 dense TFLOP/s against 4 TB/s) this, not the weights' bytes, bounds batch-1 decode;
  all-reduce  with tp > 1, two per layer (after attention and after the MLP), each a latency plus
              2 (tp − 1) / tp × batch × hidden × 2 bytes over the GPU's link to its peers.

Weight bytes: every weight the step touches at the checkpoint's precision (int4 with one FP16 scale and zero point
per group of 128 weights), the output head in BF16 (quantised checkpoints keep it in BF16; it is read whether it
is tied to the input embedding or not), and for mixture-of-experts models only the routed experts the batch's
tokens choose (1 − (1 − k/E)^batch of them). KV bytes: the architecture's cache per token at the cache precision
times the context, plus any constant per-sequence state.

`DecodeFeatures` holds everything that does not depend on the fitted efficiencies and overheads (seconds at
efficiency 1, counts), and `step_seconds(features, parameters)` combines them: the fit (analysis/calibration.py)
reduces each published case to features once and searches the parameters, using the very arithmetic a prediction
uses. Everything broadcasts over NumPy arrays, the GPU figures included (sources.hardware.GpuSpecs).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import TinkerNomicsError
from ..sources.defaults import number
from ..sources.hardware import GpuSpecs
from ..sources import engine_memory, quantization
from ..sources.model_record import ModelArch
from . import roofline

# Bytes per stored weight or cached value at each precision a user can name. int4 carries one FP16 scale and one
# FP16 zero point per group of 128 weights (AWQ/GPTQ's usual group size); fp4 (NVFP4) one FP8 scale per 16; mxfp4
# (OCP MX, gpt-oss's experts) one 8-bit power-of-two scale per 32.
PRECISION_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "w8a8": 1.0, "int4": 0.5 + 4.0 / 128,
                   "fp4": 0.5 + 1.0 / 16, "mxfp4": 0.5 + 1.0 / 32}
PRECISIONS = quantization.WEIGHT_PRECISIONS
if set(PRECISION_BYTES) != set(PRECISIONS):
    raise RuntimeError("decode.PRECISION_BYTES must give every weight precision of sources.quantization its bytes")
KV_PRECISIONS = ("bf16", "fp16", "fp8")
WEIGHT_ONLY = ("int8", "int4")        # stored compressed, computed in BF16 after dequantisation
FP8_COMPUTE = ("fp8",)                # weights and activations in 8 bits: the FP8 tensor-core peak
INT8_COMPUTE = ("w8a8",)              # INT8 weights and activations: the INT8 tensor-core peak
FP4_COMPUTE = ("fp4", "mxfp4")       # weights and activations in 4 bits, where the GPU has FP4 tensor cores
HEAD_BYTES = 2.0                      # the output head stays BF16 in quantised checkpoints


def precision_name(name, what: str = "precision", allowed: tuple[str, ...] = PRECISIONS) -> str:
    """The model's name for a precision typed as the model or vLLM spells it (bfloat16, fp8_e4m3, awq, w8a8, …)."""
    return quantization.canonical(name, what, allowed)


def precision_bytes(name: str, what: str = "precision") -> float:
    return PRECISION_BYTES[precision_name(name, what)]


def kv_scale(kv_precision: str) -> float:
    """KV bytes relative to the registry's BF16 figures."""
    return precision_bytes(precision_name(kv_precision, "kv_precision", KV_PRECISIONS)) / PRECISION_BYTES["bf16"]


def gemm_peak(gpus: GpuSpecs, precision: str) -> np.ndarray:
    """The datasheet's dense peak at the GEMM precision: FP8 for FP8 weights, FP4 for FP4 weights, INT8 for W8A8 (a
    GPU without tensor cores of that precision gives its BF16 peak there, as it dequantises them), BF16 otherwise
    (weight-only int8/int4 dequantise to BF16)."""
    name = precision_name(precision)
    return gpus.fp8_flops if name in FP8_COMPUTE else gpus.fp4_flops if name in FP4_COMPUTE \
        else gpus.int8_flops if name in INT8_COMPUTE else gpus.bf16_flops


def gemm_ceiling(gpus: GpuSpecs, precision: str) -> np.ndarray:
    """What the calibrated method's decode and prefill GEMMs run at, at efficiency 1: the vendor's measured
    max-achievable dense FLOP/s where it publishes one (AMD's MI300X and MI325X: their clocks under dense load are
    far below the boost clock the datasheet peak assumes), else the datasheet peak (`gemm_peak`)."""
    name = precision_name(precision)
    return gpus.gemm_fp8_flops if name in FP8_COMPUTE else gpus.gemm_fp4_flops if name in FP4_COMPUTE \
        else gpus.gemm_int8_flops if name in INT8_COMPUTE else gpus.gemm_bf16_flops


def gemm_rows(gpus: GpuSpecs, precision: str) -> np.ndarray:
    """The fewest rows a decode GEMM multiplies, whatever the batch: the M of the tensor-core instruction it is
    built from. NVIDIA's warpgroup MMA (wgmma on compute capability 9.x, tcgen05 on 10.x) multiplies 64 rows;
    mma.sync (Ampere, Ada, the 12.x Blackwell cards) and AMD's MFMA 16; weight-only GEMMs (vLLM's Marlin kernels,
    which dequantise int8/int4, or FP8/FP4 on GPUs without such tensor cores) use mma.sync everywhere
    (defaults.csv: warpgroup_mma_rows, warpgroup_mma_min_cc, warpgroup_mma_end_cc, mma_rows)."""
    cc = np.asarray(np.nan if gpus.compute_capability is None else gpus.compute_capability, dtype=float)
    warpgroup = (cc >= number("warpgroup_mma_min_cc")) & (cc < number("warpgroup_mma_end_cc"))
    dequantised = weight_only(precision, gpus)
    native = ~np.asarray(dequantised, dtype=bool) if dequantised is not False else True
    return np.where(warpgroup & native, number("warpgroup_mma_rows"), number("mma_rows"))


def gemm_tokens(arch: ModelArch, batch, rows, expert_parallel=1.0):
    """A step's weight GEMMs in tokens' worth of 2 · N_active FLOPs: the batch, or the instruction's `rows` where
    the batch is smaller; for a mixture of experts, the shared weights at that count and each routed expert the
    batch touches at the larger of the tokens routed to it and `rows` (1 − (1 − k/E)^batch of the E experts, as
    weight_bytes_read counts them, the busiest expert-parallel rank's with `expert_parallel`)."""
    b = np.asarray(batch, dtype=float)
    if not arch.is_moe:
        return np.maximum(b, rows)
    e, k = arch.num_experts, arch.experts_per_token
    routed = roofline.routed_expert_params(arch)
    per_token = forward_params(arch)
    shared = per_token - routed * k / e
    touched = 1.0 - np.power(1.0 - k / e, np.maximum(b, 1.0))
    if _split(expert_parallel):
        touched = touched * expert_imbalance(arch, b, expert_parallel)
    return (shared * np.maximum(b, rows) + routed * np.maximum(b * k / e, rows * touched)) / per_token


def weight_only(precision: str, gpus: GpuSpecs):
    """Where weights at `precision` are dequantised to BF16 before each GEMM: int8 and int4 everywhere; W8A8 on GPUs
    without INT8 tensor cores (V100); FP8 on GPUs
    without FP8 tensor cores (A100, RTX 3090 …) and FP4 on GPUs without FP4 tensor cores (every one before
    Blackwell and CDNA 4: H100, L40S, MI300X …), where vLLM's FP8 and FP4 Marlin kernels run them weight-only
    (W8A16, W4A16). Marlin needs an NVIDIA GPU of compute capability 8.0 (defaults.csv:
    marlin_min_compute_capability), so FP8 or FP4 weights on an older NVIDIA GPU (V100, T4) are refused in one line.
    AMD parts, which have no compute capability, keep the weight-only answer (ROCm runs them through its own
    kernels). False where nowhere, else a boolean array shaped like the GPUs."""
    name = precision_name(precision)
    if name in WEIGHT_ONLY:
        return np.ones(np.shape(gpus.name), dtype=bool)
    if name in INT8_COMPUTE:   # int8 weights run weight-only anywhere, as int8 does
        return ~np.broadcast_to(np.asarray(gpus.int8_native, dtype=bool), np.shape(gpus.name))
    native = gpus.fp8_native if name in FP8_COMPUTE else gpus.fp4_native if name in FP4_COMPUTE else None
    if native is not None and not np.all(native):
        dequantised = ~np.asarray(native, dtype=bool)
        capability = np.broadcast_to(np.asarray(gpus.compute_capability, dtype=float), np.shape(dequantised))
        needed = number("marlin_min_compute_capability")
        unable = dequantised & (capability < needed)
        if np.any(unable):
            parts = sorted({str(n) for n in np.asarray(gpus.name, dtype=object)[unable].ravel()})
            kind = "FP8" if name in FP8_COMPUTE else "FP4"
            raise TinkerNomicsError(
                f"{name} weights on {', '.join(parts)}: {'it has' if len(parts) == 1 else 'they have'} no {kind} "
                f"tensor cores, and vLLM's {kind} Marlin kernels that run {kind} weight-only elsewhere need an NVIDIA "
                f"GPU of compute capability {needed:.1f} or newer; run bf16, int8 or int4 weights there (--precision)")
        return dequantised
    return False


# ------------------------------------------------------------------------------------------------ sizes

def output_head_params(arch: ModelArch) -> float:
    return float(arch.vocab_size) * float(arch.hidden_size)


def body_params(arch: ModelArch) -> float:
    """Active parameters other than the output head (the N of 2N FLOPs per token, head excluded)."""
    return max(float(arch.active_params) - _head_in_active(arch), 0.0)


def forward_params(arch: ModelArch) -> float:
    """Parameters a token's forward pass multiplies: the body plus the output head (tied or not)."""
    return body_params(arch) + output_head_params(arch)


def _head_in_active(arch: ModelArch) -> float:
    """The output head's share of `active_params`: counted there unless the registry counted a tied head once as
    the (excluded) input embedding."""
    head = output_head_params(arch)
    return 0.0 if arch.tied_embeddings and float(arch.active_params) + head <= float(arch.active_params_incl_embed) \
        else head


def weight_bytes_read(arch: ModelArch, batch, precision: str = "bf16", expert_parallel=1.0):
    """Bytes of weights one decode step of a replica reads for `batch` sequences (see the module docstring), as
    `tp` times what its busiest GPU reads: with `expert_parallel` > 1 the routed experts the batch touches are
    counted as the busiest expert-parallel rank's share (expert_imbalance)."""
    per = PRECISION_BYTES[precision_name(precision)]
    b = np.maximum(np.asarray(batch, dtype=float), 1.0)
    body = body_params(arch)
    head = output_head_params(arch) * HEAD_BYTES
    if not arch.is_moe:
        return np.broadcast_to(body * per + head, np.shape(b))   # one figure at the batch's shape, not materialized
    e, k = arch.num_experts, arch.experts_per_token
    routed = roofline.routed_expert_params(arch)
    touched = 1.0 - np.power(1.0 - k / e, b)
    if _split(expert_parallel):
        touched = touched * expert_imbalance(arch, b, expert_parallel)
    return (body + routed * (touched - k / e)) * per + head


def _split(expert_parallel) -> bool:
    """Whether any GPU group splits its experts whole (expert parallelism above 1)."""
    return bool(np.any(np.asarray(expert_parallel, dtype=float) > 1))


def expert_imbalance(arch: ModelArch, batch, expert_parallel):
    """Expert parallelism over `expert_parallel` GPUs gives each GPU whole experts (E / ep of them) instead of a
    slice of every one, so a decode step lasts as long as the GPU whose experts the batch touches most. With each
    expert touched independently with the probability q = 1 − (1 − k/E)^batch, a GPU's touched count is binomial
    (E / ep, q), and the busiest of ep GPUs reads E[max] / E[mean] times the mean: Σ_j (1 − F(j)^ep) over (E / ep) q.
    1 for a dense model or ep = 1; large at batch 1 (k of E experts on ep GPUs: 2.5× for 8 of 160 on 8 GPUs),
    1 once the batch touches every expert (about 128 sequences there). Routing is taken as uniform (hot experts
    would make it worse); the tokens' GEMM rows are taken as balanced."""
    ep = np.asarray(expert_parallel, dtype=float)
    b = np.maximum(np.asarray(batch, dtype=float), 1.0)
    if not arch.is_moe or np.all(ep <= 1):
        return np.ones(np.broadcast_shapes(np.shape(b), np.shape(ep)))
    e, k = float(arch.num_experts), float(arch.experts_per_token)
    q = 1.0 - np.power(1.0 - k / e, b)
    q, ep = np.broadcast_arrays(q, ep)
    out = np.ones(q.shape)
    pairs, where = np.unique(np.stack([q.ravel(), ep.ravel()]), axis=1, return_inverse=True)
    values = np.array([_busiest_over_mean(int(math.ceil(e / g)), p, int(g)) if g > 1 else 1.0
                       for p, g in pairs.T])
    out.ravel()[:] = values[np.ravel(where)]
    return out


def _busiest_over_mean(m: int, q: float, groups: int) -> float:
    """E[max of `groups` independent binomial(m, q)] / (m q)."""
    q = min(max(q, 1e-12), 1.0 - 1e-12)
    j = np.arange(m + 1)
    log_choose = np.array([math.lgamma(m + 1) - math.lgamma(i + 1) - math.lgamma(m - i + 1) for i in j])
    cdf = np.cumsum(np.exp(log_choose + j * math.log(q) + (m - j) * math.log1p(-q)))
    return float(np.sum(1.0 - np.minimum(cdf[:-1], 1.0) ** groups) / (m * q))


def allreduces_per_step(arch: ModelArch) -> float:
    """Tensor-parallel all-reduces in one forward pass: one after each row-parallel output projection, so two per
    transformer layer (attention, then the MLP or experts) and one per block of a hybrid whose blocks each hold a
    single mixer (Nemotron-H: a Mamba-2, attention or mixture-of-experts block per layer)."""
    return float(arch.num_layers) * (1.0 if arch.arch_type == "nemotron_h" else 2.0)


def allreduce_wire_seconds(arch: ModelArch, gpus: GpuSpecs, tensor_parallel, tokens):
    """Seconds on the wire of one forward pass's tensor-parallel all-reduces over `tokens` tokens (each all-reduce
    `tokens` × hidden BF16 values, 2 (tp − 1) / tp of them each way in a ring) at the bus bandwidth an all-reduce
    reaches over the GPU's link, or the network's past one node; 0 without tensor parallelism."""
    tp = np.asarray(tensor_parallel, dtype=float)
    link = gpus.collective_bytes_per_s
    if np.any(tp > number("gpus_per_node")):
        link = np.where(tp > number("gpus_per_node"), np.minimum(link, number("network_gb_s_per_gpu") * 1e9), link)
    calls = np.where(tp > 1, allreduces_per_step(arch), 0.0)
    message = np.asarray(tokens, dtype=float) * float(arch.hidden_size) * PRECISION_BYTES["bf16"]
    return calls * 2.0 * (tp - 1.0) / np.maximum(tp, 1.0) * message / link


def kv_bytes(arch: ModelArch, tokens, kv_precision: str = "bf16"):
    """Cache of one sequence of `tokens` tokens: token-linear KV plus constant state, at `kv_precision`."""
    from .memory import kv_bytes_per_token, recurrent_bytes_per_sequence
    scale = kv_scale(kv_precision)
    return kv_bytes_per_token(arch, "exact") * scale * np.asarray(tokens, dtype=float) \
        + recurrent_bytes_per_sequence(arch, "exact", tokens) * scale


def kv_read_bytes(arch: ModelArch, context, kv_precision: str = "bf16"):
    """Cache bytes one decode step reads for a sequence at `context` tokens: all of it (kv_bytes), but under DeepSeek
    Sparse Attention only the latents of the `sparse_attention_topk` tokens the indexer picks, beside every token's
    indexer key (which it scores). The indexer's FP8 keys are scaled with the cache's precision like the rest (a
    cache named fp8 halves them too: 132 bytes a token and layer against the latent's 1,152 in BF16)."""
    if not arch.sparse_attention_topk:
        return kv_bytes(arch, context, kv_precision)
    ctx = np.asarray(context, dtype=float)
    scale = kv_scale(kv_precision)
    latent = float(arch.kv_bytes_per_token - arch.indexer_bytes_per_token)
    return (latent * np.minimum(ctx, arch.sparse_attention_topk) + arch.indexer_bytes_per_token * ctx) * scale


def token_flops(arch: ModelArch, context, attention: bool = True):
    """Forward FLOPs of one token at `context` tokens of history: 2 per multiplied parameter plus attention."""
    base = number("forward_flops_per_param") * forward_params(arch)
    return base + roofline.attention_flops_per_token(arch, context) if attention else base


# ------------------------------------------------------------------------------------------------ the step

@dataclass(frozen=True)
class DecodeFeatures:
    """One decode step of a replica, reduced to what does not depend on the fitted parameters."""
    batch: np.ndarray               # sequences decoded at once by the replica
    memory_seconds: np.ndarray      # all bytes read, at bandwidth efficiency 1
    weight_only_share: np.ndarray   # the share of those bytes stored weight-only int8/int4
    compute_seconds: np.ndarray     # FLOPs at compute efficiency 1
    allreduce_calls: np.ndarray     # all-reduces per step (0 without tensor parallelism)
    allreduce_seconds: np.ndarray   # their message bytes over the link (the latency is a fitted parameter)
    eager_layers: np.ndarray = 0.0  # layers whose kernels the host launches one by one (no CUDA graph), 0 with one


def decode_features(arch: ModelArch, gpus: GpuSpecs, tensor_parallel, batch, context, precision: str = "bf16",
                    kv_precision: str = "bf16", attention: bool = True, allreduce: bool = True, peak=None,
                    min_batch: float = 1.0, kv_per_sequence=None, flops_per_token=None,
                    tiles: bool = True, eager=False, expert_parallel=1.0, kv_copies: bool = True) -> DecodeFeatures:
    """A decode step reduced to features. `attention`, `allreduce` and `peak` (default: the GEMM precision's) are
    the method's terms (rl_phases.Terms; default peak: the GEMM ceiling); `min_batch` the smallest batch a step is
    charged for; `tiles` whether a GEMM costs at least its tensor-core instruction's rows (gemm_rows; the
    calibrated method); `expert_parallel` the GPUs of the replica that split the routed experts between them
    (weight_bytes_read); `kv_copies` whether each GPU reads the key/value heads it holds, copies included (kv_held;
    the calibrated method). `kv_per_sequence`
    (kv_bytes) and `flops_per_token` (token_flops) at `context`, where the caller has them already."""
    tp = np.asarray(tensor_parallel, dtype=float)
    b = np.maximum(np.asarray(batch, dtype=float), min_batch)
    weights = weight_bytes_read(arch, b, precision, expert_parallel)   # experts touched by at least one sequence
    if kv_per_sequence is None:
        kv_per_sequence = kv_bytes(arch, context, kv_precision)
    if flops_per_token is None:
        flops_per_token = token_flops(arch, context, attention)
    reads = kv_read_bytes(arch, context, kv_precision) if arch.sparse_attention_topk else kv_per_sequence
    total = weights + b * (kv_held(arch, reads, tp, kv_precision) if kv_copies else reads)
    memory = total / (tp * gpus.bandwidth_bytes_per_s)
    peak = gemm_ceiling(gpus, precision) if peak is None else peak
    if tiles:   # the weights' GEMMs at the instruction's rows at least; attention per sequence
        weights_flops = number("forward_flops_per_param") * forward_params(arch)
        compute = (weights_flops * gemm_tokens(arch, b, gemm_rows(gpus, precision), expert_parallel)
                   + b * (flops_per_token - weights_flops)) / (tp * peak)
    else:
        compute = b * flops_per_token / (tp * peak)
    share = 0.0   # the share of the bytes read that is stored weight-only (dequantised at its own efficiency)
    if weight_only(precision, gpus) is not False:
        share = np.where(weight_only(precision, gpus), (weights - output_head_params(arch) * HEAD_BYTES) / total, 0.0)
    calls = wire = 0.0
    if allreduce and np.any(tp > 1):   # the all-reduces of a step, each of batch × hidden BF16 values
        calls = np.where(tp > 1, allreduces_per_step(arch), 0.0)
        wire = allreduce_wire_seconds(arch, gpus, tp, b)

    def a(x):
        return np.asarray(x, dtype=float)

    return DecodeFeatures(a(b), a(memory), a(share), a(compute), a(calls), a(wire),
                          a(np.where(np.asarray(eager, dtype=bool), float(arch.num_layers), 0.0)))


@dataclass(frozen=True)
class DecodeStep:
    seconds: np.ndarray
    memory_seconds: np.ndarray       # at the fitted efficiencies
    compute_seconds: np.ndarray
    allreduce_seconds: np.ndarray
    overhead_seconds: np.ndarray

    @property
    def bound(self) -> np.ndarray:
        return np.where(self.compute_seconds > self.memory_seconds, "compute", "bandwidth")


def step_seconds(f: DecodeFeatures, p, bandwidth_efficiency=None) -> DecodeStep:
    """Seconds of one decode step at parameters `p` (sources.calibration.ModelParameters);
    `bandwidth_efficiency` overrides the fitted one (a user's --rollout-efficiency)."""
    eta = p.decode_bandwidth_efficiency if bandwidth_efficiency is None else np.asarray(bandwidth_efficiency, float)
    memory = f.memory_seconds * ((1.0 - f.weight_only_share) + f.weight_only_share / p.weight_only_efficiency) / eta
    compute = f.compute_seconds / p.decode_compute_efficiency
    allreduce = f.allreduce_calls * p.allreduce_latency_seconds + f.allreduce_seconds
    overhead = p.decode_step_overhead_seconds + p.decode_sequence_overhead_seconds * f.batch
    device = np.maximum(memory, compute)
    if np.any(f.eager_layers):   # without a CUDA graph the GPU waits on the host's launches where they are slower
        device = np.maximum(device, f.eager_layers * p.eager_layer_seconds)
    return DecodeStep(overhead + device + allreduce, memory, compute, allreduce, overhead)


def prefill_seconds(arch: ModelArch, gpus: GpuSpecs, p, tensor_parallel, prompt_tokens, sequences,
                    precision: str = "bf16"):
    """Seconds a replica spends on the prompts of `sequences` sequences of `prompt_tokens` each (causal attention
    over the prompt, mean context half of it), at the compute efficiency of the GEMM ceiling."""
    return prefill_flops(arch, prompt_tokens, sequences) \
        / (np.asarray(tensor_parallel, dtype=float) * gemm_ceiling(gpus, precision)) / p.decode_compute_efficiency


def prefill_flops(arch: ModelArch, prompt_tokens, sequences):
    """Forward FLOPs of the prompts of `sequences` sequences of `prompt_tokens` each (mean context half the prompt)."""
    tokens = np.asarray(prompt_tokens, dtype=float)
    return np.asarray(sequences, dtype=float) * tokens * token_flops(arch, tokens / 2.0)


# ------------------------------------------------------------------------------------------------ engine memory

def smallest_replica(arch: ModelArch, gpus: GpuSpecs, sequence_tokens, memory_fraction, precision: str = "bf16",
                     kv_precision: str = "bf16", max_num_seqs=None, held=None):
    """GPUs one engine copy needs: the smallest power of two whose `memory_fraction` of memory, less what the engine
    reserves on each GPU (engine_memory.reserved_bytes: more on a tensor-parallel group), holds the weights and one
    full sequence's cache (`held`, in GPUs' worth, where the caller has it: replica_memory)."""
    if held is None:
        held = replica_memory(arch, gpus, sequence_tokens, precision, kv_precision)
    seqs = engine_max_num_seqs(gpus) if max_num_seqs is None else max_num_seqs

    def usable(tp):   # the share of each GPU's memory the weights and the cache may take
        share = np.asarray(memory_fraction, float) - engine_memory.reserved_bytes(arch.vocab_size, seqs, tp) \
            / engine_memory.engine_memory_bytes(gpus)
        return np.maximum(share, 1e-9)

    alone = power_of_two_above(held / usable(1.0))
    return np.where(alone > 1, power_of_two_above(held / usable(2.0)), alone)


def replica_memory(arch: ModelArch, gpus: GpuSpecs, sequence_tokens, precision: str = "bf16",
                   kv_precision: str = "bf16"):
    """The weights and one full sequence's cache, in GPUs' worth of memory as an engine sees it
    (engine_memory.engine_memory_bytes)."""
    return (float(arch.total_params) * PRECISION_BYTES[precision_name(precision)]
            + kv_bytes(arch, sequence_tokens, kv_precision)) / engine_memory.engine_memory_bytes(gpus)


# ------------------------------------------------------------------------------------------------ engine layouts

def engine_sizes(arch: ModelArch) -> np.ndarray:
    """The tensor-parallel sizes an engine of `arch` may take (layout_allowed), smallest first; powers of two where
    the heads are not known."""
    heads = int(arch.num_heads or 0)
    if not heads:
        return np.power(2.0, np.arange(int(math.log2(number("max_gpus"))) + 1))
    sizes = np.arange(1.0, heads + 1.0)
    return sizes[layout_allowed(arch, sizes)]


def _kv_heads(arch: ModelArch) -> int:
    """The key/value heads a tensor-parallel engine splits or copies: none for multi-head latent attention (its one
    latent is held whole on every GPU) or where the config does not say."""
    return 0 if arch.is_mla else int(arch.num_kv_heads or 0)


def layout_allowed(arch: ModelArch, tensor_parallel, num_gpus=None):
    """The rule every engine layout keeps, given or chosen by default: the tensor-parallel size splits the attention
    heads evenly and the key/value heads too, or copies them whole (a size that is a multiple of them), as vLLM's
    QKVParallelLinear requires (vllm/model_executor/layers/linear.py: divide(total_num_kv_heads, tp_size), or
    divide(tp_size, total_num_kv_heads) where the size is the larger); with `num_gpus`, it divides the GPUs into
    whole engine copies."""
    tp = np.asarray(tensor_parallel, dtype=float)
    heads, kv = int(arch.num_heads or 0), _kv_heads(arch)
    ok = (np.mod(heads, tp) == 0) if heads else np.ones(np.shape(tp), dtype=bool)
    if kv:
        ok = ok & np.where(tp >= kv, np.mod(tp, kv) == 0, np.mod(kv, tp) == 0)
    return ok if num_gpus is None else ok & (np.mod(np.asarray(num_gpus, dtype=float), tp) == 0)


def heads_text(arch: ModelArch) -> str:
    """The heads the layout rule splits, in words: "28 attention and 4 key/value heads" ("32 attention heads" where
    the key/value heads are as many, or under multi-head latent attention)."""
    heads, kv = int(arch.num_heads or 0), _kv_heads(arch)
    return f"{heads} attention and {kv} key/value heads" if kv and kv != heads else f"{heads} attention heads"


def kv_copies(arch: ModelArch, tensor_parallel):
    """How many GPUs of a tensor-parallel engine hold each key/value head (vLLM's num_kv_head_replicas): 1 while
    the size splits them, size / heads once it is larger (each GPU keeps one head whole), and every GPU for a
    multi-head latent attention's latent (vLLM's ModelConfig.get_num_kv_heads: 1 under MLA)."""
    tp = np.maximum(np.asarray(tensor_parallel, dtype=float), 1.0)
    if arch.is_mla:
        return tp
    kv = int(arch.num_kv_heads or 0)
    return np.maximum(tp / kv, 1.0) if kv else np.ones(np.shape(tp))


def kv_held(arch: ModelArch, per_sequence, tensor_parallel, kv_precision: str = "bf16"):
    """One sequence's cache as a tensor-parallel engine holds it over all its GPUs: the attention's keys and values
    (`per_sequence`, kv_bytes, less the recurrent state, which splits with its heads) once per copy (kv_copies)."""
    copies = kv_copies(arch, tensor_parallel)
    per_sequence = np.asarray(per_sequence, dtype=float)
    if np.all(copies == 1.0):
        return per_sequence
    state = float(arch.recurrent_bytes_per_sequence) * kv_scale(kv_precision)
    return per_sequence + (copies - 1.0) * np.maximum(per_sequence - state, 0.0)


def smallest_layout(arch: ModelArch, need, num_gpus=None):
    """The smallest allowed tensor-parallel size (layout_allowed) of at least `need` GPUs, dividing `num_gpus`
    where given; NaN where there is none."""
    need = np.asarray(need, dtype=float)
    n = None if num_gpus is None else np.asarray(num_gpus, dtype=float)
    out = np.full(np.broadcast_shapes(np.shape(need), np.shape(n) if n is not None else ()), np.nan)
    for d in engine_sizes(arch)[::-1]:   # largest first, so the smallest that qualifies is kept last
        ok = (d >= need) if n is None else (d >= need) & (np.mod(n, d) == 0)
        out = np.where(ok, d, out)
    return out


def smallest_layout_count(arch: ModelArch, need, at_least):
    """The smallest GPU count of at least `at_least` that engine copies of an allowed size of at least `need` GPUs
    fill whole (a multiple of that size); NaN where no allowed size is that large."""
    need, at_least = np.asarray(need, dtype=float), np.asarray(at_least, dtype=float)
    out = np.full(np.broadcast_shapes(np.shape(need), np.shape(at_least)), np.inf)
    for d in engine_sizes(arch):
        out = np.where(d >= need, np.minimum(out, np.ceil(at_least / d - 1e-9) * d), out)
    return np.where(np.isfinite(out), out, np.nan)


def power_of_two_above(x):
    """The smallest power of two at or above `x` (at least 1)."""
    return np.power(2.0, np.ceil(np.log2(np.maximum(x, 1.0))))


def kv_capacity(arch: ModelArch, gpus: GpuSpecs, tensor_parallel, context_tokens, memory_fraction,
                precision: str = "bf16", kv_precision: str = "bf16", per_sequence=None, max_num_seqs=None):
    """Sequences one replica holds at once: its cache budget (kv_budget) over one sequence's cache at
    `context_tokens` (`per_sequence`, kv_bytes, where the caller has it already) as the engine holds it (kv_held:
    key/value heads copied on GPUs past their number)."""
    tp = np.asarray(tensor_parallel, dtype=float)
    budget = kv_budget(arch, gpus, tp, memory_fraction, precision, max_num_seqs)
    if per_sequence is None:
        per_sequence = kv_bytes(arch, context_tokens, kv_precision)
    per_sequence = kv_held(arch, per_sequence, tp, kv_precision)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(per_sequence > 0, np.floor(budget / per_sequence), np.inf)


def kv_budget(arch: ModelArch, gpus: GpuSpecs, tensor_parallel, memory_fraction, precision: str = "bf16",
              max_num_seqs=None):
    """Cache bytes one replica has over all its GPUs: the memory left after the weights and what the engine reserves
    on each GPU (its profiled activation peak for `max_num_seqs` sequences, default the engine's cap, and the memory
    outside PyTorch: engine_memory.reserved_bytes); none where that is nothing."""
    tp = np.asarray(tensor_parallel, dtype=float)
    seqs = engine_max_num_seqs(gpus) if max_num_seqs is None else max_num_seqs
    budget = tp * (np.asarray(memory_fraction, dtype=float) * engine_memory.engine_memory_bytes(gpus)
                   - engine_memory.reserved_bytes(arch.vocab_size, seqs, tp)) \
        - float(arch.total_params) * PRECISION_BYTES[precision_name(precision)]
    return np.maximum(budget, 0.0)


def engine_max_num_seqs(gpus: GpuSpecs):
    """vLLM's default running-batch cap: 1024 sequences on GPUs of at least 70 GiB that are not A100s, else 256
    (data/assumptions/defaults.csv, from vLLM's EngineArgs.get_batch_defaults)."""
    big = (gpus.memory_bytes >= number("engine_large_gpu_gib") * 2 ** 30) & \
        ~np.char.startswith(np.asarray(gpus.name, dtype=str), "A100")
    return np.where(big, number("engine_max_num_seqs_large_gpu"), number("engine_max_num_seqs"))


# ------------------------------------------------------------------------------------------------ a benchmark

@dataclass(frozen=True)
class ServingPlan:
    """How a serving benchmark's requests land on the GPUs (no fitted parameter involved)."""
    tensor_parallel: np.ndarray
    replicas: np.ndarray
    batch: np.ndarray                 # sequences per replica at once
    requested: np.ndarray
    memory_capped: np.ndarray         # the KV cache, not the request count or the engine cap, set the batch
    feasible: np.ndarray              # the weights and one full sequence fit in one replica
    features: DecodeFeatures
    prefill_units: np.ndarray         # the prompts' seconds at compute efficiency 1, per replica batch
    output_tokens: np.ndarray
    prefill_wire: np.ndarray = 0.0    # the prompts' tensor-parallel all-reduces on the wire, per replica batch
    decode_steps: np.ndarray = None   # decode steps a replica runs for its `prompts` (default `output_tokens`)
    prompts: np.ndarray = None        # requests a replica serves over those steps (default `batch`)
    busy: np.ndarray = None           # replicas with a request in flight (default `replicas`)


def drain_steps(tokens, batch, mean, longest):
    """Continuous batching of `tokens` output tokens (requests of `mean` tokens on average, the longest `longest`)
    at most `batch` sequences at a time: (decode steps, mean active batch). The steady state runs tokens / batch
    steps; the last requests drain over the longest one's tokens at a falling batch, so the steps are
    max(longest, tokens / batch + longest − mean), and every step decodes tokens / steps sequences on average.
    Requests of one length all finish together, so a batch that cannot take them all runs whole waves of `mean`
    steps. The rollout of an RL step (rl_phases) and a serving benchmark's prompts run the same arithmetic."""
    steps = np.maximum(longest, tokens / batch + longest - mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        waves = np.ceil(tokens / np.maximum(mean, 1e-300) / batch - 1e-9) * mean
    steps = np.where(longest == mean, np.maximum(waves, mean), steps)
    return steps, np.maximum(tokens / np.maximum(steps, 1.0), 1.0)


def serving_plan(arch: ModelArch, gpus: GpuSpecs, num_gpus, concurrency, input_tokens, output_tokens,
                 precision: str = "bf16", kv_precision: str = "bf16", tensor_parallel=None, max_num_seqs=None,
                 memory_fraction=None, num_prompts=None, max_output_tokens=None, expert_parallel=1.0) -> ServingPlan:
    """`concurrency` requests of `input_tokens` in and `output_tokens` out on `num_gpus` GPUs, one tensor-parallel
    replica over all of them unless `tensor_parallel` says otherwise; each replica decodes at most `max_num_seqs`
    (default: vLLM's) and what its KV cache holds at the mean context. By default the steady state: each replica's
    batch decodes its outputs after its prompts. A benchmark run of `num_prompts` requests (vLLM's bench serve
    --num-prompts, at most `concurrency` in flight) whose outputs vary, the longest `max_output_tokens` (a
    dataset's, such as ShareGPT's), is timed from its first prompt to its last token: every prompt's prefill, and
    the decode steps of continuous batching with the drain of the longest output (drain_steps). With
    `expert_parallel` > 1 the routed experts of a mixture of experts are split whole over that many GPUs of each
    replica (expert_imbalance); the dispatch and combine that replace the experts' all-reduce are charged as it."""
    fraction = number("engine_memory_fraction") if memory_fraction is None else memory_fraction
    n = np.asarray(num_gpus, dtype=float)
    tp = n if tensor_parallel is None else np.asarray(tensor_parallel, dtype=float)
    replicas = np.maximum(np.floor(n / tp), 1.0)
    i, o = np.asarray(input_tokens, dtype=float), np.asarray(output_tokens, dtype=float)
    context = i + o / 2.0
    longest = o if max_output_tokens is None else np.maximum(np.asarray(max_output_tokens, dtype=float), o)
    limit = engine_max_num_seqs(gpus) if max_num_seqs is None else np.asarray(max_num_seqs, dtype=float)
    cap = kv_capacity(arch, gpus, tp, context, fraction, precision, kv_precision, max_num_seqs=limit)
    one = kv_capacity(arch, gpus, tp, i + longest, fraction, precision, kv_precision, max_num_seqs=limit) >= 1
    requested = np.asarray(concurrency, dtype=float)
    total = requested if num_prompts is None else np.asarray(num_prompts, dtype=float)   # requests in the run
    # the requests in flight, `concurrency` at most across every replica (and no more than the run sends), spread
    # over as many replicas as there are requests: a replica left without one decodes nothing
    flight = np.minimum(requested, total)
    busy = np.clip(np.floor(flight), 1.0, replicas)
    wanted = np.minimum(flight / busy, limit)
    batch = np.maximum(np.minimum(wanted, cap), 1.0)
    if num_prompts is None and max_output_tokens is None:   # the steady state
        steps, active, prompts = o, batch, batch
    else:
        prompts = total / busy
        steps, active = drain_steps(prompts * o, batch, o, longest)
    features = decode_features(arch, gpus, tp, active, context, precision, kv_precision,
                               expert_parallel=expert_parallel)
    unit = _UnitParameters()
    prefill = prefill_seconds(arch, gpus, unit, tp, i, prompts, precision)
    wire = allreduce_wire_seconds(arch, gpus, tp, i * prompts)
    shape = np.shape(features.memory_seconds)

    def b(x):
        return np.broadcast_to(x, shape)

    return ServingPlan(b(tp), b(replicas), b(batch), b(requested), b(wanted > cap), b(one), features, b(prefill),
                       b(o), b(wire), b(steps), b(prompts), b(busy))


def serving_throughput(plan: ServingPlan, p):
    """Output tokens/s of the plan at parameters `p`: each replica's requests decode over its decode steps after
    their prompts are processed (prefill at the compute efficiency, its all-reduces on the wire), all replicas in
    parallel."""
    step = step_seconds(plan.features, p)
    seconds = plan.decode_steps * step.seconds + plan.prefill_units / p.decode_compute_efficiency \
        + plan.prefill_wire
    busy = plan.replicas if plan.busy is None else plan.busy
    return busy * plan.prompts * plan.output_tokens / seconds, step


class _UnitParameters:
    """Efficiency 1 and no overhead: what features are measured in."""
    decode_compute_efficiency = 1.0
