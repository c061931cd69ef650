"""Model architectures (data/models/model_archs.csv) and model names.

Every model the registries know, by architecture or by a Tinker price, resolves leniently to one canonical
Hugging Face id (`qwen3-8b` -> `Qwen/Qwen3-8B`).
"""
from __future__ import annotations

import dataclasses
import functools
import re

from ..errors import TinkerNomicsError, _squash
from .hf_config import load_config
from .model_record import ModelArch
from .price_list import priced_models
from .tables import Column, build_index, data_dir, find, load_table, lookup

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
    Column("attn_output_gate", "bool"), Column("max_position_embeddings", "int", False),
    Column("published_total_params_B", "float"),
    Column("published_active_params_B", "float"), Column("computed_total_params_text", "int"),
    Column("computed_active_params_incl_embed", "int"), Column("computed_active_params_excl_input_embed", "int"),
    Column("kv_bytes_per_token_bf16", "int"), Column("recurrent_state_bytes_per_seq", "int"),
    Column("source_url"), Column("recorded"),
]


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
            r["tinker_status"], total_b, active_b, size_src, max_context=r["max_position_embeddings"] or None)
    for hf_id, precision in _checkpoint_precisions().items():
        if hf_id not in out:
            raise TinkerNomicsError(f"models/checkpoint_precisions.csv names unknown model {hf_id!r}")
        out[hf_id] = dataclasses.replace(out[hf_id], checkpoint_precision=precision)
    for hf_id, arch in bundled_configs().items():
        if hf_id in out:
            raise TinkerNomicsError(f"models/configs/sources.csv: {hf_id} is already a registry row")
        out[hf_id] = arch
    unknown_seed = set(seed) - set(out)
    if unknown_seed:
        raise TinkerNomicsError(f"models/seed_model_sizes.csv names unknown model(s): {', '.join(sorted(unknown_seed))}")
    return out


def _checkpoint_precisions() -> dict[str, str]:
    """Registry models published in another precision than BF16 (models/checkpoint_precisions.csv): what `predict
    decode` serves by default, as vLLM loads the published checkpoint (an RL step trains and samples in BF16)."""
    from . import quantization

    rows = load_table("models/checkpoint_precisions.csv", [
        Column("hf_id"), Column("precision"), Column("recorded"), Column("source_url"), Column("note", required=False)])
    return {r["hf_id"]: quantization.canonical(r["precision"], f"models/checkpoint_precisions.csv row {r['_row']} "
                                                               f"precision", quantization.WEIGHT_PRECISIONS) for r in rows}


@functools.lru_cache(maxsize=None)
def bundled_configs() -> dict[str, ModelArch]:
    """Models known by their config.json only (data/models/configs/, each with its source in sources.csv):
    the models of published measurements that the registry's rows do not cover."""
    out = {}
    for r in load_table("models/configs/sources.csv", [Column("file"), Column("hf_id"), Column("source_url"),
                                                       Column("verified_copy"), Column("recorded")]):
        arch = load_config(data_dir() / "models" / "configs" / r["file"])
        out[r["hf_id"]] = dataclasses.replace(arch, model=r["hf_id"].split("/")[-1], hf_id=r["hf_id"],
                                              source_url=r["source_url"], tinker_status="no (config file)")
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


# How papers and benchmark tables shorten a release's name: Meta's Llama 3 repositories say "Meta-Llama-3-8B" where
# tables say "Llama-3-8B"; a first release's version tag ("Mixtral-8x7B-v0.1") is left out where the family has no
# other version ("Mixtral 8x7B").
SHORT_NAMES = ((re.compile(r"^Meta-(Llama-3-)"), r"\1"), (re.compile(r"-v\d+(?:\.\d+)*$"), ""))


@functools.lru_cache(maxsize=None)
def _model_index() -> dict[str, str]:
    aliases: dict[str, list[str]] = {name: [name.split("/")[-1]] for name in model_names()}
    for hf_id, arch in models().items():
        aliases[hf_id].append(arch.model)
    shortened: dict[str, list[str]] = {}
    for name in model_names():
        short = name.split("/")[-1]
        for pattern, replacement in SHORT_NAMES:
            short = pattern.sub(replacement, short)
        if short != name.split("/")[-1]:
            shortened.setdefault(_squash(short), []).append(name)
    taken = {_squash(a) for names in aliases.values() for a in names} | {_squash(n) for n in aliases}
    for key, names in shortened.items():
        if len(names) == 1 and key not in taken:     # a short name two releases share names neither
            aliases[names[0]].append(key)
    return build_index(aliases)


def find_model(name: str) -> str | None:
    """resolve_model's answer, or None where the registries do not hold the name (no error, and no search for the
    nearest names, is built: for callers that only ask whether a name is known)."""
    if not isinstance(name, str) or not name.strip():
        return None
    try:
        base, context = split_context(name.strip())
    except TinkerNomicsError:
        return None
    canonical = find(base, _model_index())
    if canonical is None:
        return None
    return f"{canonical}:peft:{context}" if context else canonical


def resolve_model(name: str) -> str:
    """Canonical id for a model name, keeping a `:peft:<context>` suffix (`qwen3-8b` -> `Qwen/Qwen3-8B`)."""
    base, context = split_context(name.strip() if isinstance(name, str) else name)
    canonical = lookup("model", base, _model_index(), model_names(), "list them with `tinker-nomics models`")
    return f"{canonical}:peft:{context}" if context else canonical


# Tinker serves base/instruct variants that share one architecture row.
ARCH_ALIASES = {"Qwen/Qwen3.5-9B-Base": "Qwen/Qwen3.5-9B", "Qwen/Qwen3.5-35B-A3B-Base": "Qwen/Qwen3.5-35B-A3B"}


# Name tokens that mark a fine-tune of a released model: instruction, chat and reasoning tunes and the base of an
# instruct release keep the weights' shapes (fine-tuning changes values, not config.json's architecture fields), so
# `meta-llama/Llama-3.1-8B-Instruct` is counted with meta-llama/Llama-3.1-8B's architecture. A 4-digit release tag
# right after the token belongs to it (Qwen3-235B-A22B-Thinking-2507).
FINE_TUNE_TOKENS = ("instruct", "chat", "it", "pt", "base", "thinking")
# The other name of the same shapes where a family names both releases: Google's -it (instruction-tuned) and -pt
# (pretrained), Mistral's -Instruct-2407 and -Base-2407.
SIBLING_TOKENS = {"it": ("pt",), "pt": ("it",), "instruct": ("Base",), "chat": ("Base",), "thinking": ("Base",)}

# The other way round: a base model whose instruction-tuned release is the one the registries hold (Qwen/Qwen2.5-3B
# is Qwen2.5-3B-Instruct's base, google/gemma-3-12b-pt is read from gemma-3-12b-it): the same shapes. Yi 1.5 and
# Qwen 1.5 name theirs -Chat (01-ai/Yi-1.5-34B-Chat).
TUNED_SUFFIXES = ("-Instruct", "-it", "-Chat")

# Quantized releases end their name with the weight format their config.json's quantization_config holds
# (Qwen/Qwen2.5-72B-Instruct-AWQ, Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4, neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8,
# RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic, hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4,
# RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8): the same shapes at that precision. AWQ and GPTQ without a
# bit count are 4-bit (both projects' default); W8A8 is int8 weights and activations; MXFP4 is its own format
# (4.25 bits a weight, run weight-only before Blackwell). sources/quantization.py reads the same formats from a
# config.json.
QUANTIZED_TAILS = (
    ("fp8", r"fp8(?:[-_.](?:dynamic|static|block|kv))*"),
    ("fp4", r"(?:nv)?fp4"),
    ("mxfp4", r"mxfp4"),
    ("int4", r"(?:awq|gptq)(?:[-_.](?:int4|4bit))?|int4|w4a16(?:[-_.]g128)?|(?:bnb[-_.])?4bit|quantized[-_.]w4a16"),
    ("w8a8", r"(?:quantized[-_.])?w8a8(?:[-_.]int8)?|smoothquant"),
    ("int8", r"gptq[-_.](?:int8|8bit)|int8|w8a16|(?:bnb[-_.])?8bit|quantized[-_.]w8a16"),
)
_QUANTIZED = [(precision, re.compile(rf"[-_.](?:{tail})$", re.IGNORECASE)) for precision, tail in QUANTIZED_TAILS]

# Hugging Face renamed Llama 3.1's repositories in 2024 (meta-llama/Meta-Llama-3.1-8B-Instruct now redirects to
# meta-llama/Llama-3.1-8B-Instruct); benchmarks and quantized releases still print the old ids.
RENAMED_PREFIXES = (("Meta-Llama-3.1-", "Llama-3.1-"),)


@dataclasses.dataclass(frozen=True)
class Release:
    """A published release the registries do not list, read as a registry model's architecture."""
    base: str                  # the canonical id of the registry model whose architecture it has
    precision: str | None      # the weight precision its name states (a quantized release), else None


def release_of(name: str) -> Release | None:
    """The registry model `name` is a release of (a fine-tune, a quantized release, a renamed id, or these
    combined), or None where stripping its release tokens names no model with an architecture."""
    if not isinstance(name, str):
        return None
    org, _, short = split_context(name.strip())[0].rpartition("/")
    precision = None
    for kind, tail in _QUANTIZED:
        match = tail.search(short)
        if match and match.start() > 0:
            short, precision = short[:match.start()], kind
            break
    for old, new in RENAMED_PREFIXES:
        if short.lower().startswith(old.lower()):
            short = new + short[len(old):]
    derived = _derivatives().get(_squash(f"{org}/{short}" if org else short)) or _derivatives().get(_squash(short))
    if derived is not None:
        return Release(derived, precision)
    if short != split_context(name.strip())[0].rpartition("/")[2]:
        own = _first_own_arch(org, short)
        if own is not None:
            return Release(own, precision)
    base = _fine_tune_base(org, short) or _first_own_arch(org, short, stems=("-hf",)) or _tuned_sibling(org, short)
    return Release(base, precision) if base is not None else None


@functools.lru_cache(maxsize=None)
def _derivatives() -> dict[str, str]:
    """Releases whose name does not say their base (models/derivatives.csv: DeepSeek's R1 distills, each with the
    base its publisher names) -> the registry model whose shapes they keep; keyed by the squashed id and short name."""
    rows = load_table("models/derivatives.csv", [
        Column("hf_id"), Column("base_hf_id"), Column("recorded"), Column("source_url"), Column("note", required=False)])
    out = {}
    for r in rows:
        base = _own_arch(r["base_hf_id"])
        if base is None:
            raise TinkerNomicsError(f"models/derivatives.csv row {r['_row']}: base {r['base_hf_id']!r} has no "
                                    f"architecture in the registries")
        out[_squash(r["hf_id"])] = out[_squash(r["hf_id"].rpartition("/")[2])] = base
    return out


def _tuned_sibling(org: str, short: str) -> str | None:
    """The registry's instruction-tuned release of base model `short` (TUNED_SUFFIXES), the suffix placed before a
    trailing version tag where the family puts it there (Mistral-7B-v0.3 and Mistral-7B-Instruct-v0.3)."""
    version = re.search(r"-v\d+(?:\.\d+)*$", short)
    for suffix in TUNED_SUFFIXES:
        candidates = [short + suffix] + ([short[:version.start()] + suffix + version.group()] if version else [])
        for candidate in candidates:
            own = _first_own_arch(org, candidate, stems=("",))
            if own is not None:
                return own
    return None


def _fine_tune_base(org: str, short: str) -> str | None:
    tokens = short.split("-")
    for i, token in enumerate(tokens):
        if i == 0 or token.lower() not in FINE_TUNE_TOKENS:
            continue
        after = i + 2 if i + 1 < len(tokens) and re.fullmatch(r"\d{4}", tokens[i + 1]) else i + 1
        # the token dropped with its release tag, else the token's sibling (SIBLING_TOKENS), with the tag and without
        candidates = [tokens[:i] + tokens[after:]]
        for sibling in SIBLING_TOKENS.get(token.lower(), ()):
            candidates += [tokens[:i] + [sibling] + tokens[i + 1:], tokens[:i] + [sibling] + tokens[after:]]
        for candidate in candidates:
            own = _first_own_arch(org, "-".join(candidate))
            if own is not None:
                return own
    return None


def _first_own_arch(org: str, short: str, stems: tuple[str, ...] = ("", "-hf")) -> str | None:
    """The registry architecture of `org/short` or of `short` under any organisation; Meta's Llama 2 repositories
    end in `-hf` (the Hugging Face conversion), which the releases built on them drop (TheBloke/Llama-2-70B-Chat-AWQ
    is meta-llama/Llama-2-70b-chat-hf quantized)."""
    for stem in (short + end for end in stems):
        for candidate in ([f"{org}/{stem}"] if org else []) + [stem]:
            own = _own_arch(candidate)
            if own is not None:
                return own
    return None


def release_base(name: str) -> str | None:
    """The canonical id of the registry model `name` is a release of (see release_of), or None."""
    release = release_of(name)
    return None if release is None else release.base


def _own_arch(name: str) -> str | None:
    """The registry id of `name`'s own architecture row (or its alias's), None if the name has none."""
    try:
        resolved = split_context(resolve_model(name))[0]
    except TinkerNomicsError:
        return None
    canonical = ARCH_ALIASES.get(resolved, resolved)
    return canonical if canonical in models() else None


def get_arch(name: str) -> ModelArch:
    """The architecture for a model name; a release the registries do not list (a fine-tune, a quantized release)
    gets its registry model's, under its own name with that model named beside it (and the precision its name
    states as the checkpoint's); a clear error for other unknown names and for priced models without a published
    architecture."""
    own = _own_arch(name)
    if own is not None:
        return models()[own]
    release = release_of(name)
    if release is None:
        resolved = split_context(resolve_model(name))[0]   # an unknown name fails here, naming the closest models
        raise TinkerNomicsError(
            f"model {ARCH_ALIASES.get(resolved, resolved)!r} has no published architecture in "
            f"data/models/model_archs.csv, so its self-hosted cost cannot be computed")
    arch, asked = models()[release.base], split_context(name.strip())[0]
    weights = f", {release.precision} weights" if release.precision else ""
    return dataclasses.replace(
        arch, model=f"{asked.split('/')[-1]} (architecture of {arch.model}{weights})", hf_id=asked,
        checkpoint_precision=release.precision or arch.checkpoint_precision,
        source_url=f"{arch.source_url} (the base model's config: {asked} is read as a release of {release.base}"
                   f"{' with ' + release.precision + ' weights, as its name states' if release.precision else ''})")


def has_name(name: str) -> bool:
    """Whether `name` resolves to a model the registries know (by architecture or by a Tinker price)."""
    try:
        resolve_model(name)
    except TinkerNomicsError:
        return False
    return True


def has_arch(name: str) -> bool:
    return _own_arch(name) is not None or release_of(name) is not None
