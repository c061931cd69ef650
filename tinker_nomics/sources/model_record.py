"""ModelArch: one model's architecture with its computed parameter and KV-byte counts.

Two sources fill it: the registry's rows (architectures.models(), data/models/model_archs.csv) and a Hugging
Face config.json (hf_config.load_config).
"""
from __future__ import annotations

from dataclasses import dataclass


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
    active_params: int                 # N of 2N FLOPs per token: the weights a token multiplies, the LM head
                                       # included (tied or not), the input-embedding lookup not
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
    checkpoint_precision: str | None = "bf16"   # the weights as published: bf16, fp8, int8, int4, fp4; None: unread
    # The LM head, V × H (× word_embed_proj_dim for OPT's projected embeddings): decode reads it every token,
    # whether it is tied to the input embedding or not. None: V × H.
    output_head_params: int | None = None
    mlp_matrices: int = 3              # weight matrices of a dense MLP: 3 gated (SwiGLU, GeGLU), 2 plain (GELU)
    fused_qkv: bool = False            # q, k and v in one projection (GPT-2, GPT-NeoX, Falcon, BLOOM, Phi-3)
    moe_layers: int | None = None      # layers with routed experts; None: every layer past first_k_dense
    # Layer by layer where layers differ (Nemotron-NAS): (attention, ffn) each, attention its KV heads, ffn its MLP
    # width, either "linear" (one hidden × hidden matrix) or None (no sub-block). None: every layer alike.
    layer_plan: tuple | None = None
    # DeepSeek Sparse Attention (DeepSeek-V3.2): each query attends to the `sparse_attention_topk` tokens its lightning
    # indexer picks; the indexer scores every cached token with its own keys (`indexer_bytes_per_token` of
    # kv_bytes_per_token, read in full) at `indexer_flops_per_context_token` FLOPs each. None: dense attention.
    sparse_attention_topk: int | None = None
    indexer_bytes_per_token: int = 0
    indexer_flops_per_context_token: float = 0.0
    # The longest sequence the model is configured for (config.json's max_position_embeddings, or its family's name
    # for it); None where the config does not say. Read for a note, never for a count.
    max_context: int | None = None
    # The dtype a user's config.json (--model-config) says its weights are stored in, where it is wider than the bf16
    # every run here is costed in: "float32" or "float64" (torch_dtype, or dtype in newer configs). None: bf16, fp16,
    # unstated, or a registry model. Read for a note (hf_config.stored_dtype_note), never for a count.
    stored_dtype: str | None = None
    # Where checkpoint_precision is None (a --model-config whose quantization_config this package cannot read): what
    # that quantization_config states (quantization.unread), for the message that asks for --precision.
    quantization_unread: str | None = None

    def __post_init__(self):
        if self.output_head_params is None:
            object.__setattr__(self, "output_head_params", self.vocab_size * self.hidden_size)

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
