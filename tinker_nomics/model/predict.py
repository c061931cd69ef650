"""The hardware reality check: decode throughput and RL step time for any model on any GPU.

    predict_decode(arch, gpu, num_gpus=8, concurrency=256, input_tokens=1000, output_tokens=1000)
    predict_rl_step(arch, gpu, num_gpus=8, samples=1024, prompt_tokens=200, response_tokens=1000)

`arch` is a ModelArch (sources.get_arch, or hf_config.load_config for a Hugging Face config.json); `gpu` a GPU
record (sources.get_gpu). `method` picks the model: calibrated (default; the phase model of model/decode.py and
model/rl_phases.py at the fitted parameters), exact or seed (the package's rooflines at the default rollout efficiency and MFU). Inputs may be
NumPy arrays; results broadcast. Nothing here reads a measurement table.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import fmt
from ..errors import TinkerNomicsError
from ..sources import quantization
from ..sources.calibration import parameters
from ..sources.defaults import number
from ..sources.hardware import GPU, gpu_specs
from ..sources.lora_serving import rollout_note as lora_rollout_note
from ..sources.model_record import ModelArch
from . import decode, memory, rl_phases, roofline, tokens
from .scenario import BOUNDS, METHODS
from .selfhosted import self_hosted_cost

FINE_TUNES = ("full", "lora")


def _method(method: str | None) -> str:
    text = str(method or "calibrated").strip().lower()
    if text not in METHODS:
        raise TinkerNomicsError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    return text


def _positive(name: str, value, minimum: float = 0.0, inclusive: bool = False, maximum: float | None = None):
    """`value` as an array, refused in one line unless finite, above `minimum` (or at it, `inclusive`) and at most
    `maximum` (a sanity bound: 1e308 samples would print NaN minutes, not an error)."""
    array = np.asarray(value, dtype=float) if not isinstance(value, (str, bytes, bool)) else None
    if array is None or not np.all(np.isfinite(array)) or \
            np.any(array < minimum if inclusive else array <= minimum):
        rule = f">= {minimum:g}" if inclusive else f"> {minimum:g}"
        raise TinkerNomicsError(f"{name} must be a finite number {rule}, got {value!r}")
    if maximum is not None and np.any(array > maximum):
        raise TinkerNomicsError(f"{name} must be at most {maximum:g} (a sanity bound), got {float(np.max(array)):g}")
    return array


def _engine_share_holds(arch: ModelArch, specs, fraction, sequence_tokens, precision: str, kv_precision: str,
                        max_num_seqs, largest):
    """Refuse a colocated engine's memory share that cannot hold the weights and one full sequence on any engine the
    step's GPUs allow (up to `largest`): vLLM would not start with it, and the model would otherwise plan the engine
    at a serving engine's share instead, silently. (A given engine size too small for the share is planned at the
    serving share, as rl_phases._engine_plan says.)"""
    need = decode.smallest_replica(arch, specs, sequence_tokens, fraction, precision, kv_precision, max_num_seqs)
    if np.any(need > largest):
        needs = "no engine size holds them" if np.any(need > number("max_gpus")) else f"it needs {_text(need)} GPUs"
        raise TinkerNomicsError(f"rollout_memory_fraction {_text(fraction)} of each GPU cannot hold {arch.model}'s "
                                f"weights and one full sequence on any engine its {_text(largest)} "
                                f"GPU{'' if np.all(np.asarray(largest) == 1) else 's'} allow (at that share {needs}): give "
                                f"the engine a larger share or more GPUs")


# Sanity bounds on a step's shape, the estimate's (model/scenario.py BOUNDS): no RL step samples more sequences
# than prompts × group allows there, and no sequence is longer than its token bound.
MAX_SEQUENCES = BOUNDS["prompts_per_step"][2]
MAX_TOKENS = BOUNDS["completion_tokens"][2]


def _plain(value):
    array = np.asarray(value)
    return array.item() if array.ndim == 0 else array.tolist()


def _counted(value):
    """A count (GPUs, requests, waves) as JSON writes it: `_plain`, each whole finite number an int ("num_gpus": 8,
    not 8.0); a fractional one (a mean batch) stays a float, a NaN stays for the JSON's null."""
    return _ints(_plain(value))


def _ints(x):
    if isinstance(x, list):
        return [_ints(v) for v in x]
    return int(x) if isinstance(x, float) and np.isfinite(x) and x.is_integer() else x


def _peak_figure(precision: str) -> str:
    return "fp8_dense_tflops" if decode.precision_name(precision) in decode.FP8_COMPUTE else "bf16_dense_tflops"


TRAIN_PRECISIONS = ("bf16", "fp8")   # the trainer's GEMMs: BF16, or FP8 with Transformer Engine's recipes


def _weight_precision(arch: ModelArch, precision) -> str:
    """The precision a user named, else (also for vLLM's `auto`) the checkpoint's; a checkpoint whose config.json
    states a quantization this package cannot read asks for it rather than assuming BF16."""
    if precision is not None and not quantization.is_auto(precision):
        return decode.precision_name(precision)
    if arch.checkpoint_precision is None:
        states = f" ({arch.quantization_unread})" if arch.quantization_unread else ""
        raise TinkerNomicsError(f"{arch.model}'s config.json states a quantization_config{states} whose weight "
                                f"precision is not read here; name it with --precision "
                                f"({', '.join(decode.PRECISIONS)})")
    return decode.precision_name(arch.checkpoint_precision)


def _default_tensor_parallel(arch: ModelArch, num_gpus):
    """Without a size given: one engine over all the GPUs where it can split the heads over them, else the largest
    size the layout rule allows (decode.layout_allowed: it divides both the GPUs and the heads; the rest run as
    replicas): 8 GPUs serve Qwen2.5-7B's 28 heads as two engines of 4."""
    n = np.asarray(num_gpus, dtype=float)
    if not arch.num_heads:   # heads not known: one engine over every GPU
        return n.copy()
    out = np.ones(np.shape(n))
    for d in decode.engine_sizes(arch):   # smallest first: the largest allowed is kept last
        out = np.where(decode.layout_allowed(arch, d, n), d, out)
    return out


def _layout_check(arch: ModelArch, tp, n, name: str, gpus_name: str = "num_gpus") -> None:
    """A given engine size the layout rule refuses (decode.layout_allowed, the rule the default sizes keep), in one
    line: it must divide the GPUs, split the attention heads evenly and split or copy the key/value heads whole (vLLM
    refuses a size that does not)."""
    if np.all(decode.layout_allowed(arch, tp, n)):
        return
    if np.any(np.mod(n, tp)):
        raise TinkerNomicsError(f"{name} ({_text(tp)}) must divide {gpus_name} ({_text(n)})")
    if np.any(np.mod(int(arch.num_heads or 0), tp)):
        raise TinkerNomicsError(f"{name} ({_text(tp)}) must divide {arch.model}'s {int(arch.num_heads)} attention heads")
    kv = int(arch.num_kv_heads)
    raise TinkerNomicsError(f"{name} ({_text(tp)}) must divide {arch.model}'s {kv} key/value heads or be a multiple "
                            f"of them (vLLM copies a key/value head whole onto several GPUs, never splits one)")


def _whole(name: str, value):
    """A count of GPUs: a whole number >= 1 (1.5 GPUs or 1e15 are refused)."""
    array = _positive(name, value, 1, inclusive=True)
    if np.any(array != np.floor(array)) or np.any(array > number("max_gpus")):
        raise TinkerNomicsError(f"{name} must be a whole number from 1 to {number('max_gpus'):,.0f}, got {value!r}")
    return array


# A sanity bound on a trainer micro-batch: far above any GPU's memory for one pass (verl's defaults are 16k tokens).
MAX_MICRO_BATCH_TOKENS = 10 ** 8


def _text(value) -> str:
    """A number or an array's range for a one-line message."""
    array = np.asarray(value, dtype=float)
    low, high = float(np.min(array)), float(np.max(array))
    return fmt.number(low) if low == high else f"{fmt.number(low)}–{fmt.number(high)}"


# ------------------------------------------------------------------------------------------------ decode

@dataclass(frozen=True)
class DecodePrediction:
    model: str
    gpu: str
    method: str
    num_gpus: np.ndarray
    output_tokens_per_second: np.ndarray
    concurrency: np.ndarray            # sequences that actually run at once (what fits)
    requested_concurrency: np.ndarray
    bound: np.ndarray                  # "bandwidth", "compute" or "memory"
    tensor_parallel: np.ndarray
    feasible: np.ndarray
    precision: str
    kv_precision: str
    num_prompts: np.ndarray = None         # a benchmark run of this many requests, timed to its last token
    max_output_tokens: np.ndarray = None   # the longest output of that run
    expert_parallel: np.ndarray = None     # GPUs of a replica that split the routed experts whole (None: 1)
    replicas: np.ndarray = None            # engine copies of `tensor_parallel` GPUs
    busy_replicas: np.ndarray = None       # those with a request in flight (`concurrency` at most in all)

    @property
    def output_tokens_per_second_per_gpu(self):
        return np.asarray(self.output_tokens_per_second) / np.asarray(self.num_gpus, dtype=float)

    def to_dict(self) -> dict:
        return {"model": self.model, "gpu": self.gpu, "method": self.method, "num_gpus": _counted(self.num_gpus),
                "precision": self.precision, "kv_precision": self.kv_precision,
                "output_tokens_per_second": _plain(self.output_tokens_per_second),
                "output_tokens_per_second_per_gpu": _plain(self.output_tokens_per_second_per_gpu),
                "concurrency": _counted(self.concurrency),
                "requested_concurrency": _counted(self.requested_concurrency),
                "bound": _plain(self.bound), "tensor_parallel": _counted(self.tensor_parallel),
                "feasible": _plain(self.feasible),
                "num_prompts": None if self.num_prompts is None else _counted(self.num_prompts),
                "max_output_len": None if self.max_output_tokens is None else _counted(self.max_output_tokens),
                "expert_parallel": 1 if self.expert_parallel is None else _counted(self.expert_parallel),
                "replicas": _counted(self.replicas), "busy_replicas": _counted(self.busy_replicas)}


def predict_decode(arch: ModelArch, gpu: GPU, num_gpus, concurrency, input_tokens, output_tokens,
                   precision: str | None = None, kv_precision: str = "bf16", method: str | None = None,
                   tensor_parallel=None, max_num_seqs=None, num_prompts=None,
                   max_output_tokens=None, expert_parallel=None) -> DecodePrediction:
    """Output tokens/s of `concurrency` requests (`input_tokens` in, `output_tokens` out) served on `num_gpus`
    GPUs, one tensor-parallel engine over all of them unless `tensor_parallel` is given. `precision` is the
    weights' (default: the checkpoint's, bf16 unless its config says otherwise); `max_num_seqs` the engine's cap
    on sequences decoded at once (default: vLLM's, by GPU memory). By default the steady state; with
    `num_prompts` (a benchmark's request count, at most `concurrency` in flight) or `max_output_tokens` (the
    longest of outputs that vary, `output_tokens` their mean) the whole run, first prompt to last token, as vLLM's
    bench serve reports it: every prompt's prefill and the drain of the longest output (calibrated method).
    `expert_parallel` (calibrated method): the GPUs of each tensor-parallel replica that hold a mixture of experts'
    routed experts whole (vLLM's --enable-expert-parallel: the replica's size; TensorRT-LLM's moe_expert_parallel_size),
    so the busiest GPU's experts set a step's reads (decode.expert_imbalance); default 1, every expert sliced."""
    method = _method(method)
    precision = _weight_precision(arch, precision)
    kv_precision = quantization.canonical(kv_precision or "auto", "kv_precision", decode.KV_PRECISIONS, auto="bf16")
    bpp = decode.precision_bytes(precision)
    n = _whole("num_gpus", num_gpus)
    c = _positive("concurrency", concurrency, 1, inclusive=True, maximum=MAX_SEQUENCES)
    if np.any(c != np.floor(c)):   # requests in flight: 1.5 of them is no benchmark's setting
        raise TinkerNomicsError(f"concurrency must be a whole number of requests, got {_text(c)}")
    i = _positive("input_len", input_tokens, 0, inclusive=True, maximum=MAX_TOKENS)
    o = _positive("output_len", output_tokens, 1, inclusive=True, maximum=MAX_TOKENS)
    tp = _default_tensor_parallel(arch, n) if tensor_parallel is None else _whole("tensor_parallel", tensor_parallel)
    if np.any(tp > n):
        raise TinkerNomicsError(f"tensor_parallel ({_text(tp)}) exceeds num_gpus ({_text(n)})")
    _layout_check(arch, tp, n, "tensor_parallel")
    prompts = None if num_prompts is None else _whole("num_prompts", num_prompts)
    longest = None if max_output_tokens is None else _positive("max_output_tokens", max_output_tokens, 1, True,
                                                                  MAX_TOKENS)
    if longest is not None and np.any(longest < o):
        raise TinkerNomicsError(f"max_output_tokens ({_text(longest)}) is shorter than the mean output ({_text(o)})")
    ep = None if expert_parallel is None else _whole("expert_parallel", expert_parallel)
    if ep is not None:
        if not arch.is_moe and np.any(ep > 1):
            raise TinkerNomicsError(f"expert_parallel ({_text(ep)}): {arch.model} is dense; expert parallelism splits "
                                    f"the routed experts of a mixture of experts")
        if np.any(tp % ep):
            raise TinkerNomicsError(f"expert_parallel ({_text(ep)}) must divide tensor_parallel ({_text(tp)}): the "
                                    f"experts are split over the GPUs of one replica")
        if arch.is_moe and np.any(ep > arch.num_experts):
            raise TinkerNomicsError(f"expert_parallel ({_text(ep)}) exceeds {arch.model}'s {arch.num_experts} "
                                    f"routed experts")
        if method != "calibrated" and np.any(ep > 1):
            raise TinkerNomicsError(f"expert_parallel: the busiest GPU's experts are timed by the calibrated method; "
                                    f"the {method} method slices every expert (drop it or use --method calibrated)")
    if (prompts is not None or longest is not None) and method != "calibrated":
        raise TinkerNomicsError(f"{'num_prompts' if prompts is not None else 'max_output_tokens'}: a benchmark run "
                                f"is timed by the calibrated method's continuous batching; the {method} method has "
                                f"none (drop it or use --method calibrated)")
    specs = gpu_specs(gpu)
    specs.require(decode.gemm_peak(specs, precision), _peak_figure(precision), "prefill or decode")
    if method == "calibrated":
        gpus = specs
        cap = None if max_num_seqs is None else _whole("max_num_seqs", max_num_seqs)
        plan = decode.serving_plan(arch, gpus, n, c, i, o, precision, kv_precision, tp, cap,
                                   num_prompts=prompts, max_output_tokens=longest,
                                   expert_parallel=1.0 if ep is None else ep)
        if tensor_parallel is None and not np.all(plan.feasible) and np.any(tp != n):
            # an engine that splits the heads evenly cannot hold the model: it spreads over every GPU, as pipeline
            # or expert parallelism would (Llama 4 Maverick's 40 heads on 32 GPUs)
            tp = n
            plan = decode.serving_plan(arch, gpus, n, c, i, o, precision, kv_precision, tp, cap,
                                       num_prompts=prompts, max_output_tokens=longest,
                                       expert_parallel=1.0 if ep is None else ep)
        tps, step = decode.serving_throughput(plan, parameters())
        if not np.all(plan.feasible):   # the longest sequence, as serving_plan holds it: its input and longest output
            sequence = i + (o if longest is None else np.maximum(longest, o))
            need = decode.smallest_replica(arch, gpus, sequence, number("engine_memory_fraction"), precision,
                                           kv_precision, cap)
            raise TinkerNomicsError(
                f"{arch.model} does not fit: {_text(tp)} × {gpu.gpu} cannot hold its {precision} weights and one "
                f"sequence of {_text(sequence)} tokens; the smallest power-of-two GPU count that does is "
                f"{_text(need)}")
        bound = np.where(plan.memory_capped, "memory", step.bound)
        return DecodePrediction(arch.model, gpu.gpu, method, n, tps, plan.batch * plan.busy, c, bound,
                                plan.tensor_parallel, plan.feasible, precision, kv_precision, prompts, longest, ep,
                                plan.replicas, plan.busy)
    kind = method
    total, active = arch.params(kind)
    scale = 1.0 if kind == "seed" else decode.kv_scale(kv_precision)
    per = tokens.rollout(o, i, 1.0, 1.0, 0.0, 0.0)
    kv_token = memory.kv_bytes_per_token(arch, kind) * scale
    replicas = np.maximum(np.floor(n / tp), 1.0)
    if kind == "seed":
        context, attention, in_flight = per.output, 0.0, c
        capped = np.zeros(np.shape(c), dtype=bool)
    else:
        context = per.decode_context
        attention = roofline.attention_flops_per_token(arch, context)
        budget = memory.engine_kv_memory_available(total, gpu, tp, number("engine_memory_fraction"), bpp) * replicas
        whole = memory.recurrent_bytes_per_sequence(arch, kind, per.sequence) * scale   # what a sequence holds at last
        fit = memory.max_concurrent_sequences(total, gpu, n, kv_token, per.sequence, whole, available_bytes=budget)
        in_flight = np.clip(c, 1.0, np.maximum(fit, 1.0))
        capped = c > fit
    state = memory.recurrent_bytes_per_sequence(arch, kind, context) * scale   # what a step reads at its context
    peak = float(decode.gemm_peak(specs, precision))
    flops_per_token = number("forward_flops_per_param") * active + attention
    tps = roofline.decode_tokens_per_second(
        concurrency=in_flight, num_gpus=n, replica_gpus=tp,
        weight_bytes_per_step=lambda batch: roofline.weight_bytes_read(arch, batch, kind, bpp),
        kv_bytes_per_token=kv_token, context=context, state_bytes_per_sequence=state,
        bandwidth_bytes_per_s=gpu.bandwidth_bytes_per_s, peak_flops=peak, flops_per_token=flops_per_token,
        efficiency=number("rollout_efficiency"), compute_bound=kind == "exact")
    batch = in_flight / replicas
    memory_time = (roofline.weight_bytes_read(arch, batch, kind, bpp) + batch * (kv_token * context + state)) \
        / (tp * gpu.bandwidth_bytes_per_s)
    compute_time = batch * flops_per_token / (tp * peak)
    compute = (kind == "exact") & (compute_time > memory_time)
    bound = np.where(capped, "memory", np.where(compute, "compute", "bandwidth"))
    shape = np.shape(tps)
    return DecodePrediction(arch.model, gpu.gpu, method, n, tps, np.broadcast_to(in_flight, shape), c, bound,
                            np.broadcast_to(tp, shape), np.ones(shape, dtype=bool), precision, kv_precision,
                            replicas=np.broadcast_to(replicas, shape),
                            busy_replicas=np.broadcast_to(np.clip(np.floor(in_flight), 1.0, replicas), shape))


# ------------------------------------------------------------------------------------------------ RL step

@dataclass(frozen=True)
class RLStepPrediction:
    model: str
    gpu: str
    method: str
    num_gpus: np.ndarray
    generation_seconds: np.ndarray
    logprob_seconds: np.ndarray         # old-policy and reference forward passes (0 for seed and exact)
    training_seconds: np.ndarray        # the update alone
    refit_seconds: np.ndarray
    other_seconds: np.ndarray
    step_seconds: np.ndarray
    rollout_concurrency: np.ndarray
    rollout_waves: np.ndarray
    feasible: np.ndarray                # the requested GPUs hold the job
    fitting_gpus: np.ndarray            # the smallest count that does; the times are on max(requested, this)
    fine_tune: str
    train_mfu: np.ndarray = field(default_factory=lambda: np.asarray(np.nan))
    separate: np.ndarray = field(default_factory=lambda: np.asarray(False))   # rollout on its own GPUs (k >= 1)
    checkpoint_precision: str = "bf16"  # the weights the named checkpoint holds; the step is timed in bf16
    generation_rounds: np.ndarray = field(default_factory=lambda: np.asarray(1.0))   # generation calls per step
    rollout_precision: str = "bf16"      # the rollout engine's weights and cache, the trainer's GEMMs
    rollout_kv_precision: str = "bf16"
    train_precision: str = "bf16"
    rollout_gpus: np.ndarray = field(default_factory=lambda: np.asarray(np.nan))   # separate: the engine's side
    rollout_tensor_parallel: np.ndarray = field(default_factory=lambda: np.asarray(np.nan))   # GPUs per engine

    COUNTS = ("rollout_concurrency", "rollout_waves", "rollout_tensor_parallel", "rollout_gpus")
    PHASES = ("generation_seconds", "logprob_seconds", "training_seconds", "refit_seconds", "other_seconds",
              "step_seconds")

    def to_dict(self) -> dict:
        """The JSON of `predict rl-step`: where the GPUs asked for cannot hold the job, every time is null and
        `on_fitting_gpus` holds the times on the smallest count that can (the text says the same)."""
        out = {"model": self.model, "gpu": self.gpu, "method": self.method, "num_gpus": _counted(self.num_gpus),
               "fine_tune": self.fine_tune, "weights": "bf16", "checkpoint_precision": self.checkpoint_precision,
               "feasible": _plain(self.feasible), "fitting_gpus": _counted(self.fitting_gpus),
               "generation_rounds": _counted(self.generation_rounds), "rollout_precision": self.rollout_precision,
               "rollout_kv_precision": self.rollout_kv_precision, "train_precision": self.train_precision}
        times = {name: _plain(getattr(self, name)) for name in self.PHASES}
        times["train_mfu"] = _plain(self.train_mfu)
        times["rollout_concurrency"] = _counted(self.rollout_concurrency)
        times["rollout_waves"] = _counted(self.rollout_waves)
        times["rollout_tensor_parallel"] = _counted(self.rollout_tensor_parallel)   # NaN (null): seed, exact methods
        own = np.asarray(self.rollout_gpus, dtype=float) > 0   # an engine on GPUs of its own (nan: none)
        times["layout"] = _plain(np.where(self.separate, "separate" if self.method == "calibrated" else "overlapped",
                                          np.where(own, "split", "colocated")))
        split = np.where(own, self.rollout_gpus, np.nan)
        times["rollout_gpus"] = None if np.ndim(split) == 0 and not np.isfinite(split) else _counted(split)
        if np.all(self.feasible):
            out.update(times)
            out["on_fitting_gpus"] = None
        elif np.ndim(self.feasible) == 0:
            out.update({name: None for name in times})
            out["on_fitting_gpus"] = {"num_gpus": _counted(self.fitting_gpus), **times}
        else:   # arrays: null where infeasible
            feasible = np.asarray(self.feasible)

            def nulled(name, values):
                row = [v if ok else None for v, ok in zip(np.broadcast_to(getattr(self, name) if name in
                       self.PHASES else np.asarray(values), feasible.shape).ravel().tolist(), feasible.ravel())]
                return _ints(row) if name in self.COUNTS else row

            out.update({name: nulled(name, values) for name, values in times.items()})
            out["on_fitting_gpus"] = {"num_gpus": _counted(self.fitting_gpus), **times}
        return out


def _micro_batch_size(name: str, tokens, samples):
    """A trainer micro-batch given as `{name}_tokens` (a token budget: dynamic batch sizes) or `{name}_samples`
    (sequences), checked: (tokens, samples), at most one of them not None."""
    budget = None
    if tokens is not None:
        budget = _positive(f"{name}_tokens", tokens, 1, inclusive=True)
        if np.any(budget != np.floor(budget)) or np.any(budget > MAX_MICRO_BATCH_TOKENS):
            raise TinkerNomicsError(f"{name}_tokens must be a whole number from 1 to {MAX_MICRO_BATCH_TOKENS:,}, "
                                    f"got {tokens!r}")
    count = None if samples is None else _whole(f"{name}_samples", samples)
    if budget is not None and count is not None:
        raise TinkerNomicsError(f"give {name}_tokens (dynamic batch sizes) or {name}_samples, not both")
    return budget, count


def predict_rl_step(arch: ModelArch, gpu: GPU, num_gpus, samples, prompt_tokens, response_tokens, off_policy=0,
                    fine_tune: str = "full", method: str | None = None, response_max_tokens=None,
                    reference: bool = True, critic: bool = False, optimizer_steps=None,
                    rollout_tensor_parallel=None, rollout_memory_fraction=None,
                    micro_batch_tokens=None, micro_batch_samples=None, ppo_epochs=None,
                    rollout_eager: bool = False, logprob_micro_batch_tokens=None,
                    logprob_micro_batch_samples=None, reference_micro_batch_tokens=None,
                    reference_micro_batch_samples=None, values_micro_batch_tokens=None,
                    values_micro_batch_samples=None, critic_micro_batch_tokens=None,
                    critic_micro_batch_samples=None, generation_rounds=None,
                    generation_samples=None, max_num_seqs=None, param_offload: bool = False,
                    optimizer_offload: bool = False, gradient_checkpointing: bool = True,
                    rollout_precision=None, rollout_kv_precision=None,
                    train_precision=None, rollout_gpus=None, padded_len=None,
                    critic_padded_len=None, lora_merge: bool = False,
                    offload_policy: bool = False) -> RLStepPrediction:
    """One RL step of `samples` rollouts (`prompt_tokens` + `response_tokens` each, means; the longest response
    `response_max_tokens`) on `num_gpus` GPUs with colocated generation and training, phase by phase
    (model/rl_phases.py). `fine_tune` is full (the default, as the RL frameworks whose steps were measured train)
    or lora; `reference` adds the reference model's log-prob pass, `critic` PPO's critic passes. The run's own
    engine and trainer settings, where known, replace the defaults: `rollout_tensor_parallel` (GPUs per rollout
    engine), `rollout_memory_fraction` (the engine's share of GPU memory: vLLM's gpu_memory_utilization) and
    `micro_batch_tokens` (tokens per GPU in one trainer micro-batch: verl's ppo_max_token_len_per_gpu) or
    `micro_batch_samples` (sequences per GPU in one: verl's ppo_micro_batch_size_per_gpu without dynamic batch
    sizes), and `ppo_epochs` (passes of the update over the step's batch, verl's name; `optimizer_steps`
    counts every pass's steps, by default the default per pass), and `rollout_eager` (the engine runs without CUDA
    graphs, vLLM's enforce_eager: each decode step waits on the host's kernel launches where they are slower than
    the GPU), and the log-prob passes' own micro-batches, `logprob_micro_batch_tokens` or
    `logprob_micro_batch_samples` (verl's rollout.log_prob_max_token_len_per_gpu, log_prob_micro_batch_size_per_gpu;
    default: the update's), the reference model's, `reference_micro_batch_tokens` or `..._samples` (verl's
    ref.log_prob_*; default: the old policy's), and the critic's values pass, `values_micro_batch_tokens` or
    `..._samples` (verl's critic.forward_max_token_len_per_gpu, forward_micro_batch_size_per_gpu; default: the old
    policy's), and the critic's update, `critic_micro_batch_tokens` or `..._samples` (critic.ppo_max_token_len_per_gpu,
    ppo_micro_batch_size_per_gpu; default: the actor's); a step that generates more than it trains (DAPO's dynamic
    sampling) runs `generation_rounds` generation calls (verl's train/num_gen_batches) of `generation_samples`
    sequences each (data.gen_batch_size × rollout.n; default `samples`) and trains `samples` of them;
    `max_num_seqs` caps the sequences a rollout engine decodes at once (verl's rollout.max_num_seqs);
    `param_offload` and `optimizer_offload` keep the trainer's weights and Adam's moments in host memory between
    phases (verl's actor fsdp_config), each GPU's shard copied over its host link around every call;
    `gradient_checkpointing` False trains without it (verl's enable_gradient_checkpointing off: no recomputed forward
    pass in the update); `rollout_gpus` is the GPUs the rollout engine has to itself, the trainer the rest (verl's
    one-step-off and fully-async rollout pools, NeMo RL's generation resources): off-policy the two overlap, on-policy
    they take turns (default: colocated, or off-policy the model's split where that is faster); `padded_len` is
    the length the trainer pads every sequence to where it keeps the padding (verl's use_remove_padding off: the
    prompt and response caps, data.max_prompt_length + data.max_response_length), `critic_padded_len` the critic's
    (verl's critic.model.use_remove_padding); `lora_merge` hands the rollout engine the LoRA adapter merged into
    the weights (verl's actor_rollout_ref.model.lora.merge), which then decodes at the base model's speed, where by
    default it serves the adapter unmerged at the measured share of it (sources.lora_serving); `offload_policy`
    keeps the actor's weights, gradients and Adam's moments in host memory and steps Adam on the CPU (FSDP2's
    CPUOffloadPolicy, verl's actor fsdp_config.offload_policy); they are settings of the calibrated method's engine
    and trainer, which the seed and exact methods do not have."""
    method = _method(method)
    fine_tune = str(fine_tune or "full").strip().lower()
    if fine_tune not in FINE_TUNES:
        raise TinkerNomicsError(f"fine_tune must be one of {', '.join(FINE_TUNES)}, got {fine_tune!r}")
    n = _whole("num_gpus", num_gpus)
    s = _positive("samples", samples, 1, inclusive=True, maximum=MAX_SEQUENCES)
    if np.any(s != np.floor(s)):
        raise TinkerNomicsError(f"samples must be a whole number, got {_text(s)}")
    p = _positive("prompt_len", prompt_tokens, 0, inclusive=True, maximum=MAX_TOKENS)
    r = _positive("response_len", response_tokens, 1, inclusive=True, maximum=MAX_TOKENS)
    k = _positive("off_policy", off_policy, 0, inclusive=True, maximum=BOUNDS["off_policy"][2])
    if np.any(k != np.floor(k)):   # a staleness bound counts whole steps, as estimate and plan take it
        raise TinkerNomicsError(f"off_policy must be a whole number, got {_text(k)}")
    r_max = None if response_max_tokens is None else _positive("max_response_len", response_max_tokens, 1, True,
                                                                MAX_TOKENS)
    if r_max is not None and np.any(r_max < r):
        raise TinkerNomicsError(f"max_response_len ({_text(r_max)}) is shorter than the mean response ({_text(r)})")
    opt = None if optimizer_steps is None else _whole("optimizer_steps", optimizer_steps)
    tp = None if rollout_tensor_parallel is None else _whole("rollout_tensor_parallel", rollout_tensor_parallel)
    fraction = None
    if rollout_memory_fraction is not None:
        fraction = _positive("rollout_memory_fraction", rollout_memory_fraction, 0.0)
        if np.any(fraction > 1.0):
            raise TinkerNomicsError(f"rollout_memory_fraction is a share of GPU memory, at most 1, got "
                                    f"{rollout_memory_fraction!r}")
    micro, micro_samples = _micro_batch_size("micro_batch", micro_batch_tokens, micro_batch_samples)
    logprob_micro, logprob_samples = _micro_batch_size("logprob_micro_batch", logprob_micro_batch_tokens,
                                                       logprob_micro_batch_samples)
    reference_micro, reference_samples = _micro_batch_size("reference_micro_batch", reference_micro_batch_tokens,
                                                           reference_micro_batch_samples)
    values_micro, values_samples = _micro_batch_size("values_micro_batch", values_micro_batch_tokens,
                                                     values_micro_batch_samples)
    critic_micro, critic_samples = _micro_batch_size("critic_micro_batch", critic_micro_batch_tokens,
                                                     critic_micro_batch_samples)
    # the batch shapes a trainer runs (verl refuses the others at start): a mini-batch of at least one sample,
    # RayPPOTrainer._validate_config's `assert config.data.train_batch_size >=
    # config.actor_rollout_ref.actor.ppo_mini_batch_size` (verl/trainer/ppo/ray_trainer.py), so at most `samples`
    # optimizer steps a pass; and a token budget that holds the longest sequence, seqlen_balancing.
    # rearrange_micro_batches' `assert max_token_len >= max_seq_len` ("max_token_len must be greater than the
    # sequence length", verl/utils/seqlen_balancing.py)
    passes = None if ppo_epochs is None else _whole("ppo_epochs", ppo_epochs)
    if opt is not None and np.any(opt > s * (1.0 if passes is None else passes)):
        raise TinkerNomicsError(f"optimizer_steps ({_text(opt)}) must be at most the {_text(s)} samples a step trains"
                                + ("" if passes is None else f" × ppo_epochs ({_text(passes)})")
                                + ": each optimizer step takes a mini-batch of at least one sample")
    longest = p + (r if r_max is None else r_max)
    for name, budget in (("micro_batch_tokens", micro), ("logprob_micro_batch_tokens", logprob_micro),
                         ("reference_micro_batch_tokens", reference_micro),
                         ("values_micro_batch_tokens", values_micro), ("critic_micro_batch_tokens", critic_micro)):
        if budget is not None and np.any(budget < longest):
            raise TinkerNomicsError(f"{name} ({_text(budget)}) is shorter than a sequence, prompt + "
                                    f"{'longest' if r_max is not None else 'mean'} response ({_text(longest)} "
                                    f"tokens): a micro-batch holds at least one whole sequence")
    for name, value, what, needs, on in (
            ("reference_micro_batch", (reference_micro, reference_samples), "the reference model's pass",
             "reference", reference),
            ("values_micro_batch", (values_micro, values_samples), "the critic's values pass", "critic", critic),
            ("critic_micro_batch", (critic_micro, critic_samples), "the critic's update", "critic", critic)):
        if not on and any(v is not None for v in value):
            raise TinkerNomicsError(f"{name}_{'tokens' if value[0] is not None else 'samples'} sizes {what}, which "
                                    f"this step does not run (no {needs})")
    split = None if rollout_gpus is None else _whole("rollout_gpus", rollout_gpus)
    if tp is not None:   # the engine's copies fill the GPUs the engine runs on: its own where the run gives them
        _layout_check(arch, tp, n if split is None else split,
                      "rollout_tensor_parallel", "num_gpus" if split is None else "rollout_gpus")
    if split is not None and np.any(split >= n):
        raise TinkerNomicsError(f"rollout_gpus ({_text(split)}) must leave GPUs to train on: fewer than num_gpus "
                                f"({_text(n)})")
    padded, critic_padded = (None if value is None else _positive(name, value, 1, inclusive=True, maximum=MAX_TOKENS)
                             for name, value in (("padded_len", padded_len), ("critic_padded_len", critic_padded_len)))
    for name, value in (("padded_len", padded), ("critic_padded_len", critic_padded)):
        if value is not None and np.any(value < p + r):   # a pad cap shorter than the mean sequence cannot be
            raise TinkerNomicsError(f"{name} ({_text(value)}) is shorter than the mean sequence, prompt + response "
                                    f"({_text(p + r)}): sequences are padded up to it, never cut to it")
    if critic_padded is not None and not critic:
        raise TinkerNomicsError("critic_padded_len pads the critic's passes, which this step does not run (no critic)")
    epochs = None if ppo_epochs is None else _whole("ppo_epochs", ppo_epochs)
    rounds = None if generation_rounds is None else _whole("generation_rounds", generation_rounds)
    generated = None if generation_samples is None else _whole("generation_samples", generation_samples)
    cap = None if max_num_seqs is None else _whole("max_num_seqs", max_num_seqs)
    if generated is not None and np.any(generated * (1.0 if rounds is None else rounds) < s):
        raise TinkerNomicsError(f"generation_samples ({_text(generated)}) × generation_rounds must be at least the "
                                f"{_text(s)} samples the step trains: it trains only sequences it generated")
    for name, value in (("rollout_eager", rollout_eager), ("param_offload", param_offload),
                        ("optimizer_offload", optimizer_offload),
                        ("gradient_checkpointing", gradient_checkpointing), ("lora_merge", lora_merge),
                        ("offload_policy", offload_policy)):
        if not isinstance(value, (bool, np.bool_)):
            raise TinkerNomicsError(f"{name} must be True or False, got {value!r}")
    if offload_policy and (param_offload or optimizer_offload):
        raise TinkerNomicsError("offload_policy keeps the actor in host memory throughout; param_offload and "
                                "optimizer_offload move it there between phases: give one or the other")
    if lora_merge and fine_tune != "lora":
        raise TinkerNomicsError("lora_merge merges a LoRA adapter into the rollout engine's weights; a full fine-tune "
                                "has none (drop it, or give fine_tune lora)")
    if epochs is not None and opt is None:      # the default mini-batches, taken once a pass
        opt = np.minimum(number("rl_optimizer_steps"), s) * epochs
    rollout_weights = None if rollout_precision is None or quantization.is_auto(rollout_precision) \
        else decode.precision_name(rollout_precision, "rollout_precision")
    rollout_kv = None if rollout_kv_precision is None else quantization.canonical(
        rollout_kv_precision, "rollout_kv_precision", decode.KV_PRECISIONS, auto="bf16")
    trainer_gemms = None if train_precision is None else quantization.canonical(
        train_precision, "train_precision", TRAIN_PRECISIONS, auto="bf16")
    trainer_gemms = None if trainer_gemms == "bf16" else trainer_gemms
    given = [name for name, value in (("rollout_tensor_parallel", tp), ("rollout_memory_fraction", fraction),
                                      ("rollout_precision", rollout_weights), ("train_precision", trainer_gemms),
                                      ("rollout_kv_precision", rollout_kv),
                                      ("micro_batch_tokens", micro), ("micro_batch_samples", micro_samples),
                                      ("ppo_epochs", epochs), ("rollout_eager", rollout_eager or None),
                                      ("generation_rounds", rounds), ("generation_samples", generated),
                                      ("max_num_seqs", cap), ("param_offload", param_offload or None),
                                      ("optimizer_offload", optimizer_offload or None),
                                      ("gradient_checkpointing", None if gradient_checkpointing else False),
                                      ("logprob_micro_batch_tokens", logprob_micro),
                                      ("logprob_micro_batch_samples", logprob_samples),
                                      ("reference_micro_batch_tokens", reference_micro),
                                      ("reference_micro_batch_samples", reference_samples),
                                      ("values_micro_batch_tokens", values_micro),
                                      ("values_micro_batch_samples", values_samples),
                                      ("critic_micro_batch_tokens", critic_micro),
                                      ("critic_micro_batch_samples", critic_samples), ("rollout_gpus", split),
                                      ("padded_len", padded), ("critic_padded_len", critic_padded),
                                      ("lora_merge", lora_merge or None), ("offload_policy", offload_policy or None))
             if value is not None]
    if given and method != "calibrated":
        raise TinkerNomicsError(f"{', '.join(given)}: a setting of the calibrated method's engine and trainer; the "
                                f"{method} method has none (drop it or use --method calibrated)")
    specs = gpu_specs(gpu)
    specs.require(specs.peak_flops(method))
    if (param_offload or optimizer_offload or offload_policy) and not np.all(np.isfinite(specs.host_bytes_per_s)):
        raise TinkerNomicsError(f"{gpu.gpu} has no host link in data/hardware/host_links.csv (no source gives its "
                                f"PCIe generation and lanes), so the model cannot time CPU offload on it")
    if rollout_weights is not None:   # refused in one line where the GPU cannot run it (FP8 on a V100)
        try:
            decode.weight_only(rollout_weights, specs)
        except TinkerNomicsError as exc:
            raise TinkerNomicsError(str(exc).replace("(--precision)", "(rollout_precision)")) from None
        specs.require(decode.gemm_peak(specs, rollout_weights), _peak_figure(rollout_weights), "the rollout")
    if trainer_gemms is not None and not np.all(specs.fp8_native):
        raise TinkerNomicsError(f"train_precision fp8: FP8 training (Transformer Engine) needs FP8 tensor cores, which "
                                f"{gpu.gpu} lacks (Hopper, Ada, Blackwell or CDNA 3 have them); train in bf16 there")
    if split is not None and method == "calibrated":   # the trainer's side of the split must hold the trainer
        need = rl_phases.trainer_alone_gpus(arch, specs, fine_tune)
        if np.any(n - split < need):
            short = np.asarray(n - split < need)
            need_1 = float(np.max(np.where(short, need, 0.0)))
            raise TinkerNomicsError(
                f"rollout_gpus ({_text(split)}) leaves {_text(n - split)} GPU{'' if np.all(n - split == 1) else 's'} "
                f"to train on, and the trainer's weights, "
                f"gradients and optimizer state ({fine_tune} fine-tune of {arch.model}) need at least {need_1:g} × "
                f"{gpu.gpu}: give at most {_text(n - need)} rollout GPUs, or more GPUs")
    if method == "calibrated":
        params = parameters()
        if fraction is not None and split is None and not np.any(k > 0):
            _engine_share_holds(arch, specs, fraction, p + (r * params.response_max_over_mean if r_max is None
                                                           else r_max),
                                rollout_weights or "bf16", rollout_kv or "bf16", cap, n)
        f = rl_phases.rl_features(arch, specs, n, s, p, r, r_max, fine_tune=fine_tune, critic=critic,
                                  precision=rollout_weights or "bf16", kv_precision=rollout_kv or "bf16",
                                  train_precision=trainer_gemms or "bf16",
                                  reference=reference, optimizer_steps=opt, off_policy=k,
                                  response_max_over_mean=params.response_max_over_mean, rollout_tensor_parallel=tp,
                                  rollout_memory_fraction=fraction, micro_batch_tokens=micro,
                                  micro_batch_samples=micro_samples, update_epochs=epochs,
                                  rollout_eager=bool(rollout_eager), logprob_micro_batch_tokens=logprob_micro,
                                  logprob_micro_batch_samples=logprob_samples,
                                  reference_micro_batch_tokens=reference_micro,
                                  reference_micro_batch_samples=reference_samples,
                                  values_micro_batch_tokens=values_micro, values_micro_batch_samples=values_samples,
                                  critic_micro_batch_tokens=critic_micro, critic_micro_batch_samples=critic_samples,
                                  rollout_samples=generated, rollout_rounds=rounds, max_num_seqs=cap,
                                  param_offload=bool(param_offload), optimizer_offload=bool(optimizer_offload),
                                  recompute=bool(gradient_checkpointing), rollout_gpus=split,
                                  padded_tokens_per_sample=padded, critic_padded_tokens_per_sample=critic_padded,
                                  lora_merged=bool(lora_merge), cpu_optimizer=bool(offload_policy))
        if tp is None and np.any(~decode.layout_allowed(arch, f.tensor_parallel)):
            raise TinkerNomicsError(f"{arch.model} does not fit: no rollout engine size that splits its "
                                    f"{decode.heads_text(arch)} evenly holds its weights and one "
                                    f"sequence on {gpu.gpu} GPUs")
        ph = rl_phases.phase_seconds(f, params)
        return RLStepPrediction(arch.model, gpu.gpu, method, n, ph.generation_seconds, ph.logprob_seconds,
                                ph.training_seconds, ph.refit_seconds, ph.other_seconds, ph.step_seconds,
                                *(rl_phases.kept(f, ph, name) for name in ("concurrency", "waves", "feasible",
                                                                           "fitting_gpus")),
                                fine_tune, rl_phases.achieved_mfu(f, ph), ph.separate,
                                arch.checkpoint_precision or "unread", f.rollout_rounds,
                                rollout_weights or "bf16", rollout_kv or "bf16", trainer_gemms or "bf16",
                                rl_phases.kept(f, ph, "gpus_used") - rl_phases.kept(f, ph, "trainer_gpus"),
                                rl_phases.kept(f, ph, "tensor_parallel"))
    seed = method == "seed"
    per = tokens.rollout(r, p, 1.0, 1.0, 0.0, 0.0)
    hosted = self_hosted_cost(
        arch=arch, gpu=gpu, method=method, compute_bound=not seed, sample_tokens=s * per.output,
        prefill_tokens=s * per.prefill, train_tokens=s * (per.output if seed else per.sequence), concurrency=s,
        decode_context=per.output if seed else per.decode_context, kv_context=per.output if seed else per.sequence,
        cache_hit_rate=0.0, off_policy=k, num_gpus=n, gpu_hourly_usd=0.0,
        rollout_efficiency=number("rollout_efficiency"), mfu=number("mfu"), prefill_mfu=number("prefill_mfu"),
        fine_tune=fine_tune, sandbox_usd=0.0)
    zero = np.zeros(np.shape(hosted.wallclock_hours))
    return RLStepPrediction(arch.model, gpu.gpu, method, n, hosted.rollout_hours * 3600.0, zero,
                            hosted.train_hours * 3600.0, zero, zero, hosted.wallclock_hours * 3600.0,
                            hosted.rollout_concurrency, hosted.rollout_waves, hosted.feasible, hosted.fitting_gpus,
                            fine_tune, np.asarray(number("mfu")), np.asarray(k > 0),
                            arch.checkpoint_precision or "unread")
