"""Notes on the original figures: every inconsistency of the seed pages, recomputed.

For each one: the figure the seed printed (data/literature/seed_printed_figures.csv, quoted with its
sentence), the seed's number recomputed with the seed's method where that is possible, the consistent number,
and the intermediate values an explanation needs. Nothing here is typed in: every value comes from the model
core, the sourced tables, or the seed's printed figures. The book's errata page (notebooks/errata.ipynb)
shows them; tests/test_errata.py pins them.

    from tinker_nomics.analysis import errata
    for e in errata.all_errata():
        print(e.page, e.figure, e.seed_text, "→", e.consistent_text)
"""
from __future__ import annotations

from dataclasses import dataclass

from ...model import memory
from ...model.estimate import estimate
from ...model.scenario import Scenario
from ...sources.architectures import get_arch
from .common import PAGES, Erratum, format_value, implied_growth, printed, printed_figures, sequences_gain
from .cost_model import (critical_batch, harbor_rl_hours, kv_unit_slip, lora_moe, lora_qwen3_8b, math_rl_hours,
                         moe_checkpoints)
from .empirical import (exp1a_caching, exp1a_predicted_total, exp1a_tokens, exp1b_caching, exp1b_prefill,
                        exp1b_saving_base, verl_prediction)
from .flop_page import decode_838, growth_20, hardware_per_gpu, mla_reduction, per_step_train_time, train_86625
from .takeaway import (NO_CACHE, async_speedups, cached_prefill_share, caching_hypotheticals, kimi_gpus,
                       sandbox_seconds, swe_rl_caching)

__all__ = ["PAGES", "NO_CACHE", "Erratum", "Departure", "all_errata", "errata_rows", "departures", "format_value",
           "printed", "printed_figures", "implied_growth", "sequences_gain", "moe_checkpoints", "cached_prefill_share",
           "swe_rl_caching"]


# ------------------------------------------------------------------------------------------ all of them


def all_errata() -> list[Erratum]:
    """Every inconsistency, in page order."""
    return [kv_unit_slip(), lora_qwen3_8b(), lora_moe(), math_rl_hours(), harbor_rl_hours(), async_speedups(),
            sandbox_seconds(),
            decode_838(), train_86625(), per_step_train_time(), growth_20(), hardware_per_gpu(), critical_batch(),
            mla_reduction(),
            exp1a_predicted_total(), exp1b_prefill(), exp1a_tokens(), exp1a_caching(), exp1b_caching(),
            exp1b_saving_base(),
            verl_prediction(),
            caching_hypotheticals(), kimi_gpus()]


def errata_rows(page: str, errata_list=None) -> list[dict]:
    """The compact table of one seed page: figure, seed, consistent, why. Only the figures that are errors: one that
    merely looks inconsistent (`error=False`) is explained in the chapter's prose, not listed."""
    errata_list = all_errata() if errata_list is None else errata_list
    return [{"figure": e.figure, "seed": e.seed_text, "consistent": e.consistent_text, "why": e.why}
            for e in errata_list if e.page == page and e.error]


# ------------------------------------------------------------------------------------------ departures


@dataclass(frozen=True)
class Departure:
    key: str
    title: str
    what: str
    details: dict

    def texts(self) -> dict[str, str]:
        return {f"{self.key}_{name}": format_value(v, kind) for name, (v, kind) in self.details.items()}


def departures() -> list[Departure]:
    """Where this project departs from the seed on purpose, with the numbers that show the effect."""
    swe = estimate(Scenario.from_workload("swe_rl", method="seed"))
    per = swe.per_rollout
    harbor = estimate(Scenario.from_workload("harbor_rl", method="seed"))
    code = estimate(Scenario.from_workload("code_rl", method="seed"))
    osworld = estimate(Scenario.from_workload("osworld_rl", method="seed"))
    math_seed = estimate(Scenario.from_workload("math_rl", method="seed"))
    math_exact = estimate(Scenario.from_workload("math_rl", method="seed").replace(method="exact"))
    kv_output = float(memory.kv_cache_bytes(memory.kv_bytes_per_token(get_arch(swe.scenario.model), "seed"),
                                            float(swe.scenario.prompts_per_step * swe.scenario.group_size),
                                            float(per.output)))
    return [
        Departure("kv_length", "KV length of multi-turn rollouts",
                  "The seed sizes the rollout KV cache at the completion length. A multi-turn rollout keeps its "
                  "whole conversation in the cache, so the seed method here uses the conversation length when "
                  "turns > 1.",
                  {"conversation": (float(per.sequence), "count"), "output": (float(per.output), "count"),
                   "kv": (float(swe.self_hosted.kv_cache_gb) * 1e9, "bytes"), "kv_output": (kv_output, "bytes")}),
        Departure("replicas", "Sharded rollout replicas",
                  "The seed's roofline gives every GPU a full copy of the weights. A model that does not fit on "
                  "one GPU is served by replicas that span several, each reading its share of the weights; "
                  "both methods here do that.",
                  {"gpus": (float(harbor.self_hosted.num_gpus), "count"),
                   "replica": (float(harbor.self_hosted.replica_gpus), "count"),
                   "model": (harbor.scenario.model.split("/")[-1], "text")}),
        Departure("sandbox", "GPUs wait for sandboxes",
                  "The seed bills sandbox seconds but says it does not model the wait. Here each step waits "
                  "about one rollout's sandbox time while the GPUs sit idle, and that time is paid for.",
                  {"code_wait": (float(code.self_hosted.sandbox_wait_hours), "hours"),
                   "code_rollout": (float(code.self_hosted.rollout_hours), "hours"),
                   "harbor_wait": (float(harbor.self_hosted.sandbox_wait_hours), "hours"),
                   "harbor_rollout": (float(harbor.self_hosted.rollout_hours), "hours"),
                   "osworld_wait": (float(osworld.self_hosted.sandbox_wait_hours), "hours"),
                   "osworld_rollout": (float(osworld.self_hosted.rollout_hours), "hours")}),
        Departure("train_tokens", "Trained tokens (exact method)",
                  "The seed trains on the sampled tokens. Tinker bills training on prompt plus completion, which "
                  "the seed's own experiment confirmed; the exact method counts it that way.",
                  {"seed": (float(math_seed.tokens.train), "tokens"), "exact": (float(math_exact.tokens.train), "tokens")}),
    ]
