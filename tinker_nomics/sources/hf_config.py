"""A Hugging Face `config.json` read into the architecture record the cost model uses (ModelArch).

    from tinker_nomics.sources.hf_config import load_config
    arch = load_config("path/to/config.json")      # a ModelArch, like sources.get_arch("Qwen3-8B")

Each `model_type` is counted with its own family's formula, never read as another family's; any other model_type
(T5, BERT, Mamba, ...) is refused in one line naming it. Parameter counts follow the rules the registry's counts
were made with (shared/reference/model_archs.md §3): every weight matrix, norm and bias the architecture has,
RMSNorm H and LayerNorm 2H (a non-parametric norm 0), the input embedding (and learned positions) once, the LM head
once more unless tied. `active_params` (the N of 2N FLOPs per token) leaves out the input-embedding lookup and
keeps the LM head, tied or not: decode multiplies by it every token. The families (FAMILIES below):

  llama-style    llama, mistral, granite (Llama weights; its multipliers add none), smollm3 (NoPE layers add
                 none; tied unless told), qwen2 (q/k/v biases), qwen2_vl / qwen2_5_vl (a Qwen2 language model),
                 qwen3 (q/k norms), phi3 (fused qkv and gate_up: same counts), olmo (non-parametric LayerNorm),
                 olmo2 (full-width q/k norms, post-norms only); with routed experts: mixtral, olmoe (OLMo-2-style
                 full-width q/k norms, experts of intermediate_size), qwen2_moe / qwen3_moe (shared expert and its
                 gate, decoder_sparse_step, mlp_only_layers), minimax_m2 (MiniMax-M2: Mixtral's experts with
                 full-width q/k norms and the router's score-correction bias; its multi-token-prediction modules
                 left out as for deepseek_v3); a sliding window on every layer where the config sets one
  glm4_moe       GLM-4.5/4.6/4.7: q/k/v biases, per-head q/k norms, first dense layers, shared experts, router
                 score-correction bias; the multi-token-prediction layer left out as for deepseek_v3
  gemma          gemma, gemma2, gemma3 (explicit head_dim, GeGLU, tied embeddings, four norms a layer in 2 and 3,
                 q/k norms in 3, alternating or every-n-th full-attention layers)
  llama4         interleaved dense and MoE layers, a shared expert in every MoE layer, chunked attention
  two-matrix MLP phi (Phi-1/1.5/2: parallel block, partial rotary, biased head), gpt_neox (Pythia), gptj, gpt2
                 (learned positions), opt (learned positions with offset 2, word_embed_proj_dim projections),
                 falcon (multi-query or grouped KV, parallel block), starcoder2, bloom (embedding LayerNorm),
                 gpt_bigcode (SantaCoder/StarCoder: GPT-2 layout with multi-query attention), gpt_neo (learned
                 positions, global layers interleaved with local windowed ones)
  gated MLP      stablelm (LayerNorms, optional q/k/v biases and per-head q/k norms, partial rotary), cohere
                 (Command R / Aya: parallel block, one LayerNorm without bias, tied head), internlm2 (fused
                 wqkv), chatglm (ChatGLM2/3, GLM-4-9B-chat: fused query_key_value with KV groups, padded vocabulary)
  MLA            deepseek_v2 / deepseek_v3 / kimi_k2 / kimi_k25 (latent KV, with or without a query LoRA, first dense
                 layers, shared experts, router bias under noaux_tc); deepseek_v32 (DeepSeek-V3.2: V3 with the
                 lightning indexer of DeepSeek Sparse Attention in every layer, its FP8 key cache, and each query
                 attending to index_topk tokens)
  others         gpt_oss (biases, attention sinks, alternating sliding window); qwen3_5 / qwen3_next (Gated
                 DeltaNet + gated full attention); nemotron_h (Mamba-2, MoE and attention blocks, latent MoE)
  added 2026-12  granitemoe (llama-style); dbrx (fused Wqkv, stacked experts); mpt (MosaicML's layout, ALiBi);
                 phimoe (LayerNorms, biased attention and head); nemotron (LayerNorm1P, squared-ReLU MLP); deepseek
                 (DeepSeekMoE: dense first layers, merged shared experts); ernie4_5 / ernie4_5_moe; the Llama
                 variants seed_oss, hunyuan_v1_dense, exaone, minicpm, baichuan, glm, glm4 (_llama_variant);
                 cohere2 (Cohere's block, interleaved sliding window); jamba (Mamba and attention layers, experts on
                 every other layer)
  added 2026-12  olmo3 (OLMo 2's weights, three sliding-window layers in four); granitemoehybrid (Granite 4.0:
                 Mamba-2 or attention layers, experts with a shared MLP, or the shared MLP alone); hunyuan_v1_moe
                 (Hunyuan-A13B: per-head q/k norms, experts and a shared MLP in every layer); glm4_moe_lite
                 (GLM-4.7-Flash: DeepSeek's latent attention with GLM-4.5's experts, read by the MLA formula);
                 lfm2 (Liquid LFM2: gated short-convolution and attention layers); falcon_h1 (Falcon-H1: a Mamba-2
                 mixer and GQA attention side by side in every layer, then the MLP; its muP multipliers add no weights)

Multimodal configs are read from their `text_config` (the language model; vision towers are not counted).
Every field is checked for its type, sign and range, and against the fields it depends on (layer indices within
the layer count, experts per token below the experts, heads dividing widths): a bad one gives one line naming the
field and its value. Sizes are bounded (layers <= 10^5, widths <= 10^7, parameters <= 10^15) so that a hostile
config is refused at once instead of computed slowly.
"""
from __future__ import annotations

import dataclasses
import json
import re
import math
import os
import stat
from pathlib import Path

from ..errors import TinkerNomicsError
from .numbers import is_finite, shown as _show
from . import quantization
from .model_record import ModelArch

BF16_BYTES = 2
FP32_BYTES = 4

# Sanity bounds: far above any published model (the largest have ~10^12 parameters, ~200 layers, widths ~10^5),
# low enough that counting stays instant.
MAX_LAYERS = 10 ** 5
MAX_WIDTH = 10 ** 7
MAX_LENGTH = 10 ** 9          # positions and windows in tokens
MAX_PARAMS = 10 ** 15

_MISSING = object()


class _Config:
    """Typed field access with one-line errors that name the file, the family and the field."""

    def __init__(self, data: dict, where: str):
        self.data, self.where, self.family = data, where, "config"

    def fail(self, message: str):
        raise TinkerNomicsError(f"{self.where}: {message}")

    def has(self, *names: str) -> bool:
        return any(self.data.get(n) is not None for n in names)

    def get(self, *names: str, default=None):
        for name in names:
            if self.data.get(name) is not None:
                return self.data[name]
        return default

    def _name(self, names) -> str:
        return next((n for n in names if self.data.get(n) is not None), names[0])

    def int(self, *names: str, default=_MISSING, minimum: int = 1, maximum: int = MAX_WIDTH) -> int:
        """A whole number in [minimum, maximum]; a missing field takes `default`, or fails naming the family."""
        value = self.get(*names)
        if value is None:
            if default is _MISSING:
                self.fail(f"{self.family} config lacks field {names[0]!r}")
            return default
        return self._whole(self._name(names), value, minimum, maximum)

    def opt_int(self, *names: str, minimum: int = 1, maximum: int = MAX_WIDTH) -> int | None:
        """A whole number, or None where the field is absent or null (`"q_lora_rank": null`)."""
        value = self.get(*names)
        return None if value is None else self._whole(self._name(names), value, minimum, maximum)

    def _whole(self, name: str, value, minimum: int, maximum: int) -> int:
        if not is_finite(value) \
                or value != int(value) or not minimum <= value <= maximum:
            whole = isinstance(value, int) and not isinstance(value, bool)   # a 400-digit JSON integer included
            bound = f" (at most {maximum:,}, a sanity bound)" if (whole or is_finite(value)) and value > maximum else ""
            self.fail(f"field {name!r} must be a whole number >= {minimum}{bound}, got {_show(value)}")
        return int(value)

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.data.get(name, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.fail(f"field {name!r} must be true or false, got {_show(value)}")
        return value

    def text(self, name: str, default: str = "") -> str:
        value = self.data.get(name, default)
        if value is None:
            return default
        if not isinstance(value, str):
            self.fail(f"field {name!r} must be text, got {_show(value)}")
        return value

    def layer_indices(self, name: str, layers: int) -> set[int]:
        """A list of layer indices, each in [0, layers)."""
        value = self.data.get(name)
        if value is None:
            return set()
        if not isinstance(value, list):
            self.fail(f"field {name!r} must be a list of layer indices, got {_show(value)}")
        if len(value) > layers:
            self.fail(f"field {name!r} lists {len(value):,} layers, more than num_hidden_layers ({layers})")
        return {self._whole(name, i, 0, layers - 1) for i in value}

    def layer_list(self, name: str, layers: int, kinds: tuple[type, ...] = (str,)) -> list | None:
        """A per-layer list (layer_types, no_rope_layers): exactly one entry per layer, each of the given type."""
        value = self.data.get(name)
        if value is None:
            return None
        if not isinstance(value, list) or len(value) != layers \
                or any(isinstance(v, bool) or not isinstance(v, kinds) for v in value):
            what = "text" if kinds == (str,) else "numbers"
            got = f"{len(value)} entries" if isinstance(value, list) else _show(value)
            self.fail(f"field {name!r} must list {layers} layers ({what}), got {got}")
        return value


# A Hugging Face config.json is a few KB; anything this large is not one.
MAX_CONFIG_BYTES = 16 * 2 ** 20


def unique_keys(where: str):
    """The json module's object_pairs_hook for a config.json a user gives (--model-config, a run folder's): a key
    written twice in one object is a one-line error naming `where` and the key (json.loads keeps the last, without
    a word). Not for log streams: a config is a few KB."""
    def pairs_to_dict(pairs: list) -> dict:
        obj = dict(pairs)
        if len(obj) < len(pairs):
            seen: set = set()
            twice = next(key for key, _ in pairs if key in seen or seen.add(key))
            raise TinkerNomicsError(f"{where}: the key {_show(twice)} appears twice in one object (the JSON reader "
                                    f"would keep the last one without a word): keep one")
        return obj
    return pairs_to_dict


def _read(path) -> tuple[dict, str]:
    where = str(path)
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError) as exc:   # ValueError: a path with a NUL byte
        raise TinkerNomicsError(f"cannot read model config {where}: {getattr(exc, 'strerror', None) or exc}") from None
    if not regular:   # a FIFO or device named config.json would block or not end
        raise TinkerNomicsError(f"model config {where} is not a regular file")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except (OSError, ValueError) as exc:   # ValueError: a path with a NUL byte
        raise TinkerNomicsError(f"cannot read model config {where}: {getattr(exc, 'strerror', None) or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise TinkerNomicsError(f"model config {where} is larger than {MAX_CONFIG_BYTES // 2 ** 20} MiB: not a config.json")
    try:
        data = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=unique_keys(f"model config {where}"))
    except TinkerNomicsError:   # a key given twice (unique_keys): its own message
        raise
    except UnicodeDecodeError:
        raise TinkerNomicsError(f"model config {where} is not UTF-8 text") from None
    except RecursionError:
        raise TinkerNomicsError(f"model config {where} is not JSON (nested too deeply)") from None
    except json.JSONDecodeError as exc:
        raise TinkerNomicsError(f"model config {where} is not JSON (line {exc.lineno}: {exc.msg})") from None
    except ValueError as exc:   # an integer literal longer than Python converts
        raise TinkerNomicsError(f"model config {where} is not JSON this reader can hold ({exc})") from None
    if not isinstance(data, dict):
        raise TinkerNomicsError(f"model config {where} must be a JSON object")
    return data, where


def load_config(path) -> ModelArch:
    """Read a Hugging Face config.json into a ModelArch (parameter counts, KV bytes, recurrent state); `path` may
    be the model's folder (a download or a Hub cache snapshot), whose config.json is read."""
    folder = Path(path)
    if folder.is_dir():
        if not (folder / "config.json").exists():
            raise TinkerNomicsError(f"model config {path} is a folder without a config.json")
        path = folder / "config.json"
    data, where = _read(path)
    name = data.get("_name_or_path")
    if name is not None and (not isinstance(name, str) or not name.isprintable()):
        raise TinkerNomicsError(f"{where}: field '_name_or_path' must be one line of printable text, got {_show(name)}")
    arch = from_dict(data, where, name=_name_from_recorded(name or "") or _name_from_path(Path(path)))
    stored = _stored_dtype(data)
    arch = dataclasses.replace(arch, stored_dtype=stored) if stored else arch
    quant = quantization.unread(data)
    return dataclasses.replace(arch, quantization_unread=quant) if quant else arch


# config.json's names for the dtype the weights are saved in (transformers writes `dtype` since v4.56, `torch_dtype`
# before), and the spellings of the ones wider than bf16 (torch's names; `torch.float32` as some exports write it).
DTYPE_FIELDS = ("dtype", "torch_dtype")
WIDE_DTYPES = {"float32": "float32", "float": "float32", "fp32": "float32", "float64": "float64",
               "double": "float64", "fp64": "float64"}


def _stored_dtype(data: dict) -> str | None:
    """The dtype config.json (or its text_config) says the weights are stored in, where it is float32 or float64;
    None otherwise (read for a note only: a value of another kind is left out rather than refused)."""
    text = data.get("text_config") if isinstance(data.get("text_config"), dict) else {}
    for section in (data, text):
        for name in DTYPE_FIELDS:
            value = section.get(name)
            if isinstance(value, str) and value.strip():
                return WIDE_DTYPES.get(value.strip().lower().removeprefix("torch."))
    return None


def stored_dtype_note(arch: ModelArch, weights: str = "bf16") -> str | None:
    """The note a command prints when a --model-config checkpoint is stored wider than the `weights` it is costed
    with (bf16: RL frameworks load the weights in bf16 to sample and train, whatever the checkpoint holds)."""
    if arch.stored_dtype is None or weights != "bf16":
        return None
    return (f"the checkpoint of {arch.source_url} stores its weights in {arch.stored_dtype}; the run is costed "
            f"with bf16 weights, as every run here (the RL frameworks load them in bf16 to sample and train)")


def _name_from_recorded(name: str) -> str:
    """`_name_or_path` as a model name: a Hub id as it is; a path in the Hugging Face cache
    (`…/models--Qwen--Qwen2.5-7B/snapshots/<commit>`) the repository it names; any other local path (a fine-tune
    saved from `./fp16/Llama-3.1-Nemotron-70B-Instruct-HF`) its last folder; "" where it names nothing."""
    cache = re.search(r"models--([^/\\]+)[/\\]snapshots(?:[/\\]|$)", name)
    if cache:
        return cache.group(1).replace("--", "/")
    trimmed = name.strip().rstrip("/\\")
    if trimmed.startswith(("/", "./", "../", "~", ".\\")) or "\\" in trimmed or re.match(r"^[A-Za-z]:", trimmed):
        return re.split(r"[/\\]", trimmed)[-1]
    return trimmed


def _name_from_path(path: Path) -> str:
    """A config without `_name_or_path` is named by where it lies: `google--gemma-3-4b-it.json` by its stem, a
    `config.json` by its folder (`Qwen3-8B/config.json`), one in the Hugging Face cache
    (`models--Qwen--Qwen3-8B/snapshots/<commit>/config.json`) by the repository the cache folder names."""
    if path.name != "config.json":
        return _shown(path.stem)
    folder = path.parent
    if folder.parent.name == "snapshots" and folder.parent.parent.name.startswith("models--"):
        return _shown(folder.parent.parent.name[len("models--"):].replace("--", "/"))
    return _shown(folder.name or path.stem)


def _shown(name: str) -> str:
    """A name taken from a file or folder name, as one line of printable text (a line break, tab or bidi override
    in it shown escaped, as '_name_or_path' must be printable): it heads every output that names the model."""
    return name if name.isprintable() else repr(name)[1:-1]


def from_dict(data: dict, where: str = "config", name: str = "config") -> ModelArch:
    """A config already parsed from JSON (a dict) into a ModelArch; `where` names it in errors."""
    if not isinstance(data, dict):
        raise TinkerNomicsError(f"{where}: a model config must be a JSON object")
    text = data.get("text_config")
    if text is not None and not isinstance(text, dict):
        raise TinkerNomicsError(f"{where}: field 'text_config' must be an object, got {_show(text)}")
    # Multimodal wrappers keep the language model in text_config; tie_word_embeddings may sit at the top.
    merged = {**data, **text} if text else dict(data)
    if text and "tie_word_embeddings" not in text and "tie_word_embeddings" in data:
        merged["tie_word_embeddings"] = data["tie_word_embeddings"]
    text_type = merged.get("model_type")
    if text and isinstance(text_type, str):
        for field, value in TEXT_CONFIG_DEFAULTS.get(text_type.strip().lower(), {}).items():
            if merged.get(field) is None:
                merged[field] = value
    c = _Config(merged, where)
    model_type = family_of(c)
    c.family = model_type
    counts = FAMILIES[FAMILY_OF[model_type]](c, model_type)
    return _arch(c, name, counts)


# A multimodal wrapper's text_config may leave fields to transformers' defaults for its text model, and what
# transformers (and vLLM, which loads configs through it) fills in is what runs. Gemma 3's published 4B and 12B
# configs name only widths, depth and windows: vocabulary, heads, KV heads and head_dim come from Gemma3TextConfig
# (huggingface/transformers src/transformers/models/gemma3/configuration_gemma3.py @008f5c8c, __init__ defaults;
# AutoConfig.from_pretrained("google/gemma-3-4b-it") prints these values). Only the fields the published configs
# leave out are filled: a config missing its width or depth is still refused, naming the field.
TEXT_CONFIG_DEFAULTS = {
    "gemma3_text": {"vocab_size": 262208, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                    "tie_word_embeddings": True},
}


# ------------------------------------------------------------------------------------------------ families

# model_type -> the function that counts it. Aliases: Falcon's first uploads, multimodal wrappers of a family.
FAMILY_OF = {
    "llama": "llama", "mistral": "llama", "qwen2": "llama", "qwen3": "llama", "phi3": "llama", "olmo": "llama",
    "olmo2": "llama", "mixtral": "llama", "qwen2_moe": "llama", "qwen3_moe": "llama", "qwen3_vl": "llama",
    "qwen3_vl_moe": "llama", "qwen2_vl": "llama", "qwen2_5_vl": "llama", "olmoe": "llama", "granite": "llama",
    "smollm3": "llama", "minimax_m2": "llama", "olmo3": "llama",
    "glm4_moe": "glm4_moe",
    "gemma": "gemma", "gemma2": "gemma", "gemma3": "gemma",
    "llama4": "llama4",
    "phi": "phi", "gpt_neox": "gpt_neox", "gptj": "gptj", "gpt2": "gpt2", "opt": "opt", "falcon": "falcon",
    "refinedweb": "falcon", "refinedwebmodel": "falcon", "starcoder2": "starcoder2", "bloom": "bloom",
    "deepseek_v2": "mla", "deepseek_v3": "mla", "deepseek_v32": "mla", "kimi_k2": "mla", "kimi_k25": "mla", "glm4_moe_lite": "mla",
    "glm_moe_dsa": "mla",
    "gpt_oss": "gpt_oss", "qwen3_5": "qwen35", "qwen3_5_moe": "qwen35", "qwen3_next": "qwen35",
    "nemotron_h": "nemotron_h",
    "gpt_bigcode": "gpt_bigcode", "gpt_neo": "gpt_neo", "stablelm": "stablelm", "cohere": "cohere",
    "internlm2": "internlm2", "chatglm": "chatglm",
    "granitemoe": "llama", "dbrx": "dbrx", "mpt": "mpt", "phimoe": "phimoe", "nemotron": "nemotron",
    "deepseek": "deepseek", "ernie4_5": "ernie4_5", "ernie4_5_moe": "ernie4_5", "seed_oss": "llama_variant",
    "hunyuan_v1_dense": "llama_variant", "exaone": "llama_variant", "exaone4": "llama_variant", "minicpm": "llama_variant",
    "baichuan": "llama_variant", "glm": "llama_variant", "glm4": "llama_variant", "cohere2": "cohere2",
    "jamba": "jamba", "nemotron-nas": "nemotron_nas", "granitemoehybrid": "granitemoehybrid",
    "hunyuan_v1_moe": "hunyuan_moe", "lfm2": "lfm2", "falcon_h1": "falcon_h1",
}

# Remote-code configs that leave model_type out (MiniCPM-2B's): the model class their `architectures` names.
ARCHITECTURE_TYPES = {"MiniCPMForCausalLM": "minicpm", "BaichuanForCausalLM": "baichuan",
                      "ExaoneForCausalLM": "exaone"}


def supported_model_types() -> list[str]:
    """The model_type values this reader counts (the families of FAMILY_OF)."""
    return sorted(t for t in FAMILY_OF if t not in ("refinedweb", "refinedwebmodel", "kimi_k25"))


def family_of(c: _Config) -> str:
    """The config's model_type (a multimodal wrapper's text model; `_text` suffix dropped), if it is one read here."""
    raw = c.data.get("model_type")
    classes = c.data.get("architectures")
    if raw is None and isinstance(classes, list) and len(classes) == 1 and classes[0] in ARCHITECTURE_TYPES:
        raw = ARCHITECTURE_TYPES[classes[0]]
    if raw is None:
        c.fail(f"has no model_type, so its architecture is unknown; model types read: "
               f"{', '.join(supported_model_types())}")
    if not isinstance(raw, str):
        c.fail(f"field 'model_type' must be text, got {_show(raw)}")
    model_type = raw.strip().lower()
    if model_type.endswith("_text"):
        model_type = model_type[: -len("_text")]
    if model_type not in FAMILY_OF:
        c.fail(f"model_type {_show(raw)} is not an architecture this reader counts (decoder-only language models "
               f"only); model types read: {', '.join(supported_model_types())}")
    return model_type


def _common(c: _Config, hidden=("hidden_size",), layers=("num_hidden_layers",), heads=("num_attention_heads",),
            kv_heads=("num_key_value_heads",), head_dim=("head_dim",), vocab=("vocab_size",)) -> dict:
    """Width, depth, heads (with GQA/MQA KV heads), head_dim and vocabulary, checked against each other. A family
    without a KV-head or head_dim field passes () for it: every head keeps its keys and values, head_dim is the
    width over the heads."""
    H = c.int(*hidden)
    L = c.int(*layers, maximum=MAX_LAYERS)
    nh = c.int(*heads, maximum=MAX_WIDTH)
    nkv = c.int(*kv_heads, default=nh) if kv_heads else nh
    if nkv > nh or nh % nkv:
        c.fail(f"field {kv_heads[0]!r} ({nkv}) must divide num_attention_heads ({nh})")
    d = c.opt_int(*head_dim) if head_dim else None
    if d is None:
        if H % nh:
            c.fail(f"field 'num_attention_heads' ({nh}) must divide hidden_size ({H}) when head_dim is not given")
        d = H // nh
    V = c.int(*vocab)
    return {"H": H, "L": L, "nh": nh, "nkv": nkv, "d": d, "V": V, "tied": c.flag("tie_word_embeddings", False)}


def _moe(c: _Config, width_names=("moe_intermediate_size", "intermediate_size")) -> dict | None:
    """Routed experts (count, per token, width) and any shared expert, or None for a dense model."""
    names = ("num_experts", "num_local_experts", "n_routed_experts")
    value = c.get(*names)
    if value is None or (type(value) in (int, float) and value == 0):   # 0 experts: a dense model
        return None
    e = c.int(*names, maximum=MAX_LAYERS)
    k = c.int("num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_topk", maximum=MAX_LAYERS)
    if k >= e:
        c.fail(f"field 'num_experts_per_tok' ({k}) must be below the number of experts ({e})")
    width = c.int(*width_names)
    shared_width = c.opt_int("shared_expert_intermediate_size", "moe_shared_expert_intermediate_size", minimum=0)
    n_shared = c.opt_int("n_shared_experts", "num_shared_experts", minimum=0, maximum=MAX_LAYERS)
    if shared_width is None and n_shared:
        shared_width = n_shared * width
    return {"E": e, "k": k, "Ie": width, "Is": shared_width or 0,
            "n_shared": n_shared if n_shared is not None else (1 if shared_width else 0)}


def _window(c: _Config) -> int | None:
    return c.opt_int("sliding_window", maximum=MAX_LENGTH)


def _counted_kinds(c: _Config, L: int, full_word: str = "full") -> tuple[int, int] | None:
    """(full, other) layers from `layer_types`, or None where the config has none."""
    types = c.layer_list("layer_types", L)
    if types is None:
        return None
    full = sum(1 for t in types if full_word in t.lower())
    return full, L - full


def _llama_sliding(c: _Config, model_type: str, L: int) -> tuple[int, int | None]:
    """(full-attention layers, window) of a llama-style model: `layer_types` where given; else every layer slides
    where the config sets a window shorter than its context (Mistral 7B v0.1, Phi-3 4k, StarCoder2), Qwen's only
    above max_window_layers and only with use_sliding_window; EXAONE 4.0's on all but every sliding_window_pattern-th
    layer (a number), or as a repeating string of L (local) and G (global) says; OLMo 3's window is Olmo3Config's
    4096 where the config names none, and without layer_types every fourth layer is global ((i + 1) % 4 == 0)."""
    if model_type == "olmo3":
        window = c.int("sliding_window", default=4096, maximum=MAX_LENGTH)
        kinds = _counted_kinds(c, L)
        full = kinds[0] if kinds is not None else L // 4
        return full, window if full < L else None
    window = _window(c)
    kinds = _counted_kinds(c, L)
    if kinds is not None:
        return kinds[0], window if kinds[1] else None
    if window is None:
        return L, None
    if model_type == "exaone4":
        pattern = c.data.get("sliding_window_pattern", 4)
        if isinstance(pattern, str):
            if not pattern or set(pattern) - {"L", "G"}:
                c.fail(f"field 'sliding_window_pattern' ({_show(pattern)}) must be a number or a string of L and G")
            full = sum(1 for i in range(L) if pattern[i % len(pattern)] == "G")
        else:
            full = L // c.int("sliding_window_pattern", default=4, maximum=MAX_LAYERS)
        return full, window if full < L else None
    if model_type.startswith("qwen"):
        if not c.flag("use_sliding_window", False):
            return L, None
        first = c.int("max_window_layers", default=L, minimum=0, maximum=MAX_LAYERS)
        return min(first, L), window if first < L else None
    if not c.flag("use_sliding_window", True):
        return L, None
    context = c.opt_int("max_position_embeddings", maximum=MAX_LENGTH)
    if context is not None and window >= context:
        return L, None
    return 0, window


def _moe_layer_count(c: _Config, L: int, moe: dict | None) -> int:
    """Layers with routed experts: every `decoder_sparse_step`-th one, less `mlp_only_layers`."""
    if moe is None:
        return 0
    step = c.int("decoder_sparse_step", default=1, maximum=MAX_LAYERS)
    dense = c.layer_indices("mlp_only_layers", L)
    return L // step - sum(1 for i in dense if (i + 1) % step == 0)


def _llama(c: _Config, model_type: str) -> dict:
    """Llama-style decoders: rotary GQA attention, SwiGLU MLP (or routed experts), RMSNorm (OLMo 1: none)."""
    b = _common(c)
    if model_type == "smollm3":                   # SmolLM3Config ties the head unless told otherwise
        b["tied"] = c.flag("tie_word_embeddings", True)
    H, L, nh, nkv, d = b["H"], b["L"], b["nh"], b["nkv"], b["d"]
    q, kv = nh * d, nkv * d
    attn = H * q + 2 * H * kv + q * H
    if model_type.startswith("qwen2"):            # Qwen2 / Qwen2.5 / Qwen2-MoE: biases on q, k and v only
        attn += q + 2 * kv
    elif c.flag("attention_bias", False):
        attn += q + 2 * kv + H
    if model_type.startswith("qwen3") or c.flag("qk_norm", False):
        attn += 2 * d                             # q_norm, k_norm over one head
    norm_h = 0 if model_type == "olmo" else H     # OLMo 1: LayerNorm without weights
    if model_type in ("olmo2", "olmoe", "olmo3"):
        attn += q + kv                            # q_norm, k_norm over the full projections
    if model_type == "minimax_m2" and c.flag("use_qk_norm", False):
        norm_type = c.data.get("qk_norm_type", "per_layer")
        if norm_type not in ("per_layer", "per_head"):
            c.fail(f"field 'qk_norm_type' ({norm_type!r}) must be 'per_layer' or 'per_head'")
        attn += q + kv if norm_type == "per_layer" else 2 * d
    mlp_bias = c.flag("mlp_bias", False)
    moe = _moe(c)
    n_moe = _moe_layer_count(c, L, moe)
    dense_mlp = 0
    inter = c.opt_int("intermediate_size")
    if n_moe < L:
        inter = c.int("intermediate_size")
        dense_mlp = 3 * H * inter + (2 * inter + H if mlp_bias else 0)
    moe_mlp = per_expert = 0
    if moe is not None:
        per_expert = 3 * H * moe["Ie"]
        moe_mlp = moe["E"] * H + moe["E"] * per_expert
        if model_type == "minimax_m2" and c.flag("use_routing_bias", False):
            moe_mlp += moe["E"]                   # the router's score-correction bias (sigmoid routing)
        if moe["Is"]:
            moe_mlp += 3 * H * moe["Is"] + H      # shared expert and its sigmoid gate (qwen2_moe)
    full, window = _llama_sliding(c, model_type, L)
    body = L * (attn + 2 * norm_h) + (L - n_moe) * dense_mlp + n_moe * moe_mlp + norm_h
    arch_type = "qwen3_moe" if model_type in ("qwen3_moe", "qwen3_vl_moe") else \
        "qwen3_dense" if model_type in ("qwen3", "qwen3_vl") else \
        "qwen2" if model_type in ("qwen2_vl", "qwen2_5_vl") else model_type
    return {**b, "body": body, "inactive": (moe["E"] - moe["k"]) * per_expert * n_moe if moe else 0, "moe": moe,
            "moe_layers": n_moe, "full_layers": full, "sliding_window": window,
            "kv_per_token": 2 * full * kv * BF16_BYTES, "state": 0, "arch_type": arch_type,
            "fused_qkv": model_type == "phi3", "inter": inter}


def _gemma(c: _Config, model_type: str) -> dict:
    """Gemma 1/2/3: explicit head_dim, GeGLU (3 matrices), tied embeddings, RMSNorm; Gemma 2 and 3 norm before
    and after both attention and MLP, Gemma 3 adds q/k norms; sliding-window layers by pattern."""
    b = _common(c)
    H, L, nh, nkv, d = b["H"], b["L"], b["nh"], b["nkv"], b["d"]
    b["tied"] = c.flag("tie_word_embeddings", True)
    q, kv = nh * d, nkv * d
    attn = H * q + 2 * H * kv + q * H
    if c.flag("attention_bias", False):
        attn += q + 2 * kv + H
    norms = 2 * H if model_type == "gemma" else 4 * H
    if model_type == "gemma3":
        attn += 2 * d
    inter = c.int("intermediate_size")
    mlp = 3 * H * inter
    window = _window(c) if model_type != "gemma" else None
    kinds = _counted_kinds(c, L)
    if kinds is not None:
        full = kinds[0]
    elif window is None:
        full = L
    elif model_type == "gemma2":                  # layers 0, 2, 4, ... slide
        full = L // 2
    else:                                         # gemma3: every sliding_window_pattern-th layer is global
        full = L // c.int("sliding_window_pattern", default=6, maximum=MAX_LAYERS)
    return {**b, "body": L * (attn + mlp + norms) + H, "inactive": 0, "moe": None, "moe_layers": 0,
            "full_layers": full, "sliding_window": window if full < L else None,
            "kv_per_token": 2 * full * kv * BF16_BYTES, "state": 0, "arch_type": model_type, "inter": inter}


def _llama4(c: _Config, model_type: str) -> dict:
    """Llama 4: MoE layers every interleave_moe_layer_step-th layer (or as `moe_layers` lists), each with routed
    experts (one per token) and a shared expert; dense layers with intermediate_size_mlp; chunked attention on
    the rotary layers, global attention on the NoPE ones."""
    b = _common(c)
    H, L, nh, nkv, d = b["H"], b["L"], b["nh"], b["nkv"], b["d"]
    q, kv = nh * d, nkv * d
    attn = H * q + 2 * H * kv + q * H + (q + 2 * kv + H if c.flag("attention_bias", False) else 0)
    moe = _moe(c, width_names=("intermediate_size",))
    if moe is None:
        c.fail("llama4 config lacks field 'num_local_experts'")
    moe["Is"], moe["n_shared"] = moe["Ie"], 1
    listed = c.layer_indices("moe_layers", L) if c.get("moe_layers") is not None else None
    if listed is not None:
        n_moe = len(listed)
    else:
        step = c.int("interleave_moe_layer_step", default=1, maximum=MAX_LAYERS)
        n_moe = L // step
    inter = c.int("intermediate_size_mlp") if n_moe < L else c.opt_int("intermediate_size_mlp")
    dense_mlp = 3 * H * inter if n_moe < L else 0
    per_expert = 3 * H * moe["Ie"]
    moe_mlp = moe["E"] * H + moe["E"] * per_expert + 3 * H * moe["Is"]
    chunk = c.opt_int("attention_chunk_size", maximum=MAX_LENGTH)
    full, window = L, None
    if chunk is not None:
        flags = c.layer_list("no_rope_layers", L, (int,))
        if flags is not None:
            full = sum(1 for f in flags if not f)
        else:
            full = L // c.int("no_rope_layer_interval", default=4, maximum=MAX_LAYERS)
        window = chunk if full < L else None
    body = L * (attn + 2 * H) + (L - n_moe) * dense_mlp + n_moe * moe_mlp + H
    return {**b, "body": body, "inactive": (moe["E"] - moe["k"]) * per_expert * n_moe, "moe": moe,
            "moe_layers": n_moe, "full_layers": full, "sliding_window": window,
            "kv_per_token": 2 * full * kv * BF16_BYTES, "state": 0, "arch_type": "llama4", "inter": inter}


def _glm4_moe(c: _Config, model_type: str) -> dict:
    """GLM-4.5/4.6/4.7 (glm4_moe): GQA with q/k/v biases (attention_bias, none on o_proj), per-head q/k norms
    (use_qk_norm), partial rotary (no weights); first_k_dense_replace dense layers, then routed experts with
    n_shared_experts shared ones and a sigmoid router whose score-correction bias is stored. The multi-token-
    prediction layer (num_nextn_predict_layers) is left out, as for DeepSeek-V3: transformers does not load it."""
    if c.has("kv_lora_rank"):
        c.fail("glm4_moe config has MLA fields (kv_lora_rank): GLM-4.7-Flash is model_type glm4_moe_lite, "
               "whose latent attention this reader counts under that name")
    b = _common(c)
    H, L, nh, nkv, d = b["H"], b["L"], b["nh"], b["nkv"], b["d"]
    q, kv = nh * d, nkv * d
    attn = H * q + 2 * H * kv + q * H
    if c.flag("attention_bias", False):
        attn += q + 2 * kv
    if c.flag("use_qk_norm", False):
        attn += 2 * d
    moe = _moe(c)
    if moe is None:
        c.fail("glm4_moe config lacks field 'n_routed_experts' (GLM-4.5 is a mixture of experts)")
    n_shared = c.int("n_shared_experts", minimum=0, maximum=MAX_LAYERS)
    dense_layers = c.int("first_k_dense_replace", minimum=0, maximum=MAX_LAYERS)
    if dense_layers > L:
        c.fail(f"field 'first_k_dense_replace' ({dense_layers}) exceeds num_hidden_layers ({L})")
    moe_layers = L - dense_layers
    inter = c.int("intermediate_size") if dense_layers else c.opt_int("intermediate_size")
    per_expert = 3 * H * moe["Ie"]
    moe_mlp = moe["E"] * H + moe["E"] + moe["E"] * per_expert + n_shared * per_expert
    body = L * (attn + 2 * H) + dense_layers * 3 * H * (inter or 0) + moe_layers * moe_mlp + H
    return {**b, "body": body, "inactive": (moe["E"] - moe["k"]) * per_expert * moe_layers, "moe": moe,
            "moe_layers": moe_layers, "first_k_dense": dense_layers, "full_layers": L, "sliding_window": None,
            "kv_per_token": 2 * L * kv * BF16_BYTES, "state": 0, "arch_type": "glm4_moe", "inter": inter}


def _plain(b: dict, *, attn: int, inter: int, mlp_bias: bool = True, norms: int, final_norm: int, arch_type: str, fused: bool,
           lookup_extra: int = 0, body_extra: int = 0, head_bias: int = 0, full=None, window=None,
           matrices: int = 2) -> dict:
    """Assemble a dense decoder: L identical layers, a final norm, learned positions or projections where the family
    has them, and an MLP of two matrices (GPT-2, OPT, GPT-J, GPT-NeoX, Phi-2, Falcon, StarCoder2, BLOOM, GPT-BigCode,
    GPT-Neo) or of three, gated (StableLM, Cohere, InternLM2, ChatGLM; biases on gate, up and down)."""
    L, kv = b["L"], b["nkv"] * b["d"]
    full = L if full is None else full
    mlp = matrices * b["H"] * inter + (((matrices - 1) * inter + b["H"]) if mlp_bias else 0)
    return {**b, "inter": inter, "body": L * (attn + mlp + norms) + final_norm + body_extra, "lookup_extra": lookup_extra,
            "head_bias": head_bias, "inactive": 0, "moe": None, "moe_layers": 0, "full_layers": full,
            "sliding_window": window, "kv_per_token": 2 * full * kv * BF16_BYTES, "state": 0, "arch_type": arch_type,
            "mlp_matrices": matrices, "fused_qkv": fused}


def _phi(c: _Config, model_type: str) -> dict:
    """Phi-1/1.5/2: one LayerNorm feeding attention and MLP in parallel, biased q/k/v/dense, GELU fc1/fc2,
    untied LM head with a bias; optional q/k LayerNorms over one head."""
    b = _common(c)
    H, nh, nkv, d, V = b["H"], b["nh"], b["nkv"], b["d"], b["V"]
    q, kv = nh * d, nkv * d
    attn = (H * q + q) + 2 * (H * kv + kv) + (q * H + H) + (4 * d if c.flag("qk_layernorm", False) else 0)
    return _plain(b, attn=attn, inter=c.int("intermediate_size"), norms=2 * H, final_norm=2 * H,
                  arch_type="phi", fused=False, head_bias=V)


def _gpt_neox(c: _Config, model_type: str) -> dict:
    """GPT-NeoX / Pythia: fused biased qkv, two LayerNorms a layer (parallel residual or not), GELU MLP, untied."""
    b = _common(c)
    H = b["H"]
    bias = c.flag("attention_bias", True)
    attn = 3 * H * H + H * H + (4 * H if bias else 0)
    return _plain(b, attn=attn, inter=c.int("intermediate_size"), norms=4 * H,
                  final_norm=2 * H, arch_type="gpt_neox", fused=True)


def _gptj(c: _Config, model_type: str) -> dict:
    """GPT-J: one LayerNorm feeding attention (unbiased q/k/v/out, rotary) and MLP in parallel; untied head with
    a bias; n_inner null means 4 × n_embd."""
    b = _common(c, hidden=("n_embd", "hidden_size"), layers=("n_layer", "num_hidden_layers"),
                heads=("n_head", "num_attention_heads"))
    H, V = b["H"], b["V"]
    inner = c.int("n_inner", default=4 * H)
    return _plain(b, attn=4 * H * H, inter=inner, norms=2 * H, final_norm=2 * H,
                  arch_type="gptj", fused=False, head_bias=V)


def _gpt2(c: _Config, model_type: str) -> dict:
    """GPT-2: learned positions (n_positions), fused biased c_attn, two LayerNorms a layer, GELU MLP (n_inner null
    means 4 × n_embd), head tied to the token embedding."""
    b = _common(c, hidden=("n_embd", "hidden_size"), layers=("n_layer", "num_hidden_layers"),
                heads=("n_head", "num_attention_heads"))
    b["tied"] = c.flag("tie_word_embeddings", True)
    H = b["H"]
    positions = c.int("n_positions", "max_position_embeddings", maximum=MAX_LENGTH)
    inner = c.int("n_inner", default=4 * H)
    return _plain(b, attn=4 * H * H + 4 * H, inter=inner, norms=4 * H, final_norm=2 * H,
                  arch_type="gpt2", fused=True, lookup_extra=positions * H)


def _opt(c: _Config, model_type: str) -> dict:
    """OPT: learned positions with an offset of 2, biased q/k/v/out, ReLU fc1/fc2 of width ffn_dim, tied head;
    word_embed_proj_dim != hidden_size (opt-350m) adds project_in/project_out; no final norm when the layer
    norms come after (do_layer_norm_before false)."""
    b = _common(c)
    b["tied"] = c.flag("tie_word_embeddings", True)
    H = b["H"]
    proj = c.int("word_embed_proj_dim", default=H)
    positions = c.int("max_position_embeddings", maximum=MAX_LENGTH) + 2
    bias = c.flag("enable_bias", True)
    ln = 2 * H if c.flag("layer_norm_elementwise_affine", True) else 0
    final = ln if c.flag("do_layer_norm_before", True) and not c.flag("_remove_final_layer_norm", False) else 0
    out = _plain(b, attn=4 * H * H + (4 * H if bias else 0), inter=c.int("ffn_dim"), mlp_bias=bias,
                 norms=2 * ln, final_norm=final, arch_type="opt", fused=False, lookup_extra=positions * H,
                 body_extra=2 * proj * H if proj != H else 0)
    out["embed_dim"] = proj
    return out


def _falcon(c: _Config, model_type: str) -> dict:
    """Falcon: fused qkv with one KV head (multi_query) or num_kv_heads (new_decoder_architecture), attention and
    MLP in parallel (one LayerNorm, or ln_attn + ln_mlp) or in sequence (two), biases only where `bias` says."""
    H = c.int("hidden_size")
    c.data = {**c.data}
    if c.get("num_attention_heads") is None and c.get("n_head") is not None:
        c.data["num_attention_heads"] = c.data["n_head"]
    if c.get("num_hidden_layers") is None and c.get("n_layer") is not None:
        c.data["num_hidden_layers"] = c.data["n_layer"]
    new_arch = c.flag("new_decoder_architecture", False)
    nh = c.int("num_attention_heads")
    if new_arch:
        nkv = c.int("num_kv_heads", "n_head_kv", default=nh)
    elif c.flag("multi_query", True):
        nkv = 1
    else:
        nkv = nh
    c.data["num_key_value_heads"] = nkv
    b = _common(c)
    b["tied"] = c.flag("tie_word_embeddings", True)
    d = b["d"]
    bias = c.flag("bias", False)
    attn = H * (nh + 2 * nkv) * d + H * H + ((nh + 2 * nkv) * d + H if bias else 0)
    inner = c.int("ffn_hidden_size", default=4 * H)
    if not c.flag("parallel_attn", True):
        norms = 4 * H
    else:
        lns = c.int("num_ln_in_parallel_attn", default=2 if new_arch else 1, maximum=2)
        norms = 2 * H * lns
    return _plain(b, attn=attn, inter=inner, mlp_bias=bias, norms=norms, final_norm=2 * H,
                  arch_type="falcon", fused=True)


def _starcoder2(c: _Config, model_type: str) -> dict:
    """StarCoder2: GQA with biases (use_bias), LayerNorms, GELU c_fc/c_proj, sliding window on every layer."""
    b = _common(c)
    b["tied"] = c.flag("tie_word_embeddings", True)
    H, nh, nkv, d = b["H"], b["nh"], b["nkv"], b["d"]
    q, kv = nh * d, nkv * d
    bias = c.flag("use_bias", True)
    attn = H * q + 2 * H * kv + q * H + (q + 2 * kv + H if bias else 0)
    full, window = _llama_sliding(c, model_type, b["L"])
    return _plain(b, attn=attn, inter=c.int("intermediate_size"), mlp_bias=bias, norms=4 * H,
                  final_norm=2 * H, arch_type="starcoder2", fused=False, full=full, window=window)


def _bloom(c: _Config, model_type: str) -> dict:
    """BLOOM: ALiBi (no positions), a LayerNorm on the word embeddings, fused biased qkv, GELU 4h MLP, tied."""
    c.data = {**c.data}
    if c.get("hidden_size") is None and c.get("n_embed") is not None:
        c.data["hidden_size"] = c.data["n_embed"]
    b = _common(c, layers=("n_layer", "num_hidden_layers"), heads=("n_head", "num_attention_heads"))
    b["tied"] = c.flag("tie_word_embeddings", True)
    H = b["H"]
    return _plain(b, attn=4 * H * H + 4 * H, inter=4 * H, norms=4 * H, final_norm=2 * H,
                  arch_type="bloom", fused=True, lookup_extra=2 * H)


def _gpt_bigcode(c: _Config, model_type: str) -> dict:
    """GPT-BigCode (SantaCoder, StarCoder, WizardCoder, Granite 20B/34B Code): GPT-2's layout (learned positions,
    two LayerNorms a layer, biased c_attn, c_proj, c_fc; GELU MLP of n_inner, null meaning 4 × n_embd; head tied)
    with multi-query attention: the fused c_attn gives the queries and one key/value head shared by all
    (multi_query, the default), or a key and value per head."""
    b = _common(c, hidden=("n_embd", "hidden_size"), layers=("n_layer", "num_hidden_layers"),
                heads=("n_head", "num_attention_heads"), kv_heads=(), head_dim=())
    b["tied"] = c.flag("tie_word_embeddings", True)
    if c.flag("multi_query", True):
        b["nkv"] = 1
    H = b["H"]
    qkv = H + 2 * b["nkv"] * b["d"]
    positions = c.int("n_positions", "max_position_embeddings", maximum=MAX_LENGTH)
    return _plain(b, attn=H * qkv + qkv + H * H + H, inter=c.int("n_inner", default=4 * H), norms=4 * H,
                  final_norm=2 * H, arch_type="gpt_bigcode", fused=True, lookup_extra=positions * H)


def _gpt_neo(c: _Config, model_type: str) -> dict:
    """GPT-Neo: learned positions, q/k/v without biases and a biased out_proj, two LayerNorms a layer, GELU
    c_fc/c_proj (intermediate_size null meaning 4 × hidden_size), head tied; attention_types interleaves global
    layers with local ones that attend to the last window_size tokens."""
    b = _common(c, layers=("num_layers", "num_hidden_layers"), heads=("num_heads", "num_attention_heads"),
                kv_heads=(), head_dim=())
    b["tied"] = c.flag("tie_word_embeddings", True)
    H, L = b["H"], b["L"]
    full = _gpt_neo_global_layers(c, L)
    window = c.int("window_size", default=256, maximum=MAX_LENGTH) if full < L else None
    positions = c.int("max_position_embeddings", maximum=MAX_LENGTH)
    return _plain(b, attn=4 * H * H + H, inter=c.int("intermediate_size", default=4 * H), norms=4 * H,
                  final_norm=2 * H, arch_type="gpt_neo", fused=False, lookup_extra=positions * H, full=full,
                  window=window)


def _gpt_neo_global_layers(c: _Config, L: int) -> int:
    """Global-attention layers of GPT-Neo's attention_types ([[["global", "local"], 12]]: the pattern, repeated);
    without it, every other layer from the first."""
    value = c.data.get("attention_types")
    if value is None:
        return (L + 1) // 2
    bad = f"field 'attention_types' must list [[kinds of 'global'/'local'], repeats] covering {L} layers, " \
          f"got {_show(value)}"
    if not isinstance(value, list):
        c.fail(bad)
    layers = full = 0
    for entry in value:
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], list) or not entry[0] \
                or any(k not in ("global", "local") for k in entry[0]) or isinstance(entry[1], bool) \
                or not isinstance(entry[1], int) or not 0 < entry[1] <= MAX_LAYERS:
            c.fail(bad)
        layers += len(entry[0]) * entry[1]
        full += entry[0].count("global") * entry[1]
    if layers != L:
        c.fail(bad)
    return full


def _stablelm(c: _Config, model_type: str) -> dict:
    """StableLM (StableLM-3B-4E1T, StableLM 2): LayerNorms with biases, q/k/v biased with use_qkv_bias (o_proj
    never), per-head q/k LayerNorms without biases (qk_layernorm), partial rotary (no weights), SwiGLU MLP without
    biases, untied head; with use_parallel_residual one LayerNorm feeds attention and MLP."""
    b = _common(c)
    H, nh, nkv, d = b["H"], b["nh"], b["nkv"], b["d"]
    q, kv = nh * d, nkv * d
    attn = H * q + 2 * H * kv + q * H + (q + 2 * kv if c.flag("use_qkv_bias", False) else 0)
    if c.flag("qk_layernorm", False):
        attn += q + kv
    norms = 2 * H if c.flag("use_parallel_residual", False) else 4 * H
    return _plain(b, attn=attn, inter=c.int("intermediate_size"), mlp_bias=False, norms=norms, final_norm=2 * H,
                  arch_type="stablelm", fused=False, matrices=3)


def _cohere(c: _Config, model_type: str) -> dict:
    """Cohere Command R / R+ / Aya: one LayerNorm without a bias feeding attention and the SwiGLU MLP in parallel,
    biases only with attention_bias (q/k/v/o), head tied unless told; Command R+ norms q and k per head (weights
    only, use_qk_norm); no sliding window. (cohere2, Command R7B's interleaved sliding window, is not read.)"""
    b = _common(c)
    b["tied"] = c.flag("tie_word_embeddings", True)
    H, nh, nkv, d = b["H"], b["nh"], b["nkv"], b["d"]
    q, kv = nh * d, nkv * d
    attn = H * q + 2 * H * kv + q * H + (q + 2 * kv + H if c.flag("attention_bias", False) else 0)
    if c.flag("use_qk_norm", False):
        attn += q + kv
    return _plain(b, attn=attn, inter=c.int("intermediate_size"), mlp_bias=False, norms=H, final_norm=H,
                  arch_type="cohere", fused=False, matrices=3)


def _internlm2(c: _Config, model_type: str) -> dict:
    """InternLM2 / 2.5 (internlm2, remote code): fused wqkv (the query heads and the GQA key/value heads in one
    projection) and wo, biased with `bias` (InternLM2Config's default; the published configs set it false), SwiGLU
    w1/w3/w2 without biases, RMSNorm, untied output head."""
    b = _common(c)
    H, nh, nkv, d = b["H"], b["nh"], b["nkv"], b["d"]
    q, kv = nh * d, nkv * d
    attn = H * (q + 2 * kv) + q * H + (q + 2 * kv + H if c.flag("bias", True) else 0)
    return _plain(b, attn=attn, inter=c.int("intermediate_size"), mlp_bias=False, norms=2 * H, final_norm=H,
                  arch_type="internlm2", fused=True, matrices=3)


def _chatglm(c: _Config, model_type: str) -> dict:
    """ChatGLM2/3 and GLM-4-9B-chat (chatglm, remote code): fused query_key_value with multi_query_group_num
    key/value groups (multi_query_attention) of kv_channels, biased with add_qkv_bias or add_bias_linear; dense and
    the SwiGLU dense_h_to_4h (both halves fused) / dense_4h_to_h of ffn_hidden_size biased only with
    add_bias_linear; RMSNorm (LayerNorm with rmsnorm false), a final norm with post_layer_norm; untied
    output_layer of padded_vocab_size."""
    grouped = c.flag("multi_query_attention", False)
    if grouped and c.get("multi_query_group_num") is None:
        c.fail("chatglm config lacks field 'multi_query_group_num' (multi_query_attention is true)")
    b = _common(c, layers=("num_layers", "num_hidden_layers"), kv_heads=("multi_query_group_num",) if grouped else (),
                head_dim=("kv_channels",), vocab=("padded_vocab_size", "vocab_size"))
    H, nh, nkv, d = b["H"], b["nh"], b["nkv"], b["d"]
    q, kv = nh * d, nkv * d
    bias = c.flag("add_bias_linear", False)
    attn = H * (q + 2 * kv) + q * H + (q + 2 * kv if bias or c.flag("add_qkv_bias", False) else 0) + (H if bias else 0)
    norm = H if c.flag("rmsnorm", True) else 2 * H
    return _plain(b, attn=attn, inter=c.int("ffn_hidden_size"), mlp_bias=bias, norms=2 * norm,
                  final_norm=norm if c.flag("post_layer_norm", True) else 0, arch_type="chatglm", fused=True,
                  matrices=3)


def _gpt_oss(c: _Config, model_type: str) -> dict:
    """gpt-oss: biased attention with a learned sink per head, biased experts, alternating sliding window."""
    b = _common(c)
    H, L, nh, nkv, d = b["H"], b["L"], b["nh"], b["nkv"], b["d"]
    moe = _moe(c)
    if moe is None:
        c.fail("gpt_oss config lacks field 'num_local_experts' (gpt-oss is a mixture of experts)")
    attn = (H * nh * d + nh * d) + 2 * (H * nkv * d + nkv * d) + (nh * d * H + H) + nh
    I = moe["Ie"]
    per_expert = H * 2 * I + 2 * I + I * H + H
    mlp = moe["E"] * H + moe["E"] + moe["E"] * per_expert
    window = _window(c)
    kinds = _counted_kinds(c, L)
    if kinds is not None:
        full = kinds[0]
    else:
        full = L // 2 if window else L            # layers 0, 2, 4, ... slide
    return {**b, "body": L * (attn + mlp + 2 * H) + H, "inactive": (moe["E"] - moe["k"]) * per_expert * L,
            "moe": moe, "full_layers": full, "sliding_window": window if full < L else None,
            "kv_per_token": 2 * full * nkv * d * BF16_BYTES, "state": 0, "arch_type": "gpt_oss", "moe_layers": L}


def _mla(c: _Config, model_type: str) -> dict:
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2): latent KV, a query LoRA or a plain q_proj
    (`"q_lora_rank": null`, DeepSeek-V2-Lite), first dense layers, shared experts, router bias under noaux_tc;
    biases on q_a_proj, kv_a_proj_with_mqa and o_proj with attention_bias (DeepseekV3Attention). glm4_moe_lite
    (GLM-4.7-Flash) is this attention with GLM-4.5's experts: a router that always keeps its score-correction bias,
    dense layers where mlp_layer_types says "dense" (Glm4MoeLiteConfig: the first only); its multi-token-prediction
    layer (num_nextn_predict_layers, layer 47 of the checkpoint) is left out, as transformers leaves it. The heads
    need not divide the width (GLM-4.7-Flash: 20 heads of 2048): their widths are the *_head_dim fields.
    deepseek_v32 (DeepSeek-V3.2) and glm_moe_dsa (GLM-5, GLM-5.1) add DeepSeek Sparse Attention's lightning indexer
    to this attention, in every layer that has one of its own (indexer_types)."""
    c.int("v_head_dim")                          # named before the widths it excuses from dividing
    b = _common(c, head_dim=("v_head_dim",))
    H, L, nh = b["H"], b["L"], b["nh"]
    q_rank = c.opt_int("q_lora_rank")
    kv_rank = c.int("kv_lora_rank")
    nope, rope, v = c.int("qk_nope_head_dim"), c.int("qk_rope_head_dim"), c.int("v_head_dim")
    if q_rank:
        q = H * q_rank + q_rank + q_rank * nh * (nope + rope)
    else:
        q = H * nh * (nope + rope)
    attn = q + H * (kv_rank + rope) + kv_rank + kv_rank * nh * (nope + v) + nh * v * H
    if c.flag("attention_bias", False):
        attn += (q_rank or 0) + kv_rank + rope + H
    sparse = {}
    indexed = 0   # layers with a lightning indexer of their own
    if model_type in ("deepseek_v32", "glm_moe_dsa"):   # DeepSeek Sparse Attention's lightning indexer
        # (DeepSeek's inference/model.py, Indexer; transformers' GlmMoeDsaIndexer: the same four weights)
        if not q_rank:
            c.fail(f"a {model_type} config needs q_lora_rank: the indexer's queries project from the query LoRA")
        ih, idim, topk = c.int("index_n_heads"), c.int("index_head_dim"), c.int("index_topk")
        # layers that share the indexer of the one before keep no weights or keys of their own (indexer_types
        # "shared", GlmMoeDsaConfig's IndexShare); without the field every layer has its own
        kinds = c.layer_list("indexer_types", L)
        if kinds is not None and set(kinds) - {"full", "shared"}:
            c.fail(f"field 'indexer_types' must list 'full' or 'shared' for each layer, got "
                   f"{_show(sorted(set(kinds) - {'full', 'shared'}))}")
        indexed = L if kinds is None else kinds.count("full")
        # wq_b (q_lora_rank → heads × head_dim), wk (hidden → head_dim), k_norm (a LayerNorm: weight and bias),
        # weights_proj (hidden → heads)
        indexer = q_rank * ih * idim + H * idim + 2 * idim + H * ih
        # its keys cached in FP8 with one FP32 scale per 128 values (k_cache, k_scale_cache): bytes per token a layer
        sparse = {"sparse_topk": topk, "indexer_bytes": indexed * (idim + 4 * -(-idim // 128)),
                  "indexer_flops": 2.0 * ih * idim * indexed}
    moe = _moe(c)
    kinds = c.layer_list("mlp_layer_types", L) if model_type in ("glm4_moe_lite", "glm_moe_dsa") else None
    if kinds is not None:
        if set(kinds) - {"dense", "sparse"}:
            c.fail(f"field 'mlp_layer_types' must list 'dense' or 'sparse' for each layer, got "
                   f"{_show(sorted(set(kinds) - {'dense', 'sparse'}))}")
        dense_layers = kinds.count("dense") if moe else L
    else:
        dense_layers = c.int("first_k_dense_replace", default=1 if model_type == "glm4_moe_lite" else 0, minimum=0,
                             maximum=MAX_LAYERS) if moe else L
    if dense_layers > L:
        c.fail(f"field 'first_k_dense_replace' ({dense_layers}) exceeds num_hidden_layers ({L})")
    moe_layers = L - dense_layers
    dense_mlp = 3 * H * c.int("intermediate_size") if dense_layers else 0
    per_expert = inactive = moe_mlp = 0
    if moe is not None:
        per_expert = 3 * H * moe["Ie"]
        default_topk = "greedy" if model_type == "deepseek_v2" else "noaux_tc"
        bias = moe["E"] if model_type == "glm4_moe_lite" or c.text("topk_method", default_topk) == "noaux_tc" else 0
        moe_mlp = moe["E"] * H + bias + moe["E"] * per_expert + moe["n_shared"] * 3 * H * moe["Ie"]
        inactive = (moe["E"] - moe["k"]) * per_expert * moe_layers
    body = dense_layers * (attn + dense_mlp + 2 * H) + moe_layers * (attn + moe_mlp + 2 * H) + H \
        + (indexed * indexer if indexed else 0)
    return {**b, "d": None, "body": body, "inactive": inactive, "moe": moe, "full_layers": L, "sliding_window": None,
            "kv_per_token": (kv_rank + rope) * L * BF16_BYTES + sparse.get("indexer_bytes", 0), "state": 0,
            "arch_type": "mla_moe", **sparse,
            "mla": {"q_lora_rank": q_rank, "kv_lora_rank": kv_rank, "qk_nope_head_dim": nope,
                    "qk_rope_head_dim": rope, "v_head_dim": v}, "first_k_dense": dense_layers if moe else None,
            "moe_layers": moe_layers}


def _qwen35(c: _Config, model_type: str) -> dict:
    """Qwen3.5/3.6 and Qwen3-Next: Gated DeltaNet layers with one gated full-attention layer in every few."""
    b = _common(c)
    H, L, nh, nkv, d = b["H"], b["L"], b["nh"], b["nkv"], b["d"]
    kinds = _counted_kinds(c, L)
    if kinds is not None:
        full = kinds[0]
    else:
        full = L // c.int("full_attention_interval", default=4, maximum=MAX_LAYERS)
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


def _nemotron_h(c: _Config, model_type: str) -> dict:
    """Nemotron-H: each layer is one block, Mamba-2 (M), mixture of experts (E), attention (*) or MLP (-)."""
    b = _common(c)
    H, L, nh, nkv, d = b["H"], b["L"], b["nh"], b["nkv"], b["d"]
    pattern = c.get("hybrid_override_pattern")
    if pattern is None:
        blocks = c.layer_list("layers_block_type", L)
        if blocks is None:
            c.fail("nemotron_h config lacks field 'hybrid_override_pattern'")
        if any(x not in _BLOCKS for x in blocks):
            c.fail("field 'layers_block_type' must list mamba/moe/attention/mlp blocks")
        pattern = "".join(_BLOCKS[x] for x in blocks)
    if not isinstance(pattern, str) or set(pattern) - set("ME*-") or len(pattern) != L:
        c.fail(f"field 'hybrid_override_pattern' must have {L} characters of M, E, * or -, got {_show(pattern)}")
    heads, head_dim = c.int("mamba_num_heads"), c.int("mamba_head_dim")
    groups, state_n = c.int("n_groups"), c.int("ssm_state_size")
    kernel = c.int("conv_kernel", default=4)
    inner = heads * head_dim
    gn = 2 * groups * state_n
    mamba = H * (2 * inner + gn + heads) + (inner + gn) * kernel + (inner + gn) + 3 * heads + inner + inner * H
    attn = H * nh * d + 2 * H * nkv * d + nh * d * H
    moe = _moe(c)
    latent = c.opt_int("moe_latent_size")
    per_expert = moe_block = 0
    if moe is not None:
        width = latent or H
        per_expert = 2 * width * moe["Ie"]
        moe_block = moe["E"] * H + moe["E"] + moe["E"] * per_expert + 2 * H * moe["Is"] \
            + (2 * H * latent if latent else 0)
    mlp = 2 * H * c.int("intermediate_size") if "-" in pattern else 0
    if "E" in pattern and moe is None:
        c.fail("nemotron_h config lacks field 'n_routed_experts' (the pattern has MoE blocks)")
    count = {ch: pattern.count(ch) for ch in "ME*-"}
    size = {"M": mamba, "E": moe_block, "*": attn, "-": mlp}
    body = sum(n * (size[ch] + H) for ch, n in count.items()) + H
    n_moe = count["E"]
    inactive = (moe["E"] - moe["k"]) * per_expert * n_moe if moe else 0
    full, n_mamba = count["*"], count["M"]
    state = n_mamba * (inner * state_n * FP32_BYTES + (inner + gn) * (kernel - 1) * BF16_BYTES)
    return {**b, "body": body, "inactive": inactive, "moe": moe, "full_layers": full, "sliding_window": None,
            "kv_per_token": 2 * full * nkv * d * BF16_BYTES, "state": state, "arch_type": "nemotron_h",
            "linear_layers": n_mamba, "mamba_shape": (inner, gn, heads), "moe_layers": n_moe, "mlp_matrices": 2}


def _nemotron_nas(c: _Config, model_type: str) -> dict:
    """Nemotron-NAS (DeciLM: Llama-3.3-Nemotron-Super-49B, Llama-3.1-Nemotron-51B and -Ultra-253B), a Llama whose
    layers a search pruned one by one: `block_configs` gives each layer's attention (GQA with num_attention_heads /
    n_heads_in_group KV heads, a single hidden × hidden linear with replace_with_linear, or nothing with no_op) and
    its gated MLP (width int(2 · ffn_mult · hidden / 3) rounded up to a multiple of 256, a linear, or nothing). A
    sub-block that is there keeps its RMSNorm; a no-op has none (vLLM's and TensorRT-LLM's nemotron_nas.py, which
    also give the width rule). Untied head unless told."""
    H = c.int("hidden_size")
    nh = c.int("num_attention_heads", maximum=MAX_WIDTH)
    d = c.opt_int("head_dim")
    if d is None:
        if H % nh:
            c.fail(f"field 'num_attention_heads' ({nh}) must divide hidden_size ({H}) when head_dim is not given")
        d = H // nh
    V = c.int("vocab_size")
    blocks = c.data.get("block_configs")
    if not isinstance(blocks, list) or not blocks:
        c.fail(f"nemotron-nas config lacks field 'block_configs' (one entry a layer), got {_show(blocks)}")
    L = c.int("num_hidden_layers", default=len(blocks), maximum=MAX_LAYERS)
    if len(blocks) != L:
        c.fail(f"field 'block_configs' must list {L} layers (num_hidden_layers), got {len(blocks)} entries")
    attention_bias, mlp_bias = c.flag("attention_bias", False), c.flag("mlp_bias", False)
    plan, body = [], H                                              # the final RMSNorm
    for i, block in enumerate(blocks):
        where = f"block_configs[{i}]"
        if not isinstance(block, dict):
            c.fail(f"field {where!r} must be an object with 'attention' and 'ffn', got {_show(block)}")
        parts = []
        for part in ("attention", "ffn"):
            sub = block.get(part)
            if not isinstance(sub, dict):
                c.fail(f"field '{where}.{part}' must be an object, got {_show(sub)}")
            block_config = _Config(sub, c.where)
            block_config.family = f"{c.family} {where}.{part}"
            if block_config.flag("no_op", False):
                parts.append(None)
            elif block_config.flag("replace_with_linear", False):
                parts.append("linear")
                body += H * H + H
            elif part == "attention":
                if block_config.get("window_length") is not None:
                    c.fail(f"field '{where}.attention.window_length' is set: windowed attention inside a "
                           f"Nemotron-NAS model is not counted here")
                group = block_config.int("n_heads_in_group", maximum=nh)
                if nh % group:
                    c.fail(f"field '{where}.attention.n_heads_in_group' ({group}) must divide num_attention_heads "
                           f"({nh})")
                kv = nh // group
                parts.append(kv)
                body += 2 * H * nh * d + 2 * H * kv * d + H + ((nh + 2 * kv) * d + H if attention_bias else 0)
            else:
                mult = sub.get("ffn_mult")
                if not is_finite(mult) \
                        or not 0 < mult <= 1000:
                    c.fail(f"field '{where}.ffn.ffn_mult' must be a number in (0, 1000], got {_show(mult)}")
                width = -(-int(2 * mult * H / 3) // 256) * 256
                parts.append(width)
                body += 3 * H * width + H + (2 * width + H if mlp_bias else 0)
        plan.append(tuple(parts))
    attention = [a for a, _ in plan if isinstance(a, int)]
    widths = [f for _, f in plan if isinstance(f, int)]
    if not attention:
        c.fail("field 'block_configs' has no layer with attention")
    return {"H": H, "L": L, "nh": nh, "nkv": max(set(attention), key=attention.count), "d": d, "V": V,
            "tied": c.flag("tie_word_embeddings", False), "body": body, "inactive": 0, "moe": None, "moe_layers": 0,
            "full_layers": len(attention), "sliding_window": None, "kv_per_token": 2 * sum(attention) * d * BF16_BYTES,
            "state": 0, "arch_type": "nemotron_nas", "inter": max(widths) if widths else None,
            "layer_plan": tuple(plan)}


# ------------------------------------------------------------------------------------------------ more families

def _section(c: _Config, name: str) -> _Config:
    """A nested object of the config (DBRX's attn_config, MPT's ffn_config) with the same checks; {} if absent."""
    value = c.data.get(name)
    if value is None:
        value = {}
    if not isinstance(value, dict):
        c.fail(f"field {name!r} must be an object, got {_show(value)}")
    sub = _Config(value, c.where)
    sub.family = f"{c.family} {name}"
    return sub


def _gqa(b: dict, *, qkv_bias: bool = False, o_bias: bool = False, qk_norm: int = 0) -> int:
    """Separate q, k, v and o projections of a GQA attention, their biases where asked, and `qk_norm` weights."""
    H, q, kv = b["H"], b["nh"] * b["d"], b["nkv"] * b["d"]
    return H * q + 2 * H * kv + q * H + (q + 2 * kv if qkv_bias else 0) + (H if o_bias else 0) + qk_norm


def _assemble(b: dict, *, attn: int, norms: int, final_norm: int, dense_layers: int, dense_mlp: int, moe=None,
              moe_mlp: int = 0, per_expert: int = 0, arch_type: str, inter=None, full=None, window=None,
              **extra) -> dict:
    """L layers of attention and norms, `dense_layers` of them with a dense MLP and the rest with routed experts."""
    L, kv = b["L"], b["nkv"] * b["d"]
    moe_layers = L - dense_layers if moe else 0
    full = L if full is None else full
    return {**b, "body": L * (attn + norms) + dense_layers * dense_mlp + moe_layers * moe_mlp + final_norm,
            "inactive": (moe["E"] - moe["k"]) * per_expert * moe_layers if moe else 0, "moe": moe,
            "moe_layers": moe_layers, "full_layers": full, "sliding_window": window if full < L else None,
            "kv_per_token": 2 * full * kv * BF16_BYTES, "state": 0, "arch_type": arch_type, "inter": inter, **extra}


def _dbrx(c: _Config, model_type: str) -> dict:
    """DBRX: fused Wqkv with attn_config.kv_n_heads key/value heads (DbrxAttentionConfig's default 1), out_proj, two
    LayerNorms without biases, ffn_config's moe_num_experts experts of three matrices (w1, v1, w2, stored stacked)
    with a router; untied head (DbrxConfig refuses a tied one)."""
    attn_cfg, ffn = _section(c, "attn_config"), _section(c, "ffn_config")
    c.data = {**c.data, "num_key_value_heads": attn_cfg.int("kv_n_heads", default=1, maximum=MAX_WIDTH)}
    b = _common(c, hidden=("d_model", "hidden_size"), layers=("n_layers", "num_hidden_layers"),
                heads=("n_heads", "num_attention_heads"), head_dim=())
    if c.flag("tie_word_embeddings", False):
        c.fail("field 'tie_word_embeddings' is true, which DBRX does not support (DbrxConfig refuses it)")
    H, q, kv = b["H"], b["nh"] * b["d"], b["nkv"] * b["d"]
    e = ffn.int("moe_num_experts", default=4, maximum=MAX_LAYERS)
    k = ffn.int("moe_top_k", default=1, maximum=MAX_LAYERS)
    if k > e:
        c.fail(f"field 'ffn_config.moe_top_k' ({k}) must not exceed ffn_config.moe_num_experts ({e})")
    width = ffn.int("ffn_hidden_size", default=3584)
    moe = {"E": e, "k": k, "Ie": width, "Is": 0, "n_shared": 0}
    per_expert = 3 * H * width
    return _assemble(b, attn=H * (q + 2 * kv) + q * H, norms=2 * H, final_norm=H, dense_layers=0, dense_mlp=0,
                     moe=moe, moe_mlp=e * H + e * per_expert, per_expert=per_expert, arch_type="dbrx",
                     fused_qkv=True)


MPT_FFN_MATRICES = {"mptmlp": 2, "mptglu": 3}


def _mpt(c: _Config, model_type: str) -> dict:
    """MPT (MosaicML's code, which the configs' auto_map names): fused Wqkv (multi-head, multi-query or grouped
    attention), biases on every linear and norm unless no_bias (MPTConfig's default false; the released configs set
    it true), LayerNorms (RMSNorm with an rmsnorm norm_type), an MLP of expansion_ratio × d_model (or
    ffn_config.ffn_hidden_size; mptglu gated), learned positions only without ALiBi or rotary, head tied."""
    attn_cfg, ffn = _section(c, "attn_config"), _section(c, "ffn_config")
    heads = c.int("n_heads", "num_attention_heads")
    kind = attn_cfg.text("attn_type", "multihead_attention")
    if kind == "multihead_attention":
        kv_heads = heads
    elif kind == "multiquery_attention":
        kv_heads = 1
    elif kind == "grouped_query_attention":
        kv_heads = attn_cfg.int("kv_n_heads")
    else:
        c.fail(f"field 'attn_config.attn_type' is {_show(kind)}; MPT attention types read: multihead_attention, "
               f"multiquery_attention, grouped_query_attention")
    c.data = {**c.data, "num_key_value_heads": kv_heads}
    b = _common(c, hidden=("d_model", "hidden_size"), layers=("n_layers", "num_hidden_layers"),
                heads=("n_heads", "num_attention_heads"), head_dim=())
    b["tied"] = c.flag("tie_word_embeddings", True)
    H, q, kv = b["H"], b["nh"] * b["d"], b["nkv"] * b["d"]
    bias = not c.flag("no_bias", False)
    norm_type = c.text("norm_type", "low_precision_layernorm")
    if norm_type not in ("layernorm", "low_precision_layernorm", "rmsnorm", "low_precision_rmsnorm"):
        c.fail(f"field 'norm_type' is {_show(norm_type)}; MPT norms read: layernorm, low_precision_layernorm, "
               f"rmsnorm, low_precision_rmsnorm")
    norm = H if "rmsnorm" in norm_type or not bias else 2 * H
    ffn_type = ffn.text("ffn_type", "mptmlp")
    if ffn_type not in MPT_FFN_MATRICES:
        c.fail(f"field 'ffn_config.ffn_type' is {_show(ffn_type)}; MPT feed-forward types read: mptmlp, mptglu")
    ratio = c.get("expansion_ratio", default=4)
    if not is_finite(ratio) \
            or not 0 < ratio <= 1000:
        c.fail(f"field 'expansion_ratio' must be a number in (0, 1000], got {_show(ratio)}")
    inter = ffn.int("ffn_hidden_size", default=int(ratio * H))
    attn = H * (q + 2 * kv) + q * H + (q + 2 * kv + H if bias else 0)
    if attn_cfg.flag("qk_ln", False):
        attn += (q + kv) * (norm // H)
    positional = c.flag("learned_pos_emb", True) and not attn_cfg.flag("alibi", False) \
        and not attn_cfg.flag("rope", False)
    positions = c.int("max_seq_len", "max_position_embeddings", maximum=MAX_LENGTH) if positional else 0
    return _plain(b, attn=attn, inter=inter, mlp_bias=bias, norms=2 * norm, final_norm=norm, arch_type="mpt",
                  fused=True, lookup_extra=positions * H, matrices=MPT_FFN_MATRICES[ffn_type])


def _phimoe(c: _Config, model_type: str) -> dict:
    """Phi-3.5-MoE (phimoe): GQA with biases (attention_bias), LayerNorms with biases, num_local_experts experts of
    three matrices and a router in every layer, untied head with a bias (lm_head_bias)."""
    b = _common(c)
    H, L = b["H"], b["L"]
    moe = _moe(c, width_names=("intermediate_size",))
    if moe is None:
        c.fail("phimoe config lacks field 'num_local_experts' (Phi-3.5-MoE is a mixture of experts)")
    per_expert = 3 * H * moe["Ie"]
    full, window = _llama_sliding(c, model_type, L)
    out = _assemble(b, attn=_gqa(b, qkv_bias=c.flag("attention_bias", False), o_bias=c.flag("attention_bias", False)),
                    norms=4 * H, final_norm=2 * H, dense_layers=0, dense_mlp=0, moe=moe,
                    moe_mlp=moe["E"] * H + moe["E"] * per_expert, per_expert=per_expert, arch_type="phimoe",
                    inter=moe["Ie"], full=full, window=window)
    out["head_bias"] = b["V"] if c.flag("lm_head_bias", False) else 0
    return out


def _nemotron(c: _Config, model_type: str) -> dict:
    """Nemotron (Nemotron-4, Minitron): GQA (head_dim may differ from width / heads; biases with attention_bias),
    LayerNorm1P with weight and bias, a squared-ReLU MLP of two matrices (biases with mlp_bias), untied head."""
    b = _common(c)
    H = b["H"]
    return _plain(b, attn=_gqa(b, qkv_bias=c.flag("attention_bias", False), o_bias=c.flag("attention_bias", False)),
                  inter=c.int("intermediate_size"), mlp_bias=c.flag("mlp_bias", False), norms=4 * H,
                  final_norm=2 * H, arch_type="nemotron", fused=False)


def _deepseek(c: _Config, model_type: str) -> dict:
    """DeepSeekMoE (model_type deepseek, remote code): Llama attention, the first first_k_dense_replace layers dense,
    then every moe_layer_freq-th layer with n_routed_experts experts, a router without a bias, and the
    n_shared_experts shared experts as one MLP of their summed width (no gate); untied head."""
    b = _common(c)
    H, L = b["H"], b["L"]
    moe = _moe(c)
    if moe is None:
        c.fail("deepseek config lacks field 'n_routed_experts' (DeepSeekMoE is a mixture of experts)")
    first = c.int("first_k_dense_replace", default=0, minimum=0, maximum=MAX_LAYERS)
    freq = c.int("moe_layer_freq", default=1, maximum=MAX_LAYERS)
    n_moe = sum(1 for i in range(L) if i >= first and i % freq == 0)
    per_expert = 3 * H * moe["Ie"]
    inter = c.int("intermediate_size") if n_moe < L else c.opt_int("intermediate_size")
    return _assemble(b, attn=_gqa(b, qkv_bias=c.flag("attention_bias", False), o_bias=c.flag("attention_bias", False)),
                     norms=2 * H, final_norm=H, dense_layers=L - n_moe, dense_mlp=3 * H * (inter or 0), moe=moe,
                     moe_mlp=moe["E"] * H + moe["E"] * per_expert + 3 * H * moe["Is"], per_expert=per_expert,
                     arch_type="deepseek", inter=inter, first_k_dense=first if freq == 1 else None)


def _ernie4_5(c: _Config, model_type: str) -> dict:
    """ERNIE 4.5: Llama layout (head_dim may differ from width / heads) with biases on every projection under
    use_bias, head tied unless told; ernie4_5_moe adds, on layers moe_layer_start_index..moe_layer_end_index at
    every moe_layer_interval-th, moe_num_experts experts of moe_intermediate_size with a router and its
    score-correction bias, and the shared experts as one MLP of their summed width. The multi-token-prediction
    weights are left out, as transformers leaves them."""
    b = _common(c)
    b["tied"] = c.flag("tie_word_embeddings", True)
    H, L = b["H"], b["L"]
    bias = c.flag("use_bias", False)
    attn = _gqa(b, qkv_bias=bias, o_bias=bias)
    inter = c.int("intermediate_size")
    dense_mlp = 3 * H * inter + (2 * inter + H if bias else 0)
    if model_type == "ernie4_5":
        return _assemble(b, attn=attn, norms=2 * H, final_norm=H, dense_layers=L, dense_mlp=dense_mlp,
                         arch_type="ernie4_5", inter=inter)
    e = c.int("moe_num_experts", maximum=MAX_LAYERS)
    k = c.int("moe_k", maximum=MAX_LAYERS)
    if k >= e:
        c.fail(f"field 'moe_k' ({k}) must be below moe_num_experts ({e})")
    width = c.int("moe_intermediate_size")
    shared = c.int("moe_num_shared_experts", default=0, minimum=0, maximum=MAX_LAYERS)
    start = c.int("moe_layer_start_index", default=0, minimum=0, maximum=MAX_LAYERS)
    end = c.int("moe_layer_end_index", default=L - 1, minimum=-1, maximum=MAX_LAYERS)
    end = L - 1 if end < 0 else end
    every = c.int("moe_layer_interval", default=1, maximum=MAX_LAYERS)
    n_moe = sum(1 for i in range(L) if (i + 1) % every == 0 and start <= i <= end)
    moe = {"E": e, "k": k, "Ie": width, "Is": shared * width, "n_shared": shared}
    per_expert = 3 * H * width
    return _assemble(b, attn=attn, norms=2 * H, final_norm=H, dense_layers=L - n_moe, dense_mlp=dense_mlp, moe=moe,
                     moe_mlp=e * H + e + e * per_expert + 3 * H * shared * width, per_expert=per_expert,
                     arch_type="ernie4_5_moe", inter=inter)


def _llama_variant(c: _Config, model_type: str) -> dict:
    """Llama-layout families whose names or flags differ:
    seed_oss      q/k/v biases with attention_bias, o_proj's with attention_out_bias, MLP biases with mlp_bias;
                  head_dim may differ from width / heads
    hunyuan_v1_dense  per-head q/k RMSNorms (query_layernorm, key_layernorm: use_qk_norm)
    exaone        EXAONE 3.0/3.5 (remote code): num_layers, q/k/v/out_proj without biases, gated c_fc_0/c_fc_1/c_proj,
                  RMSNorm ln_1/ln_2, head tied unless told (PretrainedConfig's default)
    minicpm       MiniCPM (remote code): Llama weights (its scale_emb and scale_depth are scalars), head tied unless
                  told
    baichuan      Baichuan 2 (remote code): fused W_pack (multi-head), NormHead (a V × H weight like any head)
    glm           GLM-4-9B-chat-hf: q/k/v biases with attention_bias (o_proj never), fused gate_up_proj
    glm4          GLM-4-0414: glm's weights with four RMSNorms a layer (after attention and after the MLP too)
    exaone4       EXAONE 4.0: per-head q/k RMSNorms, two RMSNorms a layer (after attention and after the MLP), sliding
                  windows on all but every sliding_window_pattern-th layer (a number, or a string such as 'LLLG')"""
    b = _common(c, layers=("num_hidden_layers", "num_layers") if model_type == "exaone" else ("num_hidden_layers",))
    if model_type in ("exaone", "minicpm"):
        b["tied"] = c.flag("tie_word_embeddings", True)
    H, d = b["H"], b["d"]
    qk_norm = 2 * d if model_type == "hunyuan_v1_dense" and c.flag("use_qk_norm", True) or model_type == "exaone4" \
        else 0
    if model_type == "seed_oss":
        attn = _gqa(b, qkv_bias=c.flag("attention_bias", False), o_bias=c.flag("attention_out_bias", False))
    elif model_type in ("glm", "glm4"):
        attn = _gqa(b, qkv_bias=c.flag("attention_bias", model_type == "glm4"))
    else:
        attn = _gqa(b, qkv_bias=c.flag("attention_bias", False), o_bias=c.flag("attention_bias", False),
                    qk_norm=qk_norm)
    inter = c.int("intermediate_size")
    mlp_bias = model_type == "seed_oss" and c.flag("mlp_bias", False)
    dense_mlp = 3 * H * inter + (2 * inter + H if mlp_bias else 0)
    full, window = _llama_sliding(c, model_type, b["L"])
    return _assemble(b, attn=attn, norms=(4 if model_type == "glm4" else 2) * H, final_norm=H, dense_layers=b["L"],
                     dense_mlp=dense_mlp, arch_type=model_type, inter=inter, full=full, window=window,
                     fused_qkv=model_type == "baichuan")


def _cohere2(c: _Config, model_type: str) -> dict:
    """Command R7B / Command A (cohere2): Cohere's parallel block (one LayerNorm without a bias, SwiGLU MLP, head tied
    unless told) with sliding-window layers and every sliding_window_pattern-th one global (or as layer_types say)."""
    out = _cohere(c, model_type)
    L = out["L"]
    window = _window(c)
    kinds = _counted_kinds(c, L)
    if kinds is not None:
        full = kinds[0]
    elif window is None:
        full = L
    else:
        full = L // c.int("sliding_window_pattern", default=4, maximum=MAX_LAYERS)
    out.update(full_layers=full, sliding_window=window if full < L else None, arch_type="cohere2",
               kv_per_token=2 * full * out["nkv"] * out["d"] * BF16_BYTES)
    return out


def _jamba(c: _Config, model_type: str) -> dict:
    """Jamba: each layer one mixer, attention (GQA, no rotary, no biases) where i % attn_layer_period ==
    attn_layer_offset and Mamba elsewhere (in_proj to 2 × d_inner, a depthwise conv, x_proj to dt_rank + 2 × d_state,
    dt_proj with its bias, A_log, D, out_proj, and the dt/B/C RMSNorms), then one feed-forward: num_experts experts
    of three matrices and a router where i % expert_layer_period == expert_layer_offset, a dense MLP elsewhere."""
    b = _common(c)
    H, L = b["H"], b["L"]

    def layers_where(period_name, offset_name, period_default, offset_default):
        period = c.int(period_name, default=period_default, maximum=MAX_LAYERS)
        offset = c.int(offset_name, default=offset_default, minimum=0, maximum=MAX_LAYERS)
        if offset >= period:
            c.fail(f"field {offset_name!r} ({offset}) must be below {period_name} ({period})")
        return sum(1 for i in range(L) if i % period == offset)

    n_attn = layers_where("attn_layer_period", "attn_layer_offset", 8, 4)
    n_mamba = L - n_attn
    experts = c.get("num_experts")
    moe = _moe(c, width_names=("intermediate_size",)) if experts not in (None, 0, 1) else None
    n_moe = layers_where("expert_layer_period", "expert_layer_offset", 2, 1) if moe else 0
    inter = c.int("intermediate_size")
    inner = c.int("mamba_expand", default=2, maximum=MAX_LAYERS) * H
    state_n = c.int("mamba_d_state", default=16)
    kernel = c.int("mamba_d_conv", default=4)
    rank = c.get("mamba_dt_rank", default="auto")
    rank = math.ceil(H / 16) if rank == "auto" else c.int("mamba_dt_rank")
    proj_bias, conv_bias = c.flag("mamba_proj_bias", False), c.flag("mamba_conv_bias", True)
    mamba = H * 2 * inner + (2 * inner if proj_bias else 0) + inner * kernel + (inner if conv_bias else 0) \
        + inner * (rank + 2 * state_n) + rank * inner + inner + inner * state_n + inner + inner * H \
        + (H if proj_bias else 0) + (rank + 2 * state_n if c.flag("mamba_inner_layernorms", True) else 0)
    per_expert = 3 * H * inter
    body = n_attn * _gqa(b) + n_mamba * mamba + L * 2 * H + (L - n_moe) * 3 * H * inter \
        + (n_moe * (moe["E"] * H + moe["E"] * per_expert) if moe else 0) + H
    state = n_mamba * (inner * state_n * FP32_BYTES + inner * (kernel - 1) * BF16_BYTES)
    return {**b, "body": body, "inactive": (moe["E"] - moe["k"]) * per_expert * n_moe if moe else 0, "moe": moe,
            "moe_layers": n_moe, "full_layers": n_attn, "sliding_window": None,
            "kv_per_token": 2 * n_attn * b["nkv"] * b["d"] * BF16_BYTES, "state": state, "arch_type": "jamba",
            "linear_layers": n_mamba, "mamba_shape": (inner, 0, 0), "inter": inter}


def _mamba2(c: _Config, H: int, names: dict, inner: int | None = None) -> dict:
    """A Mamba-2 mixer (Bamba's, Granite 4.0's, Falcon-H1's): in_proj to z, x, B, C and dt (2 × inner + 2 × groups ×
    state + heads), a depthwise conv over x, B and C with its bias, dt_bias, A_log and D per head, the gated RMSNorm
    over inner (where `norm` is true), out_proj; biases on in_proj with `proj_bias`, on out_proj with `out_bias`.
    `names` maps heads, head_dim, groups, state, conv, expand to the family's field names."""
    if inner is None:
        inner = c.int(names["expand"], default=2, maximum=MAX_LAYERS) * H
    heads = c.int(names["heads"], default=names.get("heads_default", 128), maximum=MAX_WIDTH)
    head_dim = c.get(names["head_dim"], default="auto")
    head_dim = inner // heads if head_dim == "auto" else c.int(names["head_dim"])
    if heads * head_dim != inner:
        c.fail(f"fields {names['heads']!r} ({heads}) × {names['head_dim']!r} ({head_dim}) must give the Mamba inner "
               f"width ({inner})")
    groups = c.int(names["groups"], default=1, maximum=MAX_WIDTH)
    state_n = c.int(names["state"], default=names.get("state_default", 256))
    kernel = c.int(names["conv"], default=4)
    gn = 2 * groups * state_n
    conv_dim = inner + gn
    in_bias = c.flag(names["proj_bias"], False)
    out_bias = c.flag(names["out_bias"], False) if "out_bias" in names else in_bias
    params = H * (inner + conv_dim + heads) + (inner + conv_dim + heads if in_bias else 0) + conv_dim * kernel \
        + (conv_dim if c.flag(names["conv_bias"], True) else 0) + 3 * heads \
        + (inner if names.get("norm", True) else 0) + inner * H + (H if out_bias else 0)
    return {"params": params, "inner": inner, "gn": gn, "heads": heads,
            "state": inner * state_n * FP32_BYTES + conv_dim * (kernel - 1) * BF16_BYTES}


GRANITE_MAMBA = {"heads": "mamba_n_heads", "head_dim": "mamba_d_head", "groups": "mamba_n_groups",
                 "state": "mamba_d_state", "conv": "mamba_d_conv", "expand": "mamba_expand",
                 "proj_bias": "mamba_proj_bias", "conv_bias": "mamba_conv_bias"}


def _granitemoehybrid(c: _Config, model_type: str) -> dict:
    """Granite 4.0 (granitemoehybrid): each layer one mixer, Mamba-2 (Bamba's mixer) or GQA attention (biases with
    attention_bias; rotary or none, no weights either way) as layer_types says (all Mamba without it, as
    GraniteMoeHybridConfig reads it), then num_local_experts experts of intermediate_size (input_linear gate and up,
    output_linear) with a router, and beside them the shared MLP of shared_intermediate_size, the layer's dense MLP
    where num_local_experts is 0 (Granite 4.0 H 1B, Granite 4.0 Micro); two RMSNorms a layer. The embedding,
    residual, attention and logits multipliers are scalars and add no weights."""
    if c.get("num_local_experts") is None:       # GraniteMoeHybridConfig's defaults: 8 experts, 2 a token
        c.data = {**c.data, "num_local_experts": 8, "num_experts_per_tok": c.get("num_experts_per_tok", default=2)}
    b = _common(c)
    H, L = b["H"], b["L"]
    kinds = c.layer_list("layer_types", L) or c.layer_list("layers_block_type", L) or ["mamba"] * L
    if set(kinds) - {"mamba", "attention"}:
        c.fail(f"field 'layer_types' must list 'mamba' or 'attention' for each layer, got "
               f"{_show(sorted(set(kinds) - {'mamba', 'attention'}))}")
    n_attn = kinds.count("attention")
    n_mamba = L - n_attn
    mamba = _mamba2(c, H, GRANITE_MAMBA)
    attn = _gqa(b, qkv_bias=c.flag("attention_bias", False), o_bias=c.flag("attention_bias", False))
    shared = c.int("shared_intermediate_size", default=1024)
    moe = _moe(c, width_names=("intermediate_size",))
    per_expert = 3 * H * moe["Ie"] if moe else 0
    if moe:
        moe["Is"], moe["n_shared"] = shared, 1
    mlp = 3 * H * shared + (moe["E"] * H + moe["E"] * per_expert if moe else 0)
    body = n_attn * attn + n_mamba * mamba["params"] + L * (mlp + 2 * H) + H
    return {**b, "body": body, "inactive": (moe["E"] - moe["k"]) * per_expert * L if moe else 0, "moe": moe,
            "moe_layers": L if moe else 0, "full_layers": n_attn, "sliding_window": None,
            "kv_per_token": 2 * n_attn * b["nkv"] * b["d"] * BF16_BYTES, "state": n_mamba * mamba["state"],
            "arch_type": "granitemoehybrid", "linear_layers": n_mamba,
            "mamba_shape": (mamba["inner"], mamba["gn"], mamba["heads"]), "inter": None if moe else shared}


def _uniform(c: _Config, name: str, L: int, default=_MISSING) -> int:
    """A per-model number that Hunyuan's configs may also give per layer (a list of L equal values)."""
    value = c.data.get(name)
    if isinstance(value, list):
        if len(value) != L or len(set(map(repr, value))) != 1:
            c.fail(f"field {name!r} must be a number or a list of {L} equal numbers (one a layer), got {_show(value)}")
        return c._whole(name, value[0], 1, MAX_WIDTH)
    return c.int(name, default=default, maximum=MAX_WIDTH)


def _hunyuan_moe(c: _Config, model_type: str) -> dict:
    """Hunyuan-A13B (hunyuan_v1_moe): Llama attention with per-head q/k RMSNorms (query_layernorm, key_layernorm),
    then in every layer num_experts experts (moe_intermediate_size where given, else intermediate_size: the released
    configs give both equal), a router (wg) without a bias, and the shared MLP of intermediate_size ×
    num_shared_expert (transformers always builds one); num_experts, moe_topk and the widths may be per-layer lists,
    which must then be equal; head tied as the config says."""
    b = _common(c)
    H, L = b["H"], b["L"]
    inter = c.int("intermediate_size")
    e = _uniform(c, "num_experts", L, default=1)
    k = _uniform(c, "moe_topk", L, default=1)
    if k > e:
        c.fail(f"field 'moe_topk' ({k}) must not exceed num_experts ({e})")
    width = _uniform(c, "moe_intermediate_size", L, default=inter)
    n_shared = _uniform(c, "num_shared_expert", L, default=1)
    moe = {"E": e, "k": k, "Ie": width, "Is": n_shared * inter, "n_shared": n_shared}
    per_expert = 3 * H * width
    full, window = _llama_sliding(c, model_type, L)
    attn = _gqa(b, qkv_bias=c.flag("attention_bias", False), o_bias=c.flag("attention_bias", False),
                qk_norm=2 * b["d"])
    return _assemble(b, attn=attn, norms=2 * H, final_norm=H, dense_layers=0, dense_mlp=0, moe=moe,
                     moe_mlp=e * H + e * per_expert + 3 * H * n_shared * inter, per_expert=per_expert,
                     arch_type="hunyuan_v1_moe", inter=inter, full=full, window=window)


def _lfm2(c: _Config, model_type: str) -> dict:
    """LFM2 (Liquid): each layer one operator, GQA attention (q/k/v/out_proj without biases, per-head q/k RMSNorms)
    where layer_types says full_attention (or full_attn_idxs lists; every layer without either, as Lfm2Config reads
    it), a gated short convolution elsewhere (in_proj to B, C and x, a depthwise conv of conv_L_cache taps, out_proj
    over hidden_size; biases with conv_bias); then a SwiGLU MLP of block_ff_dim (intermediate_size), cut to 2/3, times
    block_ffn_dim_multiplier and rounded up to block_multiple_of when block_auto_adjust_ff_dim (the default); two
    RMSNorms a layer and the final embedding_norm; head tied unless told (tie_embedding, tie_word_embeddings)."""
    b = _common(c)
    H, L = b["H"], b["L"]
    b["tied"] = c.flag("tie_embedding", c.flag("tie_word_embeddings", True))
    kinds = c.layer_list("layer_types", L)
    if kinds is None:
        listed = c.layer_indices("full_attn_idxs", L) if c.get("full_attn_idxs") is not None else set(range(L))
        kinds = ["full_attention" if i in listed else "conv" for i in range(L)]
    if set(kinds) - {"full_attention", "conv"}:
        c.fail(f"field 'layer_types' must list 'full_attention' or 'conv' for each layer, got "
               f"{_show(sorted(set(kinds) - {'full_attention', 'conv'}))}")
    n_attn = kinds.count("full_attention")
    inter = c.int("block_ff_dim", "intermediate_size")
    if c.flag("block_auto_adjust_ff_dim", True):
        inter = int(2 * inter / 3)
        multiplier = c.get("block_ffn_dim_multiplier")
        if multiplier is not None:
            if not is_finite(multiplier) or not 0 < multiplier <= 1000:
                c.fail(f"field 'block_ffn_dim_multiplier' must be a number in (0, 1000], got {_show(multiplier)}")
            inter = int(multiplier * inter)
        step = c.int("block_multiple_of", default=256)
        inter = step * -(-inter // step)
    kernel = c.int("conv_L_cache", default=3)
    bias = c.flag("conv_bias", False)
    conv = H * kernel + 3 * H * H + H * H + (H + 3 * H + H if bias else 0)
    attn = _gqa(b, qk_norm=2 * b["d"])
    body = n_attn * attn + (L - n_attn) * conv + L * (3 * H * inter + 2 * H) + H
    return {**b, "body": body, "inactive": 0, "moe": None, "moe_layers": 0, "full_layers": n_attn,
            "sliding_window": None, "kv_per_token": 2 * n_attn * b["nkv"] * b["d"] * BF16_BYTES,
            "state": (L - n_attn) * H * (kernel - 1) * BF16_BYTES, "arch_type": "lfm2", "linear_layers": L - n_attn,
            "inter": inter}


FALCON_H1_MAMBA = {"heads": "mamba_n_heads", "head_dim": "mamba_d_head", "groups": "mamba_n_groups",
                   "state": "mamba_d_state", "conv": "mamba_d_conv", "expand": "mamba_expand",
                   "proj_bias": "mamba_proj_bias", "out_bias": "projectors_bias", "conv_bias": "mamba_conv_bias"}


def _falcon_h1(c: _Config, model_type: str) -> dict:
    """Falcon-H1: every layer runs a Mamba-2 mixer and GQA attention side by side on the same RMSNorm'd input (their
    outputs summed), then a SwiGLU MLP of intermediate_size after a second RMSNorm (FalconH1DecoderLayer in
    transformers, FalconH1ParallelHybrid in vLLM). The mixer is Bamba's of mamba_d_ssm channels (mamba_expand ×
    hidden_size without it), its in_proj biased with mamba_proj_bias, its out_proj with projectors_bias, its gated
    RMSNorm only with mamba_rms_norm (FalconH1Config's default false; the released 7B sets it); q/k/v/o biased with
    attention_bias, the MLP with mlp_bias. The muP multipliers (embedding, key, attention and SSM in/out, lm_head, ssm
    and mlp lists) scale activations and add no weights; mamba_use_mlp and attn_layer_indices are read by neither
    transformers nor vLLM, which give every layer its attention and its MLP. Untied head unless told. Every layer
    caches K and V and keeps a Mamba state."""
    b = _common(c)
    H, L = b["H"], b["L"]
    c.flag("mamba_use_mlp", True)
    mamba = _mamba2(c, H, {**FALCON_H1_MAMBA, "norm": c.flag("mamba_rms_norm", False)},
                    inner=c.opt_int("mamba_d_ssm"))
    bias = c.flag("attention_bias", False)
    attn = _gqa(b, qkv_bias=bias, o_bias=bias)
    inter = c.int("intermediate_size")
    mlp = 3 * H * inter + (2 * inter + H if c.flag("mlp_bias", False) else 0)
    body = L * (attn + mamba["params"] + mlp + 2 * H) + H
    return {**b, "body": body, "inactive": 0, "moe": None, "moe_layers": 0, "full_layers": L,
            "sliding_window": None, "kv_per_token": 2 * L * b["nkv"] * b["d"] * BF16_BYTES,
            "state": L * mamba["state"], "arch_type": "falcon_h1", "linear_layers": L,
            "mamba_shape": (mamba["inner"], mamba["gn"], mamba["heads"]), "inter": inter}


FAMILIES = {"llama": _llama, "gemma": _gemma, "llama4": _llama4, "phi": _phi, "gpt_neox": _gpt_neox, "gptj": _gptj,
            "gpt2": _gpt2, "opt": _opt, "falcon": _falcon, "starcoder2": _starcoder2, "bloom": _bloom,
            "gpt_oss": _gpt_oss, "mla": _mla, "qwen35": _qwen35, "nemotron_h": _nemotron_h, "glm4_moe": _glm4_moe,
            "gpt_bigcode": _gpt_bigcode, "gpt_neo": _gpt_neo, "stablelm": _stablelm, "cohere": _cohere,
            "internlm2": _internlm2, "chatglm": _chatglm, "dbrx": _dbrx, "mpt": _mpt, "phimoe": _phimoe,
            "nemotron": _nemotron, "deepseek": _deepseek, "ernie4_5": _ernie4_5, "llama_variant": _llama_variant,
            "cohere2": _cohere2, "jamba": _jamba, "nemotron_nas": _nemotron_nas,
            "granitemoehybrid": _granitemoehybrid, "hunyuan_moe": _hunyuan_moe, "lfm2": _lfm2,
            "falcon_h1": _falcon_h1}


# ------------------------------------------------------------------------------------------------ the record

def precision_of(data: dict) -> str | None:
    """The checkpoint's weight precision from its quantization_config ('bf16' when it has none, None when it has one
    this package cannot read): sources/quantization.py."""
    return quantization.of_config(data)


def _arch(c: _Config, name: str, n: dict) -> ModelArch:
    H, V = n["H"], n["V"]
    head = V * n.get("embed_dim", H)             # the LM head: V × H (OPT-350m: V × word_embed_proj_dim)
    lookup = head + n.get("lookup_extra", 0)     # token embedding (+ learned positions, BLOOM's embedding norm)
    total = n["body"] + lookup + (0 if n["tied"] else head) + n.get("head_bias", 0)
    if total > MAX_PARAMS:
        c.fail(f"the fields give {total:.3g} parameters, above the sanity bound of 10^15 (hidden_size {H}, "
               f"num_hidden_layers {n['L']}, vocab_size {V})")
    active_incl = total - n["inactive"]
    active = active_incl - lookup + (head if n["tied"] else 0)
    if min(total, active_incl, active) <= 0 or min(n["kv_per_token"], n["state"]) < 0:   # fields are checked above
        c.fail(f"the fields give a non-positive count (total {total}, active {active})")
    moe = n["moe"]
    mla = n.get("mla", {})
    return ModelArch(
        model=name.split("/")[-1], hf_id=name, arch_type=n["arch_type"], hidden_size=H, num_layers=n["L"],
        num_heads=n["nh"], num_kv_heads=n["nkv"], head_dim=n["d"],
        intermediate_size=n["inter"] if "inter" in n else c.opt_int("intermediate_size"),
        vocab_size=V, tied_embeddings=n["tied"],
        num_experts=moe["E"] if moe else None, experts_per_token=moe["k"] if moe else None,
        moe_intermediate_size=moe["Ie"] if moe else None, n_shared_experts=moe["n_shared"] if moe else None,
        shared_expert_intermediate_size=moe["Is"] or None if moe else None, first_k_dense=n.get("first_k_dense"),
        q_lora_rank=mla.get("q_lora_rank"), kv_lora_rank=mla.get("kv_lora_rank"),
        qk_nope_head_dim=mla.get("qk_nope_head_dim"), qk_rope_head_dim=mla.get("qk_rope_head_dim"),
        v_head_dim=mla.get("v_head_dim"), sliding_window=n["sliding_window"], full_attention_layers=n["full_layers"],
        linear_or_mamba_layers=n.get("linear_layers"), attn_output_gate=bool(n.get("attn_output_gate", False)),
        published_total_b=total / 1e9, published_active_b=active_incl / 1e9, total_params=int(total),
        active_params_incl_embed=int(active_incl), active_params=int(active), kv_bytes_per_token=int(n["kv_per_token"]),
        recurrent_bytes_per_sequence=int(n["state"]), source_url=c.where, tinker_status="config file",
        seed_total_b=total / 1e9, seed_active_b=active_incl / 1e9,
        seed_size_source="computed from the config (no nominal size)",
        linear_shape=n.get("linear_shape"), mamba_shape=n.get("mamba_shape"),
        checkpoint_precision=precision_of(c.data), output_head_params=int(head),
        mlp_matrices=n.get("mlp_matrices", 3), fused_qkv=bool(n.get("fused_qkv", False)),
        moe_layers=n["moe_layers"] if moe else None, layer_plan=n.get("layer_plan"),
        sparse_attention_topk=n.get("sparse_topk"), indexer_bytes_per_token=int(n.get("indexer_bytes", 0)),
        indexer_flops_per_context_token=float(n.get("indexer_flops", 0.0)), max_context=_max_context(c))


# config.json's names for the longest sequence a model is configured for (GPT-2 and GPT-J: n_positions; MPT:
# max_seq_len; ChatGLM: seq_length)
CONTEXT_FIELDS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length")


def _max_context(c: _Config) -> int | None:
    """The configured context, where a field gives it as a whole number of tokens (read for a note only: a value of
    another kind is left out rather than refused)."""
    for name in CONTEXT_FIELDS:
        value = c.data.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_LENGTH:
            return value
    return None
