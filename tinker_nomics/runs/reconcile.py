"""The self-hosted model against a run's measured time: each logged step re-predicted from what it measured, per
phase, with a signed error, and the efficiencies that would have matched.

Each step is re-predicted by model.rl_step.rl_steps from that step's own samples, mean prompt and response length,
on the run's GPUs, at the package's default rollout efficiency and MFU (data/assumptions/defaults.csv), once per
method. Phases compared, as means over optimizer steps where both sides exist:

  generation  measured rollout time (verl timing_s/gen)        vs the model's rollout (decode + prompt processing)
  training    measured actor-update time (timing_s/update_actor) vs the model's training
  step        measured step time                               vs the model's step (rollout + training, synchronous)

Signed error = (predicted − measured) / measured, as in the accuracy chapter: for a time, positive means the model
is pessimistic (predicts a longer phase). The model has no phase for old log-probs, reference or critic passes,
reward, weight sync, validation or checkpoints, so its step is short of a measured step by at least those.

What would have matched (the model's decode time is M / efficiency + F, F = 0 for seed and exact and the
compute and synchronisation part for calibrated, read off a second evaluation at twice the efficiency): rollout
efficiency = used × (predicted decode − F) / (measured generation − predicted prompt processing − F); phase MFU = used × predicted training / measured update;
step MFU = the MFU at which the model's step equals the measured step on steps without validation or checkpoint
time, the rollout held at its measured time (or, when the log has no generation time, at the model's prediction
with the default efficiency) — the MFU `estimate` needs to reproduce this run's step time.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import TinkerNomicsError
from ..model import decode
from ..model.rl_step import rl_steps
from ..model.scenario import DEFAULT_METHOD
from ..sources.architectures import ModelArch
from ..sources.calibration import parameters
from ..sources.defaults import framework_rollout_fraction, number
from ..sources import quantization
from ..sources.hardware import GPU, gpu_specs, host_copy_shares
from ..sources.lora_serving import rollout_note as lora_rollout_note
from . import nemo_rl, openrlhf, skyrl, trl, verl
from .hosted import HostedRun
from ..sources.numbers import finite_number
from .measured import Measured

SIGN_CONVENTION = ("signed error = (predicted − measured) / measured; for a time, positive means the model predicts "
                   "a longer phase than was measured (pessimistic)")
PHASES = (("generation", "generation_seconds", "generation_predicted"),
          ("logprob", "logprob_seconds", "logprob_predicted"),
          ("training", "training_seconds", "train_seconds"),
          ("refit", "refit_seconds", "refit_predicted"),
          ("step", "step_seconds", "step_seconds_predicted"))

# The logged phases that time the log-prob passes and the weight refit, in each framework's names.
LOGPROB_PHASES = verl.LOGPROB_PHASES + nemo_rl.LOGPROB_PHASES + openrlhf.LOGPROB_PHASES + skyrl.LOGPROB_PHASES
REFIT_PHASES = tuple(dict.fromkeys(verl.REFIT_PHASES + nemo_rl.REFIT_PHASES + openrlhf.REFIT_PHASES
                                   + trl.REFIT_PHASES))   # each name once: NeMo RL's and TRL's are both `refit`
CHUNK_STEPS = 8192   # rows re-predicted at once: the model's per-step arrays never grow past this many
# what run_facts reads per row
FACT_COLUMNS = ("response_max", "response_tokens", "samples", "steps_covered", "generation_rounds")


@dataclass(frozen=True)
class Reconciliation:
    method: str                   # the headline method (the package's default unless told)
    per_step: pd.DataFrame        # method, step, steps_covered, predicted rollout/train/step seconds, decode/prefill
                                  # (empty unless reconcile was asked to keep the steps)
    table: pd.DataFrame           # method × phase: predicted and measured means, signed error, steps compared
    fitted: dict                  # the efficiencies that would have matched (headline method)
    inputs: dict                  # GPU, count, fine-tuning, the efficiencies used
    notes: tuple[str, ...] = field(default_factory=tuple)
    sign_convention: str = SIGN_CONVENTION

    def row(self, phase: str, method: str | None = None) -> dict:
        rows = self.table[(self.table["method"] == (method or self.method)) & (self.table["phase"] == phase)]
        return rows.iloc[0].to_dict() if len(rows) else {}

    def predicted_mean(self, phase: str, method: str | None = None) -> float:
        return float(self.row(phase, method).get("predicted_seconds_mean", math.nan))


def signed_error(predicted: float, measured: float) -> float:
    return (predicted - measured) / measured if measured and math.isfinite(measured) else math.nan


def reconcile(run: HostedRun, measured: Measured, arch: ModelArch, gpu: GPU, num_gpus: float, fine_tune: str,
              method: str | None = None, methods=("seed", "exact", "calibrated"), rollout_efficiency: float | None = None,
              mfu: float | None = None, keep_steps: bool = False) -> Reconciliation:
    """Re-predict every step of `run` and compare per phase (see the module docstring). The steps are
    re-predicted CHUNK_STEPS at a time and only the sums the comparison needs are kept, so memory does not grow
    with the log's length; `keep_steps` also keeps every step's predictions (`Reconciliation.per_step`)."""
    headline = method or DEFAULT_METHOD
    methods = tuple(dict.fromkeys((headline, *methods)))
    eff = number("rollout_efficiency") if rollout_efficiency is None else float(rollout_efficiency)
    util = number("mfu") if mfu is None else float(mfu)
    pre = number("prefill_mfu")
    t = measured.per_step
    usable = t["samples"].notna() & t["response_tokens"].notna() & t["prompt_tokens"].notna() & (t["samples"] >= 1)
    if not usable.any():
        raise_reason = ("no step has its samples and token counts"
                        + ("; pass --prompts-per-step and --group-size" if run.framework == "TRL" else ""))
        return Reconciliation(headline, pd.DataFrame(), pd.DataFrame(), {}, {}, (f"no prediction: {raise_reason}",))
    index = np.flatnonzero(usable.to_numpy())
    notes: list[str] = []
    facts, includes_refit = run_facts(run, t.loc[usable, [c for c in FACT_COLUMNS if c in t]])
    specs = gpu_specs(gpu)
    if facts.get("train_precision") == "fp8" and not np.all(specs.fp8_native):
        del facts["train_precision"]   # said in the notes below
    unable = None
    if facts.get("rollout_precision"):
        try:
            decode.weight_only(facts["rollout_precision"], specs)
        except TinkerNomicsError as exc:
            unable = str(exc)
            del facts["rollout_precision"]
    holds_old = generation_holds_old_logprob(run)
    # verl and NeMo RL time the critic's passes apart; OpenRLHF's make_experience and ppo_train hold them
    critic_apart = not (run.config or {}).get("critic_in_phases")
    response_max = facts.get("response_max_tokens")   # one value per usable row: sliced with the rows below
    rounds = facts.get("rollout_rounds")               # the same
    tp_defaulted = run.framework == "verl" and "rollout_tensor_parallel" not in facts
    if tp_defaulted:   # not logged (an export without its config): verl's default, as the fit reads its published
        # verl runs that do not state it; never more GPUs than the run had
        facts["rollout_tensor_parallel"] = float(min(number("verl_rollout_tensor_parallel"), num_gpus))
    # what the whole run decides once, before the rows are re-predicted a chunk at a time
    k = facts.pop("off_policy", 0.0)   # rl_steps takes it apart from the facts (every method overlaps by it)
    if facts.get("rollout_gpus", 0.0) >= num_gpus:   # no GPU left to train on: the model's own split instead
        notes.append(f"the log's config gives the rollout engine {facts.pop('rollout_gpus'):g} GPUs, not fewer than "
                     f"the run's {num_gpus:g}: the model splits them itself")
    exposed = bool(k) and bool((run.config or {}).get("generation_exposed"))
    plain = t.loc[usable, "plain"].astype(bool)
    plain_any, plain_all = bool(plain.any()), bool(plain.all())
    generation = t.loc[usable, "generation_seconds"]
    held = bool((generation[plain] if plain_any else generation).notna().all())
    del plain, generation
    frames, tables = [], []
    fit, mfu_parts = _FitSums(plain_any, held, bool(k), exposed), []
    raised, least_gpus = False, -math.inf
    for m in methods:
        given = {"off_policy": k} if m == "calibrated" else {"rollout_efficiency": eff, "mfu": util,
                                                             "prefill_mfu": pre, "off_policy": k}
        if m == "calibrated" and rollout_efficiency is not None:
            given["rollout_efficiency"] = eff
        if m == "calibrated" and mfu is not None:
            given["mfu"] = util
        sums = _PhaseSums()
        for first in range(0, len(index), CHUNK_STEPS):
            rows = t.iloc[index[first:first + CHUNK_STEPS]]
            if m == "calibrated":
                given["run_facts"] = {**facts, **{name: values[first:first + CHUNK_STEPS]
                                                  for name, values in (("response_max_tokens", response_max),
                                                                       ("rollout_rounds", rounds))
                                                  if values is not None}}
            frame, hosted = _predicted(rows, m, given, arch, gpu, num_gpus, fine_tune, util, includes_refit,
                                       critic_apart, holds_old, exposed)
            sums.add(frame)
            if m == headline:
                fit.add(frame)
                mfu_parts.append((float(np.nansum(frame["model_mfu"])), int(frame["model_mfu"].notna().sum())))
                raised |= bool(np.any(np.asarray(hosted.num_gpus) > num_gpus))
                least_gpus = max(least_gpus, float(np.max(hosted.min_gpus)))
            if keep_steps:
                frames.append(frame)
        tables.append(sums.table(m, plain_any, plain_all))
    per_step = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    table = pd.concat(tables, ignore_index=True)
    if raised:
        notes.append(f"{arch.model} needs at least {int(least_gpus)} × {gpu.gpu} "
                     f"by the model's memory rule; the prediction uses that many, the run used {num_gpus:g}")
    if (~usable).any():
        notes.append(f"{int((~usable).sum())} logged row(s) lack samples or token counts and are not re-predicted")
    if headline == "calibrated":   # the baseline the matching efficiencies scale: the model's own unless given
        eff = eff if rollout_efficiency is not None else parameters().decode_bandwidth_efficiency
        total, count = _added([s for s, _ in mfu_parts]), sum(c for _, c in mfu_parts)
        util = util if mfu is not None else (total / count if count else math.nan)
    fitted = fit.fitted(eff, util)
    inputs = {"gpu": gpu.gpu, "num_gpus": float(num_gpus), "fine_tune": fine_tune, "rollout_efficiency": eff,
              "mfu": util, "prefill_mfu": pre, "model": arch.hf_id, "methods": list(methods), "method": headline,
              "off_policy": k}
    split = facts.get("rollout_gpus")
    where_split = _said(run, "rollout_gpus", "--rollout-gpus")
    if k:
        layout = (f"{split:g} of the {num_gpus:g} GPUs generate and the other {num_gpus - split:g} train, as "
                  + ("--rollout-gpus gives them" if where_split == "--rollout-gpus" else
                     f"the log's config splits them ({where_split})") if split else
                  f"the model splits the {num_gpus:g} GPUs between generation and training (the log's config does "
                  f"not say how)")
        notes.append(f"an asynchronous run, its rollouts up to {k:g} step{'s' if k != 1 else ''} behind the policy "
                     f"({_said(run, 'off_policy', '--off-policy')}): the model predicts each step as the longer of "
                     f"generation and the trainer's passes, then the hand-off; {layout}")
        if exposed:
            notes.append("the log's generation time is the wait for the next batch (the part of generation training "
                         "did not hide): the predicted generation compared is the same part, generation less the "
                         "trainer's passes beside it, at least 0")
    elif split:
        notes.append(f"the model predicts a synchronous step, as the logged run ran: generation on the {split:g} GPUs "
                     f"the rollout engine had to itself ({where_split}), then training on the other "
                     f"{num_gpus - split:g} (pass --off-policy K if it ran ahead of training)")
    else:
        notes.append("the model predicts a synchronous step: rollout, then training (no overlap), as the logged run "
                     "ran")
    if headline == "calibrated" and tp_defaulted:
        notes.append(f"the log does not give the rollout engine's tensor parallelism: verl's default "
                     f"({facts['rollout_tensor_parallel']:g}, actor_rollout_ref.rollout.tensor_model_parallel_size) "
                     f"is used, as the calibration does for the published verl runs that do not state it")
    if headline == "calibrated" and facts.get("rollout_eager"):
        notes.append("the log's rollout engine ran without CUDA graphs (enforce_eager): each predicted decode step "
                     "lasts at least the model's layers × the fitted host launch time per layer "
                     f"({parameters().eager_layer_seconds * 1e6:.0f} µs)")
    if headline == "calibrated" and fine_tune == "lora":
        merged = bool(facts.get("lora_merged"))
        said = ("TRL's GRPOTrainer merges it before each hand-off to vLLM" if run.framework == "TRL" else
                run.config_sources.get("lora_merge", "the log's config"))
        notes.append(lora_rollout_note(merged) + (f" ({said})" if merged else ""))
    offloaded = [name for name in ("param_offload", "optimizer_offload", "critic_param_offload",
                                   "critic_optimizer_offload") if facts.get(name)]
    if headline == "calibrated" and offloaded:
        host = float(gpu_specs(gpu).host_bytes_per_s)
        what = ", ".join(offloaded)
        notes.append(f"the log's config offloads to host memory between phases ({what}): each GPU's shard crosses "
                     f"{gpu.gpu}'s host link ({host / 1e9:g} GB/s each way, data/hardware/host_links.csv) at the "
                     f"{host_copy_shares()['pageable']:.0%} pageable copies reach, there and back around each call"
                     if math.isfinite(host) else
                     f"the log's config offloads to host memory between phases ({what}), but no source gives "
                     f"{gpu.gpu}'s host link (data/hardware/host_links.csv): the copies are not in the prediction")
    if headline == "calibrated" and facts.get("cpu_optimizer"):
        host = float(gpu_specs(gpu).host_bytes_per_s)
        notes.append(f"the actor's FP32 shard crosses {gpu.gpu}'s host link ({host / 1e9:g} GB/s each way) at the "
                     f"{host_copy_shares()['pinned']:.0%} pinned copies reach, for every micro-batch of its passes "
                     f"(FSDP2's CPUOffloadPolicy)" if math.isfinite(host) else
                     f"no source gives {gpu.gpu}'s host link (data/hardware/host_links.csv): the CPUOffloadPolicy's "
                     f"copies of the weights are not in the prediction, only Adam's step on the CPU")
    if headline == "calibrated" and trains_fp8(run.config or {}):
        notes.append(f"the log's trainer runs FP8 GEMMs ({run.config_sources.get('train_fp8', 'its config')}): "
                     f"the predicted update and log-prob passes run the weights' GEMMs at {gpu.gpu}'s FP8 ceiling, "
                     f"attention and the memory traffic as in BF16" if facts.get("train_precision") == "fp8" else
                     f"the log's config asks for FP8 training, which {gpu.gpu} has no FP8 tensor cores for: the "
                     f"prediction trains in BF16")
    if headline == "calibrated" and unable:
        notes.append(f"the log's rollout engine quantization cannot run on {gpu.gpu} ({unable}): the predicted "
                     f"generation is at BF16")
    named = (run.config or {}).get("rollout_quantization")
    if headline == "calibrated" and facts.get("rollout_precision"):
        notes.append(f"the log's rollout engine ran {facts['rollout_precision']} weights "
                     f"({run.config_sources.get('rollout_quantization', 'the config')} = {named}): the predicted "
                     f"generation reads them at that precision; the trainer, the log-prob passes and the hand-off "
                     f"stay BF16")
    elif headline == "calibrated" and isinstance(named, str) and named.strip() and not quantization.is_auto(named) \
            and rollout_precision(run.config) is None:
        notes.append(f"the log's rollout engine quantization {named!r} is not a precision read here: the predicted "
                     f"generation is at BF16")
    if headline == "calibrated" and holds_old:
        notes.append("the log times no old-policy log-prob pass of its own (no timing_s/old_log_prob): verl before "
                     "that timer recomputed the old policy's log-probs inside generate_sequences (fsdp_workers.py, "
                     "recompute_log_prob), so its generation time holds that pass; the predicted generation adds it "
                     "and the log-prob phase compared is the reference's alone")
    if headline == "calibrated" and facts.get("old_logprob_pass") is False:
        c = run.config or {}
        why = ("algorithm.rollout_correction.bypass_mode" if c.get("logprobs_from_rollout") is True else
               "async_training.use_rollout_log_probs" if c.get("use_rollout_log_probs") is True else
               "no old_log_prob timer in an asynchronous recipe's log")
        notes.append(f"the run takes the old policy's log-probs from the rollout engine ({why}): the predicted "
                     f"log-prob passes are the reference's" + (" and the critic's" if facts.get("critic") else "")
                     + " alone")
    if headline == "calibrated" and includes_refit:
        notes.append("the log times no weight hand-off of its own (no timing_s/update_weights or refit phase): its "
                     "generation time holds it, so the predicted generation adds the model's refit")
    return Reconciliation(headline, per_step, table, fitted, inputs, tuple(notes + fitted.pop("notes")))


def switched_on(value) -> bool:
    """A verl switch as verl reads it: its code tests the config value's truth (`if fsdp_config.offload_policy:`,
    `lora.get("merge", False)`), so a string such as 'yes' or a 1 turns it on, and only a false, empty, zero or
    absent value leaves it off."""
    return bool(value)


def run_facts(run: HostedRun, rows: pd.DataFrame) -> tuple[dict, bool]:
    """What the run's log says of its set-up, for the calibrated phase model: the critic (PPO), the reference
    model's pass (a KL term, or a logged `ref` phase), optimizer steps per RL step (train_batch_size /
    ppo_mini_batch_size × ppo_epochs) and the update's passes over the batch (ppo_epochs), the trainer's micro-batches (a token budget with use_dynamic_bsz, else a
    sequence count), the longest response per step, the rollout engine's tensor parallelism and memory share, and
    the padded length of a model whose passes keep the padding (use_remove_padding off: every sequence padded to
    max_prompt_length + max_response_length). Also whether the logged generation holds the weight hand-off (no timer
    of its own)."""
    c = run.config or {}
    phases = set(run.phase_names)
    facts = {"critic": bool(c.get("critic")) or "update_critic" in phases,
             "reference": bool(c.get("use_kl_loss") or c.get("use_kl_in_reward")) or "ref" in phases
             or "policy_and_reference_logprobs" in phases}   # NeMo RL's one timer of both passes
    if not c and "ref" not in phases:   # a log without a config (W&B, TRL): the reference pass as frameworks default
        facts["reference"] = True
    mini, prompts = c.get("mini_batch_prompts"), c.get("prompts_per_step")
    epochs = float(c["ppo_epochs"]) if _positive(c.get("ppo_epochs")) else 1.0
    if _positive(mini) and _positive(prompts):
        facts["optimizer_steps"] = max(float(prompts) / float(mini), 1.0) * epochs
    if epochs != 1.0:
        facts["update_epochs"] = epochs
    if "response_max" in rows and rows["response_max"].notna().all():
        facts["response_max_tokens"] = np.maximum(rows["response_max"].to_numpy(),
                                                  (rows["response_tokens"] / (rows["samples"] * rows["steps_covered"]))
                                                  .to_numpy())
    if _positive(c.get("rollout_tp")):
        facts["rollout_tensor_parallel"] = float(c["rollout_tp"])
    if c.get("dynamic_batch") is True and _positive(c.get("micro_batch_tokens")):
        facts["micro_batch_tokens"] = float(c["micro_batch_tokens"])
    elif c.get("dynamic_batch") is False and _positive(c.get("micro_batch_samples")):
        facts["micro_batch_samples"] = float(c["micro_batch_samples"])
    # each log-prob pass's own micro-batches (verl's rollout.log_prob_*, ref.log_prob_*, critic.forward_*; a config
    # without them: the old policy's, and that the update's) and the critic's update's (critic.ppo_*), for the
    # passes the step runs
    logprob_dynamic = c.get("logprob_dynamic_batch", c.get("dynamic_batch"))
    for stem, dynamic, runs in (("logprob", logprob_dynamic, True),
                                ("reference", c.get("reference_dynamic_batch"), facts["reference"]),
                                ("values", c.get("critic_dynamic_batch"), facts["critic"]),
                                ("critic", c.get("critic_dynamic_batch"), facts["critic"])):
        if not runs:
            continue
        if dynamic is True and _positive(c.get(f"{stem}_micro_batch_tokens")):
            facts[f"{stem}_micro_batch_tokens"] = float(c[f"{stem}_micro_batch_tokens"])
        elif dynamic is False and _positive(c.get(f"{stem}_micro_batch_samples")):
            facts[f"{stem}_micro_batch_samples"] = float(c[f"{stem}_micro_batch_samples"])
    # dynamic sampling (DAPO): the rounds each step generated and the sequences a round generates
    if "generation_rounds" in rows and (rows["generation_rounds"] != 1.0).any():
        facts["rollout_rounds"] = rows["generation_rounds"].to_numpy(dtype=float)
    if _positive(c.get("rollout_samples")):
        facts["rollout_samples"] = float(c["rollout_samples"])
    # CPU offload between phases (verl's FSDP workers; FSDP2's CPUOffloadPolicy turns it off, validate says so)
    fsdp = c.get("actor_strategy") in (None, "fsdp", "fsdp2") and not (c.get("actor_strategy") == "fsdp2"
                                                                        and switched_on(c.get("offload_policy")))
    if c.get("actor_strategy") == "fsdp2" and switched_on(c.get("offload_policy")):   # the actor in host memory
        facts["cpu_optimizer"] = True
    for name in ("param_offload", "optimizer_offload"):
        if fsdp and c.get(name) is True:
            facts[name] = True
        if facts["critic"] and c.get(f"critic_{name}") is True:
            facts[f"critic_{name}"] = True
    if c.get("gradient_checkpointing") is False:   # the backward pass keeps the forward's activations: no recompute
        facts["recompute"] = False
    if _positive(c.get("rollout_max_num_seqs")):
        facts["max_num_seqs"] = float(c["rollout_max_num_seqs"])
    fraction = c.get("rollout_memory_fraction")
    if _positive(fraction) and float(fraction) <= 1:
        facts["rollout_memory_fraction"] = float(fraction)
    elif framework_rollout_fraction(run.framework) is not None:   # the framework's own default, not verl's
        facts["rollout_memory_fraction"] = framework_rollout_fraction(run.framework)
    if trains_fp8(c):   # Transformer Engine's FP8 GEMMs in the trainer (where the GPU has FP8 tensor cores)
        facts["train_precision"] = "fp8"
    quantized = rollout_precision(c)
    if quantized not in (None, "bf16", "fp16"):   # the engine's weights as the run quantized them (FP8 rollout)
        facts["rollout_precision"] = quantized
    # the old policy's log-probs taken from the rollout engine, no pass of their own: verl's bypass mode, the
    # fully-async recipe's use_rollout_log_probs, or an asynchronous recipe's log that times no such pass
    if c.get("logprobs_from_rollout") is True or c.get("use_rollout_log_probs") is True \
            or (c.get("async_recipe") and "old_log_prob" not in phases):
        facts["old_logprob_pass"] = False
    if _positive(c.get("off_policy")):   # an asynchronous run: generation on its own GPUs, k steps ahead
        facts["off_policy"] = float(c["off_policy"])
    if _positive(c.get("rollout_gpus")):   # the engine on GPUs of its own (beside the trainer when asynchronous)
        facts["rollout_gpus"] = float(c["rollout_gpus"])
    # the LoRA adapter merged into the rollout engine's weights: verl's lora.merge, and always in TRL, whose
    # GRPOTrainer._move_model_to_vllm calls merge_adapter() before it hands vLLM the weights
    if switched_on(c.get("lora_merge")) or run.framework == "TRL":
        facts["lora_merged"] = True
    if c.get("enforce_eager") is True:   # vLLM without CUDA graphs (the default of older verl releases)
        facts["rollout_eager"] = True
    padded = padded_length(c)
    if padded is not None and c.get("remove_padding") is False:
        facts["padded_tokens_per_sample"] = padded
    if padded is not None and facts["critic"] and c.get("critic_remove_padding") is False:
        facts["critic_padded_tokens_per_sample"] = padded
    # the logged generation holds the hand-off unless the log times it apart, or the framework runs it outside the
    # generation timer (SkyRL: the weights manager's entry, inside the step)
    return facts, not phases & set(REFIT_PHASES) and run.framework != "SkyRL" and not c.get("async_recipe")


def _said(run: HostedRun, fact: str, flag: str) -> str:
    """Where a fact of the run came from: the option's flag where the command line gave it, else the log's place."""
    where = run.config_sources.get(fact, "its config")
    return flag if where == "given" else where


def generation_holds_old_logprob(run: HostedRun) -> bool:
    """A verl log that times its generation but never an old-policy log-prob pass: verl's first releases (and the
    early-2025 copies such as TinyZero's) recomputed the old policy's log-probs at the end of generate_sequences,
    inside the `gen` timer; later releases time it apart as `old_log_prob`."""
    phases = set(run.phase_names)
    return run.framework == verl.FRAMEWORK and "old_log_prob" not in phases \
        and not (run.config or {}).get("async_recipe") and not (run.config or {}).get("logprobs_from_rollout") \
        and bool(run.steps["generation_seconds"].notna().any())


def trains_fp8(config: dict) -> bool:
    """The log's trainer runs FP8 GEMMs: NeMo RL's policy.megatron_cfg.fp8_cfg.enabled, or verl's Megatron
    override_transformer_config.fp8 set to a format (hybrid, e4m3)."""
    value = config.get("train_fp8")
    if isinstance(value, str):
        return value.strip().lower() not in ("", "none", "null", "false")
    return value is True


def rollout_precision(config: dict) -> str | None:
    """The rollout engine's weight precision a log's config names (verl's rollout.quantization, NeMo RL's
    vllm_cfg.precision) as this package names it; None where it names none or one not read here."""
    value = config.get("rollout_quantization")
    if not isinstance(value, str) or not value.strip() or quantization.is_auto(value):
        return None
    try:
        return decode.precision_name(value, "rollout_quantization")
    except TinkerNomicsError:
        return None


def padded_length(config: dict) -> float | None:
    """The length verl pads every sequence to for a pass that keeps the padding: the prompt cap (prompts are padded
    to it) plus the response cap (the rollout pads responses to it); None where the config lacks either."""
    prompt, response = config.get("max_prompt_length"), config.get("max_response_length")
    return float(prompt) + float(response) if _positive(prompt) and _positive(response) else None


def _positive(value) -> bool:
    number = finite_number(value)   # None for text, a bool, or an integer too long for a float
    return number is not None and number > 0


def _phase_sum(rows: pd.DataFrame, names) -> np.ndarray:
    """The sum of the logged phases `names` per step (NaN where the log has none of them)."""
    columns = [f"phase/{n}" for n in names if f"phase/{n}" in rows]
    if not columns:
        return np.full(len(rows), np.nan)
    return rows[columns].sum(axis=1, min_count=1).to_numpy()


def _predicted(rows: pd.DataFrame, m: str, given: dict, arch: ModelArch, gpu: GPU, num_gpus: float,
               fine_tune: str, util: float, includes_refit: bool, critic_apart: bool = True,
               holds_old: bool = False, exposed: bool = False):
    """The model's prediction of `rows` by method `m`, beside what they measured: (one row per step, the model's
    SelfHosted result)."""
    facts = given.get("run_facts") or {}
    per_sample = rows["samples"] * rows["steps_covered"]
    response = (rows["response_tokens"] / per_sample).to_numpy()
    prompt = (rows["prompt_tokens"] / per_sample).to_numpy()
    measured_logprob = _phase_sum(rows, LOGPROB_PHASES)
    measured_refit = _phase_sum(rows, REFIT_PHASES)   # newer verl and NeMo RL time the weight hand-off on their own
    hosted = rl_steps(arch=arch, gpu=gpu, num_gpus=num_gpus, samples=rows["samples"].to_numpy(),
                      prompt_tokens=prompt, response_tokens=response, method=m, fine_tune=fine_tune, **given)
    # The part of the decode time that does not scale with the rollout efficiency: none for seed and exact
    # (bandwidth-bound rooflines, linear in it); the calibrated decode step adds compute and tensor-parallel
    # time to its memory time, so it is affine in 1 / efficiency: two evaluations give the fixed part.
    fixed = np.zeros(len(rows))
    if m == "calibrated":
        base = given.get("rollout_efficiency", parameters().decode_bandwidth_efficiency)
        doubled = rl_steps(arch=arch, gpu=gpu, num_gpus=num_gpus, samples=rows["samples"].to_numpy(),
                           prompt_tokens=prompt, response_tokens=response, method=m, fine_tune=fine_tune,
                           **{**given, "rollout_efficiency": 2.0 * base})
        once, twice = np.asarray(hosted.decode_hours) * 3600.0, np.asarray(doubled.decode_hours) * 3600.0
        fixed = np.broadcast_to(2.0 * twice - once, len(rows))
    calibrated = m == "calibrated"
    generation = hosted.rollout_hours * 3600.0 + (hosted.refit_hours * 3600.0 if calibrated and includes_refit
                                                  else 0.0)
    # the phases compared are the actor's (timing_s/old_log_prob + ref, update_actor): under PPO the critic's
    # values pass and update are timed apart, so they are predicted apart and only the step holds them (not so
    # where the log's phases hold the critic's passes too: OpenRLHF's)
    actor = hosted
    if calibrated and facts.get("critic") and critic_apart:
        actor = rl_steps(arch=arch, gpu=gpu, num_gpus=num_gpus, samples=rows["samples"].to_numpy(),
                         prompt_tokens=prompt, response_tokens=response, method=m, fine_tune=fine_tune,
                         **{**given, "run_facts": {**facts, "critic": False,
                                                   "critic_padded_tokens_per_sample": None}})
    logprob = np.asarray(actor.logprob_hours) * 3600.0 if calibrated else np.nan
    if calibrated and holds_old:   # the old policy's pass is timed inside generation: moved there from log-probs
        alone = rl_steps(arch=arch, gpu=gpu, num_gpus=num_gpus, samples=rows["samples"].to_numpy(),
                         prompt_tokens=prompt, response_tokens=response, method=m, fine_tune=fine_tune,
                         **{**given, "run_facts": {**facts, "critic": False, "reference": False,
                                                   "critic_padded_tokens_per_sample": None}})
        old_pass = np.asarray(alone.logprob_hours) * 3600.0
        generation = generation + old_pass
        logprob = np.where(facts.get("reference"), logprob - old_pass, np.nan)
    if exposed:   # the log times the wait for generation, not generation: the part the trainer's passes left
        generation = np.maximum(generation - (np.asarray(hosted.logprob_hours) + np.asarray(hosted.train_hours))
                                * 3600.0 * np.asarray(hosted.separate, dtype=float), 0.0)
    frame = pd.DataFrame({
        "method": m, "step": rows["step"].to_numpy(), "steps_covered": rows["steps_covered"].to_numpy(),
        "rollout_seconds": np.broadcast_to(hosted.rollout_hours * 3600.0, len(rows)),
        "generation_predicted": np.broadcast_to(generation, len(rows)),
        "logprob_predicted": np.broadcast_to(logprob, len(rows)),
        "logprob_seconds": measured_logprob,
        "model_mfu": np.broadcast_to(np.asarray(actor.train_mfu, dtype=float) if calibrated else util,
                                     len(rows)),
        "decode_seconds": np.broadcast_to(hosted.decode_hours * 3600.0, len(rows)),
        "prefill_seconds": np.broadcast_to(hosted.prefill_hours * 3600.0, len(rows)),
        "decode_fixed_seconds": fixed,
        "train_seconds": np.broadcast_to(actor.train_hours * 3600.0, len(rows)),
        "refit_predicted": np.broadcast_to(np.asarray(hosted.refit_hours) * 3600.0
                                           if calibrated and not includes_refit else np.nan, len(rows)),
        "refit_seconds": measured_refit,
        "step_train_seconds": np.broadcast_to(hosted.train_hours * 3600.0, len(rows)),
        "step_seconds_predicted": np.broadcast_to(hosted.wallclock_hours * 3600.0, len(rows)),
        "generation_seconds": rows["generation_seconds"].to_numpy(),
        "training_seconds": rows["training_seconds"].to_numpy(),
        "step_seconds": rows["step_seconds"].to_numpy(), "plain": rows["plain"].to_numpy()})
    return frame, hosted


def _added(parts: list[float]) -> float:
    """The sum of per-chunk sums, in order (a single chunk's sum unchanged)."""
    total = parts[0]
    for part in parts[1:]:
        total += part
    return total


def _weighted(values: pd.Series, weights: pd.Series) -> tuple[float, float, int]:
    """The parts of `measured.weighted_mean` over one chunk: Σ value × weight and Σ weight over the rows with a
    value, and how many rows have one."""
    ok = values.notna()
    return float((values[ok] * weights[ok]).sum()), float(weights[ok].sum()), int(ok.sum())


def _mean(parts: list[tuple[float, float, int]]) -> float:
    """`measured.weighted_mean` over all the chunks from their `_weighted` parts."""
    if not sum(n for _, _, n in parts):
        return math.nan
    return _added([v for v, _, _ in parts]) / _added([w for _, w, _ in parts])


class _PhaseSums:
    """What one method's phase table needs (predicted and measured means per phase), summed chunk by chunk."""

    def __init__(self):
        self.parts: dict[str, list] = {}

    def _put(self, name, value):
        self.parts.setdefault(name, []).append(value)

    def add(self, frame: pd.DataFrame) -> None:
        w = frame["steps_covered"]
        for phase, measured_col, predicted_col in PHASES:
            both = frame[measured_col].notna() & frame[predicted_col].notna()
            self._put((phase, "both"), int(both.sum()))
            self._put((phase, "predicted"), _weighted(frame.loc[both, predicted_col], w[both]))
            self._put((phase, "measured"), _weighted(frame.loc[both, measured_col], w[both]))
            self._put((phase, "steps"), float(w[both].sum()))
        plain = frame["plain"].astype(bool)
        self._put(("plain", "predicted"), _weighted(frame.loc[plain, "step_seconds_predicted"], w[plain]))
        self._put(("plain", "measured"), _weighted(frame.loc[plain, "step_seconds"], w[plain]))
        self._put(("plain", "steps"), float(w[plain].sum()))

    def table(self, method: str, plain_any: bool, plain_all: bool) -> pd.DataFrame:
        out = []
        for phase, _, _ in PHASES:
            if not sum(self.parts[(phase, "both")]):
                out.append({"method": method, "phase": phase, "steps": 0, "predicted_seconds_mean": math.nan,
                            "measured_seconds_mean": math.nan, "signed_error": math.nan})
                continue
            p, m = _mean(self.parts[(phase, "predicted")]), _mean(self.parts[(phase, "measured")])
            out.append({"method": method, "phase": phase, "steps": int(round(_added(self.parts[(phase, "steps")]))),
                        "predicted_seconds_mean": p, "measured_seconds_mean": m, "signed_error": signed_error(p, m)})
        if plain_any and not plain_all:
            p, m = _mean(self.parts[("plain", "predicted")]), _mean(self.parts[("plain", "measured")])
            out.append({"method": method, "phase": "step without validation or checkpoint",
                        "steps": int(round(_added(self.parts[("plain", "steps")]))), "predicted_seconds_mean": p,
                        "measured_seconds_mean": m, "signed_error": signed_error(p, m)})
        return pd.DataFrame(out)


class _FitSums:
    """What the efficiencies that would have matched need (module docstring), summed chunk by chunk over the
    headline method's rows. `plain_any`: some row of the run holds neither validation nor checkpoint time (the
    step MFU is fitted on those rows, else on all); `held`: every one of those rows logs its generation time (the
    rollout is held at it, else at the model's)."""

    def __init__(self, plain_any: bool, held: bool, overlapped: bool = False, exposed: bool = False):
        self.plain_any, self.held = plain_any, held
        self.overlapped, self.exposed = overlapped, exposed   # an asynchronous run; its generation a wait only
        self.parts: dict[str, list] = {}

    def add(self, frame: pd.DataFrame) -> None:
        put = lambda name, value: self.parts.setdefault(name, []).append(value)   # noqa: E731
        w = frame["steps_covered"]
        gen = frame["generation_seconds"].notna()
        put("gen", bool(gen.any()))
        put("fixed", float((frame.loc[gen, "decode_fixed_seconds"] * w[gen]).sum()))
        put("decode", float((frame.loc[gen, "decode_seconds"] * w[gen]).sum()))
        put("generation_predicted", float((frame.loc[gen, "generation_predicted"] * w[gen]).sum()))
        put("generation_seconds", float((frame.loc[gen, "generation_seconds"] * w[gen]).sum()))
        train = frame["training_seconds"].notna() & (frame["training_seconds"] > 0)
        put("train", bool(train.any()))
        put("mfu_seconds", float((frame.loc[train, "model_mfu"] * frame.loc[train, "train_seconds"] * w[train]).sum()))
        put("training_seconds", float((frame.loc[train, "training_seconds"] * w[train]).sum()))
        rows = frame[frame["plain"].astype(bool)] if self.plain_any else frame
        rw = rows["steps_covered"]
        rollout = rows["generation_seconds"] if self.held else rows["rollout_seconds"]
        put("room", float(((rows["step_seconds"] - rollout) * rw).sum()))
        put("step_train", float((rows["step_train_seconds"] * rw).sum()))
        put("steps", float(rw.sum()))

    def fitted(self, eff: float, util: float) -> dict:
        """The rollout efficiency and MFUs at which the model would have matched (module docstring)."""
        total = lambda name: _added(self.parts[name])   # noqa: E731
        notes = []
        rollout_eff = math.nan
        if self.exposed:
            notes.append("the log times the wait for generation, not generation: no rollout efficiency is fitted "
                         "from it")
        elif any(self.parts["gen"]):
            # the predicted generation = decode time that scales as 1 / efficiency + everything else (prompts, the
            # fixed part of each decode step, the calibrated method's per-step overhead and refit)
            fixed = total("fixed")
            decode = total("decode") - fixed
            other = total("generation_predicted") - decode
            room = total("generation_seconds") - other
            if not decode > 1e-9 * max(total("decode"), 1e-30):
                notes.append("the model's decode is compute-bound at this run's batch, or waits on the host's kernel "
                             "launches (an engine without CUDA graphs): its time does not move with the bandwidth "
                             "efficiency, so no rollout efficiency matches")
            elif room > 0:
                rollout_eff = eff * decode / room
            else:
                notes.append("the model's generation time outside decoding (the prompts, each step's fixed cost and, "
                             "where the log's generation holds it, the refit) alone exceeds the measured generation "
                             "time: no rollout efficiency matches")
        phase_mfu = math.nan
        if any(self.parts["train"]):
            phase_mfu = total("mfu_seconds") / total("training_seconds")
        held = "the measured generation time" if self.held else \
            f"the model's rollout at rollout efficiency {eff:g} (the log has no generation time)"
        room = total("room")
        step_mfu = util * total("step_train") / room if room > 0 and not self.overlapped else math.nan
        if self.overlapped:
            notes.append("an asynchronous step overlaps generation and training: no one MFU is fitted to its time")
        elif not room > 0:
            notes.append("the rollout alone takes as long as the measured step: no MFU matches the step time")
        basis = {"rollout_efficiency": "decode time at the default efficiency × default / (measured generation − the "
                                       "model's prompt processing), summed over steps",
                 "phase_mfu": "the model's training time at the default MFU × default / measured actor-update time",
                 "step_mfu": f"the MFU at which rollout + training equals the measured step on "
                             f"{'steps without validation or checkpoint time' if self.plain_any else 'all steps'}, "
                             f"the rollout held at {held}"}
        for name, value in (("rollout_efficiency", rollout_eff), ("step_mfu", step_mfu)):
            if math.isfinite(value) and value > 1:
                notes.append(f"the fitted {name.replace('_', ' ')} is {value:.2f}, above 1: the run was faster than "
                             f"the model allows at full utilization, so the model's cost of that phase is too high")
        return {"rollout_efficiency": rollout_eff, "phase_mfu": phase_mfu, "step_mfu": step_mfu, "basis": basis,
                "steps": int(round(total("steps"))), "notes": notes}
