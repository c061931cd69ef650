"""GPU memory: weights, the colocated RL footprint, minimum GPUs, and the rollout KV cache.

Seed rules (cost model page): weights in BF16 (2 bytes per parameter); a colocated LoRA RL job holds two
copies (the trainer's base weights shared by actor and reference, and the rollout engine's merged copy),
three for full fine-tuning, times 1.8 for KV cache, activations, optimizer state and fragmentation; at
least 2 GPUs. KV bytes per token: the seed's heuristic (16 KB per billion active parameters) or the exact
per-architecture figure (full-attention layers × KV heads × head_dim × 2 × 2 bytes, or the MLA latent),
plus the constant per-sequence state of linear-attention and Mamba layers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..sources.architectures import ModelArch, get_arch
from ..sources.defaults import number
from ..sources.hardware import GPU


def weight_bytes(total_params, bytes_per_param=None):
    """Bytes of the weights: BF16 (the `bytes_per_param` assumption, 2) unless a precision is given."""
    per_param = number("bytes_per_param") if bytes_per_param is None else np.asarray(bytes_per_param, dtype=float)
    return np.asarray(total_params, dtype=float) * per_param


def model_copies(fine_tune: str = "lora") -> float:
    return number("vram_model_copies_full" if fine_tune == "full" else "vram_model_copies_lora")


def colocated_vram_bytes(total_params, fine_tune: str = "lora"):
    """Memory a colocated RL job needs: weights × copies × overhead."""
    return weight_bytes(total_params) * model_copies(fine_tune) * number("vram_overhead")


def min_gpus(total_params, gpu: GPU, fine_tune: str = "lora"):
    """max(2, ceil(colocated VRAM / GPU memory))."""
    need = np.ceil(colocated_vram_bytes(total_params, fine_tune) / gpu.memory_bytes)
    return np.maximum(number("min_gpus_rl"), need)


def replica_gpus(total_params, gpu: GPU):
    """GPUs that one rollout-engine copy of the weights spans (with the same 1.8× headroom)."""
    need = np.ceil(weight_bytes(total_params) * number("vram_overhead") / gpu.memory_bytes)
    return np.maximum(1.0, need)


def kv_bytes_per_token(arch: ModelArch, method: str = "exact"):
    """Seed: 16 KB per billion active parameters. Exact: from the architecture (GQA/MLA/hybrid/sliding)."""
    if method == "seed":
        return arch.seed_active_b * number("kv_bytes_per_active_billion_params_seed")
    return float(arch.kv_bytes_per_token)


def recurrent_bytes_per_sequence(arch: ModelArch, method: str = "exact", tokens=None):
    """Per-sequence cache that does not grow with the context past a bound: linear-attention/Mamba states, and the
    sliding-window layers' keys and values (gpt-oss's 128 tokens, Mistral-7B-v0.1's 4,096), which hold min(tokens,
    window) tokens of a `tokens`-token sequence (the whole window when `tokens` is None)."""
    if method == "seed":
        return 0.0
    state = float(arch.recurrent_bytes_per_sequence)
    if not arch.sliding_window:
        return state
    held = float(arch.sliding_window) if tokens is None \
        else np.minimum(np.asarray(tokens, dtype=float), float(arch.sliding_window))
    sliding_layers = arch.num_layers - arch.full_attention_layers
    return state + sliding_layers * 2 * arch.num_kv_heads * (arch.head_dim or 0) * number("bytes_per_param") * held


def kv_cache_bytes(kv_per_token, sequences, tokens_per_sequence, state_per_sequence=0.0):
    """KV cache of `sequences` concurrent sequences of `tokens_per_sequence` tokens each."""
    seqs = np.asarray(sequences, dtype=float)
    return np.asarray(kv_per_token, dtype=float) * seqs * tokens_per_sequence + seqs * state_per_sequence


def kv_memory_available(total_params, gpu: GPU, num_gpus):
    """Memory left for KV after the weights' footprint (the seed's FLOP page: weights ×2.4, i.e. ~38 GB for 8B)."""
    return np.asarray(num_gpus, dtype=float) * gpu.memory_bytes \
        - weight_bytes(total_params) * number("kv_fit_weight_multiplier")


def engine_kv_memory_available(total_params, gpu: GPU, num_gpus, free_fraction, bytes_per_param=None):
    """KV budget of a dedicated inference engine: a fraction of the memory the weights leave free
    (TensorRT-LLM's kv_cache_free_gpu_mem_fraction), weights at the checkpoint's precision."""
    free = np.asarray(num_gpus, dtype=float) * gpu.memory_bytes - weight_bytes(total_params, bytes_per_param)
    return np.asarray(free_fraction, dtype=float) * np.maximum(free, 0.0)


def max_concurrent_sequences(total_params, gpu: GPU, num_gpus, kv_per_token, tokens_per_sequence,
                             state_per_sequence=0.0, available_bytes=None):
    """Sequences whose KV fits: `available_bytes` (default: the colocated-RL rule, kv_memory_available)
    over the bytes of one full sequence."""
    per_seq = np.asarray(kv_per_token, dtype=float) * tokens_per_sequence + state_per_sequence
    if available_bytes is None:
        available_bytes = kv_memory_available(total_params, gpu, num_gpus)
    with np.errstate(divide="ignore", invalid="ignore"):   # nothing cached per sequence: no limit
        return np.where(per_seq > 0, np.floor(np.maximum(available_bytes, 0.0) / per_seq), np.inf)


# ------------------------------------------------------------------------------------------------------
# Architecture effects on the rollout KV cache (the FLOP accounting chapter; tests/test_flops_chapter.py).
# ------------------------------------------------------------------------------------------------------

ATTENTION_KINDS = {
    "qwen3_dense": "GQA", "llama": "GQA", "qwen3_moe": "GQA",
    "gpt_oss": "GQA, alternating sliding window",
    "mla_moe": "MLA (latent KV)",
    "qwen35_dense": "hybrid: Gated DeltaNet + GQA", "qwen35_moe": "hybrid: Gated DeltaNet + GQA",
    "nemotron_h": "hybrid: Mamba-2 + GQA",
    # families read from a config.json (sources/hf_config.py)
    "mistral": "GQA (sliding window where the config sets one)", "qwen2": "GQA", "phi3": "GQA", "olmo": "MHA",
    "olmo2": "MHA", "mixtral": "GQA", "qwen2_moe": "GQA", "gemma": "MQA/GQA",
    "gemma2": "GQA, alternating sliding window", "gemma3": "GQA, sliding window with every n-th layer global",
    "llama4": "GQA, chunked local attention with global NoPE layers", "phi": "MHA", "gpt_neox": "MHA",
    "gptj": "MHA", "gpt2": "MHA", "opt": "MHA", "falcon": "MQA/GQA", "starcoder2": "GQA, sliding window",
    "bloom": "MHA (ALiBi)", "olmoe": "MHA", "glm4_moe": "GQA", "granite": "GQA", "smollm3": "GQA (NoPE every 4th layer)",
    "gpt_bigcode": "MQA", "gpt_neo": "MHA, local window on alternate layers", "stablelm": "MHA/GQA",
    "cohere": "MHA/GQA", "internlm2": "GQA", "chatglm": "GQA (multi-query groups)",
    "dbrx": "GQA", "mpt": "MHA/GQA (ALiBi)", "phimoe": "GQA", "granitemoe": "GQA", "nemotron": "GQA",
    "deepseek": "MHA", "ernie4_5": "GQA", "ernie4_5_moe": "GQA", "seed_oss": "GQA", "hunyuan_v1_dense": "GQA",
    "exaone": "GQA", "minicpm": "MHA/GQA", "baichuan": "MHA", "glm": "GQA", "glm4": "GQA",
    "cohere2": "GQA, sliding window with every n-th layer global", "jamba": "hybrid: Mamba + GQA",
    "minimax_m2": "GQA", "exaone4": "GQA, sliding window with every n-th layer global",
    "nemotron_nas": "GQA on the layers that keep attention (the others pruned away)",
    "olmo3": "MHA/GQA, sliding window on three layers in four", "granitemoehybrid": "hybrid: Mamba-2 + GQA",
    "hunyuan_v1_moe": "GQA", "lfm2": "hybrid: short convolution + GQA",
    "falcon_h1": "hybrid: Mamba-2 beside GQA in every layer",
}


def attention_kind(arch: ModelArch) -> str:
    """How a model's attention keeps its history: full GQA, MLA latent, hybrid linear/Mamba, sliding window."""
    return ATTENTION_KINDS.get(arch.arch_type, arch.arch_type)


def attention_layers(arch: ModelArch) -> dict[str, int]:
    """Layers by how they keep history: full attention (cache grows with the sequence), sliding window, and
    linear attention or Mamba (a fixed state)."""
    full = arch.full_attention_layers
    linear = arch.linear_or_mamba_layers or 0
    sliding = arch.num_layers - full if arch.sliding_window else 0
    return {"total": arch.num_layers, "full": full, "sliding": sliding, "linear": linear}


def kv_bytes_per_sequence(arch: ModelArch, tokens_per_sequence, method: str = "exact"):
    """Cache bytes one sequence of `tokens_per_sequence` tokens holds: the token-linear KV plus any bounded state
    (linear-attention/Mamba states, sliding windows up to their length)."""
    return kv_cache_bytes(kv_bytes_per_token(arch, method), 1.0, tokens_per_sequence,
                          recurrent_bytes_per_sequence(arch, method, tokens_per_sequence))


def sequences_in_budget(arch: ModelArch, tokens_per_sequence, budget_bytes, method: str = "exact"):
    """How many sequences of `tokens_per_sequence` tokens fit in `budget_bytes` of cache memory."""
    return np.floor(np.asarray(budget_bytes, dtype=float) / kv_bytes_per_sequence(arch, tokens_per_sequence, method))


@dataclass(frozen=True)
class KvRow:
    model: str
    attention: str
    active_params: float               # architecture-exact N
    kv_per_token_seed: float           # 16 KB per billion active parameters
    kv_per_token_exact: float          # token-linear part, from the architecture
    state_per_sequence: float          # constant part (0 for pure GQA and MLA)
    per_sequence_seed: float           # at the row's context length
    per_sequence_exact: float
    sequences_seed: float              # in the budget
    sequences_exact: float

    @property
    def state_in_tokens(self) -> float:
        """The constant state expressed as tokens of the model's own per-token cache."""
        return self.state_per_sequence / self.kv_per_token_exact

    @property
    def heuristic_over_exact(self) -> float:
        """The seed heuristic's per-sequence cache over the architecture's (> 1: the heuristic overstates)."""
        return self.per_sequence_seed / self.per_sequence_exact


def kv_table(models, tokens_per_sequence, budget_bytes) -> list[KvRow]:
    """KV cache per token and per sequence, and sequences per memory budget, by the seed's heuristic and by
    each architecture. The budget isolates attention design from model size: weights are left out."""
    rows = []
    for name in models:
        arch = get_arch(name)
        rows.append(KvRow(
            arch.model, attention_kind(arch), float(arch.active_params),
            float(kv_bytes_per_token(arch, "seed")), float(kv_bytes_per_token(arch, "exact")),
            float(recurrent_bytes_per_sequence(arch, "exact")),
            float(kv_bytes_per_sequence(arch, tokens_per_sequence, "seed")),
            float(kv_bytes_per_sequence(arch, tokens_per_sequence, "exact")),
            float(sequences_in_budget(arch, tokens_per_sequence, budget_bytes, "seed")),
            float(sequences_in_budget(arch, tokens_per_sequence, budget_bytes, "exact"))))
    return rows
