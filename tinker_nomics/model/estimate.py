"""One resolved Scenario -> one Estimate: the token streams, Tinker's bill and the self-hosted cost.

`estimate(scenario)` resolves the inputs (Scenario.resolved), counts the token streams (tokens), bills them
(billing) and costs the same work on rented GPUs (selfhosted), all vectorized over array inputs.

Each side needs its own input: Tinker's bill a price list that bills the model (or its named successor), the
self-hosted side the model's architecture (the registry's, or a config.json). A model the list does not bill gets
the self-hosted side only (Tinker's dollars NaN, `Estimate.tinker_not_offered` and a note saying why); a model
without an architecture gets Tinker's side only; a model with neither is refused in one line.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from .. import fmt, sources
from ..errors import TinkerNomicsError
from ..sources.calibration import parameters
from ..sources.hf_config import load_config, stored_dtype_note
from ..sources.lora_serving import rollout_note as lora_rollout_note
from ..sources.prices import Price, get_price, storage_usd_per_gb_month
from ..sources.successors import Successor, billed_as, not_offered_reason
from . import billing, lora, tabular, tinker_wallclock, tokens
from .finite import finite_only
from .pages import ordinary_pages
from .scenario import Scenario, unpriced_rate
from .selfhosted import SelfHosted, calibrated_self_hosted_cost, self_hosted_cost


@dataclass(frozen=True)
class Estimate:
    scenario: Scenario
    price: Price | None                      # None: Tinker does not offer the run (tinker_not_offered says why)
    tokens: tokens.TokenStreams
    per_rollout: tokens.Rollout
    tinker: billing.TinkerBill
    self_hosted: SelfHosted | None
    lora_parameters: np.ndarray
    checkpoint_gb: np.ndarray
    notes: tuple[str, ...] = field(default_factory=tuple)
    successor: Successor | None = None       # Tinker no longer prices the model: billed on this successor
    tinker_not_offered: str | None = None    # why Tinker's list bills neither the model nor a successor: every
                                             # Tinker dollar is then NaN (not computed); the token streams and the
                                             # self-hosted side are computed as usual
    tinker_time: tinker_wallclock.TinkerTime | None = None   # the run's wall-clock on Tinker (NaN where not offered)

    @property
    def cheaper(self):
        """"tinker" or "self_hosted" per scenario; "unknown" where either side's dollars are not computed (Tinker
        does not offer the model, or the GPU has no sourced $/GPU-hour): no side is claimed."""
        if self.self_hosted is None:
            return np.asarray("tinker")
        tinker, hosted = self.tinker.total_usd, self.self_hosted.total_usd
        side = np.where(tinker <= hosted, "tinker", "self_hosted")
        return np.where(np.isnan(tinker) | np.isnan(hosted), "unknown", side)

    def tinker_required(self, purpose: str) -> "Estimate":
        """This estimate, for a `purpose` that compares against Tinker's bill (a break-even, a verdict); one line
        naming why when Tinker does not offer the run."""
        if self.tinker_not_offered is not None:
            raise TinkerNomicsError(f"{purpose} needs Tinker's bill, and Tinker does not offer this run: "
                                    f"{self.tinker_not_offered}")
        return self

    def to_dict(self) -> dict:
        """The nested keys of `tinker-nomics estimate --format json`; arrays become lists, and a number that is
        not computed (NaN: e.g. the LoRA size of a model without an architecture, Tinker's dollars for a model it does
        not offer) becomes None, with a note; so does a `cheaper` that claims no side."""
        out = tabular.json_tree(self.tree())
        out["cheaper"] = _claimed(out["cheaper"])
        return out

    def to_frame(self):
        """A pandas DataFrame with one row per scenario and flat dotted columns (`tinker.total_usd`,
        `self_hosted.gpu_hours`, `scenario.steps`, ...): the keys of `to_dict()`, built from the arrays."""
        return tabular.frame(self.tree(), self.notes)

    def tree(self) -> dict:
        """The nested keys of `to_dict()` with the values as computed (NumPy arrays and scalars)."""
        t, s, price = self.tinker, self.self_hosted, self.price
        out = {
            "scenario": {f.name: getattr(self.scenario, f.name) for f in dataclasses.fields(self.scenario)},
            "tokens": {"sample": self.tokens.sample, "train": self.tokens.train, "prefill": self.tokens.prefill,
                       "eval_sample": self.tokens.eval_sample, "eval_prefill": self.tokens.eval_prefill,
                       "rollouts": self.tokens.rollouts},
            "tinker": {"sample_usd": t.sample_usd, "train_usd": t.train_usd, "prefill_usd": t.prefill_usd,
                       "sandbox_usd": t.sandbox_usd, "storage_usd": t.storage_usd, "total_usd": t.total_usd,
                       "rates_usd_per_million": {meter: getattr(price, meter) if price else None
                                                 for meter in ("prefill", "sample", "train", "cached_prefill")},
                       "rates_source": price.provenance if price else {}, "billed_model": price.model if price else None,
                       "successor_of": self.successor.retired if self.successor else None,
                       "not_offered": self.tinker_not_offered,
                       "wallclock_hours": self.tinker_time.wallclock_hours,
                       "step_seconds": self.tinker_time.step_seconds},
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
                "concurrent_sequences": s.concurrent_sequences, "sample_tokens": self.tokens.self_hosted_sample,
                "rollout_concurrency": s.rollout_concurrency, "rollout_waves": s.rollout_waves,
                "feasible": s.feasible, "fitting_gpus": s.fitting_gpus, "logprob_hours": s.logprob_hours,
                "refit_hours": s.refit_hours, "other_hours": s.other_hours, "train_mfu": s.train_mfu,
                "overlapped": s.separate,
                "gpu_hourly_usd_source": self.scenario.gpu_hourly_usd_source})
        else:
            out["self_hosted"] = None
        return out


@ordinary_pages()
@finite_only
def estimate(scenario: Scenario) -> Estimate:
    """Tinker's bill and the self-hosted cost of one (or a broadcast array of) scenario(s)."""
    s = scenario.resolved()
    seed = s.method == "seed"
    notes: list[str] = []
    if s.model_config:
        arch = load_config(s.model_config)
        notes.extend(filter(None, [stored_dtype_note(arch)]))
    else:
        arch = sources.get_arch(s.model) if sources.has_arch(s.model) else None
    billed = billed_as(s.model, s.prices)
    price, successor, not_offered = None, None, None
    if billed is None:        # Tinker's side is not computed; the self-hosted side does not depend on it
        not_offered = not_offered_reason(s.model, s.prices)
        release = None if s.model_config else sources.architectures.release_of(s.model)
        if release is not None:
            not_offered += (f" ({s.model} is read with the architecture of {release.base}, trained and sampled "
                            f"in bf16 as every run here"
                            + (f"; Tinker bills {release.base}: --model {release.base} prices that"
                               if billed_as(release.base, s.prices) is not None else "") + ")")
        if arch is None:
            raise TinkerNomicsError(f"neither side can be computed for {s.model}: {not_offered}, and it has no "
                                    f"published architecture (give its config.json with --model-config)")
        notes.append(f"Tinker's side is not computed: {not_offered}")
    else:
        billed_model, successor = billed
        price = get_price(billed_model, s.prices)
        notes.extend(price.notes)
    if successor is not None:
        notes.append(f"Tinker's {s.prices} list no longer prices {successor.retired}: billed on its named successor "
                     f"{successor.successor} (data/models/successors.csv); the self-hosted side runs {s.model}")

    per = tokens.rollout(s.completion_tokens, s.prompt_tokens, s.length_growth, s.turns, s.output_per_turn,
                         s.observation_per_turn, s.failure_overhead)
    streams = tokens.token_streams(s.prompts_per_step, s.group_size, s.steps, per, s.substeps, s.off_policy,
                                   train_on="completion" if seed else "sequence", eval_every=s.eval_every,
                                   eval_prompts=s.eval_prompts, abort_prefill=not seed)

    cached_rate = None
    if s.tinker_cached_prefill and price is not None:
        cached_rate = s.tinker_cached_prefill_usd_per_m if s.tinker_cached_prefill_usd_per_m is not None \
            else price.cached_prefill
        if cached_rate is None:
            notes.append(f"snapshot {s.prices} has no cached-prefill rate for {price.model} (cached billing began "
                         f"between 2026-06-14 and {sources.assumption('tinker_repricing_date')}); all prefill billed "
                         f"at the full rate")
    cached_share = s.cache_hit_rate if cached_rate is not None else 0.0
    sandbox_rollouts = streams.rollouts * tokens.abort_multiplier(s.off_policy) if not seed else streams.rollouts
    sandbox_usd = sandbox_bill(s, streams.rollouts)
    self_sandbox_usd = sandbox_bill(s, sandbox_rollouts)

    if arch is not None:
        lora_params = lora.lora_params(arch, s.lora_rank, s.method)
        ckpt_gb = lora.checkpoint_gb(lora_params)
        storage_usd = billing.storage_cost(ckpt_gb, s.steps, storage_usd_per_gb_month(s.prices))
    else:
        lora_params = ckpt_gb = storage_usd = np.asarray(np.nan)
        storage_usd = np.asarray(0.0)
        notes.append(f"{price.model} has no published architecture: checkpoint storage and the self-hosted "
                     f"side are not computed")
    if price is not None:
        bill = billing.tinker_bill(streams.sample, streams.train, streams.prefill, price, cached_share, cached_rate,
                                   sandbox_usd, storage_usd)
    else:
        bill = billing.not_offered_bill(streams.sample, streams.train, streams.prefill, sandbox_usd, storage_usd)

    hosted = None
    if arch is not None:
        gpus = sources.gpu_specs(s.gpu)
        gpus.require(gpus.peak_flops(s.method))
    if arch is not None and s.method == "calibrated":
        steps = np.asarray(s.steps, dtype=float)
        output = np.asarray(per.output, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            samples = np.where(output > 0, streams.self_hosted_sample / (steps * output), 0.0)
            prompt = np.where(samples > 0, streams.self_hosted_prefill / (steps * np.maximum(samples, 1e-300)), 0.0)
        concurrency = np.asarray(s.prompts_per_step, dtype=float) * s.group_size
        params = parameters()
        # a sequence decodes at its mean context and its cache reaches its whole length (an agentic rollout's whole
        # conversation) plus the drain of the longest responses; the prompt tokens are every turn's re-prefill
        hosted = calibrated_self_hosted_cost(
            arch=arch, gpus=gpus, params=params, steps=steps, samples_per_step=samples,
            output_per_rollout=output, prefill_per_rollout=prompt, decode_context=per.decode_context,
            kv_context=per.sequence + (params.response_max_over_mean - 1.0) * output,
            sequence=per.sequence, train_tokens=streams.train,
            concurrency=concurrency, cache_hit_rate=s.cache_hit_rate, off_policy=s.off_policy, num_gpus=s.num_gpus,
            gpu_hourly_usd=s.gpu_hourly_usd, rollout_efficiency=s.rollout_efficiency, mfu=s.mfu,
            fine_tune=s.fine_tune, sandbox_usd=self_sandbox_usd,
            sandbox_wait_hours=steps * s.sandbox_seconds_per_rollout / 3600.0, time_factor=s.model_error_factor,
            lora_merged=s.lora_merge)
        label = _gpu_label(s.gpu)
        if s.fine_tune == "lora":
            notes.append(lora_rollout_note(s.lora_merge))
        if not np.all(hosted.feasible):
            notes.append(f"infeasible on {_count(s.num_gpus)} × {label}: the smallest GPU count that holds "
                         f"{arch.model} for colocated RL and one rollout sequence is {_count(hosted.fitting_gpus)}; "
                         f"the self-hosted side is costed on that many")
        if np.any(hosted.rollout_waves > 1):
            notes.append(f"the rollout batch does not fit at once: {_count(hosted.rollout_concurrency)} sequences "
                         f"are decoded at a time, in {_count(hosted.rollout_waves)} waves per step")
    elif arch is not None:
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
    if arch is not None:
        note = context_note(arch, s.model, tokens.longest_sequence(
            s.completion_tokens, s.prompt_tokens, s.length_growth, s.turns, s.output_per_turn, s.observation_per_turn,
            s.failure_overhead), "a rollout reaches {tokens} tokens by the run's end")
        if note:
            notes.append(note)
    if hosted is not None and unpriced_rate(s.gpu_hourly_usd, s.gpu_hourly_usd_source):
        notes.append(f"the self-hosted dollars are unknown: {s.gpu_hourly_usd_source.split(': ', 1)[1]}")
    tinker_time = tinker_wallclock.run_time(s.steps, per.output, streams.sample, s.sandbox_seconds_per_rollout,
                                            s.tinker_time_factor)
    if price is None:
        tinker_time = tinker_time.not_computed()
    return Estimate(s, price, streams, per, bill, hosted, np.asarray(lora_params), np.asarray(ckpt_gb), tuple(notes),
                    successor, not_offered, tinker_time)


def sandbox_bill(scenario: Scenario, rollouts):
    """The sandboxes' bill for `rollouts` rollouts of a resolved scenario (its sandbox, seconds, cores and memory):
    Tinker's side bills the rollouts it samples, a managed per-token service the same, self-hosting also the aborted
    ones it re-runs."""
    s = scenario
    return billing.sandbox_cost(rollouts, s.sandbox_seconds_per_rollout, s.sandbox, s.sandbox_cpu_cores,
                                s.sandbox_memory_gib)


def with_efficiencies(scenario: Scenario) -> Scenario:
    """The resolved scenario with `rollout_efficiency` and `mfu` filled in: the method's defaults, and for the
    calibrated method the fitted decode bandwidth efficiency and the update's achieved MFU at this very scenario,
    the values at which the estimate is the model's own (the panels' sliders start there)."""
    s = scenario.resolved()
    if s.method != "calibrated" or (s.rollout_efficiency is not None and s.mfu is not None):
        return s
    point = estimate(s)
    mfu = s.mfu
    if mfu is None and point.self_hosted is not None:
        achieved = np.asarray(point.self_hosted.train_mfu, dtype=float)
        mfu = float(np.nanmax(achieved)) if np.ndim(achieved) else float(achieved)
    efficiency = parameters().decode_bandwidth_efficiency if s.rollout_efficiency is None else s.rollout_efficiency
    return s.replace(rollout_efficiency=efficiency, mfu=mfu)


def _claimed(cheaper):
    """`cheaper` as JSON: "unknown" (no side claimed) becomes None."""
    if isinstance(cheaper, list):
        return [_claimed(x) for x in cheaper]
    return None if cheaper == "unknown" else cheaper


def context_note(arch, model: str, longest, what: str) -> str | None:
    """A note where a sequence runs past the context the model is configured for (config.json's
    max_position_embeddings, or the context a Tinker long-context key names): the cost is still computed, as the
    model would run it with its context extended, which the note says it needs. `what` words the sequence, with
    '{tokens}' where its length goes."""
    context = sources.split_context(str(model))[1] or arch.max_context
    longest = float(np.max(np.asarray(longest, dtype=float)))
    if not context or longest <= context:
        return None
    return (what.format(tokens=f"{longest:,.0f}") + f", past the {context:,}-token context {arch.model} is "
            f"configured for (config.json max_position_embeddings): it runs only with its context extended (RoPE "
            f"scaling, or a long-context release)")


def _gpu_label(gpu) -> str:
    names = sorted(set(np.asarray(gpu, dtype=object).reshape(-1).tolist()))
    return names[0] if len(names) == 1 else f"{len(names)} GPU types"


def _count(values) -> str:
    """A count for a note: one number, or the range an array spans."""
    arr = np.asarray(values, dtype=float)
    low, high = float(np.min(arr)), float(np.max(arr))
    return fmt.number(low) if low == high else f"{fmt.number(low)}–{fmt.number(high)}"
