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
  calibrated (the default) — exact, plus memory-feasible rollouts (the batch that fits, in waves) and
          per-phase parameters fitted to published measurements (model/rl_phases.py, model/decode.py;
          data/calibration/parameters.csv).

Presets (data/workloads/workloads.csv) keep the seed's own assumptions (its 70% MBU, its 10% MFU) on rows
marked for the seed and exact methods; the calibrated method takes its fitted efficiencies instead. A preset's
$/GPU-hour belongs to the preset's GPU: choosing another GPU without a rate takes that GPU's registry default.
"""
from __future__ import annotations

import dataclasses
import decimal
import math
import numbers
import sys
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .. import sources
from ..errors import TinkerNomicsError
from ..sources.hf_config import load_config
from ..sources.price_list import resolve_snapshot
from ..sources.prices import get_price
from ..sources.successors import model_for
from ..sources.workloads import Workload, get_workload

METHODS = ("seed", "exact", "calibrated")
DEFAULT_METHOD = "calibrated"
DECODE_MODELS = ("auto", "bandwidth", "roofline")
FINE_TUNES = ("lora", "full")

# field -> (lower bound, lower inclusive, upper bound) ; None = unbounded
# (low, low inclusive, high) of each number. The highs are sanity ceilings far above any real run (ten million
# prompts a step, ten million tokens a sequence, $10,000 a GPU-hour; GPUs up to defaults.csv max_gpus), so that a
# typo such as 1e300
# is refused in one line instead of printed as a 300-digit bill; efficiencies below 0.1% are typos too.
BOUNDS: dict[str, tuple[float, bool, float | None]] = {
    "prompts_per_step": (1, True, 1e7), "group_size": (1, True, 1e6), "steps": (1, True, 1e7),
    "completion_tokens": (0, True, 1e7), "prompt_tokens": (0, True, 1e7), "length_growth": (0, False, 1e3),
    "substeps": (1, True, 1e4), "turns": (1, True, 1e4), "output_per_turn": (0, True, 1e7),
    "observation_per_turn": (0, True, 1e7), "failure_overhead": (0, True, 1e3), "cache_hit_rate": (0, True, 1),
    "off_policy": (0, True, 1e4), "num_gpus": (1, True, None), "gpu_hourly_usd": (0, True, 1e4),
    "rollout_efficiency": (1e-3, True, 1), "mfu": (1e-3, True, 1), "prefill_mfu": (1e-3, True, 1),
    "sandbox_seconds_per_rollout": (0, True, 1e7), "sandbox_cpu_cores": (0, False, 1e4),
    "sandbox_memory_gib": (0, False, 1e6), "eval_every": (0, True, 1e7), "eval_prompts": (0, True, 1e7),
    "lora_rank": (0, False, 1e5), "tinker_cached_prefill_usd_per_m": (0, True, 1e4),
    "model_error_factor": (1e-3, True, 1e3), "tinker_time_factor": (1e-3, True, 1e3),
}
# Counts a user gives as whole numbers: a step has whole prompts, samples and GPUs (turns may be a mean over
# rollouts). Checked where a user types them (check_whole), not in Scenario: the break-even solvers bisect over
# continuous counts.
WHOLE = ("prompts_per_step", "group_size", "steps", "substeps", "num_gpus", "off_policy", "eval_every", "eval_prompts",
         "lora_rank")


def check_whole(values: dict) -> None:
    """One-line error for the first count in `values` (field -> number or array, None skipped) of WHOLE that is not
    a whole number."""
    for name in WHOLE:
        value = values.get(name)
        if value is None or isinstance(value, (str, bytes)):
            continue
        array = np.asarray(value, dtype=float)
        with np.errstate(invalid="ignore"):   # inf % 1 is NaN: a non-finite value is refused elsewhere, by name
            broken = np.isfinite(array) & (array % 1 != 0)
        if np.any(broken):
            raise TinkerNomicsError(f"{name} must be a whole number, got {_fmt(float(array[broken].flat[0]))}")
TEXT_FIELDS = ("model", "prices", "sandbox", "method", "decode_model", "fine_tune", "model_config",
               "gpu_hourly_usd_source")


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
    lora_merge: Any = None              # self-hosted LoRA: the rollout engine gets the adapter merged (base speed)
    off_policy: Any = None              # k
    gpu: Any = None                     # a GPU name, or (calibrated method) an array of names
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
    model_error_factor: Any = None       # calibrated: multiplies the self-hosted hours (the Monte-Carlo's model error)
    tinker_time_factor: Any = None       # multiplies Tinker's fitted step time (the Monte-Carlo's Tinker time error)
    model_config: str | None = None      # a Hugging Face config.json: the architecture of the self-hosted side
    gpu_hourly_usd_source: str | None = None   # where the $/GPU-hour comes from (filled in by resolved())

    def __post_init__(self):
        """Refuse values of the wrong kind at once, naming the field (the values are checked in `resolved`)."""
        for name in TEXT_FIELDS:
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TinkerNomicsError(f"{name} must be a text, got {_describe(value)}")
        _gpu_names(self.gpu)
        for name in BOUNDS:
            if getattr(self, name) is not None:
                _number(name, getattr(self, name), convert=False)
        _flag("tinker_cached_prefill", self.tinker_cached_prefill)
        _flag("lora_merge", self.lora_merge)

    @classmethod
    def from_workload(cls, name: str, **overrides) -> "Scenario":
        """A preset from data/workloads/, with any field overridden (None leaves the preset's value).

        The preset's rows for other methods are left out (the seed's 70% MBU and 10% MFU are its assumptions,
        not the calibrated method's), and its $/GPU-hour goes with its GPU: another GPU without a rate given
        takes that GPU's registry default."""
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise TinkerNomicsError(f"unknown Scenario field(s): {', '.join(sorted(unknown))}")
        given = {k: v for k, v in overrides.items() if v is not None}
        workload = get_workload(name)
        method = _choice("method", given.get("method", workload.fields.get("method", DEFAULT_METHOD)), METHODS)
        preset = preset_fields(workload, method)
        if "gpu_hourly_usd" in preset:
            preset["gpu_hourly_usd_source"] = f"preset {workload.name}: {workload.sources['gpu_hourly_usd']}"
        if isinstance(given.get("gpu"), str) and "gpu_hourly_usd" not in given and "gpu" in preset and \
                sources.get_gpu(given["gpu"]).gpu != sources.get_gpu(str(preset["gpu"])).gpu:
            preset.pop("gpu_hourly_usd", None)        # the preset's rate is for the preset's GPU
            preset.pop("gpu_hourly_usd_source", None)
        array_gpu = np.ndim(given.get("gpu")) and np.asarray(given.get("gpu")).dtype.kind in "UO"
        if array_gpu and "gpu_hourly_usd" not in given and "gpu" in preset and \
                set(np.ravel(_canonical_gpus(given["gpu"])).tolist()) != {sources.get_gpu(str(preset["gpu"])).gpu}:
            preset.pop("gpu_hourly_usd", None)        # an array of other GPUs: each takes its own registry default
            preset.pop("gpu_hourly_usd_source", None)
        if "gpu_hourly_usd" in given:
            preset.pop("gpu_hourly_usd_source", None)
        merged = {**preset, **given}
        return cls(**merged)

    def replace(self, **changes) -> "Scenario":
        return dataclasses.replace(self, **changes)

    def resolved(self) -> "Scenario":
        """Every default filled in, names made canonical, values checked."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        if values["model_config"] is not None:
            values["model_config"] = str(values["model_config"])
            if values["model"] is None:
                values["model"] = config_model_name(values["model_config"])
        if values["model"] is None:
            raise TinkerNomicsError("model is required (e.g. Qwen3-8B), or start from a workload preset")
        values["model"] = _model_name(values["model"], values["model_config"])
        values["prices"] = resolve_snapshot(values["prices"])
        calibrated = str(values["method"] or DEFAULT_METHOD).strip().lower() == "calibrated"
        for name in ("gpu", "sandbox", "turns", "length_growth", "substeps", "failure_overhead", "cache_hit_rate",
                     "off_policy", "num_gpus", "rollout_efficiency", "mfu", "prefill_mfu",
                     "sandbox_seconds_per_rollout", "sandbox_cpu_cores", "sandbox_memory_gib", "eval_every",
                     "eval_prompts", "lora_rank", "model_error_factor", "tinker_time_factor"):
            if values[name] is None and not (calibrated and name in ("rollout_efficiency", "mfu")):
                values[name] = sources.assumption(name)
        values["gpu"] = _canonical_gpus(values["gpu"])
        values["sandbox"] = sources.get_sandbox(str(values["sandbox"]))
        values["method"] = _choice("method", values["method"] or DEFAULT_METHOD, METHODS)
        values["decode_model"] = _choice("decode_model", values["decode_model"] or "auto", DECODE_MODELS)
        values["fine_tune"] = _choice("fine_tune", values["fine_tune"] or "lora", FINE_TUNES)
        if values["tinker_cached_prefill"] is None:
            # Tinker bills prompt tokens its cache serves at the list's cached rate where the list has one.
            values["tinker_cached_prefill"] = _has_cached_rate(values["model"], values["prices"])
        values["tinker_cached_prefill"] = _flag("tinker_cached_prefill", values["tinker_cached_prefill"])
        values["lora_merge"] = _flag("lora_merge", values["lora_merge"])
        if values["lora_merge"] and values["fine_tune"] != "lora":
            raise TinkerNomicsError("lora_merge merges a LoRA adapter into the rollout engine's weights; a full "
                                    "fine-tune has none (drop it, or give fine_tune lora)")
        if values["lora_merge"] and values["method"] != "calibrated":
            raise TinkerNomicsError(f"lora_merge: a setting of the calibrated method's rollout engine; the "
                                    f"{values['method']} method has none (drop it or use method calibrated)")
        if unpriced_rate(values["gpu_hourly_usd"], values["gpu_hourly_usd_source"]):
            values["gpu_hourly_usd"] = None   # resolved before, and still no sourced rate: looked up again
        unpriced = False
        if values["gpu_hourly_usd"] is None and isinstance(values["gpu"], str):
            listing = sources.gpu_price_listing(values["gpu"])
            if listing is None:   # a GPU without a sourced rate (the H20): times are computed, dollars unknown
                unpriced = True
                values["gpu_hourly_usd_source"] = (f"{UNPRICED}: no sourced $/GPU-hour for {values['gpu']} in "
                                                   f"data/hardware/gpu_prices*.csv; give it with --gpu-hourly-usd "
                                                   f"(gpu_hourly_usd)")
            else:
                values["gpu_hourly_usd"] = listing.usd_per_gpu_hour
                values["gpu_hourly_usd_source"] = (f"registry default for {values['gpu']}: {listing.provider}, "
                                                   f"{listing.date or 'undated'} ({listing.source_url})")
        elif values["gpu_hourly_usd"] is None:   # one registry default per GPU of the array (unknown where none)
            names = np.asarray(values["gpu"], dtype=object)
            unique, inverse = np.unique(names.astype(str), return_inverse=True)
            listings = [sources.gpu_price_listing(str(n)) for n in unique]
            rates = np.array([0.0 if x is None else x.usd_per_gpu_hour for x in listings])
            missing = np.array([x is None for x in listings])[inverse.reshape(-1)].reshape(names.shape)
            values["gpu_hourly_usd"] = rates[inverse.reshape(-1)].reshape(names.shape)
            values["gpu_hourly_usd_source"] = "registry default for each GPU (data/hardware/gpu_prices*.csv)"
            unpriced = missing if missing.any() else False
            if missing.any():
                values["gpu_hourly_usd_source"] = (
                    f"{UNPRICED}: no sourced $/GPU-hour for {', '.join(sorted(set(names[missing].astype(str))))} in "
                    f"data/hardware/gpu_prices*.csv (the other GPUs: their registry defaults); give it with "
                    f"--gpu-hourly-usd (gpu_hourly_usd)")
        elif values["gpu_hourly_usd_source"] is None:
            values["gpu_hourly_usd_source"] = "given"
        if not isinstance(values["gpu"], str) and values["method"] != "calibrated":
            raise TinkerNomicsError("an array of GPUs is costed by the calibrated method only; give one GPU name for "
                                    f"the {values['method']} method")
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
        if np.any((_number("turns", values["turns"]) <= 1) & (np.asarray(values["completion_tokens"], float) <= 0)):
            # an RL step learns from the tokens it samples: none sampled is no run, and a 0 s Tinker wall-clock
            raise TinkerNomicsError("completion_tokens must be more than 0 for a single-turn run (an RL step learns "
                                    "from the tokens it samples), got 0")
        if np.any((_number("turns", values["turns"]) > 1) & (np.asarray(values["output_per_turn"], float) <= 0)):
            raise TinkerNomicsError("output_per_turn must be more than 0 for a multi-turn run (an RL step learns "
                                    "from the tokens it samples), got 0")
        if values["num_gpus"] is not None and np.any(np.asarray(values["num_gpus"]) > sources.number("max_gpus")):
            raise TinkerNomicsError(f"num_gpus must be at most {sources.number('max_gpus'):,.0f}, got "
                                    f"{_fmt(float(np.max(values['num_gpus'])))}")
        if unpriced is True:
            values["gpu_hourly_usd"] = math.nan   # NaN dollars downstream: null in JSON, with the source's note
        elif unpriced is not False:               # an array of GPUs, some without a sourced rate
            values["gpu_hourly_usd"] = np.where(unpriced, math.nan, values["gpu_hourly_usd"])
        shaped = [n for n in (*BOUNDS, "gpu") if values[n] is not None]
        try:
            np.broadcast_shapes(*(np.shape(values[n]) for n in shaped))
        except ValueError:
            shapes = {n: np.shape(values[n]) for n in shaped if np.ndim(values[n])}
            raise TinkerNomicsError(f"array inputs do not broadcast together: {shapes}") from None
        return Scenario(**values)

    def to_dict(self) -> dict:
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)}


def preset_fields(workload: Workload, method: str | None = None) -> dict:
    """A workload preset's parameters as Scenario fields, each checked: a known field, text for the name fields,
    true/false for tinker_cached_prefill, a number for the rest. With `method`, rows the preset marks for
    other methods only are left out."""
    known = {f.name for f in fields(Scenario)}
    out = {}
    for name, value in workload.fields.items():
        if method is not None and method not in workload.methods.get(name, METHODS):
            continue
        where = f"workloads/workloads.csv row {workload.rows.get(name, '?')}"
        if name not in known:
            raise TinkerNomicsError(f"{where} column parameter: {name!r} is not a Scenario field")
        if name in TEXT_FIELDS or name == "gpu":
            value = value if isinstance(value, str) else f"{value:g}"
        elif name == "tinker_cached_prefill":
            if not isinstance(value, bool):
                raise TinkerNomicsError(f"{where} column value: {value!r} is not true or false")
        elif isinstance(value, (str, bool)):
            raise TinkerNomicsError(f"{where} column value: {value!r} is not a number")
        out[name] = value
    return out


def config_model_name(path: str) -> str:
    """The model a config.json names (`_name_or_path`, else its folder's name): the name Tinker's price lists are
    searched for (a model they do not price gets the self-hosted side only)."""
    return load_config(path).hf_id


def _model_name(name: str, model_config: str | None) -> str:
    """The registry's id for a model name. A name the registries do not know is an error (with the closest names),
    unless a config.json gives the model's architecture or the name is a release of a registry model (a fine-tune,
    a quantized release: sources.architectures.release_of): then it is kept as given, and Tinker does not offer it."""
    if name.strip() and not sources.architectures.has_name(name) and (
            model_config is not None or sources.architectures.release_of(name) is not None):
        return name.strip()
    return sources.resolve_model(name)


def _has_cached_rate(model: str, snapshot: str) -> bool:
    try:
        billed, _ = model_for(model, snapshot)
        return get_price(billed, snapshot).cached_prefill is not None
    except TinkerNomicsError:
        return False


def _gpu_names(value) -> None:
    """A GPU is a name, or an array of names (for one call over many GPU types); refuse anything else."""
    if value is None or isinstance(value, str):
        return
    if isinstance(value, np.ndarray) and value.dtype.kind in "UO" and value.size and \
            all(isinstance(v, str) for v in value.reshape(-1).tolist()):
        return
    raise TinkerNomicsError(f"gpu must be a text or an array of GPU names, got {_describe(value)}")


def _canonical_gpus(value):
    if isinstance(value, str):
        return sources.get_gpu(value).gpu
    names = np.asarray(value, dtype=object)
    unique, inverse = np.unique(names.astype(str), return_inverse=True)
    canonical = np.array([sources.get_gpu(str(n)).gpu for n in unique], dtype=object)
    return canonical[inverse.reshape(-1)].reshape(names.shape)


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


NUMBER_KINDS = "iuf"   # NumPy dtype kinds of real numbers: signed and unsigned integers, floats


def _number(name: str, value, convert: bool = True) -> np.ndarray:
    """`value` as a float array, if it is a real number or an array of them: not text, not true/false (a count
    of True is a mistake, not 1), not complex, dates, Python objects, or a masked array (its masked entries
    would silently count as their fill values)."""
    masked = sys.modules.get("numpy.ma")   # a masked array needs numpy.ma imported: no import (14 ms) just to check
    if masked is not None and isinstance(value, masked.MaskedArray):
        raise TinkerNomicsError(f"{name} must be a number or an array of numbers, got a masked array (fill or drop "
                                f"the masked entries first)")
    if isinstance(value, (str, bytes, bool, np.bool_, complex, np.complexfloating)):
        raise TinkerNomicsError(f"{name} must be a number, got {_describe(value)}")
    if isinstance(value, (numbers.Real, decimal.Decimal)) and not isinstance(value, np.generic):  # Fraction, int, …
        value = float(value)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise TinkerNomicsError(f"{name} must be a number or an array of numbers, got {_describe(value)}") from None
    if raw.dtype.kind not in NUMBER_KINDS:
        raise TinkerNomicsError(f"{name} must be a number or an array of numbers, got {_describe(value)}")
    return raw.astype(float, copy=False) if convert else raw


def _describe(value) -> str:
    """A short description of a wrong value for an error line: its repr (cut) and, for arrays, the dtype."""
    if isinstance(value, np.ndarray):
        return f"an array of {value.dtype}" + (f" ({value.size} value{'s' * (value.size != 1)})" if value.ndim
                                                else f" ({value!r})")
    text = repr(value)
    return f"{text[:60]}{'…' if len(text) > 60 else ''} ({type(value).__name__})"


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


UNPRICED = "unknown"   # how gpu_hourly_usd_source starts when no rate is sourced for the GPU


def unpriced_rate(rate, source) -> bool:
    """A $/GPU-hour left unknown by `Scenario.resolved` (NaN, its source saying why)."""
    if not str(source or "").startswith(UNPRICED) or rate is None or isinstance(rate, str):
        return False
    return bool(np.isnan(np.asarray(rate, dtype=float)).any())


def _fmt(x: float) -> str:
    return "NaN" if math.isnan(x) else f"{x:g}"


def plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value
