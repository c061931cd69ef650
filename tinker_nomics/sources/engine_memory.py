"""What a vLLM engine holds on each GPU besides its weights and its KV cache, from the memory profile vLLM logs at
start-up (data/measurements/vllm_memory_profiles.csv: 'model weights take …; non_torch_memory takes …; PyTorch
activation peak memory takes …; the rest of the memory reserved for KV Cache is …').

vLLM V1 sizes the KV cache as gpu_memory_utilization × the GPU's memory − weights − the activation peak of a
profiling run − the memory outside PyTorch (vllm/v1/worker/gpu_worker.py determine_available_memory); the rows of
the newest release with a published sweep reproduce that identity to 0.01 GiB. The profiling run ends with the
sampler over max_num_seqs rows of the vocabulary's FP32 logits (vllm/v1/worker/gpu_model_runner.py, a full sort
for top-k/top-p), and that is what sets the peak: across 2B–72B models the peak is a fixed multiple of
max_num_seqs × vocabulary × 4 bytes whatever the model's width or the tensor parallelism. The memory outside
PyTorch is NCCL's and the custom all-reduce's buffers: a quarter GiB on one GPU, about two on a tensor-parallel
group. CUDA graphs are captured after the cache is sized and live in the 1 − gpu_memory_utilization headroom.

Both figures are medians of the group `CURRENT` (vLLM 0.19, H100, `vllm serve` defaults); older releases reserve more
(0.10–0.11: about 2.4× the sampler's multiple), which the other groups in the table show."""
from __future__ import annotations

import functools

import numpy as np

from ..errors import TinkerNomicsError
from .defaults import number
from .tables import Column, load_table

WHERE = "measurements/vllm_memory_profiles.csv"
CURRENT = "V1-0.19"
GIB = 2.0 ** 30
LOGIT_BYTES = 4.0   # the sampler's logits are FP32


@functools.lru_cache(maxsize=None)
def profiles() -> list[dict]:
    rows = load_table(WHERE, [Column("group"), Column("source"), Column("model"), Column("gpu"),
                              Column("registry_gpu", required=False), Column("gpu_total_gib", "float", required=False),
                              Column("tp", "int"),
                              Column("pp", "int"), Column("max_num_seqs", "float"), Column("vllm_version"),
                              Column("non_torch_gib", "float"), Column("activation_peak_gib", "float"),
                              Column("vocab_size", "float")])
    for r in rows:
        if not (r["tp"] >= 1 and r["pp"] >= 1 and r["max_num_seqs"] >= 1 and r["vocab_size"] >= 1
                and 0 <= r["non_torch_gib"] < 100 and 0 <= r["activation_peak_gib"] < 1000):
            raise TinkerNomicsError(f"{WHERE} row {r['_row']}: {r['model']}: not a memory profile this table can hold")
    return rows


def _current() -> list[dict]:
    rows = [r for r in profiles() if r["group"] == CURRENT and r["pp"] == 1]
    if not rows:
        raise TinkerNomicsError(f"{WHERE} has no row of group {CURRENT}")
    return rows


@functools.lru_cache(maxsize=None)
def sampler_multiple() -> float:
    """The activation peak over max_num_seqs × vocabulary × 4 bytes (the median over the current group's rows)."""
    return float(np.median([r["activation_peak_gib"] * GIB / (r["max_num_seqs"] * r["vocab_size"] * LOGIT_BYTES)
                            for r in _current()]))


@functools.lru_cache(maxsize=None)
def non_torch_bytes() -> tuple[float, float]:
    """The memory outside PyTorch on one GPU: (an engine on one GPU, one of a tensor-parallel group)."""
    rows = _current()
    single = [r["non_torch_gib"] for r in rows if r["tp"] == 1]
    group = [r["non_torch_gib"] for r in rows if r["tp"] > 1]
    if not single or not group:
        raise TinkerNomicsError(f"{WHERE}: group {CURRENT} needs rows on one GPU and on a tensor-parallel group")
    return float(np.median(single)) * GIB, float(np.median(group)) * GIB


@functools.lru_cache(maxsize=None)
def visible_share() -> float:
    """The memory CUDA reports as the GPU's total (the 'total_gpu_memory' vLLM logs) over its datasheet capacity
    read in GiB, as memory capacities are counted (an H100's '80GB' of HBM3 shows as 79.19 GiB): the median over the
    logged rows whose GPU the registry knows."""
    from .hardware import gpus
    table = gpus()
    shares = [r["gpu_total_gib"] / table[r["registry_gpu"]].memory_gb for r in profiles()
              if r["registry_gpu"] and r["gpu_total_gib"]]
    if not shares or not all(0.5 < x <= 1.0 for x in shares):
        raise TinkerNomicsError(f"{WHERE}: the logged GPU totals are not a share of the registry's capacities")
    return float(np.median(shares))


def engine_memory_bytes(gpus):
    """Each GPU's memory as an engine sees it: the datasheet's capacity in GiB × `visible_share` (the registry's
    decimal memory_bytes undercounts a GiB-sized part by 7%)."""
    return gpus.memory_bytes / 1e9 * GIB * visible_share()


def reserved_bytes(vocab_size, max_num_seqs, tensor_parallel):
    """Bytes each GPU of an engine holds outside its weights and KV cache, inside gpu_memory_utilization: the
    profiled activation peak (the sampler's logits for `max_num_seqs` sequences, at most the profiling run's batched
    tokens, `engine_profile_max_tokens`) and the memory outside PyTorch.
    An engine without a cap (`max_num_seqs` infinite: SGLang, whose mem_fraction_static already leaves its
    activations outside) reserves no sampler peak inside the fraction."""
    single, group = non_torch_bytes()
    given = np.asarray(max_num_seqs, dtype=float)
    # the profiling run samples at most its batched tokens' worth of sequences
    seqs = np.minimum(np.where(np.isfinite(given), given, 0.0), number("engine_profile_max_tokens"))
    sampler = sampler_multiple() * seqs * float(vocab_size) * LOGIT_BYTES
    return sampler + np.where(np.asarray(tensor_parallel, dtype=float) > 1, group, single)
