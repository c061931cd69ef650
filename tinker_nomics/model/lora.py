"""LoRA adapter size: parameter count and checkpoint bytes.

Two methods:

* seed — the original site's rule for dense GQA models, per layer
  2d (q) + 2(kv_dim + d) (k, v) + 2d (o) + 3(ffn + d) (gate, up, down), times rank and layers, where d is
  the hidden size and ffn the config's intermediate_size (for MoE rows: attention plus one FFN of that size,
  the seed's "attention + shared expert only" lower bound).
* exact — tinker-cookbook's counting (hyperparam_utils.get_lora_param_count): every 2-D weight except routers,
  embeddings and MLA's q_b/kv_b up-projections adds rank·(in + out); MoE experts share the LoRA factor on the
  hidden side, so each expert adds only its intermediate size; the unembedding counts even when tied.
  Gated-DeltaNet in_proj_a/in_proj_b count the hidden side only, which is what the cookbook's measured table
  shows. Checked to the parameter against the cookbook's table (data/models/cookbook_lora_params.csv).
  Other families read from a config.json (GPT-2, OPT, Falcon, Gemma, Llama 4, ...) follow the same rule from
  the record's shape fields: fused q/k/v is one matrix, a two-matrix MLP has two, MoE layers only where the
  config puts them; MLA without a query LoRA (DeepSeek-V2-Lite) has a plain q_proj.
"""
from __future__ import annotations

import dataclasses
import functools
import re

import numpy as np

from ..errors import TinkerNomicsError
from ..sources.architectures import ModelArch
from ..sources.defaults import number
from ..sources.tables import Column, load_table


def seed_lora_params_per_rank(arch: ModelArch) -> float:
    d = arch.hidden_size
    kv_dim = arch.num_kv_heads * (arch.head_dim or d // arch.num_heads)
    ffn = arch.intermediate_size or arch.moe_intermediate_size or 0
    per_layer = 2 * d + 2 * (kv_dim + d) + 2 * d + 3 * (ffn + d)
    return float(arch.num_layers * per_layer)


def _linear_heads(arch: ModelArch) -> tuple[int, int, int, int]:
    """(qk heads, v heads, qk head dim, v head dim) of Gated-DeltaNet layers, from a config's fields or the
    registry's text fields."""
    if arch.linear_shape:
        return tuple(arch.linear_shape)
    raw = _arch_text(arch.hf_id)
    heads = re.findall(r"\d+", raw.get("linear_attn_heads_qk_v", ""))
    dims = re.findall(r"\d+", raw.get("linear_attn_head_dim", ""))
    if len(heads) < 2 or len(dims) < 2:
        raise TinkerNomicsError(f"{arch.hf_id}: registry lacks linear-attention head shapes")
    return int(heads[0]), int(heads[1]), int(dims[0]), int(dims[1])


def _mamba_shape(arch: ModelArch) -> tuple[int, int, int]:
    """(inner width, 2·groups·state, heads) of Mamba-2 layers, from a config's fields or the registry's text."""
    if arch.mamba_shape:
        return tuple(arch.mamba_shape)
    raw = _arch_text(arch.hf_id)
    heads = int(re.search(r"mamba_num_heads=(\d+)", raw["linear_attn_heads_qk_v"]).group(1))
    groups = int(re.search(r"n_groups=(\d+)", raw["linear_attn_heads_qk_v"]).group(1))
    head_dim = int(re.search(r"mamba_head_dim=(\d+)", raw["linear_attn_head_dim"]).group(1))
    state = int(re.search(r"ssm_state=(\d+)", raw["linear_attn_head_dim"]).group(1))
    return heads * head_dim, 2 * groups * state, heads


@functools.lru_cache(maxsize=None)
def _arch_rows() -> dict[str, dict]:
    return {r["hf_id"]: r for r in load_table("models/model_archs.csv", [Column("hf_id")])}


def _arch_text(hf_id: str) -> dict:
    return _arch_rows()[hf_id]


def exact_lora_params_per_rank(arch: ModelArch) -> dict[str, float]:
    """Rank-1 LoRA parameters by component (`attn`, `mlp`, `unembed`), the cookbook's way."""
    h, layers = arch.hidden_size, arch.num_layers
    hd = arch.head_dim or h // arch.num_heads
    q_out, kv_out = arch.num_heads * hd, arch.num_kv_heads * hd
    unembed = arch.vocab_size + h
    family = arch.arch_type

    def moe_layer(experts, expert_ffn, shared_ffn, projections=3):
        shared = projections * (h + shared_ffn) if shared_ffn else 0
        return experts * projections * expert_ffn + projections * h + shared

    if arch.layer_plan is not None:   # Nemotron-NAS: each layer's attention and MLP as it kept them
        attn = sum((h + q_out) + 2 * (h + kv * hd) + (q_out + h) if isinstance(kv, int) else 2 * h
                   for kv, _ in arch.layer_plan if kv is not None)
        mlp = sum(3 * (h + width) if isinstance(width, int) else 2 * h
                  for _, width in arch.layer_plan if width is not None)
    elif family in ("qwen3_dense", "llama", "qwen3_moe", "gpt_oss"):
        attn = layers * ((h + q_out) + 2 * (h + kv_out) + (q_out + h))
        if arch.is_moe:
            mlp = layers * moe_layer(arch.num_experts, arch.moe_intermediate_size,
                                     arch.shared_expert_intermediate_size or 0)
        else:
            mlp = layers * 3 * (h + arch.intermediate_size)
    elif family == "mla_moe":
        q_in = arch.q_lora_rank if arch.q_lora_rank else arch.num_heads * (arch.qk_nope_head_dim + arch.qk_rope_head_dim)
        attn = layers * ((h + q_in) + (h + arch.kv_lora_rank + arch.qk_rope_head_dim)
                         + (arch.num_heads * arch.v_head_dim + h))
        dense = (arch.first_k_dense or 0) if arch.is_moe else layers     # an MLA model without experts: all dense
        mlp = dense * 3 * (h + arch.intermediate_size) if dense else 0
        if arch.is_moe:
            shared = (arch.n_shared_experts or 0) * arch.moe_intermediate_size
            mlp += (layers - dense) * moe_layer(arch.num_experts, arch.moe_intermediate_size, shared)
    elif family in ("qwen35_dense", "qwen35_moe"):
        full = arch.full_attention_layers
        linear = layers - full
        gate = 2 if arch.attn_output_gate else 1
        qk_heads, v_heads, qk_dim, v_dim = _linear_heads(arch)
        key, value = qk_heads * qk_dim, v_heads * v_dim
        full_attn = (h + gate * q_out) + 2 * (h + kv_out) + (q_out + h)
        linear_attn = (h + 2 * key + value) + (h + value) + 2 * h + (value + h)
        attn = full * full_attn + linear * linear_attn
        if arch.is_moe:
            mlp = layers * moe_layer(arch.num_experts, arch.moe_intermediate_size,
                                     arch.shared_expert_intermediate_size or 0)
        else:
            mlp = layers * 3 * (h + arch.intermediate_size)
    elif family == "nemotron_h":
        inner, groups_state, heads = _mamba_shape(arch)
        attn_layers = arch.full_attention_layers
        mamba_layers = arch.linear_or_mamba_layers or 0
        moe_layers = layers - attn_layers - mamba_layers
        attn = attn_layers * ((h + q_out) + 2 * (h + kv_out) + (q_out + h)) \
            + mamba_layers * ((h + 2 * inner + groups_state + heads) + (inner + h))
        mlp = moe_layers * moe_layer(arch.num_experts, arch.moe_intermediate_size,
                                     arch.shared_expert_intermediate_size or 0, projections=2)
    elif family == "jamba":   # attention or Mamba (in_proj, out_proj) a layer, then experts or a dense MLP
        inner = _mamba_shape(arch)[0]
        attn_layers, mamba_layers = arch.full_attention_layers, arch.linear_or_mamba_layers or 0
        attn = attn_layers * ((h + q_out) + 2 * (h + kv_out) + (q_out + h)) \
            + mamba_layers * ((h + 2 * inner) + (inner + h))
        moe_layers = arch.moe_layers or 0
        mlp = (layers - moe_layers) * 3 * (h + arch.intermediate_size) \
            + moe_layers * moe_layer(arch.num_experts, arch.moe_intermediate_size, 0)
    else:   # any other family from a config.json: its shape fields say which matrices there are
        qkv = (h + q_out + 2 * kv_out) if arch.fused_qkv else (h + q_out) + 2 * (h + kv_out)
        attn = layers * (qkv + (q_out + h))
        moe_layers = (arch.moe_layers if arch.moe_layers is not None else layers) if arch.is_moe else 0
        dense = arch.mlp_matrices * (h + arch.intermediate_size) if arch.intermediate_size else 0
        mlp = (layers - moe_layers) * dense
        if moe_layers:
            mlp += moe_layers * moe_layer(arch.num_experts, arch.moe_intermediate_size,
                                          arch.shared_expert_intermediate_size or 0)
    return {"attn": float(attn), "mlp": float(mlp), "unembed": float(unembed)}


def adapter_width_per_token(arch: ModelArch) -> float:
    """The input plus output width of the layers a LoRA adapter wraps, summed over the layers one token passes
    through: every linear layer of attention and the MLP (PEFT's all-linear, verl's default target_modules), a
    mixture of experts' experts at the number each token is routed to, not the output head (all-linear leaves it
    out). It is the rank-1 adapter count (exact_lora_params_per_rank) with the experts a token reaches."""
    active = dataclasses.replace(arch, num_experts=arch.experts_per_token) if arch.is_moe else arch
    parts = exact_lora_params_per_rank(active)
    return parts["attn"] + parts["mlp"]


@functools.lru_cache(maxsize=None)
def cookbook_lora_table() -> dict[str, dict]:
    """tinker-cookbook's measured rank-1 LoRA counts (hyperparam_utils table), where the facts give them."""
    rows = load_table("models/cookbook_lora_params.csv", [
        Column("model"), Column("per_rank_total", "int"), Column("attn", "int", False), Column("mlp", "int", False),
        Column("unembed", "int", False), Column("source")])
    return {r["model"]: r for r in rows}


def lora_params(arch: ModelArch, rank=None, method: str = "exact"):
    """LoRA parameters at `rank` (default: the cookbook's 32)."""
    rank = number("lora_rank") if rank is None else rank
    per_rank = seed_lora_params_per_rank(arch) if method == "seed" else sum(exact_lora_params_per_rank(arch).values())
    return np.asarray(rank, dtype=float) * per_rank


def checkpoint_gb(lora_parameters):
    """Adapter checkpoint in GB (BF16 weights, 2 bytes each)."""
    return np.asarray(lora_parameters, dtype=float) * number("bytes_per_param") / 1e9
