"""Errata of the seed's cost model page."""
from __future__ import annotations

from dataclasses import dataclass

from ...model import lora, memory, roofline, tokens
from ...model.estimate import estimate
from ...model.scenario import Scenario
from ...sources.architectures import get_arch
from ...sources.defaults import number
from ...sources.hardware import get_gpu
from ...sources.prices import storage_usd_per_gb_month
from ...sources.workloads import get_workload
from .. import compare
from .common import FLOP_PAGE_GPU, Erratum, flop_page_inputs, printed

# ------------------------------------------------------------------------------------------ cost model page


def kv_unit_slip() -> Erratum:
    arch, gpu, n, b, g, length = flop_page_inputs()
    context = float(tokens.growth_multiplier(number("length_growth")) * length)
    per_billion = number("kv_bytes_per_active_billion_params_seed")
    printed_per_billion = printed("kv_rule_kb_per_billion") * 1e3          # "0.016 KB" in bytes
    printed_token = arch.seed_active_b * printed_per_billion
    seed = float(memory.kv_cache_bytes(printed_token, b * g, context))
    consistent = float(memory.kv_cache_bytes(memory.kv_bytes_per_token(arch, "seed"), b * g, context))
    exact_token = memory.kv_bytes_per_token(arch, "exact")
    return Erratum(
        "kv_unit", "cost model", "KV-cache rule: bytes per token per billion active parameters",
        seed, consistent, "bytes",
        "The printed unit is a thousand times too small. The FLOP page's own KV figure for the same batch "
        "needs KB per billion parameters, not thousandths of a KB.",
        details={"printed_rule": (printed_per_billion, "kb_exact"), "rule": (per_billion, "kb_exact"),
                 "printed_token": (printed_token, "kb"), "seed_token": (arch.seed_active_b * per_billion, "kb"),
                 "exact_token": (exact_token, "kb"),
                 "exact_cache": (float(memory.kv_cache_bytes(exact_token, b * g, context)), "bytes"),
                 "sequences": (b * g, "count"), "context": (context, "count")})


def critical_batch() -> Erratum:
    gpu = get_gpu(FLOP_PAGE_GPU)
    seed = float(roofline.critical_batch(gpu.peak_flops("seed"), gpu.bandwidth_bytes_per_s))
    datasheet = float(roofline.critical_batch(gpu.peak_flops("exact"), gpu.bandwidth_bytes_per_s))
    return Erratum(
        "b_crit", "FLOP accounting", "critical batch of an H100 (printed differently on two pages)",
        seed, datasheet, "count1",
        "The cost page truncates, the FLOP page rounds, and the datasheet's dense BF16 peak is a teraFLOP lower "
        "than the seed's. All of them agree to within one sequence.",
        details={"cost_page": (printed("b_crit_cost_page"), "count"), "flop_page": (printed("b_crit_flop_page"), "count"),
                 "seed_tflops": (gpu.peak_flops("seed"), "tflops"), "datasheet_tflops": (gpu.peak_flops("exact"), "tflops"),
                 "bandwidth": (gpu.hbm_bandwidth_tb_s, "tb_s")})


def lora_qwen3_8b() -> Erratum:
    arch = get_arch("Qwen3-8B")
    rank = number("lora_rank")
    seed_rule = float(lora.checkpoint_gb(lora.lora_params(arch, rank, "seed"))) * 1e9
    exact = float(lora.checkpoint_gb(lora.lora_params(arch, rank, "exact"))) * 1e9
    cookbook = lora.cookbook_lora_table()[arch.hf_id]["per_rank_total"] * rank
    unembed = lora.exact_lora_params_per_rank(arch)["unembed"] * rank
    return Erratum(
        "lora_8b", "cost model", "Qwen3-8B LoRA checkpoint",
        seed_rule, exact, "mb",
        "The seed's per-layer rule with Qwen3-8B's published config gives a smaller adapter than the page "
        "prints. tinker-cookbook counts every 2-D weight the adapter touches, the unembedding included, and "
        "lands next to the printed figure; no rule on the page gives it exactly.",
        printed=printed("lora_qwen3_8b_mb") * 1e6,
        details={"cookbook": (float(lora.checkpoint_gb(cookbook)) * 1e9, "mb"),
                 "unembed": (float(lora.checkpoint_gb(unembed)) * 1e9, "mb"), "rank": (rank, "count")})


MOE_CHECKPOINTS = {  # model -> the seed's printed figure
    "Qwen3-30B-A3B": "lora_qwen3_30b_a3b_mb", "Qwen3-235B-A22B": "lora_qwen3_235b_a22b_mb",
    "DeepSeek-V3.1": "lora_deepseek_v31_mb", "Kimi-K2-Thinking": "lora_kimi_k2_thinking_mb",
}


@dataclass(frozen=True)
class MoeCheckpoint:
    model: str
    printed_bytes: float
    seed_rule_bytes: float        # attention + one FFN of the config's intermediate size (the seed's lower bound)
    exact_bytes: float            # the cookbook's counting rule, every expert included
    cookbook_bytes: float | None  # the cookbook's measured table, where it lists the model (or its architecture)
    printed_usd_per_month: float
    exact_usd_per_month: float


def moe_checkpoints(snapshot: str = "2026-01-05") -> list[MoeCheckpoint]:
    """The seed's MoE checkpoint rows against the cookbook's counts with the experts included."""
    per_gb_month = storage_usd_per_gb_month(snapshot)
    measured = lora.cookbook_lora_table()
    rank = number("lora_rank")
    rows = []
    for model, key in MOE_CHECKPOINTS.items():
        row = compare.checkpoint_table([model], rank, snapshot)[0]
        cook = row.cookbook_bytes
        if cook is None:  # Kimi-K2-Thinking shares Kimi-K2.6's architecture, which the cookbook measured
            same = [m for m, r in measured.items() if _same_lora_arch(model, m)]
            cook = float(lora.checkpoint_gb(measured[same[0]]["per_rank_total"] * rank)) * 1e9 if same else None
        shown = printed(key) * 1e6
        rows.append(MoeCheckpoint(get_arch(model).model, shown, row.seed_bytes, row.exact_bytes, cook,
                                  shown / 1e9 * per_gb_month, row.exact_usd_per_month))
    return rows


def _same_lora_arch(model: str, other: str) -> bool:
    try:
        a, b = get_arch(model), get_arch(other)
    except Exception:
        return False
    return lora.exact_lora_params_per_rank(a) == lora.exact_lora_params_per_rank(b)


def lora_moe() -> Erratum:
    rows = {r.model: r for r in moe_checkpoints()}
    ds = rows["DeepSeek-V3.1"]
    return Erratum(
        "lora_moe", "cost model", "MoE checkpoint rows (DeepSeek-V3.1 shown)",
        ds.seed_rule_bytes, ds.exact_bytes, "bytes",
        "The seed counted attention plus one FFN, a lower bound it says it took on purpose. An adapter on every "
        "expert, as tinker-cookbook trains it, is many times larger, and so is its storage bill.",
        printed=ds.printed_bytes,
        details={f"{_slug(r.model)}_{part}": (value, "bytes") for r in rows.values()
                 for part, value in (("printed", r.printed_bytes), ("seed_rule", r.seed_rule_bytes),
                                     ("exact", r.exact_bytes))})


def _slug(model: str) -> str:
    return model.lower().replace("-", "_").replace(".", "")


def math_rl_hours() -> Erratum:
    calc = estimate(Scenario.from_workload("math_rl", method="seed", rollout_efficiency=number("rollout_efficiency"))).self_hosted
    table = estimate(Scenario.from_workload("math_rl", method="seed")).self_hosted
    return Erratum(
        "math_rl_hours", "cost model", "math_rl rollout time (rollout vs training)",
        float(calc.rollout_hours), float(table.rollout_hours), "hours1",
        "The cost page used the calculator's default rollout efficiency; the takeaway's math_rl row assumes "
        "SGLang at a higher one. Training time is the same in both, so training stays the bottleneck.",
        printed=printed("math_rl_rollout_hours"),
        details={"printed_train": (printed("math_rl_train_hours"), "hours1"),
                 "train": (float(calc.train_hours), "hours1"),
                 "rollout_minutes": (float(calc.rollout_hours), "minutes"),
                 "table_minutes": (float(table.rollout_hours), "minutes"),
                 "calc_efficiency": (number("rollout_efficiency"), "pct0"),
                 "table_efficiency": (float(get_workload("math_rl").fields["rollout_efficiency"]), "pct0")})


def harbor_rl_hours() -> Erratum:
    seed = estimate(Scenario.from_workload("harbor_rl", method="seed")).self_hosted
    return Erratum(
        "harbor_hours", "cost model", "harbor_rl rollout time (rollout vs training)",
        printed("harbor_rl_rollout_hours"), float(seed.rollout_hours), "hours",
        "No configuration the seed states gives these hours. The harbor_rl preset, which reproduces the "
        "takeaway's harbor_rl dollars, gives much shorter phases; the conclusion (rollout-bound, so overlap "
        "helps little) survives.",
        details={"printed_train": (printed("harbor_rl_train_hours"), "hours"),
                 "train": (float(seed.train_hours), "hours"), "decode": (float(seed.decode_hours), "hours"),
                 "sandbox_wait": (float(seed.sandbox_wait_hours), "hours"),
                 "gpus": (float(seed.num_gpus), "gpus"),
                 "printed_ratio": (printed("harbor_rl_rollout_hours") / printed("harbor_rl_train_hours"), "ratio"),
                 "ratio": (float(seed.rollout_hours / seed.train_hours), "ratio")})
