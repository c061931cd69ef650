"""Tinker versus self-hosted, side by side: the comparisons the book's chapters show, as functions.

Everything here calls the model core (estimate, memory, lora); it only arranges results into the shapes a
table or a sentence needs (who is cheaper and by how much, each meter's share, speed-up over synchronous RL,
seed method next to exact method), so a notebook never does the arithmetic itself.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import TinkerNomicsError
from ..model import lora, memory, roofline
from ..model.estimate import Estimate, estimate
from ..model.scenario import Scenario
from ..model.tokens import abort_rate
from ..sources.architectures import get_arch
from ..sources.defaults import number
from ..sources.hardware import GPU
from ..sources.prices import Price, get_price, storage_usd_per_gb_month
from ..sources.workloads import get_workload

# The seed's "w/ prefix caching" column: Tinker bills cache hits at nothing (a hypothetical; Tinker bills
# them at 20% of prefill from 2026-07-17 and did not discount them at all before).
FREE_CACHED_PREFILL = {"tinker_cached_prefill": True, "tinker_cached_prefill_usd_per_m": 0.0}


def cheaper_factor(est: Estimate):
    """(cheaper side, factor): the dearer total over the cheaper one, ≥ 1 ("self_hosted", 3.5 for math_rl)."""
    tinker = np.asarray(est.tinker.total_usd, dtype=float)
    if est.self_hosted is None:
        return np.asarray("tinker"), np.full(np.shape(tinker), np.nan)
    hosted = np.asarray(est.self_hosted.total_usd, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.maximum(tinker, hosted) / np.minimum(tinker, hosted)
    return est.cheaper, factor


def meter_shares(est: Estimate) -> dict[str, np.ndarray]:
    """Each part of Tinker's bill as a share of its total: sample, train, prefill, sandbox, storage."""
    t = est.tinker
    total = np.asarray(t.total_usd, dtype=float)
    parts = {"sample": t.sample_usd, "train": t.train_usd, "prefill": t.prefill_usd, "sandbox": t.sandbox_usd,
             "storage": t.storage_usd}
    with np.errstate(divide="ignore", invalid="ignore"):
        return {name: np.asarray(value, dtype=float) / total for name, value in parts.items()}


def meters_share(est: Estimate, meters=("sample", "train")):
    """The share of Tinker's bill that several meters take together (by default sample + train, the part a
    single-turn run spends on decode and training)."""
    shares = meter_shares(est)
    return sum(shares[name] for name in meters)


def cached_prefill_share(price: Price) -> float | None:
    """The cached-prefill rate as a share of the full prefill rate (0.2 from 2026-07-17), None before."""
    if price.cached_prefill is None or not price.prefill:
        return None
    return price.cached_prefill / price.prefill


def has_prefix_cache(workload: str) -> bool:
    """Whether a preset states a prefix-cache hit rate (the seed shows a cached Tinker price only for those)."""
    return float(get_workload(workload).fields.get("cache_hit_rate", 0.0) or 0.0) > 0.0


@dataclass(frozen=True)
class WorkloadRow:
    workload: str
    description: str
    model: str
    tinker_usd: float
    tinker_free_cache_usd: float | None   # the seed's free-prefix-caching hypothetical, where the preset caches
    self_hosted_usd: float
    cheaper: str
    factor: float
    prefill_share: float                   # of Tinker's bill
    num_gpus: float
    gpu: str
    wallclock_hours: float

    @property
    def free_cache_cheaper(self) -> str | None:
        """Who is cheaper under the seed's free-cache hypothetical ("tinker" or "self_hosted"; a tie counts for
        Tinker, as in `Estimate.cheaper`), None where the preset has no prefix cache."""
        if self.tinker_free_cache_usd is None:
            return None
        return "tinker" if self.tinker_free_cache_usd <= self.self_hosted_usd else "self_hosted"


def workload_table(names, **overrides) -> list[WorkloadRow]:
    """One row per preset: Tinker, Tinker with free cached prefill (where the preset has a cache hit rate),
    self-hosted, who is cheaper and by what factor. `overrides` apply to every preset (e.g. method="exact")."""
    rows = []
    for name in names:
        est = estimate(Scenario.from_workload(name, **overrides)).tinker_required("the workload table")
        free = None
        if has_prefix_cache(name):
            free = float(estimate(Scenario.from_workload(name, **{**overrides, **FREE_CACHED_PREFILL}))
                         .tinker.total_usd)
        side, factor = cheaper_factor(est)
        rows.append(WorkloadRow(name, get_workload(name).description, est.scenario.model,
                                float(est.tinker.total_usd), free, float(est.self_hosted.total_usd), str(side),
                                float(factor), float(meter_shares(est)["prefill"]), float(est.self_hosted.num_gpus),
                                est.scenario.gpu, float(est.self_hosted.wallclock_hours)))
    return rows


@dataclass(frozen=True)
class HeadlineRow:
    """One preset under the calibrated default: both bills, who wins, and whether and how the run fits."""
    workload: str
    model: str                     # the model the self-hosted side runs (the preset's)
    billed_model: str | None       # the model Tinker bills (its successor when the list has retired it)
    priced: bool                   # False when the list prices neither the model nor a successor
    note: str                      # why not, when not priced
    tinker_usd: float | None
    self_hosted_usd: float | None
    cheaper: str | None
    factor: float | None
    gpu: str
    requested_gpus: float
    num_gpus: float                # the GPUs costed (the smallest count that fits, when the request does not)
    feasible: bool
    rollout_concurrency: float
    rollout_waves: float
    wallclock_hours: float
    step_sequences: float = float("nan")     # sequences a step samples: prompts × group size
    rollout_hours: float = float("nan")      # the self-hosted run's rollout hours
    train_hours: float = float("nan")        # and its trainer's (the log-prob passes and the update)
    tinker_wallclock_hours: float = float("nan")   # the run's wall-clock on Tinker (model/tinker_wallclock.py)

    @property
    def pace(self) -> str:
        """Which phase sets the self-hosted run's pace: "training" (the trainer's passes) or "rollout", the longer."""
        return "training" if self.train_hours >= self.rollout_hours else "rollout"

    @property
    def successor(self) -> bool:
        return bool(self.billed_model) and self.billed_model != self.model

    @property
    def wallclock_days(self) -> float:
        return self.wallclock_hours / 24.0

    @property
    def tinker_wallclock_days(self) -> float:
        return self.tinker_wallclock_hours / 24.0


def headline_table(names, prices: str | None = None, **overrides) -> list[HeadlineRow]:
    """The takeaway's answer: every preset under the calibrated method at `prices` (default: the newest list),
    retired models billed on their successors, cached prefill billed where the list has a cached rate. A
    preset the list cannot bill at all gets a row that says so."""
    rows = []
    for name in names:
        scenario = Scenario.from_workload(name, prices=prices, **{"method": "calibrated", **overrides})
        try:
            est = estimate(scenario)
            why_not = est.tinker_not_offered
        except TinkerNomicsError as exc:
            why_not = str(exc)
        if why_not is not None:
            rows.append(HeadlineRow(name, str(get_workload(name).fields["model"]), None, False, why_not, None, None,
                                    None, None, str(scenario.gpu or ""), float("nan"), float("nan"), False,
                                    float("nan"), float("nan"), float("nan")))
            continue
        s = est.self_hosted
        side, factor = cheaper_factor(est)
        rows.append(HeadlineRow(name, est.scenario.model, est.price.model, True, "", float(est.tinker.total_usd),
                                float(s.total_usd), str(side), float(factor), est.scenario.gpu,
                                float(np.max(est.scenario.num_gpus)), float(s.num_gpus), bool(s.feasible),
                                float(s.rollout_concurrency), float(s.rollout_waves), float(s.wallclock_hours),
                                float(est.scenario.prompts_per_step * est.scenario.group_size),
                                float(s.rollout_hours), float(s.trainer_hours),
                                float(est.tinker_time.wallclock_hours)))
    return rows


@dataclass(frozen=True)
class SeedRow:
    """One row of the seed's takeaway table: what it printed and what the seed method computes."""
    workload: str
    model: str
    printed_tinker: float
    tinker: float
    printed_self_hosted: float
    self_hosted: float
    printed_cheaper: str
    cheaper: str
    printed_factor: float
    factor: float
    printed_cached: float | None        # the seed's "w/ prefix caching" Tinker bill, where it printed one
    cached: float | None

    @property
    def tinker_difference(self) -> float:
        """(computed − printed) / printed."""
        return (self.tinker - self.printed_tinker) / self.printed_tinker

    @property
    def self_hosted_difference(self) -> float:
        return (self.self_hosted - self.printed_self_hosted) / self.printed_self_hosted

    @property
    def cached_difference(self) -> float | None:
        if self.printed_cached is None or self.cached is None:
            return None
        return (self.cached - self.printed_cached) / self.printed_cached


def largest_difference(rows: list[SeedRow]) -> float:
    """The largest |computed − printed| / printed over every figure of the seed's table (Tinker, self-hosted and
    the prefix-caching hypothetical)."""
    diffs = [d for r in rows for d in (r.tinker_difference, r.self_hosted_difference, r.cached_difference)
             if d is not None]
    return float(max(abs(d) for d in diffs))


def seed_reproduction(names) -> list[SeedRow]:
    """The seed's takeaway table reproduced by the seed method (each preset's seed rows: January prices, 70% MBU,
    10% MFU) next to the figures the seed printed (data/literature/seed_printed_figures.csv)."""
    from .errata.common import printed_figures     # the seed's printed figures, with their quotes

    printed = printed_figures()
    rows = []
    for row in workload_table(names, method="seed"):
        tinker, hosted = printed[f"{row.workload}_tinker_usd"].value, printed[f"{row.workload}_self_hosted_usd"].value
        cached = printed.get(f"{row.workload}_tinker_cached_usd")
        rows.append(SeedRow(row.workload, row.model, tinker, row.tinker_usd, hosted, row.self_hosted_usd,
                            "tinker" if tinker <= hosted else "self_hosted", row.cheaper,
                            printed[f"{row.workload}_cheaper_factor"].value, row.factor,
                            cached.value if cached else None, row.tinker_free_cache_usd if cached else None))
    return rows


@dataclass(frozen=True)
class OffPolicy:
    off_policy: np.ndarray
    abort_rate: np.ndarray
    rollout_hours: np.ndarray
    train_hours: np.ndarray
    wallclock_hours: np.ndarray
    speedup: np.ndarray          # synchronous (k = 0) wall-clock over this k's wall-clock
    self_hosted_usd: np.ndarray
    tinker_usd: np.ndarray

    @property
    def gain(self) -> np.ndarray:
        """The time saved over synchronous RL, as a share: speed-up − 1."""
        return self.speedup - 1.0


def off_policy_speedups(scenario: Scenario, off_policy=(0, 1, 2, 4, 8)) -> OffPolicy:
    """The model's own speed-up of async RL over synchronous RL for one scenario, for each k."""
    ks = np.asarray(off_policy, dtype=float)
    if not np.any(ks == 0):
        raise ValueError("off_policy must include 0 (the synchronous baseline)")
    est = estimate(scenario.replace(off_policy=ks)).tinker_required("the off-policy comparison")
    s = est.self_hosted
    wall = np.asarray(s.wallclock_hours, dtype=float)
    baseline = wall[ks == 0][0]
    return OffPolicy(ks, abort_rate(ks), np.asarray(s.rollout_hours), np.broadcast_to(s.trainer_hours, ks.shape),
                     wall, baseline / wall, np.asarray(s.total_usd), np.broadcast_to(est.tinker.total_usd, ks.shape))


@dataclass(frozen=True)
class MethodRow:
    quantity: str
    kind: str          # tokens | usd | hours | tps | gpus | gb | count
    seed: float
    exact: float


def method_comparison(scenario: Scenario) -> list[MethodRow]:
    """The same scenario under the seed method and the exact method, quantity by quantity."""
    seed = estimate(scenario.replace(method="seed"))
    exact = estimate(scenario.replace(method="exact"))

    def pair(getter):
        return float(getter(seed)), float(getter(exact))

    spec = [
        ("sampled tokens", "tokens", lambda e: e.tokens.sample),
        ("trained tokens", "tokens", lambda e: e.tokens.train),
        ("prefilled tokens", "tokens", lambda e: e.tokens.prefill),
        ("Tinker bill", "usd", lambda e: e.tinker.total_usd),
        ("LoRA checkpoint", "gb", lambda e: e.checkpoint_gb * 1e9),
        ("minimum GPUs", "gpus", lambda e: e.self_hosted.min_gpus),
        ("decode throughput", "tps", lambda e: e.self_hosted.decode_tokens_per_second),
        ("training throughput", "tps", lambda e: e.self_hosted.train_tokens_per_second),
        ("rollout time", "hours", lambda e: e.self_hosted.rollout_hours),
        ("training time", "hours", lambda e: e.self_hosted.train_hours),
        ("wall-clock", "hours", lambda e: e.self_hosted.wallclock_hours),
        ("rollout KV cache", "gb", lambda e: e.self_hosted.kv_cache_gb * 1e9),
        ("self-hosted cost", "usd", lambda e: e.self_hosted.total_usd),
    ]
    if seed.tinker_not_offered is not None:       # no Tinker bill to compare
        spec = [row for row in spec if row[0] != "Tinker bill"]
    return [MethodRow(label, kind, *pair(getter)) for label, kind, getter in spec]


@dataclass(frozen=True)
class MemoryRow:
    model: str
    total_params: float
    weight_bytes: float
    colocated_bytes: float
    min_gpus: float
    kv_bytes_per_token_seed: float
    kv_bytes_per_token_exact: float


def memory_table(models, gpu: GPU, fine_tune: str = "lora") -> list[MemoryRow]:
    """Weights, the colocated RL footprint (2 copies × 1.8 for LoRA) and minimum GPUs, with the seed's sizes;
    KV bytes per token by the seed's heuristic and by the architecture."""
    rows = []
    for name in models:
        arch = get_arch(name)
        total, _ = arch.params("seed")
        rows.append(MemoryRow(arch.model, total, float(memory.weight_bytes(total)),
                              float(memory.colocated_vram_bytes(total, fine_tune)),
                              float(memory.min_gpus(total, gpu, fine_tune)),
                              float(memory.kv_bytes_per_token(arch, "seed")),
                              float(memory.kv_bytes_per_token(arch, "exact"))))
    return rows


@dataclass(frozen=True)
class CheckpointRow:
    model: str
    seed_params: float
    exact_params: float
    cookbook_params: float | None   # tinker-cookbook's measured count, where its table lists the model
    seed_bytes: float
    exact_bytes: float
    cookbook_bytes: float | None
    seed_usd_per_month: float
    exact_usd_per_month: float


def checkpoint_table(models, rank=None, snapshot: str | None = None) -> list[CheckpointRow]:
    """LoRA adapter size per model: the seed's per-layer rule, the cookbook's counting rule, and the
    cookbook's measured table where it has the model; storage per month at the snapshot's $/GB-month."""
    rank = number("lora_rank") if rank is None else rank
    per_gb_month = storage_usd_per_gb_month(snapshot)
    measured = lora.cookbook_lora_table()
    rows = []
    for name in models:
        arch = get_arch(name)
        seed_p = float(lora.lora_params(arch, rank, "seed"))
        exact_p = float(lora.lora_params(arch, rank, "exact"))
        cook = measured.get(arch.hf_id) or measured.get(arch.model)
        cook_p = float(cook["per_rank_total"] * rank) if cook else None
        seed_gb, exact_gb = float(lora.checkpoint_gb(seed_p)), float(lora.checkpoint_gb(exact_p))
        rows.append(CheckpointRow(arch.model, seed_p, exact_p, cook_p, seed_gb * 1e9, exact_gb * 1e9,
                                  float(lora.checkpoint_gb(cook_p)) * 1e9 if cook_p is not None else None,
                                  seed_gb * per_gb_month, exact_gb * per_gb_month))
    return rows


def decode_curve(model: str, gpu: GPU, batch, context, efficiency=1.0, method: str = "seed", kv: bool = True,
                 compute_bound: bool = False):
    """Decode tokens/s of one rollout-engine replica (one GPU when the model fits on one) against the number
    of sequences it decodes at once, `context` tokens of KV each. kv=False drops the KV reads (weights only);
    compute_bound=True caps the step at peak FLOPs (the roofline's flat part above the critical batch)."""
    arch = get_arch(model)
    total, active = arch.params(method)
    replica = memory.replica_gpus(total, gpu)
    return roofline.decode_tokens_per_second(
        concurrency=batch, num_gpus=replica, replica_gpus=replica,
        weight_bytes_per_step=lambda b: roofline.weight_bytes_read(arch, b, method),
        kv_bytes_per_token=memory.kv_bytes_per_token(arch, method) if kv else 0.0, context=context,
        state_bytes_per_sequence=memory.recurrent_bytes_per_sequence(arch, method) if kv else 0.0,
        bandwidth_bytes_per_s=gpu.bandwidth_bytes_per_s, peak_flops=gpu.peak_flops(method),
        flops_per_token=number("forward_flops_per_param") * active, efficiency=efficiency,
        compute_bound=compute_bound) / replica


def kv_share_of_step(model: str, batch, context, method: str = "seed"):
    """Share of a batched decode step's bytes that are KV-cache reads (the rest is weights)."""
    arch = get_arch(model)
    weights = roofline.weight_bytes_read(arch, batch, method)
    kv = np.asarray(batch, dtype=float) * memory.kv_bytes_per_token(arch, method) * np.asarray(context, dtype=float)
    return kv / (weights + kv)


def crossover(x, tinker_usd, self_hosted_usd):
    """The first swept value at which the cheaper side changes (None if it never does), and the side that
    is cheaper from there on."""
    x = np.asarray(x, dtype=float)
    tinker_cheaper = np.asarray(tinker_usd, dtype=float) <= np.asarray(self_hosted_usd, dtype=float)
    changes = np.flatnonzero(tinker_cheaper[1:] != tinker_cheaper[:-1])
    if changes.size == 0:
        return None, None
    i = changes[0] + 1
    return float(x[i]), ("tinker" if tinker_cheaper[i] else "self_hosted")


def decode_batch_per_replica(est: Estimate):
    """Sequences each rollout-engine replica decodes at once (per GPU when the model fits on one GPU)."""
    s = est.self_hosted
    replicas = np.maximum(np.floor(np.asarray(s.num_gpus, dtype=float) / s.replica_gpus), 1.0)
    return np.asarray(s.concurrent_sequences, dtype=float) / replicas


def priced_workloads(names, snapshot: str | None = None) -> list[str]:
    """The presets whose model Tinker prices as of `snapshot` (later snapshots drop some models)."""
    out = []
    for name in names:
        try:
            get_price(Scenario.from_workload(name).resolved().model, snapshot)
        except TinkerNomicsError:
            continue
        out.append(name)
    return out


def first_crossing(x, a, b):
    """The first swept value at which `a` overtakes `b` or falls below it (None if the order never changes),
    e.g. the completion length where rollout time overtakes training time."""
    x = np.asarray(x, dtype=float)
    above = np.asarray(a, dtype=float) > np.asarray(b, dtype=float)
    changes = np.flatnonzero(above[1:] != above[:-1])
    return None if changes.size == 0 else float(x[changes[0] + 1])


@dataclass(frozen=True)
class PhaseSplit:
    """One RL step per completion length under one method: rollout (generation) and training seconds."""
    method: str
    fine_tune: str
    completion_tokens: np.ndarray
    rollout_seconds: np.ndarray
    train_seconds: np.ndarray
    train_mfu: np.ndarray        # the update's achieved model-FLOPs utilisation at each length

    @property
    def rollout_share(self) -> np.ndarray:
        return self.rollout_seconds / (self.rollout_seconds + self.train_seconds)

    @property
    def pace(self) -> np.ndarray:
        """Which phase is the longer one at each length: "rollout" or "training"."""
        return np.where(self.rollout_seconds > self.train_seconds, "rollout", "training")

    @property
    def crossing(self) -> float | None:
        """The first listed length at which the longer phase changes (None if it never does)."""
        return first_crossing(self.completion_tokens, self.rollout_seconds, self.train_seconds)

    def at(self, length) -> int:
        """The index of `length` among the listed lengths."""
        return int(np.flatnonzero(self.completion_tokens == float(length))[0])


def phase_split(model: str, gpu: GPU, num_gpus, prompts_per_step, group_size, completion_tokens, prompt_tokens=0.0,
                method: str | None = None, fine_tune: str = "lora") -> PhaseSplit:
    """Rollout against training seconds of one colocated, synchronous RL step of B·G rollouts, for each completion
    length, under `method` (default: the package's, with its fitted efficiencies; model.predict.predict_rl_step):
    the FLOP accounting chapter's question, which phase is the slow one, asked of the model the book answers with."""
    from ..model.predict import predict_rl_step

    lengths = np.asarray(completion_tokens, dtype=float)
    p = predict_rl_step(get_arch(model), gpu, num_gpus, float(prompts_per_step) * float(group_size), prompt_tokens,
                        lengths, fine_tune=fine_tune, method=method)
    return PhaseSplit(p.method, p.fine_tune, lengths, np.asarray(p.generation_seconds, dtype=float),
                      np.broadcast_to(np.asarray(p.training_seconds, dtype=float), lengths.shape),
                      np.broadcast_to(np.asarray(p.train_mfu, dtype=float), lengths.shape))
