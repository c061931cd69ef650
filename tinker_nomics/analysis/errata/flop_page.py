"""Errata of the seed's FLOP accounting page."""
from __future__ import annotations

from ...model import flops, memory, roofline, tokens, training
from ...sources.architectures import get_arch
from ...sources.defaults import number
from ...sources.literature import claim
from .common import Erratum, flop_page_inputs, printed, sequences_gain

# ------------------------------------------------------------------------------------------ FLOP page


def decode_838() -> Erratum:
    arch, gpu, n, b, g, length = flop_page_inputs()
    single = float(roofline.single_stream_tokens_per_second(gpu.bandwidth_bytes_per_s,
                                                             memory.weight_bytes(arch.params("seed")[0])))
    label = printed("decode_effective_mbu_label")
    used = number("rollout_efficiency")
    batched = flops.throughput(arch, gpu, n, b, g, length, efficiency=label).batched_tps
    return Erratum(
        "decode_838", "FLOP accounting", "effective decode throughput, at the efficiency its label names",
        single * n * used, single * n * label, "tps",
        "The number was computed at the calculator's default efficiency, not at the efficiency its label "
        "names.",
        details={"single": (single, "tps"), "label": (label, "pct0"), "used": (used, "pct0"),
                 "gpus": (n, "count"), "batched": (batched, "tps")})


def train_86625() -> Erratum:
    arch, gpu, n, *_ = flop_page_inputs()
    active = arch.params("seed")[1]
    mfu = number("flop_page_train_mfu")
    lora_tps = float(training.train_tokens_per_second(n, gpu.peak_flops("seed"), mfu,
                                                      training.flops_per_param_per_token("lora") * active))
    full_tps = float(training.train_tokens_per_second(n, gpu.peak_flops("seed"), mfu,
                                                      training.flops_per_param_per_token("full") * active))
    return Erratum(
        "train_86625", "FLOP accounting", "training throughput, full fine-tune as the page assumes",
        lora_tps, full_tps, "tps",
        "The figure divides by LoRA's 4N FLOPs per token; the page states that it assumes a full fine-tune, "
        "6N.",
        details={"mfu": (mfu, "pct0"), "lora_flops": (training.flops_per_param_per_token("lora"), "count"),
                 "full_flops": (training.flops_per_param_per_token("full"), "count")})


def per_step_train_time(length: int = 4096) -> Erratum:
    arch, gpu, n, b, g, _ = flop_page_inputs()
    seed = flops.per_step_table(arch, gpu, n, b, g, [length])
    full = flops.per_step_table(arch, gpu, n, b, g, [length], fine_tune_time="full")
    _, implied = flops.step_table_mfu(seed, gpu, n)
    return Erratum(
        "step_train", "FLOP accounting", "per-step table: training time at the typical completion length",
        float(seed.train_seconds[0]), float(full.train_seconds[0]), "seconds_s",
        "The FLOP columns count training at 6N, the time column at 4N, so the table implies a higher training "
        "MFU than the one it states. Timed at 6N, training takes longer and rollout's share of the step falls.",
        details={"seed_share": (float(seed.rollout_share[0]), "pct0"),
                 "full_share": (float(full.rollout_share[0]), "pct0"),
                 "implied_mfu": (float(implied[0]), "pct"), "stated_mfu": (number("flop_page_train_mfu"), "pct0"),
                 "length": (length, "count")})


def growth_20() -> Erratum:
    _, _, _, _, _, length = flop_page_inputs()
    growth = number("length_growth")
    return Erratum(
        "growth", "FLOP accounting", "extra tokens from length growth",
        claim("flop_page_growth_increase"), float(flops.growth_token_increase(growth)), "pct0",
        "Completions that grow linearly over the run average the midpoint of start and end lengths, which is "
        "the cost model's own rule; the printed figure matches neither the midpoint nor the end point.",
        details={"start": (length, "count"), "end": (length * growth, "count"),
                 "average": (float(tokens.growth_multiplier(growth) * length), "count"),
                 "growth": (growth, "growth")})


def hardware_per_gpu() -> Erratum:
    arch, gpu, n, b, g, length = flop_page_inputs()
    seed = flops.throughput(arch, gpu, n, b, g, length, method="seed")
    exact = flops.throughput(arch, gpu, n, b, g, length, method="exact")
    return Erratum(
        "per_gpu", "FLOP accounting", "sequences per GPU in the hardware check",
        printed("hardware_sequences_per_gpu"), seed.sequences_per_replica, "count",
        "The check compared the whole batch with the critical batch of one GPU. Spread over the GPUs, each "
        "decodes its share, below the critical batch: decode stays bandwidth-bound, and reading the KV cache "
        "lowers the arithmetic intensity further.",
        details={"b_crit": (seed.critical_batch, "count"), "intensity": (seed.arithmetic_intensity, "flop_per_byte"),
                 "exact_intensity": (exact.arithmetic_intensity, "flop_per_byte"),
                 "printed_intensity": (printed("hardware_sequences_per_gpu"), "flop_per_byte"),
                 "gpus": (n, "count"), "regime": ("compute-bound" if seed.compute_bound else "bandwidth-bound", "text")})


def mla_reduction() -> Erratum:
    v3 = get_arch("DeepSeek-V3")
    quoted = claim("mla_kv_reduction")
    computed = flops.mla_kv_compression(v3)
    return Erratum(
        "mla", "FLOP accounting", "MLA's KV-cache reduction (DeepSeek-V3)",
        quoted, computed, "pct",
        "The quoted reduction is DeepSeek-V2's, measured against DeepSeek 67B, a different model. DeepSeek-V3's "
        "latent cache against caching every head's keys and values is a larger cut. And the concurrency gain "
        "the page pairs with it is a measured throughput figure, not what the memory saving allows.",
        details={"quoted_gain": (claim("mla_concurrency_gain"), "ratio"),
                 "implied_gain": (float(sequences_gain(quoted)), "ratio"),
                 "v3_gain": (float(sequences_gain(computed)), "ratio"),
                 "latent": (float(v3.kv_bytes_per_token), "kb"),
                 "per_head": (float(v3.kv_bytes_per_token / (1.0 - computed)), "kb")})
