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
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .. import sources
from ..errors import TinkerNomicsError
from ..sources.price_list import resolve_snapshot
from ..sources.workloads import Workload, get_workload

METHODS = ("seed", "exact")
DEFAULT_METHOD = "seed"   # the method a user gets when they name none
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
        values["method"] = _choice("method", values["method"] or DEFAULT_METHOD, METHODS)
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
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)}


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


def plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value
