"""Model architectures (data/models/model_archs.csv) and model names.

Every model the registries know, by architecture or by a Tinker price, resolves leniently to one canonical
Hugging Face id (`qwen3-8b` -> `Qwen/Qwen3-8B`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import TinkerNomicsError
from .price_list import priced_models
from .tables import Column, build_index, load_table, lookup

# ----------------------------------------------------------------------------------------------- models

ARCH_COLUMNS = [
    Column("model"), Column("hf_id"), Column("tinker_status"), Column("arch_type"),
    Column("hidden_size", "int"), Column("num_hidden_layers", "int"), Column("num_attention_heads", "int"),
    Column("num_key_value_heads", "int"), Column("head_dim", "int", False), Column("intermediate_size", "int", False),
    Column("vocab_size", "int"), Column("tie_word_embeddings", "bool"),
    Column("num_experts", "int", False), Column("num_experts_per_tok", "int", False),
    Column("moe_intermediate_size", "int", False), Column("n_shared_experts", "int", False),
    Column("shared_expert_intermediate_size", "int", False), Column("first_k_dense_replace", "int", False),
    Column("q_lora_rank", "int", False), Column("kv_lora_rank", "int", False),
    Column("qk_nope_head_dim", "int", False), Column("qk_rope_head_dim", "int", False),
    Column("v_head_dim", "int", False), Column("sliding_window", "int", False),
    Column("n_full_attention_layers", "int"), Column("n_linear_or_mamba_layers", "int", False),
    Column("attn_output_gate", "bool"), Column("published_total_params_B", "float"),
    Column("published_active_params_B", "float"), Column("computed_total_params_text", "int"),
    Column("computed_active_params_incl_embed", "int"), Column("computed_active_params_excl_input_embed", "int"),
    Column("kv_bytes_per_token_bf16", "int"), Column("recurrent_state_bytes_per_seq", "int"),
    Column("source_url"), Column("recorded"),
]


@dataclass(frozen=True)
class ModelArch:
    """One model's architecture, from its config.json, with computed parameter and KV-byte counts."""
    model: str
    hf_id: str
    arch_type: str
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int | None
    intermediate_size: int | None
    vocab_size: int
    tied_embeddings: bool
    num_experts: int | None
    experts_per_token: int | None
    moe_intermediate_size: int | None
    n_shared_experts: int | None
    shared_expert_intermediate_size: int | None
    first_k_dense: int | None
    q_lora_rank: int | None
    kv_lora_rank: int | None
    qk_nope_head_dim: int | None
    qk_rope_head_dim: int | None
    v_head_dim: int | None
    sliding_window: int | None
    full_attention_layers: int
    linear_or_mamba_layers: int | None
    attn_output_gate: bool
    published_total_b: float
    published_active_b: float
    total_params: int
    active_params_incl_embed: int
    active_params: int                 # excluding the input-embedding lookup: the N of 2N FLOPs per token
    kv_bytes_per_token: int            # BF16, token-linear part (full-attention layers, or the MLA latent)
    recurrent_bytes_per_sequence: int  # constant per-sequence state of linear-attention / Mamba layers
    source_url: str
    tinker_status: str
    seed_total_b: float
    seed_active_b: float
    seed_size_source: str
    # Shapes the registry keeps as text and a config gives as fields (LoRA counting): Gated DeltaNet
    # (qk heads, v heads, qk head dim, v head dim) and Mamba-2 (inner width, 2·groups·state, heads).
    linear_shape: tuple | None = None
    mamba_shape: tuple | None = None
    checkpoint_precision: str = "bf16"   # the weights as published: bf16, fp8, int8 or int4

    @property
    def is_moe(self) -> bool:
        return bool(self.num_experts)

    @property
    def is_mla(self) -> bool:
        return bool(self.kv_lora_rank)

    def params(self, method: str) -> tuple[float, float]:
        """(total, active) parameter counts: the seed's nominal sizes, or the architecture-exact counts."""
        if method == "seed":
            return self.seed_total_b * 1e9, self.seed_active_b * 1e9
        return float(self.total_params), float(self.active_params)


@functools.lru_cache(maxsize=None)
def _seed_sizes() -> dict[str, tuple[float, float, str]]:
    rows = load_table("models/seed_model_sizes.csv", [
        Column("model"), Column("total_params_b", "float"), Column("active_params_b", "float"), Column("source")])
    return {r["model"]: (r["total_params_b"], r["active_params_b"], r["source"]) for r in rows}


@functools.lru_cache(maxsize=None)
def models() -> dict[str, ModelArch]:
    """Every architecture row, keyed by Hugging Face id."""
    seed = _seed_sizes()
    out = {}
    for r in load_table("models/model_archs.csv", ARCH_COLUMNS):
        total_b, active_b, size_src = seed.get(
            r["hf_id"], (r["published_total_params_B"], r["published_active_params_B"],
                         "model card size (published_total/active_params_B): the seed names no size for it"))
        out[r["hf_id"]] = ModelArch(
            r["model"], r["hf_id"], r["arch_type"], r["hidden_size"], r["num_hidden_layers"],
            r["num_attention_heads"], r["num_key_value_heads"], r["head_dim"], r["intermediate_size"],
            r["vocab_size"], r["tie_word_embeddings"], r["num_experts"], r["num_experts_per_tok"],
            r["moe_intermediate_size"], r["n_shared_experts"], r["shared_expert_intermediate_size"],
            r["first_k_dense_replace"], r["q_lora_rank"], r["kv_lora_rank"], r["qk_nope_head_dim"],
            r["qk_rope_head_dim"], r["v_head_dim"], r["sliding_window"], r["n_full_attention_layers"],
            r["n_linear_or_mamba_layers"], r["attn_output_gate"], r["published_total_params_B"],
            r["published_active_params_B"], r["computed_total_params_text"],
            r["computed_active_params_incl_embed"], r["computed_active_params_excl_input_embed"],
            r["kv_bytes_per_token_bf16"], r["recurrent_state_bytes_per_seq"], r["source_url"],
            r["tinker_status"], total_b, active_b, size_src)
    unknown_seed = set(seed) - set(out)
    if unknown_seed:
        raise TinkerNomicsError(f"models/seed_model_sizes.csv names unknown model(s): {', '.join(sorted(unknown_seed))}")
    return out


def split_context(name: str) -> tuple[str, int | None]:
    """`Kimi-K2.6:peft:131072` -> ("Kimi-K2.6", 131072): Tinker's long-context variants share the base weights."""
    if ":peft:" in name:
        base, _, ctx = name.partition(":peft:")
        try:
            return base, int(ctx)
        except ValueError:
            raise TinkerNomicsError(f"model {name!r}: the context after ':peft:' must be a whole number") from None
    return name, None


@functools.lru_cache(maxsize=None)
def _model_names() -> tuple[str, ...]:
    names = set(models())
    names.update(split_context(m)[0] for m in priced_models())
    return tuple(sorted(names))


def model_names() -> list[str]:
    """Every model the registries know: architectures and Tinker-priced models (canonical ids)."""
    return list(_model_names())


@functools.lru_cache(maxsize=None)
def _model_index() -> dict[str, str]:
    aliases: dict[str, list[str]] = {name: [name.split("/")[-1]] for name in model_names()}
    for hf_id, arch in models().items():
        aliases[hf_id].append(arch.model)
    return build_index(aliases)


def resolve_model(name: str) -> str:
    """Canonical id for a model name, keeping a `:peft:<context>` suffix (`qwen3-8b` -> `Qwen/Qwen3-8B`)."""
    base, context = split_context(name.strip() if isinstance(name, str) else name)
    canonical = lookup("model", base, _model_index(), model_names(), "list them with `tinker-nomics models`")
    return f"{canonical}:peft:{context}" if context else canonical


# Tinker serves base/instruct variants that share one architecture row.
ARCH_ALIASES = {"Qwen/Qwen3.5-9B-Base": "Qwen/Qwen3.5-9B", "Qwen/Qwen3.5-35B-A3B-Base": "Qwen/Qwen3.5-35B-A3B"}


def get_arch(name: str) -> ModelArch:
    """The architecture for a model name; a clear error for priced models without a published architecture."""
    canonical = split_context(resolve_model(name))[0]
    canonical = ARCH_ALIASES.get(canonical, canonical)
    if canonical not in models():
        raise TinkerNomicsError(
            f"model {canonical!r} has no published architecture in data/models/model_archs.csv, so its "
            f"self-hosted cost cannot be computed")
    return models()[canonical]


def has_arch(name: str) -> bool:
    canonical = split_context(resolve_model(name))[0]
    return ARCH_ALIASES.get(canonical, canonical) in models()
