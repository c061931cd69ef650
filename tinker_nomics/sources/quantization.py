"""Weight and KV-cache precisions under the names people copy from their serving engine and their checkpoint.

The model knows eight weight precisions (bf16, fp16, fp8, int8, w8a8, int4, fp4, mxfp4; model/decode.py gives their
bytes) and three KV-cache ones (bf16, fp16, fp8). Users arrive with other spellings of the same things:

- vLLM's `--dtype` (auto, half, float16, bfloat16), `--kv-cache-dtype` (auto, fp8, fp8_e4m3, fp8_e5m2) and
  `--quantization` (awq, gptq, awq_marlin, gptq_marlin, fp8, bitsandbytes, modelopt, modelopt_fp4, mxfp4, …), as
  the vLLM engine-argument and quantization pages list them;
- the weight formats quantized checkpoints are named after (W4A16, W8A16, W8A8, NVFP4, MXFP4);
- a checkpoint's own `quantization_config` in config.json: AutoAWQ/AutoGPTQ/AutoRound (`bits`), bitsandbytes
  (`load_in_4bit`/`load_in_8bit`), llm-compressor's compressed-tensors (`config_groups.*.weights.num_bits/type`),
  FP8 (`quant_method` fp8 / fbgemm_fp8), NVIDIA ModelOpt (`quant_algo` FP8, NVFP4, W4A16_AWQ …) and gpt-oss's
  MXFP4.

`canonical` maps a typed name to the model's; `of_config` reads a checkpoint's. MXFP4 (4-bit values, one 8-bit
scale per 32: 4.25 bits a weight) is mxfp4 and NVFP4 (one FP8 scale per 16) fp4; both run on FP4 tensor cores where
a GPU has them (Blackwell, CDNA 4) and weight-only, dequantized to BF16, elsewhere. int8 is weight-only (W8A16:
GPTQ, bitsandbytes, TensorRT-LLM's int8 weight-only), dequantized to BF16 before each GEMM; w8a8 is int8 weights and
activations (SmoothQuant, llm-compressor's W8A8 int8, ModelOpt's W8A8_SQ), which run on INT8 tensor cores where the
GPU has them (data/hardware/int8_peaks.csv) and weight-only elsewhere. AWQ and GPTQ without a bit count are 4-bit,
both projects' default.
"""
from __future__ import annotations

from ..errors import TinkerNomicsError
from .numbers import shown

# The weight precisions the model knows (model/decode.py gives each its bytes per weight).
WEIGHT_PRECISIONS = ("bf16", "fp16", "fp8", "int8", "w8a8", "int4", "fp4", "mxfp4")

# Typed names -> the model's names. Keys are lower case; "-" and "." are read as "_".
ALIASES = {
    "bfloat16": "bf16", "float16": "fp16", "half": "fp16",
    "fp8_e4m3": "fp8", "fp8_e5m2": "fp8", "e4m3": "fp8", "e5m2": "fp8", "fp8_dynamic": "fp8", "fbgemm_fp8": "fp8",
    "w8a8_fp8": "fp8", "float8": "fp8",
    # block-scaled FP8 as the RL frameworks' rollouts name it (verl's rollout.quantization, NeMo RL's recipes):
    # 1 byte a weight; MXFP8's one 8-bit scale per 32 weights (3% more) is not split out
    "fp8_per_block": "fp8", "fp8_blockwise": "fp8", "mxfp8": "fp8",
    "awq": "int4", "gptq": "int4", "awq_marlin": "int4", "gptq_marlin": "int4", "w4a16": "int4", "int4_awq": "int4",
    "awq_int4": "int4", "gptq_int4": "int4", "w4a16_awq": "int4", "bnb_4bit": "int4", "nf4": "int4",
    "mxfp4": "mxfp4",
    "w8a16": "int8", "gptq_int8": "int8", "bnb_8bit": "int8", "int8_weight_only": "int8",
    "w8a8_int8": "w8a8", "int8_w8a8": "w8a8", "smoothquant": "w8a8", "w8a8_sq": "w8a8",
    "nvfp4": "fp4", "modelopt_fp4": "fp4",
}
# Names that stand for "what the checkpoint (or, for the KV cache, the model) already uses".
AUTO = ("auto",)


def _key(name) -> str:
    return str(name).strip().lower().replace("-", "_").replace(".", "_")


def is_auto(name) -> bool:
    """True for vLLM's `auto`: the checkpoint's own precision."""
    return name is not None and _key(name) in AUTO


def canonical(name, what: str, allowed: tuple[str, ...], auto: str | None = None) -> str:
    """The model's name for a typed precision, or a one-line error naming the value and the accepted names.
    `auto` is what vLLM's `auto` stands for here (None: not accepted)."""
    key = _key(name)
    if key in AUTO and auto is not None:
        key = auto
    key = ALIASES.get(key, key)
    if key not in allowed:
        raise TinkerNomicsError(f"{what} must be one of {', '.join(allowed)} (or a vLLM name for one: "
                                f"{_examples(allowed)}), got {name!r}")
    return key


def _examples(allowed: tuple[str, ...]) -> str:
    names = [alias for alias, to in ALIASES.items() if to in allowed]
    shown = ["auto", *names[:6]] if "bf16" in allowed else names[:6]
    return ", ".join(shown) + ", …"


def of_config(data: dict) -> str | None:
    """The weight precision a config.json's `quantization_config` states ('bf16' when it has none; None when it
    has one this reader cannot read, so the caller asks for the precision instead of assuming BF16)."""
    text = data.get("text_config") if isinstance(data.get("text_config"), dict) else {}
    quant = data.get("quantization_config") or text.get("quantization_config")
    if quant is None:
        return "bf16"
    if not isinstance(quant, dict):
        return None
    method = _key(quant.get("quant_method", ""))
    algo = _key(quant.get("quant_algo", quant.get("fmt", "")))
    if method == "compressed_tensors":
        return _compressed_tensors(quant)
    if method == "bitsandbytes" or "load_in_4bit" in quant or "load_in_8bit" in quant:
        return "int4" if quant.get("load_in_4bit") else "int8" if quant.get("load_in_8bit") else None
    if "nvfp4" in algo or "nvfp4" in method or method == "modelopt_fp4":
        return "fp4"
    if method == "mxfp4" or "mxfp4" in algo:
        return "mxfp4"
    if "fp8" in method or "fp8" in algo or "e4m3" in algo:
        return "fp8"
    if "w8a8" in algo:   # ModelOpt's W8A8_SQ_PER_CHANNEL (SmoothQuant): INT8 weights and activations
        return "w8a8"
    bits = quant.get("bits", quant.get("w_bit", quant.get("weight_bits")))
    if "w4a" in algo or "int4" in algo:
        bits = 4
    if "w8a" in algo or "int8" in algo:
        bits = 8
    if str(bits) == "4":
        return "int4"
    if str(bits) == "8":
        return "int8"
    if method in ("awq", "gptq", "awq_marlin", "gptq_marlin") and bits is None:
        return "int4"
    return None


def unread(data: dict) -> str | None:
    """What a config.json's `quantization_config` states where of_config cannot read its precision (None where it
    can): the value quoted as error messages quote one (numbers.shown), for a message that names it."""
    if of_config(data) is not None:
        return None
    text = data.get("text_config") if isinstance(data.get("text_config"), dict) else {}
    quant = data.get("quantization_config") or text.get("quantization_config")
    if not isinstance(quant, dict):
        return f"{shown(quant)}, a {type(quant).__name__} where an object belongs"
    named = [f"{key} {shown(quant[key])}" for key in ("quant_method", "quant_algo", "fmt", "bits") if key in quant]
    return ", ".join(named) if named else "no quant_method"


def _compressed_tensors(quant: dict) -> str | None:
    """llm-compressor's format: each config group states its weights' bits and type (and its input activations':
    8-bit int activations beside 8-bit int weights are W8A8); the lowest-bit group covers the bulk of a mixed
    checkpoint (4-bit experts beside 8-bit attention)."""
    groups = quant.get("config_groups")
    found = []
    for group in (groups.values() if isinstance(groups, dict) else ()):
        weights = group.get("weights") if isinstance(group, dict) else None
        if not isinstance(weights, dict):
            continue
        bits, kind = str(weights.get("num_bits")), _key(weights.get("type", "int"))
        acts = group.get("input_activations")
        int8_acts = isinstance(acts, dict) and str(acts.get("num_bits")) == "8" \
            and _key(acts.get("type", "int")) == "int"
        if bits == "8":
            found.append((8, "fp8" if kind == "float" else "w8a8" if int8_acts else "int8"))
        elif bits == "4":
            mx = "mxfp4" in _key(group.get("format", quant.get("format", "")))
            found.append((4, "mxfp4" if mx else "fp4" if kind == "float" else "int4"))
    return min(found)[1] if found else None
