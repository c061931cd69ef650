"""One Scenario (inputs) -> one Estimate (outputs), Tinker versus self-hosted.

Every numeric field may be a NumPy array; arrays broadcast against each other and every number of the
Estimate then has the broadcast shape, so a sweep, a widget redraw and a Monte-Carlo band are one call.
Fields left as None take the sourced defaults in data/assumptions/defaults.csv (or the workload preset).

Methods (a named choice, `method=`):
  seed  — the original site's model: nominal parameter counts ("Qwen3-8B = 8B"), KV ≈ 16 KB per billion
          active parameters, bandwidth-only decode, trained tokens = sampled tokens × K, the seed's rounded
          H100 peak (990 TFLOPS);
  exact — architecture-exact counts (parameters, GQA/MLA/hybrid/sliding KV, MoE experts touched), sharded
          rollout replicas, compute-bound-aware decode, attention FLOPs, trained tokens = prompt + completion
          (what Tinker bills), aborted rollouts re-prefilled.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from .. import sources
from ..errors import TinkerNomicsError
from ..sources.price_list import resolve_snapshot
from ..sources.prices import Price, get_price, storage_usd_per_gb_month
from ..sources.workloads import Workload, get_workload
from . import billing, lora, tokens
from .selfhosted import SelfHosted, self_hosted_cost

METHODS = ("seed", "exact")
DECODE_MODELS = ("auto", "bandwidth", "roofline")
FINE_TUNES = ("lora", "full")

# field -> (lower bound, lower inclusive, upper bound) ; None = unbounded
BOUNDS: dict[str, tuple[float, bool, float | None]] = {
    "prompts_per_step": (1, True, None), "group_size": (1, True, None), "steps": (1, True, None),
    "completion_tokens": (0, True, None), "prompt_tokens": (0, True, None), "length_growth": (0, False, None),
    "substeps": (1, True, None), "turns": (1, True, None), "output_per_turn": (0, True, None),
    "observation_per_turn": (0, True, None), "failure_overhead": (0, True, None), "cache_hit_rate": (0, True, 1),
    "off_policy": (0, True, None), "num_gpus": (1, True, None), "gpu_hourly_usd": (0, True, None),
    "rollout_efficiency": (0, False, 1), "mfu": (0, False, 1), "prefill_mfu": (0, False, 1),
    "sandbox_seconds_per_rollout": (0, True, None), "sandbox_cpu_cores": (0, True, None),
    "sandbox_memory_gib": (0, True, None), "eval_every": (0, True, None), "eval_prompts": (0, True, None),
    "lora_rank": (0, False, None), "tinker_cached_prefill_usd_per_m": (0, True, None),
}
TEXT_FIELDS = ("model", "prices", "gpu", "sandbox", "method", "decode_model", "fine_tune")


@dataclass(frozen=True)
class Scenario:
    model: str | None = None
    prompts_per_step: Any = None        # B
    group_size: Any = None              # G
    steps: Any = None                   # S
    completion_tokens: Any = None       # L (single turn)
    prompt_tokens: Any = None           # P
    length_growth: Any = None           # end/start factor of completion length
    substeps: Any = None                # K
    turns: Any = None                   # N (> 1: agentic multi-turn)
    output_per_turn: Any = None         # O
    observation_per_turn: Any = None    # Obs
    failure_overhead: Any = None        # extra share of turns from failed rollouts
    cache_hit_rate: Any = None          # self-hosted prefix-cache hits; Tinker's too with tinker_cached_prefill
    tinker_cached_prefill: Any = None   # bill cached prompt tokens at the snapshot's cached rate
    tinker_cached_prefill_usd_per_m: Any = None  # override the cached rate (e.g. 0: the seed's hypothetical)
    off_policy: Any = None              # k
    gpu: str | None = None
    num_gpus: Any = None
    gpu_hourly_usd: Any = None
    rollout_efficiency: Any = None
    mfu: Any = None
    prefill_mfu: Any = None
    sandbox: str | None = None
    sandbox_seconds_per_rollout: Any = None
    sandbox_cpu_cores: Any = None
    sandbox_memory_gib: Any = None
    eval_every: Any = None
    eval_prompts: Any = None
    lora_rank: Any = None
    fine_tune: str | None = None
    prices: str | None = None
    method: str | None = None
    decode_model: str | None = None

    @classmethod
    def from_workload(cls, name: str, **overrides) -> "Scenario":
        """A preset from data/workloads/, with any field overridden (None leaves the preset's value)."""
        preset = preset_fields(get_workload(name))
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise TinkerNomicsError(f"unknown Scenario field(s): {', '.join(sorted(unknown))}")
        merged = {**preset, **{k: v for k, v in overrides.items() if v is not None}}
        return cls(**merged)

    def replace(self, **changes) -> "Scenario":
        return dataclasses.replace(self, **changes)

    def resolved(self) -> "Scenario":
        """Every default filled in, names made canonical, values checked."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        if values["model"] is None:
            raise TinkerNomicsError("model is required (e.g. Qwen3-8B), or start from a workload preset")
        values["model"] = sources.resolve_model(values["model"])
        values["prices"] = resolve_snapshot(values["prices"])
        for name in ("gpu", "sandbox", "turns", "length_growth", "substeps", "failure_overhead", "cache_hit_rate",
                     "off_policy", "num_gpus", "rollout_efficiency", "mfu", "prefill_mfu",
                     "sandbox_seconds_per_rollout", "sandbox_cpu_cores", "sandbox_memory_gib", "eval_every",
                     "eval_prompts", "lora_rank"):
            if values[name] is None:
                values[name] = sources.assumption(name)
        values["gpu"] = sources.get_gpu(str(values["gpu"])).gpu
        values["sandbox"] = sources.get_sandbox(str(values["sandbox"]))
        values["method"] = _choice("method", values["method"] or "seed", METHODS)
        values["decode_model"] = _choice("decode_model", values["decode_model"] or "auto", DECODE_MODELS)
        values["fine_tune"] = _choice("fine_tune", values["fine_tune"] or "lora", FINE_TUNES)
        values["tinker_cached_prefill"] = _flag("tinker_cached_prefill", values["tinker_cached_prefill"])
        if values["gpu_hourly_usd"] is None:
            values["gpu_hourly_usd"] = sources.default_gpu_price(values["gpu"]).usd_per_gpu_hour
        for name in ("prompts_per_step", "group_size", "steps", "prompt_tokens"):
            if values[name] is None:
                raise TinkerNomicsError(f"{name} is required (or start from a workload preset)")
        multi = np.any(_number("turns", values["turns"]) > 1)
        single = np.any(_number("turns", values["turns"]) <= 1)
        if single and values["completion_tokens"] is None:
            raise TinkerNomicsError("completion_tokens is required for single-turn scenarios (turns = 1)")
        if multi and (values["output_per_turn"] is None or values["observation_per_turn"] is None):
            raise TinkerNomicsError("output_per_turn and observation_per_turn are required when turns > 1")
        for name in ("completion_tokens", "output_per_turn", "observation_per_turn"):
            if values[name] is None:
                values[name] = 0.0
        for name in BOUNDS:
            if values[name] is not None:
                values[name] = _checked(name, values[name])
        try:
            np.broadcast_shapes(*(np.shape(values[n]) for n in BOUNDS if values[n] is not None))
        except ValueError:
            shapes = {n: np.shape(values[n]) for n in BOUNDS if values[n] is not None and np.ndim(values[n])}
            raise TinkerNomicsError(f"array inputs do not broadcast together: {shapes}") from None
        return Scenario(**values)

    def to_dict(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def preset_fields(workload: Workload) -> dict:
    """A workload preset's parameters as Scenario fields, each checked: a known field, text for the name fields,
    true/false for tinker_cached_prefill, a number for the rest."""
    known = {f.name for f in fields(Scenario)}
    out = {}
    for name, value in workload.fields.items():
        where = f"workloads/workloads.csv row {workload.rows.get(name, '?')}"
        if name not in known:
            raise TinkerNomicsError(f"{where} column parameter: {name!r} is not a Scenario field")
        if name in TEXT_FIELDS:
            value = value if isinstance(value, str) else f"{value:g}"
        elif name == "tinker_cached_prefill":
            if not isinstance(value, bool):
                raise TinkerNomicsError(f"{where} column value: {value!r} is not true or false")
        elif isinstance(value, (str, bool)):
            raise TinkerNomicsError(f"{where} column value: {value!r} is not a number")
        out[name] = value
    return out


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    text = str(value).strip().lower()
    if text not in allowed:
        raise TinkerNomicsError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return text


def _flag(name: str, value) -> bool:
    if value is None:
        return False
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "false", "no", "0"):
        return value.strip().lower() in ("true", "yes", "1")
    raise TinkerNomicsError(f"{name} must be true or false, got {value!r}")


def _number(name: str, value) -> np.ndarray:
    if isinstance(value, (str, bytes)) or isinstance(value, (bool, np.bool_)):
        raise TinkerNomicsError(f"{name} must be a number, got {value!r}")
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TinkerNomicsError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    return array


def _checked(name: str, value) -> Any:
    array = _number(name, value)
    low, inclusive, high = BOUNDS[name]
    bad = ~np.isfinite(array)
    bad |= (array < low) if inclusive else (array <= low)
    if high is not None:
        bad |= array > high
    if np.any(bad):
        first = array[bad].flat[0] if array.ndim else float(array)
        rule = f"{'>=' if inclusive else '>'} {low:g}" + (f" and <= {high:g}" if high is not None else "")
        where = f" ({int(bad.sum())} of {array.size} values)" if array.ndim else ""
        raise TinkerNomicsError(f"{name} must be a finite number {rule}, got {_fmt(first)}{where}")
    return float(array) if array.ndim == 0 else array


def _fmt(x: float) -> str:
    return "NaN" if math.isnan(x) else f"{x:g}"


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value


@dataclass(frozen=True)
class Estimate:
    scenario: Scenario
    price: Price
    tokens: tokens.TokenStreams
    per_rollout: tokens.Rollout
    tinker: billing.TinkerBill
    self_hosted: SelfHosted | None
    lora_parameters: np.ndarray
    checkpoint_gb: np.ndarray
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def cheaper(self):
        if self.self_hosted is None:
            return np.asarray("tinker")
        return np.where(self.tinker.total_usd <= self.self_hosted.total_usd, "tinker", "self_hosted")

    def to_dict(self) -> dict:
        """The nested keys of `tinker-nomics estimate --format json`; arrays become lists."""
        t, s = self.tinker, self.self_hosted
        out = {
            "scenario": self.scenario.to_dict(),
            "tokens": {"sample": self.tokens.sample, "train": self.tokens.train, "prefill": self.tokens.prefill,
                       "eval_sample": self.tokens.eval_sample, "eval_prefill": self.tokens.eval_prefill,
                       "rollouts": self.tokens.rollouts},
            "tinker": {"sample_usd": t.sample_usd, "train_usd": t.train_usd, "prefill_usd": t.prefill_usd,
                       "sandbox_usd": t.sandbox_usd, "storage_usd": t.storage_usd, "total_usd": t.total_usd,
                       "rates_usd_per_million": {"prefill": self.price.prefill, "sample": self.price.sample,
                                                 "train": self.price.train,
                                                 "cached_prefill": self.price.cached_prefill},
                       "rates_source": self.price.provenance},
            "lora": {"parameters": self.lora_parameters, "checkpoint_gb": self.checkpoint_gb},
            "cheaper": self.cheaper,
            "notes": list(self.notes),
        }
        if s is not None:
            out["self_hosted"] = {name: getattr(s, name) for name in (
                "rollout_hours", "train_hours", "wallclock_hours", "gpu_hours", "compute_usd", "sandbox_usd")}
            out["self_hosted"].update({
                "total_usd": s.total_usd, "min_gpus": s.min_gpus, "num_gpus": s.num_gpus,
                "kv_cache_gb": s.kv_cache_gb, "kv_cache_fits": s.kv_cache_fits, "gpu_hourly_usd": s.gpu_hourly_usd,
                "decode_hours": s.decode_hours, "prefill_hours": s.prefill_hours,
                "sandbox_wait_hours": s.sandbox_wait_hours,
                "decode_tokens_per_second": s.decode_tokens_per_second,
                "train_tokens_per_second": s.train_tokens_per_second, "replica_gpus": s.replica_gpus,
                "concurrent_sequences": s.concurrent_sequences, "sample_tokens": self.tokens.self_hosted_sample})
        else:
            out["self_hosted"] = None
        return _tree(out)


def _tree(value):
    if isinstance(value, dict):
        return {k: _tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tree(v) for v in value]
    return _plain(value)


def estimate(scenario: Scenario) -> Estimate:
    """Tinker's bill and the self-hosted cost of one (or a broadcast array of) scenario(s)."""
    s = scenario.resolved()
    seed = s.method == "seed"
    notes: list[str] = []
    price = get_price(s.model, s.prices)
    notes.extend(price.notes)

    per = tokens.rollout(s.completion_tokens, s.prompt_tokens, s.length_growth, s.turns, s.output_per_turn,
                         s.observation_per_turn, s.failure_overhead)
    streams = tokens.token_streams(s.prompts_per_step, s.group_size, s.steps, per, s.substeps, s.off_policy,
                                   train_on="completion" if seed else "sequence", eval_every=s.eval_every,
                                   eval_prompts=s.eval_prompts, abort_prefill=not seed)

    cached_rate = None
    if s.tinker_cached_prefill:
        cached_rate = s.tinker_cached_prefill_usd_per_m if s.tinker_cached_prefill_usd_per_m is not None \
            else price.cached_prefill
        if cached_rate is None:
            notes.append(f"snapshot {s.prices} has no cached-prefill rate for {price.model} (cached billing began "
                         f"between 2026-06-14 and {sources.assumption('tinker_repricing_date')}); all prefill billed "
                         f"at the full rate")
    cached_share = s.cache_hit_rate if cached_rate is not None else 0.0
    sandbox_rollouts = streams.rollouts * tokens.abort_multiplier(s.off_policy) if not seed else streams.rollouts
    sandbox_usd = billing.sandbox_cost(streams.rollouts, s.sandbox_seconds_per_rollout, s.sandbox,
                                       s.sandbox_cpu_cores, s.sandbox_memory_gib)
    self_sandbox_usd = billing.sandbox_cost(sandbox_rollouts, s.sandbox_seconds_per_rollout, s.sandbox,
                                            s.sandbox_cpu_cores, s.sandbox_memory_gib)

    arch = sources.get_arch(s.model) if sources.has_arch(s.model) else None
    if arch is not None:
        lora_params = lora.lora_params(arch, s.lora_rank, s.method)
        ckpt_gb = lora.checkpoint_gb(lora_params)
        storage_usd = billing.storage_cost(ckpt_gb, s.steps, storage_usd_per_gb_month(s.prices))
    else:
        lora_params = ckpt_gb = storage_usd = np.asarray(np.nan)
        storage_usd = np.asarray(0.0)
        notes.append(f"{price.model} has no published architecture: checkpoint storage and the self-hosted "
                     f"side are not computed")
    bill = billing.tinker_bill(streams.sample, streams.train, streams.prefill, price, cached_share, cached_rate,
                               sandbox_usd, storage_usd)

    hosted = None
    if arch is not None:
        gpu = sources.get_gpu(s.gpu)
        compute_bound = (s.decode_model == "roofline") or (s.decode_model == "auto" and not seed)
        concurrency = np.asarray(s.prompts_per_step, dtype=float) * s.group_size
        # The seed's KV length: the completion for single-turn tasks, the whole conversation when multi-turn.
        seed_context = np.where(per.turns > 1, per.sequence, per.output)
        hosted = self_hosted_cost(
            arch=arch, gpu=gpu, method=s.method, compute_bound=compute_bound,
            sample_tokens=streams.self_hosted_sample, prefill_tokens=streams.self_hosted_prefill,
            train_tokens=streams.train, concurrency=concurrency,
            decode_context=seed_context if seed else per.decode_context,
            kv_context=seed_context if seed else per.sequence, cache_hit_rate=s.cache_hit_rate,
            off_policy=s.off_policy, num_gpus=s.num_gpus, gpu_hourly_usd=s.gpu_hourly_usd,
            rollout_efficiency=s.rollout_efficiency, mfu=s.mfu, prefill_mfu=s.prefill_mfu, fine_tune=s.fine_tune,
            sandbox_usd=self_sandbox_usd,
            sandbox_wait_hours=np.asarray(s.steps, dtype=float) * s.sandbox_seconds_per_rollout / 3600.0,
            multi_turn=per.turns > 1)
        raised = np.asarray(s.num_gpus) < hosted.min_gpus
        if np.any(raised):
            notes.append(f"{arch.model} needs at least {int(np.max(hosted.min_gpus))} × {gpu.gpu} for colocated RL; "
                         f"the GPU count was raised to that minimum")
        if not np.all(hosted.kv_cache_fits):
            notes.append("the rollout batch's KV cache exceeds free GPU memory"
                         + (" (the seed method does not slow down for this)" if seed else
                            "; fewer sequences are decoded at once"))
    return Estimate(s, price, streams, per, bill, hosted, np.asarray(lora_params), np.asarray(ckpt_gb), tuple(notes))
