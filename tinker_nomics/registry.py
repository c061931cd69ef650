"""Sourced, dated tables in data/, loaded into typed records with a schema check, and lenient name lookup.

Every table row carries its source. A malformed row stops loading with one line naming the file, the row
(1-based, header = row 1) and the column. Names resolve leniently: case, punctuation and an `org/` prefix do
not matter (`qwen3-8b` = `Qwen/Qwen3-8B`); an unknown name lists the closest known ones.
"""
from __future__ import annotations

import csv
import functools
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from .errors import TinkerNomicsError, UnknownNameError, _squash

# ----------------------------------------------------------------------------------------------- tables


def data_dir() -> Path:
    """The registry folder: $TINKER_NOMICS_DATA, else data/ beside the package (the repository layout)."""
    env = os.environ.get("TINKER_NOMICS_DATA")
    path = Path(env) if env else Path(__file__).resolve().parent.parent / "data"
    if not path.is_dir():
        raise TinkerNomicsError(f"registry folder {path} not found (set TINKER_NOMICS_DATA to the data/ folder)")
    return path


def _to_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("not finite")
    return value


def _to_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise ValueError("not a boolean")


PARSERS: dict[str, Callable[[str], object]] = {"str": str, "float": _to_float, "int": int, "bool": _to_bool}


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = "str"        # str | float | int | bool
    required: bool = True    # an empty cell is an error when required, None otherwise


def load_table(relpath: str, columns: Iterable[Column]) -> list[dict]:
    """Read data/<relpath> and check every row against `columns`; extra columns are kept as text."""
    path = data_dir() / relpath
    columns = list(columns)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            missing = [c.name for c in columns if c.name not in header]
            if missing:
                raise TinkerNomicsError(f"{relpath}: missing column(s) {', '.join(missing)}")
            rows = []
            for line_no, raw in enumerate(reader, start=2):
                if None in raw:
                    raise TinkerNomicsError(f"{relpath} row {line_no}: more cells than header columns")
                row = dict(raw)
                for col in columns:
                    text = (raw.get(col.name) or "").strip()
                    if text == "":
                        if col.required:
                            raise TinkerNomicsError(f"{relpath} row {line_no} column {col.name}: empty but required")
                        row[col.name] = None
                        continue
                    try:
                        row[col.name] = PARSERS[col.kind](text)
                    except (ValueError, TypeError):
                        raise TinkerNomicsError(
                            f"{relpath} row {line_no} column {col.name}: {text!r} is not a valid {col.kind}") from None
                row["_row"] = line_no
                rows.append(row)
    except FileNotFoundError:
        raise TinkerNomicsError(f"registry table {path} not found") from None
    except UnicodeDecodeError:
        raise TinkerNomicsError(f"{relpath}: not UTF-8 text") from None
    except csv.Error as exc:
        raise TinkerNomicsError(f"{relpath}: malformed CSV ({exc})") from None
    if not rows:
        raise TinkerNomicsError(f"{relpath}: no rows")
    return rows


# ----------------------------------------------------------------------------------------------- names


def build_index(names_by_key: dict[str, Iterable[str]]) -> dict[str, str]:
    """Map every squashed alias to its canonical key."""
    index: dict[str, str] = {}
    for canonical, aliases in names_by_key.items():
        for alias in [canonical, *aliases]:
            index.setdefault(_squash(alias), canonical)
    return index


def lookup(kind: str, name: str, index: dict[str, str], known: Iterable[str], hint: str = "") -> str:
    if not isinstance(name, str) or not name.strip():
        raise TinkerNomicsError(f"{kind} name must be a non-empty string, got {name!r}")
    key = _squash(name)
    if key in index:
        return index[key]
    if "/" in name and _squash(name.split("/")[-1]) in index:
        return index[_squash(name.split("/")[-1])]
    raise UnknownNameError(kind, name, known, hint)


# ----------------------------------------------------------------------------------------------- defaults


@dataclass(frozen=True)
class Assumption:
    key: str
    value: float | str
    unit: str
    source: str
    note: str


@functools.lru_cache(maxsize=None)
def assumptions() -> dict[str, Assumption]:
    rows = load_table("assumptions/defaults.csv",
                      [Column("key"), Column("value"), Column("unit"), Column("source"), Column("note", required=False)])
    out: dict[str, Assumption] = {}
    for r in rows:
        text = r["value"]
        try:
            value: float | str = _to_float(text)
        except ValueError:
            value = text
        if r["key"] in out:
            raise TinkerNomicsError(f"assumptions/defaults.csv row {r['_row']}: duplicate key {r['key']!r}")
        out[r["key"]] = Assumption(r["key"], value, r["unit"], r["source"], r["note"] or "")
    return out


def assumption(key: str) -> float | str:
    """The value of a sourced default or seed constant from data/assumptions/defaults.csv."""
    table = assumptions()
    if key not in table:
        raise UnknownNameError("assumption", key, table)
    return table[key].value


def number(key: str) -> float:
    value = assumption(key)
    if not isinstance(value, float):
        raise TinkerNomicsError(f"assumptions/defaults.csv: {key} must be a number, got {value!r}")
    return value


# ----------------------------------------------------------------------------------------------- GPUs


@dataclass(frozen=True)
class GPU:
    gpu: str
    description: str
    memory_gb: float
    hbm_bandwidth_tb_s: float
    bf16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    seed_bf16_dense_tflops: float | None
    interconnect: str
    source_url: str

    @property
    def memory_bytes(self) -> float:
        return self.memory_gb * 1e9

    @property
    def bandwidth_bytes_per_s(self) -> float:
        return self.hbm_bandwidth_tb_s * 1e12

    def peak_flops(self, method: str = "exact") -> float:
        """Dense BF16 peak in FLOP/s; the seed method uses the seed's rounded figure where it printed one."""
        tflops = self.seed_bf16_dense_tflops if (method == "seed" and self.seed_bf16_dense_tflops) \
            else self.bf16_dense_tflops
        if tflops is None:
            raise TinkerNomicsError(f"GPU {self.gpu!r} has no sourced dense BF16 peak; pick another GPU")
        return tflops * 1e12


@functools.lru_cache(maxsize=None)
def gpus() -> dict[str, GPU]:
    rows = load_table("hardware/gpus.csv", [
        Column("gpu"), Column("description", required=False), Column("memory_gb", "float"),
        Column("hbm_bandwidth_tb_s", "float"), Column("bf16_dense_tflops", "float", False),
        Column("fp8_dense_tflops", "float", False), Column("interconnect", required=False),
        Column("seed_bf16_dense_tflops", "float", False), Column("recorded"), Column("source_url")])
    out = {}
    for r in rows:
        if r["memory_gb"] <= 0 or r["hbm_bandwidth_tb_s"] <= 0:
            raise TinkerNomicsError(f"hardware/gpus.csv row {r['_row']}: memory and bandwidth must be positive")
        out[r["gpu"]] = GPU(r["gpu"], r["description"] or "", r["memory_gb"], r["hbm_bandwidth_tb_s"],
                            r["bf16_dense_tflops"], r["fp8_dense_tflops"], r["seed_bf16_dense_tflops"],
                            r["interconnect"] or "", r["source_url"])
    return out


@functools.lru_cache(maxsize=None)
def _gpu_index() -> dict[str, str]:
    return build_index({g: [g.replace(" SXM", "")] if g.endswith(" SXM") else [] for g in gpus()})


def get_gpu(name: str) -> GPU:
    """`H100 SXM`, `h100-sxm`, `B200`, … An ambiguous prefix (`H100`) resolves to the SXM part."""
    return gpus()[lookup("GPU", name, _gpu_index(), gpus(), "list them with `tinker-nomics gpus`")]


@dataclass(frozen=True)
class GpuPrice:
    gpu: str
    provider: str
    usd_per_gpu_hour: float
    date: str | None
    default: bool
    source_url: str


@functools.lru_cache(maxsize=None)
def gpu_prices() -> list[GpuPrice]:
    rows = load_table("hardware/gpu_prices.csv", [
        Column("gpu"), Column("provider"), Column("usd_per_gpu_hour", "float"), Column("date", required=False),
        Column("default", required=False), Column("source_url")])
    return [GpuPrice(r["gpu"], r["provider"], r["usd_per_gpu_hour"], r["date"], r["default"] == "yes",
                     r["source_url"]) for r in rows]


def default_gpu_price(gpu: str) -> GpuPrice:
    """The default $/GPU-hour: RunPod Community Cloud (the seed's anchor), else the cheapest dated listing."""
    for p in gpu_prices():
        if p.gpu == gpu and p.default:
            return p
    raise TinkerNomicsError(f"no sourced $/GPU-hour for {gpu!r}; pass --gpu-hourly-usd")


# ----------------------------------------------------------------------------------------------- sandboxes


@functools.lru_cache(maxsize=None)
def sandbox_rates() -> dict[str, dict[str, float]]:
    rows = load_table("hardware/sandbox_rates.csv", [
        Column("sandbox"), Column("resource"), Column("usd_per_unit_hour", "float"), Column("date"),
        Column("source_url")])
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        if r["usd_per_unit_hour"] < 0:
            raise TinkerNomicsError(f"hardware/sandbox_rates.csv row {r['_row']} column usd_per_unit_hour: negative")
        out.setdefault(r["sandbox"], {})[r["resource"]] = r["usd_per_unit_hour"]
    for name, rates in out.items():
        missing = {"cpu_core_hour", "memory_gib_hour"} - set(rates)
        if missing:
            raise TinkerNomicsError(f"hardware/sandbox_rates.csv: sandbox {name!r} lacks a {sorted(missing)[0]} rate")
    return out


def get_sandbox(name: str) -> str:
    table = sandbox_rates()
    return lookup("sandbox", name, build_index({k: [] for k in table}), table)


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
    from .prices import priced_models  # local import: prices depends on this module
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


def clear_caches() -> None:
    """Forget loaded tables (for tests that point TINKER_NOMICS_DATA elsewhere)."""
    for fn in (assumptions, gpus, _gpu_index, gpu_prices, sandbox_rates, _seed_sizes, models, _model_index,
               _model_names):
        fn.cache_clear()
    from . import prices
    prices.clear_caches()
