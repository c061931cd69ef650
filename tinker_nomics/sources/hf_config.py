"""A Hugging Face `config.json` read into the architecture record the cost model uses (ModelArch).

    from tinker_nomics.sources.hf_config import load_config
    arch = load_config("path/to/config.json")      # a ModelArch, like sources.get_arch("Qwen3-8B")

Parameter counts are computed from the config alone, with the rules the registry's counts were made with
(shared/reference/model_archs.md §3): every weight matrix, norm and bias the config implies, embeddings
counted once (twice unless tied), the lm_head counted as active, the input-embedding lookup not. Families:

  dense GQA     llama, mistral, qwen2 (q/k/v biases), qwen3 (q/k norms), gemma-style explicit head_dim,
                sliding-window layers (`layer_types`, `sliding_window`)
  MoE           qwen2_moe / qwen3_moe / mixtral (routed experts, shared expert and its gate,
                decoder_sparse_step / mlp_only_layers), gpt_oss (biases, attention sinks, alternating
                sliding window)
  MLA           deepseek_v2/v3, kimi_k2 (latent KV cache, first dense layers, shared experts, router bias)
  hybrid        qwen3_5 / qwen3_next (Gated DeltaNet + gated full attention), nemotron_h (Mamba-2, MoE and
                attention blocks, latent MoE)

Multimodal configs are read from their `text_config` (the language model; vision towers are not counted).
A config this module cannot read raises one line naming the field.
"""
from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path

from ..errors import TinkerNomicsError
from .model_record import ModelArch

BF16_BYTES = 2
FP32_BYTES = 4


class _Config:
    """Field access with one-line errors that name the file and the field."""

    def __init__(self, data: dict, where: str):
        self.data, self.where = data, where

    def has(self, *names: str) -> bool:
        return any(self.data.get(n) is not None for n in names)

    def get(self, *names: str, default=None):
        for name in names:
            if self.data.get(name) is not None:
                return self.data[name]
        return default

    def int(self, *names: str, default=None, minimum: int = 1) -> int:
        value = self.get(*names, default=default)
        if value is None:
            raise TinkerNomicsError(f"{self.where}: field {names[0]!r} is missing")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value) or value < minimum:
            raise TinkerNomicsError(f"{self.where}: field {names[0]!r} must be a whole number >= {minimum}, "
                                    f"got {value!r}")
        return int(value)

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.data.get(name, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise TinkerNomicsError(f"{self.where}: field {name!r} must be true or false, got {value!r}")
        return value


# A Hugging Face config.json is a few KB; anything this large is not one.
MAX_CONFIG_BYTES = 16 * 2 ** 20


def _read(path) -> tuple[dict, str]:
    where = str(path)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):   # a FIFO or device named config.json would block or not end
            raise TinkerNomicsError(f"model config {where} is not a regular file")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except (OSError, ValueError) as exc:   # ValueError: a path with a NUL byte
        raise TinkerNomicsError(f"cannot read model config {where}: {getattr(exc, 'strerror', None) or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise TinkerNomicsError(f"model config {where} is larger than {MAX_CONFIG_BYTES // 2 ** 20} MiB: not a config.json")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise TinkerNomicsError(f"model config {where} is not UTF-8 text") from None
    except RecursionError:
        raise TinkerNomicsError(f"model config {where} is not JSON (nested too deeply)") from None
    except json.JSONDecodeError as exc:
        raise TinkerNomicsError(f"model config {where} is not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise TinkerNomicsError(f"model config {where} must be a JSON object")
    return data, where


def load_config(path) -> ModelArch:
    """Read a Hugging Face config.json into a ModelArch (parameter counts, KV bytes, recurrent state)."""
    data, where = _read(path)
    name = data.get("_name_or_path") or Path(path).parent.name or Path(path).stem
    return from_dict(data, where, name=str(name))


def from_dict(data: dict, where: str = "config", name: str = "config") -> ModelArch:
    """A config already parsed from JSON (a dict) into a ModelArch; `where` names it in errors."""
    text = data.get("text_config") if isinstance(data.get("text_config"), dict) else None
    # Multimodal wrappers keep the language model in text_config; tie_word_embeddings may sit at the top.
    merged = {**data, **text} if text else dict(data)
    if text and "tie_word_embeddings" not in text and "tie_word_embeddings" in data:
        merged["tie_word_embeddings"] = data["tie_word_embeddings"]
    c = _Config(merged, where)
    model_type = str(c.get("model_type", default="")).lower()
    if model_type.endswith("_text"):
        model_type = model_type[: -len("_text")]
    family = _family(c, model_type)
    counts = FAMILIES[family](c)
    return _arch(c, name, family, counts)


# ------------------------------------------------------------------------------------------------ families

def _family(c: _Config, model_type: str) -> str:
    if c.has("hybrid_override_pattern", "layers_block_type") or model_type == "nemotron_h":
        return "nemotron_h"
    if c.has("linear_num_value_heads") or model_type.startswith(("qwen3_5", "qwen3_next")):
        return "qwen35"
    if c.has("kv_lora_rank"):
        return "mla"
    if model_type == "gpt_oss":
        return "gpt_oss"
    return "gqa"


def _common(c: _Config) -> dict:
    hidden = c.int("hidden_size", "d_model", "n_embd")
    layers = c.int("num_hidden_layers", "n_layer", "num_layers")
    heads = c.int("num_attention_heads", "n_head")
    kv_heads = c.int("num_key_value_heads", default=heads)
    head_dim = c.int("head_dim", default=hidden // heads if hidden % heads == 0 else None)
    vocab = c.int("vocab_size")
    tied = c.flag("tie_word_embeddings", default=False)
    return {"H": hidden, "L": layers, "nh": heads, "nkv": kv_heads, "d": head_dim, "V": vocab, "tied": tied}


def _moe(c: _Config) -> dict | None:
    experts = c.get("num_experts", "num_local_experts", "n_routed_experts")
    if not experts:
        return None
    e = c.int("num_experts", "num_local_experts", "n_routed_experts")
    k = c.int("num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_topk")
    if k > e:
        raise TinkerNomicsError(f"{c.where}: field 'num_experts_per_tok' ({k}) exceeds the expert count ({e})")
    width = c.int("moe_intermediate_size", "intermediate_size")
    shared_width = c.get("shared_expert_intermediate_size", "moe_shared_expert_intermediate_size")
    n_shared = c.get("n_shared_experts", "num_shared_experts")
    if shared_width is None and n_shared:
        shared_width = int(n_shared) * width
    return {"E": e, "k": k, "Ie": width, "Is": int(shared_width) if shared_width else 0,
            "n_shared": int(n_shared) if n_shared else (1 if shared_width else 0)}


def _layer_kinds(c: _Config, layers: int) -> list[str]:
    """'full' or 'sliding' per layer, from `layer_types`, else gemma-style patterns, else all full."""
    types = c.get("layer_types")
    if isinstance(types, list) and len(types) == layers:
        return ["sliding" if "sliding" in str(t) else "full" for t in types]
    window = c.get("sliding_window")
    if window and c.flag("use_sliding_window", default=True) and c.get("sliding_window_pattern"):
        every = int(c.get("sliding_window_pattern"))
        return ["full" if (i + 1) % every == 0 else "sliding" for i in range(layers)]
    return ["full"] * layers


def _gqa(c: _Config) -> dict:
    """Dense or mixture-of-experts transformers with grouped-query attention (llama, qwen2/3, mistral, mixtral, …)."""
    b = _common(c)
    H, L, nh, nkv, d, V = b["H"], b["L"], b["nh"], b["nkv"], b["d"], b["V"]
    model_type = str(c.get("model_type", default="")).lower()
    attn = H * nh * d + 2 * H * nkv * d + nh * d * H
    if model_type.startswith("qwen2"):            # Qwen2 / Qwen2.5: biases on q, k and v only
        attn += nh * d + 2 * nkv * d
    elif c.flag("attention_bias"):
        attn += nh * d + 2 * nkv * d + H
    if model_type.startswith("qwen3") or c.flag("qk_norm"):
        attn += 2 * d
    moe = _moe(c)
    sparse_step = int(c.get("decoder_sparse_step", default=1) or 1)
    mlp_only = set(c.get("mlp_only_layers", default=[]) or [])
    dense_mlp = 3 * H * c.int("intermediate_size") if (moe is None or mlp_only or sparse_step > 1) else 0
    per_expert = inactive = 0
    layers_total = 0
    moe_layers = 0
    for i in range(L):
        is_moe = moe is not None and i not in mlp_only and (i + 1) % sparse_step == 0
        if is_moe:
            per_expert = 3 * H * moe["Ie"]
            mlp = moe["E"] * H + moe["E"] * per_expert
            if moe["Is"]:
                mlp += 3 * H * moe["Is"] + H          # shared expert and its sigmoid gate (qwen2_moe)
            moe_layers += 1
        else:
            mlp = dense_mlp
        layers_total += attn + mlp + 2 * H
    if moe is not None:
        inactive = (moe["E"] - moe["k"]) * per_expert * moe_layers
    kinds = _layer_kinds(c, L)
    full = kinds.count("full")
    window = c.get("sliding_window") if "sliding" in kinds else None
    return {**b, "body": layers_total + H, "inactive": inactive, "moe": moe, "full_layers": full,
            "sliding_window": int(window) if window else None, "kv_per_token": 2 * full * nkv * d * BF16_BYTES,
            "state": 0, "arch_type": ("qwen3_moe" if moe else ("qwen3_dense" if model_type.startswith("qwen3")
                                                                 else "llama")),
            "moe_layers": moe_layers}


def _gpt_oss(c: _Config) -> dict:
    """gpt-oss: biased attention with a learned sink per head, biased experts, alternating sliding window."""
    b = _common(c)
    H, L, nh, nkv, d, V = b["H"], b["L"], b["nh"], b["nkv"], b["d"], b["V"]
    moe = _moe(c)
    if moe is None:
        raise TinkerNomicsError(f"{c.where}: field 'num_local_experts' is missing (gpt_oss is a mixture of experts)")
    attn = (H * nh * d + nh * d) + 2 * (H * nkv * d + nkv * d) + (nh * d * H + H) + nh
    I = moe["Ie"]
    per_expert = H * 2 * I + 2 * I + I * H + H
    mlp = moe["E"] * H + moe["E"] + moe["E"] * per_expert
    kinds = _layer_kinds(c, L)
    if "sliding" not in kinds and c.get("sliding_window"):
        kinds = ["sliding" if i % 2 == 0 else "full" for i in range(L)]
    full = kinds.count("full")
    window = c.get("sliding_window") if "sliding" in kinds else None
    return {**b, "body": L * (attn + mlp + 2 * H) + H, "inactive": (moe["E"] - moe["k"]) * per_expert * L,
            "moe": moe, "full_layers": full, "sliding_window": int(window) if window else None,
            "kv_per_token": 2 * full * nkv * d * BF16_BYTES, "state": 0, "arch_type": "gpt_oss", "moe_layers": L}


def _mla(c: _Config) -> dict:
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2): latent KV, first dense layers, shared experts."""
    b = _common(c)
    H, L, nh, V = b["H"], b["L"], b["nh"], b["V"]
    q_rank = c.get("q_lora_rank")
    kv_rank = c.int("kv_lora_rank")
    nope, rope, v = c.int("qk_nope_head_dim"), c.int("qk_rope_head_dim"), c.int("v_head_dim")
    if q_rank:
        q = H * int(q_rank) + int(q_rank) + int(q_rank) * nh * (nope + rope)
    else:
        q = H * nh * (nope + rope)
    attn = q + H * (kv_rank + rope) + kv_rank + kv_rank * nh * (nope + v) + nh * v * H
    moe = _moe(c)
    dense_layers = c.int("first_k_dense_replace", default=0 if moe else L, minimum=0) if moe else L
    dense_mlp = 3 * H * c.int("intermediate_size")
    moe_layers = L - dense_layers
    per_expert = inactive = 0
    moe_mlp = 0
    if moe is not None:
        per_expert = 3 * H * moe["Ie"]
        bias = moe["E"] if str(c.get("topk_method", default="noaux_tc")) == "noaux_tc" else 0
        moe_mlp = moe["E"] * H + bias + moe["E"] * per_expert + moe["n_shared"] * 3 * H * moe["Ie"]
        inactive = (moe["E"] - moe["k"]) * per_expert * moe_layers
    body = dense_layers * (attn + dense_mlp + 2 * H) + moe_layers * (attn + moe_mlp + 2 * H) + H
    return {**b, "d": None, "body": body, "inactive": inactive, "moe": moe, "full_layers": L, "sliding_window": None,
            "kv_per_token": (kv_rank + rope) * L * BF16_BYTES, "state": 0, "arch_type": "mla_moe",
            "mla": {"q_lora_rank": int(q_rank) if q_rank else None, "kv_lora_rank": kv_rank, "qk_nope_head_dim": nope,
                    "qk_rope_head_dim": rope, "v_head_dim": v}, "first_k_dense": dense_layers if moe else None,
            "moe_layers": moe_layers}


def _qwen35(c: _Config) -> dict:
    """Qwen3.5/3.6 and Qwen3-Next: Gated DeltaNet layers with one gated full-attention layer in every few."""
    b = _common(c)
    H, L, nh, nkv, d, V = b["H"], b["L"], b["nh"], b["nkv"], b["d"], b["V"]
    types = c.get("layer_types")
    if isinstance(types, list) and len(types) == L:
        full = sum(1 for t in types if "full" in str(t))
    else:
        interval = c.int("full_attention_interval", default=4)
        full = sum(1 for i in range(L) if (i + 1) % interval == 0)
    linear = L - full
    nk, nv = c.int("linear_num_key_heads"), c.int("linear_num_value_heads")
    dk, dv = c.int("linear_key_head_dim"), c.int("linear_value_head_dim")
    kernel = c.int("linear_conv_kernel_dim", default=4)
    kd, vd = nk * dk, nv * dv
    gate = 2 if c.flag("attn_output_gate", default=True) else 1
    full_attn = H * nh * d * gate + 2 * H * nkv * d + nh * d * H + 2 * d
    linear_attn = H * (2 * kd + vd) + H * vd + 2 * H * nv + (2 * kd + vd) * kernel + 2 * nv + dv + vd * H
    moe = _moe(c)
    if moe is not None:
        per_expert = 3 * H * moe["Ie"]
        mlp = moe["E"] * H + moe["E"] * per_expert + (3 * H * moe["Is"] + H if moe["Is"] else 0)
        inactive = (moe["E"] - moe["k"]) * per_expert * L
    else:
        mlp, inactive = 3 * H * c.int("intermediate_size"), 0
    body = full * full_attn + linear * linear_attn + L * (mlp + 2 * H) + H
    state = linear * (nv * dk * dv * FP32_BYTES + (2 * kd + vd) * (kernel - 1) * BF16_BYTES)
    return {**b, "body": body, "inactive": inactive, "moe": moe, "full_layers": full, "sliding_window": None,
            "kv_per_token": 2 * full * nkv * d * BF16_BYTES, "state": state,
            "arch_type": "qwen35_moe" if moe else "qwen35_dense", "linear_layers": linear,
            "linear_shape": (nk, nv, dk, dv), "attn_output_gate": gate == 2, "moe_layers": L if moe else 0}


_BLOCKS = {"mamba": "M", "moe": "E", "attention": "*", "mlp": "-"}


def _nemotron_h(c: _Config) -> dict:
    """Nemotron-H: each layer is one block, Mamba-2 (M), mixture of experts (E), attention (*) or MLP (-)."""
    b = _common(c)
    H, L, nh, nkv, d, V = b["H"], b["L"], b["nh"], b["nkv"], b["d"], b["V"]
    pattern = c.get("hybrid_override_pattern")
    if pattern is None:
        blocks = c.get("layers_block_type")
        if not isinstance(blocks, list) or any(str(x) not in _BLOCKS for x in blocks):
            raise TinkerNomicsError(f"{c.where}: field 'layers_block_type' must list mamba/moe/attention/mlp blocks")
        pattern = "".join(_BLOCKS[str(x)] for x in blocks)
    pattern = str(pattern)
    if set(pattern) - set("ME*-") or len(pattern) != L:
        raise TinkerNomicsError(f"{c.where}: field 'hybrid_override_pattern' must have {L} characters of M, E, * "
                                f"or -, got {pattern!r}")
    heads, head_dim = c.int("mamba_num_heads"), c.int("mamba_head_dim")
    groups, state_n = c.int("n_groups"), c.int("ssm_state_size")
    kernel = c.int("conv_kernel", default=4)
    inner = heads * head_dim
    gn = 2 * groups * state_n
    mamba = H * (2 * inner + gn + heads) + (inner + gn) * kernel + (inner + gn) + 3 * heads + inner + inner * H
    attn = H * nh * d + 2 * H * nkv * d + nh * d * H
    moe = _moe(c)
    latent = c.get("moe_latent_size")
    per_expert = 0
    moe_block = 0
    if moe is not None:
        width = int(latent) if latent else H
        per_expert = 2 * width * moe["Ie"]
        moe_block = moe["E"] * H + moe["E"] + moe["E"] * per_expert + 2 * H * moe["Is"] \
            + (2 * H * int(latent) if latent else 0)
    mlp = 2 * H * c.int("intermediate_size") if "-" in pattern else 0
    size = {"M": mamba, "E": moe_block, "*": attn, "-": mlp}
    if "E" in pattern and moe is None:
        raise TinkerNomicsError(f"{c.where}: field 'n_routed_experts' is missing (the pattern has MoE blocks)")
    body = sum(size[ch] + H for ch in pattern) + H
    n_moe = pattern.count("E")
    inactive = (moe["E"] - moe["k"]) * per_expert * n_moe if moe else 0
    full, n_mamba = pattern.count("*"), pattern.count("M")
    state = n_mamba * (inner * state_n * FP32_BYTES + (inner + gn) * (kernel - 1) * BF16_BYTES)
    return {**b, "body": body, "inactive": inactive, "moe": moe, "full_layers": full, "sliding_window": None,
            "kv_per_token": 2 * full * nkv * d * BF16_BYTES, "state": state, "arch_type": "nemotron_h",
            "linear_layers": n_mamba, "mamba_shape": (inner, gn, heads), "moe_layers": n_moe}


FAMILIES = {"gqa": _gqa, "gpt_oss": _gpt_oss, "mla": _mla, "qwen35": _qwen35, "nemotron_h": _nemotron_h}


# ------------------------------------------------------------------------------------------------ the record

def precision_of(data: dict) -> str:
    """The checkpoint's weight precision from its quantization_config ('bf16' when it has none)."""
    text = data.get("text_config") if isinstance(data.get("text_config"), dict) else {}
    quant = data.get("quantization_config") or text.get("quantization_config") or {}
    if not isinstance(quant, dict):
        return "bf16"
    method = str(quant.get("quant_method", "")).lower()
    fmt = str(quant.get("fmt", quant.get("quant_algo", ""))).lower()
    bits = str(quant.get("bits", ""))
    if "fp8" in method or "fp8" in fmt or "e4m3" in fmt:
        return "fp8"
    if "fp4" in method or "fp4" in fmt or method in ("awq", "gptq") or bits == "4":
        return "int4"
    if bits == "8":
        return "int8"
    return "bf16"


def _arch(c: _Config, name: str, family: str, n: dict) -> ModelArch:
    H, V = n["H"], n["V"]
    embed = V * H
    head = 0 if n["tied"] else V * H
    total = n["body"] + embed + head
    active_incl = total - n["inactive"]
    active = active_incl - embed
    moe = n["moe"]
    mla = n.get("mla", {})
    linear = n.get("linear_layers")
    return ModelArch(
        model=name.split("/")[-1], hf_id=name, arch_type=n["arch_type"], hidden_size=H, num_layers=n["L"],
        num_heads=n["nh"], num_kv_heads=n["nkv"], head_dim=n["d"],
        intermediate_size=c.get("intermediate_size") if c.get("intermediate_size") else None,
        vocab_size=V, tied_embeddings=n["tied"],
        num_experts=moe["E"] if moe else None, experts_per_token=moe["k"] if moe else None,
        moe_intermediate_size=moe["Ie"] if moe else None, n_shared_experts=moe["n_shared"] if moe else None,
        shared_expert_intermediate_size=moe["Is"] or None if moe else None, first_k_dense=n.get("first_k_dense"),
        q_lora_rank=mla.get("q_lora_rank"), kv_lora_rank=mla.get("kv_lora_rank"),
        qk_nope_head_dim=mla.get("qk_nope_head_dim"), qk_rope_head_dim=mla.get("qk_rope_head_dim"),
        v_head_dim=mla.get("v_head_dim"), sliding_window=n["sliding_window"], full_attention_layers=n["full_layers"],
        linear_or_mamba_layers=linear, attn_output_gate=bool(n.get("attn_output_gate", False)),
        published_total_b=total / 1e9, published_active_b=active_incl / 1e9, total_params=int(total),
        active_params_incl_embed=int(active_incl), active_params=int(active), kv_bytes_per_token=int(n["kv_per_token"]),
        recurrent_bytes_per_sequence=int(n["state"]), source_url=c.where, tinker_status="config file",
        seed_total_b=total / 1e9, seed_active_b=active_incl / 1e9,
        seed_size_source="computed from the config (no nominal size)",
        linear_shape=n.get("linear_shape"), mamba_shape=n.get("mamba_shape"),
        checkpoint_precision=precision_of(c.data))
