"""Errata of the seed's takeaway page."""
from __future__ import annotations

from dataclasses import dataclass

from ... import fmt
from ...model import memory, training
from ...model.estimate import estimate
from ...model.scenario import Scenario
from ...sources.architectures import get_arch
from ...sources.hardware import get_gpu
from ...sources.literature import claim
from ...sources.price_list import newest_snapshot
from ...sources.prices import get_price
from ...sources.workloads import get_workload
from .. import compare
from .common import FLOP_PAGE_GPU, Erratum, printed

# ------------------------------------------------------------------------------------------ takeaway page


def cached_prefill_share(snapshot: str | None = None) -> float:
    """Tinker's cached-prefill rate as a share of its prefill rate in a snapshot (the newest by default)."""
    snapshot = snapshot or newest_snapshot()
    return compare.cached_prefill_share(get_price("Qwen3-8B", snapshot))


NO_CACHE = "no caching (the bill)"
PER_GROUP_FREE = "per-group, hits free (empirical page)"
PER_GROUP_REAL = "per-group, hits at Tinker's cached rate"


@dataclass(frozen=True)
class CachingCase:
    label: str
    hit_rate: float
    cached_rate: float        # $/M billed for a cached prompt token
    prefill_usd: float
    total_usd: float


def swe_rl_caching(snapshot: str | None = None) -> list[CachingCase]:
    """Tinker's swe_rl bill under the seed's two caching hypotheticals and under Tinker's real cached rate.

    The seed's hypotheticals: the empirical page bills each group's prompt once (hits (G − 1)/G, free); the
    takeaway lets 92% of prompt tokens hit for free. Tinker bills hits at a share of prefill from 2026-07-17
    (the newest snapshot's share, applied to the January rates the seed used: Qwen3-32B is not priced after
    the repricing)."""
    base = Scenario.from_workload("swe_rl", method="seed")
    est = estimate(base)
    rate = est.price.prefill
    g = float(base.group_size)
    share = cached_prefill_share(snapshot)
    hit = float(base.cache_hit_rate)
    takeaway = f"{fmt.pct(hit, 0)} hits"
    cases = [(NO_CACHE, 0.0, rate)]
    cases += [(PER_GROUP_FREE, (g - 1.0) / g, 0.0),
              (f"{takeaway} free (takeaway page)", hit, 0.0),
              (PER_GROUP_REAL, (g - 1.0) / g, share * rate),
              (f"{takeaway} at Tinker's cached rate", hit, share * rate)]
    out = []
    for label, hit_rate, cached_rate in cases:
        e = estimate(base.replace(tinker_cached_prefill=hit_rate > 0, cache_hit_rate=hit_rate if hit_rate else hit,
                                  tinker_cached_prefill_usd_per_m=cached_rate))
        out.append(CachingCase(label, hit_rate, cached_rate, float(e.tinker.prefill_usd), float(e.tinker.total_usd)))
    return out


def caching_hypotheticals() -> Erratum:
    none, group, free92, group_real, real92 = swe_rl_caching()
    return Erratum(
        "caching", "takeaway", "swe_rl on Tinker with prefix caching",
        free92.total_usd, real92.total_usd, "usd_k",
        "The two seed pages use two different hypotheticals: the empirical page bills each group's prompt "
        "once, the takeaway lets the self-hosted cache hit rate apply to Tinker with hits free. Neither is what "
        "Tinker does: since its repricing it bills cache hits at a discounted rate, not at nothing.",
        printed=printed("swe_rl_tinker_cached_usd"),
        details={"printed_prefill": (printed("swe_rl_prefill_usd"), "usd_k"),
                 "printed_group": (printed("swe_rl_prefill_per_group_usd"), "usd_k"),
                 "printed_total": (printed("swe_rl_tinker_usd"), "usd_k"),
                 "prefill": (none.prefill_usd, "usd_k"), "total": (none.total_usd, "usd_k"),
                 "group_prefill": (group.prefill_usd, "usd_k"), "group_total": (group.total_usd, "usd_k"),
                 "free92_total": (free92.total_usd, "usd_k"), "real92_total": (real92.total_usd, "usd_k"),
                 "group_real_total": (group_real.total_usd, "usd_k"),
                 "hit_rate": (free92.hit_rate, "pct0"), "group_hit_rate": (group.hit_rate, "pct"),
                 "share": (cached_prefill_share(), "pct0"), "cached_rate": (real92.cached_rate, "usd_rate"),
                 "rate": (estimate(Scenario.from_workload("swe_rl", method="seed")).price.prefill, "usd_rate")})


TAKEAWAY_WORKLOADS = ("math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl")


def async_speedups() -> Erratum:
    """The quoted async speed-ups against what the seed's own overlap rule can give."""
    speedups = {w: compare.off_policy_speedups(Scenario.from_workload(w, method="seed")) for w in TAKEAWAY_WORKLOADS}
    at_k1 = {w: float(sp.speedup[sp.off_policy == 1][0]) for w, sp in speedups.items()}
    best = max(at_k1, key=at_k1.get)
    return Erratum(
        "async_speedup", "cost model", "async speed-up at k = 1 (quoted from the literature)",
        claim("async_speedup_k1"), at_k1[best], "ratio",
        "The cost model turns rollout + training into max(rollout, training), which can never be more than "
        "twice as fast, and only when the two phases take equal time. The quoted speed-ups come from systems "
        "that also cut tail waste and idle sandboxes, which the rule leaves out; for the seed's own workloads "
        "the rule gives far less.",
        details={"k2_low": (claim("async_speedup_k2_low"), "ratio"), "k2_high": (claim("async_speedup_k2_high"), "ratio"),
                 "best": (best, "text"), "worst": (min(at_k1, key=at_k1.get), "text"),
                 "worst_speedup": (min(at_k1.values()), "ratio"),
                 # the rule's ceiling: equal phases, summed when synchronous, overlapped when async
                 "ceiling": (float(training.wallclock_hours(1.0, 1.0, 0) / training.wallclock_hours(1.0, 1.0, 1)),
                             "ratio")})


def sandbox_seconds() -> Erratum:
    """The sandbox latency the seed quotes against what its own table needs."""
    seconds = {w: float(get_workload(w).fields.get("sandbox_seconds_per_rollout", 0.0)) for w in TAKEAWAY_WORKLOADS}
    used = {w: v for w, v in seconds.items() if v > 0}
    return Erratum(
        "sandbox_seconds", "cost model", "sandbox time per rollout",
        claim("sandbox_latency_high_s"), min(used.values()), "seconds",
        "The page says execution adds one to ten seconds per rollout, but the takeaway table's sandbox rows "
        "cannot be reproduced with that little: the presets that reproduce them need tens of seconds (code) to "
        "about half an hour (GUI virtual machines) per rollout, which is also what drives their self-hosted cost.",
        details={"low": (claim("sandbox_latency_low_s"), "seconds"), "longest": (max(used.values()), "seconds"),
                 "longest_workload": (max(used, key=used.get), "text"),
                 "shortest_workload": (min(used, key=used.get), "text")})


def kimi_gpus() -> Erratum:
    arch, gpu = get_arch("Kimi-K2-Thinking"), get_gpu(FLOP_PAGE_GPU)
    seed_total, _ = arch.params("seed")
    exact_total, _ = arch.params("exact")
    return Erratum(
        "kimi", "takeaway", "H100s for harbor_rl on Kimi-K2",
        printed("takeaway_num_gpus"), float(memory.min_gpus(seed_total, gpu)), "count",
        "A trillion BF16 parameters are terabytes of weights; two copies with the seed's headroom need dozens "
        "of H100s before a single rollout runs. The cost model raises the count, and the takeaway's harbor_rl "
        "dollars are for that many GPUs, not eight.",
        details={"exact": (float(memory.min_gpus(exact_total, gpu)), "count"),
                 "weights": (float(memory.weight_bytes(seed_total)), "bytes"),
                 "footprint": (float(memory.colocated_vram_bytes(seed_total)), "bytes"),
                 "replica": (float(memory.replica_gpus(seed_total, gpu)), "gpus"),
                 "gpu_memory": (gpu.memory_bytes, "bytes")})
