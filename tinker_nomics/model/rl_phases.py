"""One RL step on your own GPUs, phase by phase, as the RL frameworks log it (verl's timing_s/gen, old_log_prob,
ref, values, update_actor, update_critic; NeMo RL's generation, logprobs, policy training, refit).

A colocated job on `num_gpus` GPUs (training and generation take turns on the same GPUs) runs, each step:

  generation  the rollout engine: replicas of the smallest power-of-two group of GPUs that holds the weights and
              one full sequence in the rollout engine's share of memory (the trainer's share offloaded when that
              is too little), each decoding at most max_num_seqs sequences and what its KV cache holds. With
              continuous batching a replica decodes its T = samples × mean response tokens in
                  n = max(R_max, T / batch + R_max − R)  steps at the mean active batch T / n
              (R: the mean response, R_max: the longest; one wave drains over R_max steps, more waves add the
              drain to the steady state), each step as model/decode.py costs it plus the host-side work the RL
              frameworks' rollout adds per sequence in the batch (fitted on the RL timings: they drive older
              engines, often without CUDA graphs, than the serving benchmarks measure), plus the prompts' prefill
              and a fixed cost per RL step (engine wake-up, cache set-up, hand-offs);
  log-prob    one forward pass over every sequence per model that scores it: the old policy, the reference
              model (KL), the critic's values (PPO);
  update      the actor's forward and backward (6 N per token in full, 4 N with LoRA's frozen base, attention
              added), the critic's too under PPO; each optimizer step exchanges the sharded parameters and
              gradients (8 bytes per parameter over the slowest link of the group);
  refit       the new weights handed to the rollout engine: each GPU receives its replica's shard over the link,
              and each weight tensor costs a fixed hand-off time (gathered, packed and loaded one by one: a
              fine-grained mixture of experts holds tens of thousands of them);
  other       a fixed cost per step (rewards, advantages, data).

A pass through the trainer costs a fixed overhead per micro-batch (each GPU's share of the tokens split at verl's
token budget per micro-batch, or its sequences at a fixed micro-batch size) plus its FLOPs at the
training GEMM efficiency plus the memory traffic that comes with them (FLOPs over a fitted intensity, at the HBM
bandwidth: the achieved utilisation falls with the GPU's peak-to-bandwidth ratio), activations recomputed in the
backward pass as verl's and NeMo RL's recipes do;
mixture-of-experts models reach a share of it (each expert's GEMMs see only the tokens routed to it) and add their
all-to-all (each token to k experts and back). A LoRA adapter adds its own reads and writes of its layers'
activations to the passes that run it, and an engine serving it unmerged decodes at the measured share of the base
model's speed.

On-policy (k = 0) the phases follow each other. With k ≥ 1 the frameworks run generation and the trainer on
separate GPUs (NeMo RL's async GRPO turns colocation off; its performance recipes and verl's fully-async table give
the rollout half the GPUs): the rollout engine decodes on its share, the trainer trains on the rest, and the step
is the longer of the two plus the refit and the rest. The job stays colocated, its phases taking turns whatever k
is, where the GPUs cannot be split so that each side holds its part, or where taking turns on all of them is faster
(a trainer-heavy step on half the GPUs): `phase_seconds` keeps the faster of the two layouts.

`RLFeatures` holds what does not depend on the fitted parameters; `phase_seconds(features, parameters)` combines
them, so the fit (analysis/calibration.py) and every prediction run one arithmetic. Everything broadcasts.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..sources.defaults import assumption, number
from ..sources.hardware import GpuSpecs, cpu_adam_seconds_per_param, host_copy_shares
from ..sources.lora_serving import lora_decode_speed_share
from ..sources.model_record import ModelArch
from . import decode, lora, roofline, training

PHASES = ("generation", "logprob", "training", "refit", "other")


@dataclass(frozen=True)
class Terms:
    """Which terms of the one phase model a method switches on (the methods differ only here and in their
    parameters: model/selfhosted.py builds both from a method's name).

    plan        "engine": replicas of the smallest power-of-two group that holds the weights and one sequence in the
                rollout engine's share of memory, capped at max_num_seqs and the KV cache, continuous batching with
                the drain of the longest responses (calibrated); "rule": the seed's memory rules — 2 (LoRA) or 3
                (full) weight copies × 1.8 on at least two GPUs, one engine copy per whole number of GPUs that holds
                its weights × 1.8, every sequence at once (seed) or as many as the KV memory left after 2.4 × the
                weights holds (exact), no drain
    attention   attention FLOPs in decode, prefill and training (exact, calibrated; not the seed)
    allreduce   tensor-parallel all-reduces in a decode step (calibrated)
    prefill     "engine": the prompts on each replica at the decode compute efficiency (calibrated); "all_gpus":
                the prompts' 2 N FLOPs over every GPU at the prefill MFU (exact); "multi_turn_only": the same, for
                agentic multi-turn rollouts only (the seed)
    training    "phases": recomputed activations, attention forward and backward, micro-batches, optimizer-step
                exchange and all-to-all (calibrated); "plain": 4 N (LoRA) or 6 N (full) per token plus the attention's
                backward (exact) or without it (the seed), at an MFU
    passes      log-prob passes, refit and the fixed per-step cost (calibrated only)
    peak        whose BF16 peak: "exact" the datasheet's, "seed" the seed's rounded figure
    tiles       a decode GEMM costs at least the rows of its tensor-core instruction (decode.gemm_rows; calibrated
                only)
    ceiling     GEMMs at the vendor's measured max-achievable FLOP/s where it publishes one (decode.gemm_ceiling):
                the rollout's decode and prefill run against it, the trainer's GEMM efficiency is scaled by its
                share of the peak (calibrated only; a user's MFU stays a share of the datasheet peak)
    kv_copies   an engine larger than the key/value heads holds and reads each head on several GPUs, a latent
                attention's latent on every one (decode.kv_copies; calibrated only)
    """
    plan: str = "engine"
    cap_by_kv: bool = True
    attention: bool = True
    allreduce: bool = True
    prefill: str = "engine"
    training: str = "phases"
    passes: bool = True
    peak: str = "exact"
    ceiling: bool = True
    tiles: bool = True
    kv_copies: bool = True


CALIBRATED = Terms()
EXACT = Terms(plan="rule", cap_by_kv=True, attention=True, allreduce=False, prefill="all_gpus", training="plain",
              passes=False, ceiling=False, tiles=False, kv_copies=False)
SEED = Terms(plan="rule", cap_by_kv=False, attention=False, allreduce=False, prefill="multi_turn_only",
             training="plain", passes=False, peak="seed", ceiling=False, tiles=False, kv_copies=False)
TERMS = {"calibrated": CALIBRATED, "exact": EXACT, "seed": SEED}


@dataclass(frozen=True)
class RLFeatures:
    """One RL step reduced to what does not depend on the fitted parameters (seconds at efficiency 1, counts)."""
    # generation
    tensor_parallel: np.ndarray
    replicas: np.ndarray
    concurrency: np.ndarray          # sequences decoded at once, all replicas (the batch that fits)
    waves: np.ndarray                # rounds of the batch a replica's samples need
    feasible: np.ndarray             # the requested GPUs hold the trainer and one engine replica
    fitting_gpus: np.ndarray         # the smallest GPU count that does
    decode_steps: np.ndarray         # decode steps per replica per RL step
    decode: decode.DecodeFeatures    # one step at the mean active batch
    prefill_units: np.ndarray        # the prompts, seconds at compute efficiency 1
    # trainer
    logprob_passes: np.ndarray
    forward_gemm_units: np.ndarray   # one forward pass over the step's tokens, seconds at GEMM efficiency 1
    ridge: np.ndarray                # the GPU's dense BF16 peak over its HBM bandwidth (FLOPs per byte)
    gemm_share: np.ndarray           # the GEMM ceiling over the datasheet peak (1 without a measured ceiling)
    update_gemm_units: np.ndarray    # the update's FLOPs (actor, and critic under PPO), seconds at efficiency 1
    moe: np.ndarray                  # a mixture-of-experts model: its GEMMs at the mixture-of-experts efficiency
    update_passes: np.ndarray        # forward-pass equivalents of the update (all-to-all multiple)
    optimizer_steps: np.ndarray      # per model trained
    micro_batches: np.ndarray        # per GPU in one log-prob pass over the step's tokens
    update_micro_batches: np.ndarray # per GPU in the update (at least one per optimizer step), per model
    exchange_seconds: np.ndarray     # sharded parameter and gradient exchange over the steps (physics only)
    alltoall_seconds: np.ndarray     # one forward pass's mixture-of-experts dispatch and combine (physics only)
    refit_seconds: np.ndarray        # weights to the rollout engine (physics only)
    off_policy: np.ndarray
    gpus_used: np.ndarray            # the GPUs the step runs on: those asked for, or the smallest count that fits
    separate: np.ndarray             # generation and the trainer on separate GPUs, overlapping (k >= 1)
    trainer_gpus: np.ndarray         # the GPUs the trainer's passes run on (all of them when colocated)
    trained_models: np.ndarray       # models the update trains: the actor, and the critic under PPO
    colocated: "RLFeatures | None" = None   # k >= 1 split: the same step colocated, its phases taking turns
    prefill_wire: np.ndarray = 0.0  # the prompts' tensor-parallel all-reduces on the wire, per replica (physics only)
    rollout_rounds: np.ndarray = 1.0  # generation rounds per step, each of the features' sequences (dynamic sampling)
    # CPU offload (verl's param_offload, optimizer_offload): the shards' trips to the host and back in each phase
    offload_logprob_seconds: np.ndarray = 0.0
    offload_update_seconds: np.ndarray = 0.0
    offload_refit_seconds: np.ndarray = 0.0
    # FP8 training (Transformer Engine): the weights' GEMMs at the FP8 ceiling, attention and memory traffic as before
    train_compute_scale: np.ndarray = 1.0
    # LoRA: the adapter's own reads and writes of its layers' activations in the passes that run it, seconds at
    # bandwidth efficiency 1 (the old policy's log-prob pass; the update), and the rollout engine's time with the
    # adapter unmerged over its time without (sources.lora_serving; 1 for full fine-tuning or a merged adapter)
    adapter_logprob_seconds: np.ndarray = 0.0
    adapter_update_seconds: np.ndarray = 0.0
    lora_generation_scale: np.ndarray = 1.0


def rl_features(arch: ModelArch, gpus: GpuSpecs, num_gpus, samples, prompt_tokens, response_tokens,
                response_max_tokens=None, **options) -> RLFeatures:
    """`_features` of the step; where an off-policy step splits its GPUs, with the colocated layout beside it
    (`RLFeatures.colocated`) for `phase_seconds` to keep the faster."""
    shared = {}   # what no layout changes (the tokens' FLOPs and cache bytes): the second layout reuses it
    f = _features(arch, gpus, num_gpus, samples, prompt_tokens, response_tokens, response_max_tokens, shared,
                  **options)
    if np.any(f.separate) and options.get("terms", CALIBRATED).plan == "engine" \
            and options.get("rollout_gpus") is None:   # a run's own split is its layout: no alternative to weigh
        together = _features(arch, gpus, num_gpus, samples, prompt_tokens, response_tokens, response_max_tokens,
                             shared, **{**options, "off_policy": 0.0})
        f = dataclasses.replace(f, colocated=together)
    return f


def _features(arch: ModelArch, gpus: GpuSpecs, num_gpus, samples, prompt_tokens, response_tokens,
              response_max_tokens=None, shared: dict | None = None, *, fine_tune: str = "full",
              critic: bool = False, reference: bool = True,
              optimizer_steps=None, off_policy=0.0, response_max_over_mean=None, rollout_tensor_parallel=None,
              rollout_memory_fraction=None, trained_tokens_per_sample=None, micro_batch_tokens=None,
              micro_batch_samples=None, recompute: bool = True, precision: str = "bf16",
              kv_precision: str = "bf16", terms: Terms = CALIBRATED, decode_context=None, kv_context=None,
              concurrency=None, multi_turn=False, compact_plan: bool = False, padded_tokens_per_sample=None,
              critic_padded_tokens_per_sample=None, update_epochs=None, rollout_eager=False,
              logprob_micro_batch_tokens=None, logprob_micro_batch_samples=None,
              reference_micro_batch_tokens=None, reference_micro_batch_samples=None,
              values_micro_batch_tokens=None, values_micro_batch_samples=None,
              critic_micro_batch_tokens=None, critic_micro_batch_samples=None, rollout_samples=None,
              rollout_rounds=None, max_num_seqs=None, param_offload=False, optimizer_offload=False,
              critic_param_offload=False, critic_optimizer_offload=False, train_precision="bf16",
              rollout_gpus=None, old_logprob_pass=True, lora_merged=False, cpu_optimizer=False) -> RLFeatures:
    """Reduce one RL step to features: `samples` sequences of `prompt_tokens` (the prompt tokens each processes,
    every turn's re-prefill included) and `response_tokens` on average (the longest response `response_max_tokens`,
    default `response_max_over_mean` × the mean) on `num_gpus` GPUs. `decode_context` is a sequence's mean context
    while it decodes (default prompt + half the response) and `kv_context` the length its cache reaches (default
    prompt + the longest response); `concurrency` the sequences a step starts at once (default all its samples).
    `rollout_tensor_parallel` and `rollout_memory_fraction` are the run's own engine settings where known;
    `trained_tokens_per_sample` the tokens each sample trains on (default prompt + response); the trainer splits
    each GPU's share into micro-batches of at most `micro_batch_tokens` tokens (verl's dynamic batch size; the
    default) or of `micro_batch_samples` sequences. `padded_tokens_per_sample` (and `critic_...` for the critic) is
    the length a trainer pads each sequence to where it does not remove padding (verl's use_remove_padding off:
    the prompt and response caps, max_prompt_length + max_response_length): the pass multiplies every padded
    position through the weights, while its attention (FlashAttention, which drops the padding) and its
    micro-batches (counted in real tokens) stay at the real lengths. `update_epochs` is the passes the update makes
    over the step's batch (verl's ppo_epochs; default 1): each repeats its FLOPs and micro-batches (`optimizer_steps`
    counts every epoch's steps already). The log-prob passes split the batch their own way where the run says:
    `logprob_micro_batch_*` the old policy's pass (verl's rollout.log_prob_*), `reference_micro_batch_*` the
    reference model's (ref.log_prob_*), `values_micro_batch_*` the critic's values pass (critic.forward_*); each
    unset one takes the old policy's, and that the update's; `critic_micro_batch_*` the critic's update
    (critic.ppo_max_token_len_per_gpu, ppo_micro_batch_size_per_gpu; default: the actor's). `terms` names the
    method's terms (Terms).
    `rollout_samples` and `rollout_rounds` are for a step that generates more than it trains (DAPO's dynamic
    sampling, verl's algorithm.filter_groups: groups whose rewards all agree are dropped and the engine generates
    again until `samples` are kept): each of `rollout_rounds` rounds (verl's train/num_gen_batches) generates
    `rollout_samples` sequences (data.gen_batch_size × rollout.n) as a generation call of its own, with its own
    drain and fixed cost; the trainer's passes see `samples`. Default: one round of `samples`. `max_num_seqs` is the
    rollout engine's cap on sequences decoded at once (verl's rollout.max_num_seqs; default its 1024).
    `param_offload` and `optimizer_offload` (verl's actor fsdp_config; `critic_...` the critic's) keep the trainer's
    weights and Adam's moments in host memory between phases (`_offload_seconds`). `train_precision` fp8 runs the
    trainer's weight GEMMs (the update's and the log-prob passes') in FP8 (Transformer Engine's recipes, as NeMo RL's
    and verl's Megatron trainers do): at the GPU's FP8 ceiling, while attention and the memory traffic stay as in BF16
    (`_train_compute_scale`). `rollout_gpus` is an off-policy run's own split (verl's one-step-off and fully-async
    recipes, NeMo RL's async GRPO, OpenRLHF's async trainer): the engine generates on that many of the GPUs and the
    trainer trains on the rest, in place of the `off_policy_rollout_share` the model assumes and of weighing the
    colocated layout beside it; on-policy, generation on those GPUs and then training on the rest (NeMo RL with
    colocated inference off, synchronous). `old_logprob_pass` False: the step takes the old policy's log-probs from the
    rollout engine instead of recomputing them (verl's rollout_correction.bypass_mode, its fully-async recipe's
    use_rollout_log_probs), so its log-prob passes are the reference's and the critic's alone.
    With LoRA (the calibrated method), the adapter's passes move its layers' activations on top of the base model's
    work (`_adapter_seconds`), and the rollout engine decodes with the adapter unmerged, as verl serves it by
    default, at the measured share of the base model's speed (sources.lora_serving); `lora_merged` (verl's
    actor_rollout_ref.model.lora.merge) hands the engine merged weights instead, at the base model's speed.
    `cpu_optimizer` keeps the actor's weights, gradients and Adam's moments in host memory and steps Adam on the CPU
    (FSDP2's CPUOffloadPolicy, verl's actor fsdp_config.offload_policy; `_cpu_optimizer_seconds`).
    `shared` holds what
    does not depend on the layout, filled by the first layout computed and read by the next (rl_features).

    `compact_plan`: where the engine's GPU counts come out the same for every scenario (the usual sweep over token
    counts), keep them as one number, so that what follows from them alone (tensor parallelism, replicas, the GPUs
    used, the exchange and the refit) is computed once, not once per scenario; features then have the smallest
    shape their values need, and the caller broadcasts them (phase_cost does)."""
    n = np.asarray(num_gpus, dtype=float)
    old = 1.0 if old_logprob_pass else 0.0   # the old policy's own log-prob pass (off: the engine's log-probs)
    s = np.asarray(samples, dtype=float)
    g = s if rollout_samples is None else np.asarray(rollout_samples, dtype=float)   # sequences a round generates
    p = np.asarray(prompt_tokens, dtype=float)
    r = np.asarray(response_tokens, dtype=float)
    if response_max_tokens is not None:
        r_max = np.maximum(np.asarray(response_max_tokens, dtype=float), r)
    elif terms.plan == "engine":
        r_max = r * np.asarray(1.0 if response_max_over_mean is None else response_max_over_mean, dtype=float)
    else:
        r_max = r
    context = p + r / 2.0 if decode_context is None else np.asarray(decode_context, dtype=float)
    full = p + r_max if kv_context is None else np.asarray(kv_context, dtype=float)
    peak = gpus.peak_flops(terms.peak)
    shared = {} if shared is None else shared

    def once(name, compute):
        if name not in shared:
            shared[name] = compute()
        return shared[name]

    kv_per_sequence = once("kv_context", lambda: decode.kv_bytes(arch, context, kv_precision))
    if terms.plan == "engine":
        plan = _engine_plan(arch, gpus, n, g, full, context, fine_tune, rollout_tensor_parallel,
                            rollout_memory_fraction, precision, kv_precision, off_policy, compact_plan, once,
                            kv_per_sequence, max_num_seqs, split=rollout_gpus)
    else:
        plan = _rule_plan(arch, gpus, n, g if concurrency is None else concurrency, full, fine_tune, terms)
        plan = (*plan, np.asarray(off_policy, dtype=float) > 0, plan[3], 1.0)   # the seed's overlap, same GPUs
    tp, replicas, batch, gpus_used, fitting, feasible, separate, trainer_gpus, ahead = plan
    per_replica = g / replicas
    tokens = per_replica * r
    if terms.plan == "engine":   # continuous batching: the steady state, then the drain of the longest responses;
        # an engine on its own GPUs works up to k steps ahead, so the next batches fill the drain and a response
        # may span k steps
        steps, active = decode.drain_steps(tokens, batch, r, r_max)
        if np.any(separate):
            steps = np.where(separate, np.maximum(tokens / batch, r_max / ahead), steps)
            active = np.maximum(tokens / np.maximum(steps, 1.0), 1.0)
        waves = np.ceil(per_replica / batch - 1e-9)
    else:                        # every sequence in flight decodes its tokens at the batch that fits
        steps = tokens / batch
        active = batch
        waves = np.ceil(np.asarray(g if concurrency is None else concurrency, dtype=float)
                        / np.maximum(batch * replicas, 1.0) - 1e-9)
    step = decode.decode_features(arch, gpus, tp, active, context, precision, kv_precision,
                                  attention=terms.attention, allreduce=terms.allreduce,
                                  peak=decode.gemm_ceiling(gpus, precision) if terms.ceiling else peak,
                                  min_batch=1.0 if terms.plan == "engine" else 0.0, kv_per_sequence=kv_per_sequence,
                                  flops_per_token=once("decode_flops",
                                                       lambda: decode.token_flops(arch, context, terms.attention)),
                                  tiles=terms.tiles, eager=rollout_eager, kv_copies=terms.kv_copies)
    prefill_wire = 0.0
    if terms.prefill == "engine":   # each replica's prompts at the compute efficiency 1 (a fitted parameter divides)
        prefill = once("prefill_flops", lambda: decode.prefill_flops(arch, p, g)) \
            / (replicas * tp * decode.gemm_ceiling(gpus, precision))
        if terms.allreduce:
            prefill_wire = decode.allreduce_wire_seconds(arch, gpus, tp, g * p / replicas)
    else:   # the prompts' forward FLOPs (no attention) spread over every GPU
        prefill = g * p * number("forward_flops_per_param") * decode.forward_params(arch) / (gpus_used * peak)
        if terms.prefill == "multi_turn_only":
            prefill = np.where(np.asarray(multi_turn), prefill, 0.0)

    # ---- trainer: passes over every sequence's tokens
    seq = p + r
    trained = s * (seq if trained_tokens_per_sample is None else np.asarray(trained_tokens_per_sample, dtype=float))
    models = 2.0 if critic else 1.0
    attention = once("sequence_attention", lambda: roofline.attention_flops_per_token(arch, seq / 2.0))
    if terms.training == "plain":
        per_token = once("plain_update_flops", lambda: training.flops_per_param_per_token(fine_tune)
                         * decode.forward_params(arch)
                         + (3.0 * roofline.attention_flops_per_token(arch, context) if terms.attention else 0.0))
    else:   # the critic trains in full whatever the actor does
        per_token = once("update_flops", lambda: _update_flops_per_token(arch, fine_tune, attention, recompute)
                         + (_update_flops_per_token(arch, "full", attention, recompute) if critic else 0.0))
    update_units = trained * per_token / (trainer_gpus * peak)
    forward_units = trained * (number("forward_flops_per_param") * decode.forward_params(arch) + attention) \
        / (trainer_gpus * peak)
    if padded_tokens_per_sample is not None or critic_padded_tokens_per_sample is not None:
        # the padding's weight FLOPs on top: (padded - real) positions per sample through each padded model
        real = seq if trained_tokens_per_sample is None else np.asarray(trained_tokens_per_sample, dtype=float)
        forward = number("forward_flops_per_param") * decode.forward_params(arch)

        def extra(padded):
            return 0.0 if padded is None else s * np.maximum(np.asarray(padded, dtype=float) - real, 0.0)

        actor_pad, critic_pad = extra(padded_tokens_per_sample), extra(critic_padded_tokens_per_sample)
        if terms.training == "phases":
            gemm = (training.flops_per_param_per_token(fine_tune)
                    + (number("forward_flops_per_param") if recompute else 0.0)) * decode.forward_params(arch)
            critic_gemm = (training.flops_per_param_per_token("full")
                           + (number("forward_flops_per_param") if recompute else 0.0)) * decode.forward_params(arch)
            update_units = update_units + (actor_pad * gemm + (critic_pad * critic_gemm if critic else 0.0)) \
                / (trainer_gpus * peak)
        # the log-prob passes (old policy, reference: the actor's padding; values: the critic's), as one pass's mean
        actor_passes = old + (1.0 if reference else 0.0)
        forward_units = forward_units + forward * (actor_passes * actor_pad + (critic_pad if critic else 0.0)) \
            / max(actor_passes + (1.0 if critic else 0.0), 1.0) / (trainer_gpus * peak)
    epochs = 1.0 if update_epochs is None else np.asarray(update_epochs, dtype=float)
    if update_epochs is not None:
        update_units = update_units * epochs
    # the default mini-batches, no more than the samples (a mini-batch holds at least one)
    opt = np.minimum(number("rl_optimizer_steps"), s) if optimizer_steps is None \
        else np.asarray(optimizer_steps, dtype=float)
    def micro_batches(samples_each, tokens_each):
        """Micro-batches per GPU in one pass over the step's sequences: of `samples_each` sequences, or of at most
        `tokens_each` tokens (the default budget where neither is given)."""
        if samples_each is not None:
            count = np.ceil(s / trainer_gpus / np.asarray(samples_each, dtype=float) - 1e-9)
        else:
            size = number("micro_batch_tokens") if tokens_each is None else tokens_each
            count = np.ceil(trained / trainer_gpus / np.asarray(size, dtype=float) - 1e-9)
        return np.maximum(count, 1.0)

    micro = micro_batches(micro_batch_samples, micro_batch_tokens)
    # the log-prob passes' own micro-batches where the run sets them (verl's rollout.log_prob_*, ref.log_prob_*,
    # critic.forward_*), else the old policy's, and that the update's; the features hold their mean over the passes
    def own(samples_each, tokens_each, default):
        return default if samples_each is None and tokens_each is None else micro_batches(samples_each, tokens_each)
    old_micro = own(logprob_micro_batch_samples, logprob_micro_batch_tokens, micro)
    logprob_micro = (old * old_micro
                     + (own(reference_micro_batch_samples, reference_micro_batch_tokens, old_micro) if reference else 0.0)
                     + (own(values_micro_batch_samples, values_micro_batch_tokens, old_micro) if critic else 0.0)) \
        / max(old + (1.0 if reference else 0.0) + (1.0 if critic else 0.0), 1.0)
    update_micro = np.maximum(micro * epochs, opt)   # every optimizer step runs at least one micro-batch
    actor_update_micro = update_micro
    if critic and (critic_micro_batch_samples is not None or critic_micro_batch_tokens is not None):
        # the critic's update at its own size: the features hold the mean over the two models' updates
        critic_micro = micro_batches(critic_micro_batch_samples, critic_micro_batch_tokens)
        update_micro = (update_micro + np.maximum(critic_micro * epochs, opt)) / 2.0
    if terms.passes:
        passes = old + (1.0 if reference else 0.0) + (1.0 if critic else 0.0)
        exchange = models * opt * _exchange_seconds(arch, gpus, trainer_gpus)
        alltoall = _alltoall_seconds(arch, trained, trainer_gpus, _slowest_link(gpus, trainer_gpus, collective=True))
        # each rollout GPU receives its shard: inside its group colocated, across the whole job when separate
        refit = float(arch.total_params) * decode.PRECISION_BYTES["bf16"] / tp \
            / _slowest_link(gpus, np.where(separate, gpus_used, tp)) \
            + weight_tensors(arch) * refit_seconds_per_tensor()
    else:
        passes = exchange = alltoall = refit = 0.0
    offload = _offload_seconds(arch, gpus, trainer_gpus, fine_tune, reference, critic, param_offload,
                               optimizer_offload, critic_param_offload, critic_optimizer_offload)
    if cpu_optimizer and terms.training == "phases":
        host = _cpu_optimizer_seconds(arch, gpus, trainer_gpus, fine_tune, old * old_micro
                                      + (own(reference_micro_batch_samples, reference_micro_batch_tokens, old_micro)
                                         if fine_tune == "lora" and reference else 0.0),
                                      actor_update_micro, opt)
        offload = tuple(a + b for a, b in zip(offload, host))
    adapter = (0.0, 0.0)
    lora_generation = 1.0
    if fine_tune == "lora" and terms.training == "phases":
        adapter = _adapter_seconds(arch, gpus, trained / trainer_gpus * old, trained * epochs / trainer_gpus,
                                   recompute)
        if not lora_merged:
            lora_generation = 1.0 / lora_decode_speed_share()
    # Kept at their own shapes (NumPy broadcasts them where they meet): a scalar stays a scalar, which keeps a
    # sweep over a million scenarios from repeating constant arithmetic a million times.
    def a(x):
        return np.asarray(x, dtype=float)

    # sequences at once: never more than the step has (a replica left without a sample of its own decodes none)
    in_flight = np.minimum(batch * replicas, np.maximum(g * ahead, 1.0))
    return RLFeatures(a(tp), a(replicas), a(in_flight), a(waves), np.asarray(feasible), a(fitting), a(steps),
                      step, a(prefill), a(passes), a(forward_units), a(gpus.bf16_flops / gpus.bandwidth_bytes_per_s),
                      a(gpus.gemm_bf16_flops / gpus.bf16_flops if terms.ceiling else 1.0),
                      a(update_units), np.asarray(bool(arch.is_moe)), a((3.0 if recompute else 2.0) * models),
                      a(models * opt), a(logprob_micro), a(update_micro), a(exchange), a(alltoall), a(refit),
                      a(off_policy), a(gpus_used), np.asarray(separate), a(trainer_gpus), a(models),
                      prefill_wire=a(prefill_wire),
                      rollout_rounds=a(1.0 if rollout_rounds is None else rollout_rounds),
                      offload_logprob_seconds=a(offload[0]), offload_update_seconds=a(offload[1]),
                      offload_refit_seconds=a(offload[2]),
                      train_compute_scale=a(_train_compute_scale(arch, gpus, fine_tune, attention, recompute,
                                                                 train_precision)),
                      adapter_logprob_seconds=a(adapter[0]), adapter_update_seconds=a(adapter[1]),
                      lora_generation_scale=a(lora_generation))


def _engine_plan(arch, gpus, n, s, full, context, fine_tune, rollout_tensor_parallel, rollout_memory_fraction,
                 precision, kv_precision, off_policy, compact, once, kv_per_sequence, max_num_seqs=None,
                 split=None):
    """The calibrated method's engine: (tp, replicas, batch per replica, GPUs used, fitting, feasible, separate,
    trainer GPUs, steps the engine may work ahead). Colocated, the engine shares every GPU with the trainer in its
    share of memory; off-policy (k >= 1), the engine runs alone on `off_policy_rollout_share` of the GPUs (a serving
    engine's share of their memory) and the trainer on the rest, where each side holds its part. `compact`: the GPU
    counts as one number where they are the same for every scenario. `split`: the run's own rollout GPUs, kept
    whatever the memory rule says (the run held it), the engine's size at most its side; on-policy, the two sides take
    turns (generation on its GPUs, then training on the rest).
    `once(name, compute)` keeps what no layout changes for the next layout (_features); `kv_per_sequence` is a sequence's cache at `context`."""
    shared = np.asarray(number("rollout_memory_fraction") if rollout_memory_fraction is None
                        else rollout_memory_fraction, dtype=float)
    alone = number("engine_memory_fraction")

    seqs = number("rollout_max_num_seqs") if max_num_seqs is None else np.asarray(max_num_seqs, dtype=float)

    def needs():
        held = decode.replica_memory(arch, gpus, full, precision, kv_precision)
        need_shared = decode.smallest_replica(arch, gpus, full, shared, precision, kv_precision, seqs, held)
        need_alone = decode.smallest_replica(arch, gpus, full, alone, precision, kv_precision, seqs, held)
        return (_one_if_same(need_shared), _one_if_same(need_alone)) if compact else (need_shared, need_alone)

    need_shared, need_alone = once("engine_needs", needs)
    trainer_need = trainer_alone_gpus(arch, gpus, fine_tune)
    given = None if rollout_tensor_parallel is None else np.asarray(rollout_tensor_parallel, dtype=float)
    if given is None:
        # only layouts a given size would be allowed (decode.layout_allowed): an engine size of at least what holds
        # the model that splits the heads evenly and fills the GPUs with whole engine copies. The smallest count
        # that can is the least multiple of such a size that also holds the trainer; the GPUs asked for hold the
        # job where some such size divides them.
        # (a count below need_shared runs the engine at a serving share, need_alone; at or above, at the shared one)
        need_n = np.where(need_shared <= n, need_shared, need_alone)
        fits_n = (n >= trainer_need) & np.isfinite(decode.smallest_layout(arch, need_n, n))
        at_shared = decode.smallest_layout_count(arch, need_shared, np.maximum(need_shared, trainer_need))
        at_alone = decode.smallest_layout_count(arch, need_alone, np.maximum(need_alone, trainer_need))
        fitting = np.fmin(at_shared, np.where(at_alone < need_shared, at_alone, np.nan))
        if not np.all(np.isfinite(fitting)):   # no size that splits the heads holds the model: the engine spreads
            # over the power of two that does, as before (predict_rl_step refuses this; a planner keeps its option)
            spread = np.maximum(need_n, trainer_need)
            fits_n = np.where(np.isfinite(fitting), fits_n, n >= spread)
            fitting = np.where(np.isfinite(fitting), fitting, spread)
        feasible = fits_n
        gpus_used = np.where(fits_n, n, fitting)
        # the engine on the GPUs the step runs on: a count raised to the smallest that fits plans as if asked for
        need = np.where(need_shared <= gpus_used, need_shared, need_alone)
        top = np.power(2.0, np.floor(np.log2(np.maximum(gpus_used, 1.0))))
        smallest = decode.smallest_layout(arch, need, gpus_used)
        smallest = np.where(np.isfinite(smallest), smallest, np.minimum(need, top))
        tp = _engine_size(arch, gpus, smallest, np.maximum(top, smallest), gpus_used, s, need_shared, shared, alone,
                          precision, kv_precision, kv_per_sequence, seqs, compact)
        if compact:
            tp = _one_if_same(tp)
            fitting, gpus_used, feasible = _one_if_same(fitting), _one_if_same(gpus_used), _one_if_same(feasible)
    else:   # the run's own engine size: the engine takes a serving engine's share where the shared one is too small
        fitting = np.maximum(np.maximum(need_alone, trainer_need), given)
        gpus_used = np.maximum(n, fitting)
        feasible = fitting <= n
        tp = np.minimum(np.maximum(given, need_alone), gpus_used)
    fraction = np.where(need_shared <= tp, shared, alone)
    rollout_gpus = trainer_gpus = gpus_used
    separate = np.asarray(False)
    ahead = np.asarray(1.0)
    off = np.asarray(off_policy, dtype=float) > 0
    if split is not None:   # the run's split: the engine on its GPUs, the trainer on the rest, overlapping when
        # off-policy and taking turns when not (a synchronous run whose engine has GPUs of its own)
        rollout_side = np.minimum(np.asarray(split, dtype=float), gpus_used - 1.0)
        own = rollout_side >= 1.0
        largest = np.power(2.0, np.floor(np.log2(np.maximum(rollout_side, 1.0))))
        split_tp = np.minimum(need_alone if given is None else given, largest)
        tp = np.where(own, split_tp, tp)
        fraction = np.where(own, alone, fraction)
        rollout_gpus = np.where(own, rollout_side, gpus_used)
        trainer_gpus = np.where(own, gpus_used - rollout_side, gpus_used)
        separate = off & own
        ahead = np.where(separate, np.maximum(np.asarray(off_policy, dtype=float), 1.0), 1.0)
    elif np.any(off):   # split where both sides hold their part; colocated (taking turns) elsewhere
        split_tp = need_alone if given is None else np.maximum(given, need_alone)
        rollout_side = np.floor(gpus_used * number("off_policy_rollout_share"))
        trainer_side = gpus_used - rollout_side
        separate = off & (rollout_side >= split_tp) & (trainer_side >= trainer_alone_gpus(arch, gpus, fine_tune))
        tp = np.where(separate, split_tp, tp)
        fraction = np.where(separate, alone, fraction)
        rollout_gpus = np.where(separate, rollout_side, gpus_used)
        trainer_gpus = np.where(separate, trainer_side, gpus_used)
        ahead = np.where(separate, np.maximum(np.asarray(off_policy, dtype=float), 1.0), 1.0)
    replicas = np.maximum(np.floor(rollout_gpus / tp), 1.0)
    cap = np.maximum(decode.kv_capacity(arch, gpus, tp, context, fraction, precision, kv_precision,
                                        kv_per_sequence, seqs), 1.0)
    batch = np.maximum(np.minimum(np.minimum(ahead * s / replicas, cap), seqs), 1.0)
    return tp, replicas, batch, gpus_used, fitting, feasible, separate, trainer_gpus, ahead


def _engine_size(arch, gpus, smallest, top, gpus_used, s, need_shared, shared, alone, precision,
                 kv_precision, kv_per_sequence, seqs, compact=False):
    """The rollout engine's tensor parallelism where the run does not give it: from the smallest size that holds the
    model, doubled while each GPU's KV cache is smaller than the weights it holds and the engine cannot yet hold its
    share of the step's sequences at once (vLLM's own advice on a cache too small: "increase tensor_parallel_size.
    This shards model weights across GPUs, allowing each GPU to have more memory available for KV cache", docs,
    Optimization and Tuning). A step reads each GPU's weights once for its whole batch, so while they outweigh the
    cache a larger engine both halves that read and more than doubles the batch it can hold; past that, or once
    every sequence fits, a larger engine only adds all-reduces. At most the largest power of two of the GPUs.
    `compact` (a planner's options × its Monte-Carlo draws along the last axis): a run sets its engine once, so each
    option's size is decided on its draws' mean sequence and batch, not draw by draw."""
    tp = np.asarray(smallest, dtype=float)
    kv_per_sequence, s = np.asarray(kv_per_sequence, dtype=float), np.asarray(s, dtype=float)
    if compact and kv_per_sequence.ndim >= 2:
        kv_per_sequence = kv_per_sequence.mean(axis=-1, keepdims=True)
    if compact and s.ndim >= 2:
        s = s.mean(axis=-1, keepdims=True)
    weights = float(arch.total_params) * decode.PRECISION_BYTES[decode.precision_name(precision)]
    for _ in range(64):   # powers of two: at most log2 of the largest GPU count
        fraction = np.where(need_shared <= tp, shared, alone)
        # the cache a replica of this size keeps (decode.kv_budget): no sequence's length enters it, so
        # the test of the cache against the weights costs one figure per GPU count, not one per scenario
        cache = decode.kv_budget(arch, gpus, tp, fraction, precision, seqs)
        grow = (tp < top) & (cache < weights) & decode.layout_allowed(arch, tp * 2.0, gpus_used)
        if not np.any(grow):
            break
        cap = np.floor(cache / decode.kv_held(arch, kv_per_sequence, tp, kv_precision))
        short = cap < np.minimum(s / np.maximum(np.floor(gpus_used / tp), 1.0), seqs)
        grow = grow & short
        if not np.any(grow):
            break
        tp = np.where(grow, tp * 2.0, tp)
    return tp


def _one_if_same(x):
    """`x` as a single number (a 0-d array) when all its elements are equal; else, where each row holds one value
    along the last axis (a planner's options × its Monte-Carlo draws: the GPU counts seldom change with a draw),
    that axis kept at length 1; else `x` unchanged. NumPy broadcasts the smaller shape where it meets the rest."""
    x = np.asarray(x)
    if x.ndim and x.size and np.all(x == x.flat[0]):
        return np.asarray(x.flat[0])
    if x.ndim >= 2 and x.shape[-1] > 1 and np.all(x == x[..., :1]):
        return x[..., :1].copy()
    return x


def _rule_plan(arch, gpus, n, concurrency, kv_context, fine_tune, terms: Terms):
    """The seed's and exact method's memory rules (model/memory.py): (tp, replicas, batch per replica, GPUs used,
    fitting, feasible)."""
    from . import memory
    total = float(arch.total_params)
    need = memory.min_gpus(total, gpus, fine_tune)
    gpus_used = np.maximum(n, need)
    tp = np.minimum(memory.replica_gpus(total, gpus), gpus_used)
    replicas = np.maximum(np.floor(gpus_used / tp), 1.0)
    in_flight = np.asarray(concurrency, dtype=float)
    if terms.cap_by_kv:
        fit = memory.max_concurrent_sequences(total, gpus, gpus_used, memory.kv_bytes_per_token(arch, "exact"),
                                              kv_context,
                                              memory.recurrent_bytes_per_sequence(arch, "exact", kv_context))
        in_flight = np.clip(in_flight, 1.0, np.maximum(fit, 1.0))
    return tp, replicas, in_flight / replicas, gpus_used, need, n >= need


@dataclass(frozen=True)
class RLPhases:
    generation_seconds: np.ndarray
    logprob_seconds: np.ndarray
    training_seconds: np.ndarray
    refit_seconds: np.ndarray
    other_seconds: np.ndarray
    step_seconds: np.ndarray
    decode_seconds: np.ndarray        # the decode part of generation
    prefill_seconds: np.ndarray
    train_gemm_seconds: np.ndarray    # the update's FLOPs part (what an MFU override replaces)
    separate: np.ndarray              # the layout kept: generation beside the trainer on its own GPUs
    colocated: np.ndarray             # the layout kept: the split's colocated alternative (RLFeatures.colocated)


def phase_seconds(f: RLFeatures, p, rollout_efficiency=None, mfu=None, time_factor=1.0,
                  prefill_efficiency=None, rollout_wait_seconds=0.0) -> RLPhases:
    """Each phase's seconds at parameters `p` (`_phase_seconds`), in the faster of the step's layouts where an
    off-policy step could split its GPUs or stay colocated; `rollout_wait_seconds` (each step's rollouts waiting on
    their sandboxes, GPUs idle) counts in that choice: a trainer beside the rollout hides behind it."""
    split = _phase_seconds(f, p, rollout_efficiency, mfu, time_factor, prefill_efficiency)
    if f.colocated is None:
        return split
    together = _phase_seconds(f.colocated, p, rollout_efficiency, mfu, time_factor, prefill_efficiency)
    wait = np.asarray(rollout_wait_seconds, dtype=float)

    def step(ph):
        if np.ndim(wait) == 0 and wait == 0.0:
            return ph.step_seconds
        return overlap(ph.generation_seconds + wait, ph.logprob_seconds + ph.training_seconds, ph.separate) \
            + ph.refit_seconds + ph.other_seconds

    use = step(together) < step(split)
    # field by field, each layout's array let go once chosen from (a million-scenario sweep holds less at once)
    split_fields, together_fields = vars(split).copy(), vars(together).copy()
    del split, together
    kept_fields = {name: np.where(use, together_fields.pop(name), split_fields.pop(name))
                   for name in [k.name for k in dataclasses.fields(RLPhases)] if name not in ("separate", "colocated")}
    return RLPhases(**kept_fields, separate=np.where(use, False, split_fields["separate"]), colocated=use)


def kept(f: RLFeatures, phases: RLPhases, name: str):
    """Feature `name` of the layout `phases` kept (the split's, or its colocated alternative's)."""
    value = getattr(f, name)
    return value if f.colocated is None else np.where(phases.colocated, getattr(f.colocated, name), value)


def _phase_seconds(f: RLFeatures, p, rollout_efficiency=None, mfu=None, time_factor=1.0,
                   prefill_efficiency=None) -> RLPhases:
    """Each phase's seconds at parameters `p` (sources.calibration.ModelParameters). `rollout_efficiency` replaces
    the fitted decode bandwidth efficiency; `mfu` replaces the whole update by FLOPs / (GPUs × peak × mfu) (the
    user's own measured utilisation); `time_factor` multiplies the GPU-bound phases (the Monte-Carlo's model
    error)."""
    # each decode step as a serving engine runs it, plus the host-side work an RL framework's rollout adds for every
    # sequence in the batch (its engine's scheduling, sampling and output handling, as the frameworks drive it)
    # (an unmerged LoRA adapter slows both by the engine's measured share: RLFeatures.lora_generation_scale)
    # (the scale multiplies the smaller factor of each product: a sweep's arrays are long in the steps and prompts)
    decode_s = f.decode_steps * ((decode.step_seconds(f.decode, p, rollout_efficiency).seconds
                                  + p.rollout_sequence_overhead_seconds * f.decode.batch) * f.lora_generation_scale)
    prefill = f.prefill_units * (f.lora_generation_scale / (p.decode_compute_efficiency if prefill_efficiency is None
                                                            else np.asarray(prefill_efficiency, dtype=float)))
    factor = np.asarray(time_factor, dtype=float)
    rounds = f.rollout_rounds   # each generation round decodes its batch, prefills its prompts and pays its fixed cost
    generation = _times(rounds * (decode_s + prefill + f.prefill_wire + p.generation_overhead_seconds), factor)
    # FLOPs at the GEMM efficiency plus the memory traffic that comes with them (FLOPs / intensity at the HBM
    # bandwidth): on a GPU whose peak is high against its bandwidth the second term weighs more, so the achieved
    # utilisation falls with the GPU's ridge point (an H20 trains at a larger share of its small peak than an H100)
    per_flop = f.train_compute_scale / (p.train_gemm_efficiency * (p.moe_gemm_share if f.moe else 1.0) * f.gemm_share) \
        + f.ridge / p.train_flops_per_byte
    eta = 1.0 / per_flop
    # each pass is one call from the controller to the trainer's workers (the batch sent, the results gathered),
    # then its micro-batches, each with its fixed cost, and its FLOPs
    per_pass = p.pass_overhead_seconds + f.micro_batches * p.micro_batch_overhead_seconds \
        + f.forward_gemm_units / eta + f.alltoall_seconds
    # a LoRA adapter's activation traffic streams at the share of bandwidth the decode fit measures for streaming
    adapter_logprob = f.adapter_logprob_seconds / p.decode_bandwidth_efficiency
    logprob = _times(f.logprob_passes * per_pass + f.offload_logprob_seconds + adapter_logprob, factor)
    gemm = f.update_gemm_units / eta
    if mfu is not None:
        update = f.update_gemm_units / np.asarray(mfu, dtype=float)
    else:   # the update's micro-batches run forward and backward (and the recomputed forward): `update_passes`
        # forward equivalents each, every one paying the fixed per-micro-batch cost
        update = f.trained_models * p.pass_overhead_seconds + gemm \
            + f.update_passes * f.update_micro_batches * p.micro_batch_overhead_seconds \
            + f.exchange_seconds + f.update_passes * f.alltoall_seconds + f.offload_update_seconds \
            + f.adapter_update_seconds / p.decode_bandwidth_efficiency
    training_s = _times(update, factor)
    refit = _times(f.refit_seconds + f.offload_refit_seconds, factor)
    other = np.asarray(p.step_overhead_seconds, dtype=float)
    step_total = overlap(generation, logprob + training_s, f.separate) + (refit + other)
    return RLPhases(generation, logprob, training_s, refit, other, step_total, _times(rounds * decode_s, factor),
                    _times(rounds * prefill, factor), _times(gemm, factor), f.separate, np.asarray(False))


def overlap(generation, trainer, separate):
    """Generation and the trainer in one step: one after the other where they share the GPUs, the longer of the two
    where generation runs on its own GPUs beside the previous batch's trainer (`separate`: RLFeatures.separate)."""
    if np.ndim(separate) == 0:
        return np.maximum(generation, trainer) if separate else generation + trainer
    return np.where(separate, np.maximum(generation, trainer), generation + trainer)


def _times(x, factor):
    """x × factor; x itself where the factor is the scalar 1 (the usual case: no model error drawn), which saves
    a copy of every phase of a million-scenario sweep."""
    return x if np.ndim(factor) == 0 and factor == 1.0 else x * factor


def achieved_mfu(f: RLFeatures, phases: RLPhases) -> np.ndarray:
    """The update's model-FLOPs utilisation: its FLOPs over (GPUs × peak × its seconds); 0 where a step trains
    nothing (no response tokens to learn from)."""
    seconds = np.asarray(phases.training_seconds, dtype=float)
    units = kept(f, phases, "update_gemm_units")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(seconds > 0, units / np.where(seconds > 0, seconds, 1.0), 0.0)


# ------------------------------------------------------------------------------------------------ helpers

def trainer_alone_gpus(arch: ModelArch, gpus: GpuSpecs, fine_tune: str):
    """GPUs the trainer's weights, gradients and optimizer state need (model/memory.py's rule: weights × copies ×
    overhead over a GPU's memory), at least one. Not the seed's floor of two GPUs for RL ('vLLM needs at least
    TP=2', memory.min_gpus): vLLM serves on one GPU, and verl's own quick start trains PPO on one
    (trainer.n_gpus_per_node=1); the rollout engine's GPUs are sized on their own (decode.smallest_replica)."""
    from .memory import colocated_vram_bytes
    return np.maximum(1.0, np.ceil(colocated_vram_bytes(float(arch.total_params), fine_tune) / gpus.memory_bytes))


def weight_tensors(arch: ModelArch) -> int:
    """The weight tensors a checkpoint of `arch` holds, as a refit hands them over one by one: per layer the
    attention's projections (q, k, v and o; one fused qkv; multi-head latent attention's five and their two norms),
    Qwen's q/k biases and norms, two layer norms, and the MLP's matrices (each routed expert's, the router, the
    shared experts'); then the embedding, the final norm and an untied head. gpt-oss stores each layer's experts as
    two stacked tensors with their biases (and its attention's biases and sinks); Nemotron-H's layers are one block
    each (Mamba, attention or a mixture of squared-ReLU experts, two matrices each); Nemotron-NAS's layers keep
    attention (4 and a norm), a linear (1 and a norm) or nothing, and the same of the MLP (3 and a norm). Granite 4.0
    (granitemoehybrid) layers hold attention (4) or a Mamba-2 mixer (8: in_proj, conv1d's weight and bias, dt_bias,
    A_log, D, norm, out_proj), then the router with the stacked experts' input_linear and output_linear, and the
    shared MLP's two; LFM2's hold attention with its q/k layernorms (6) or a short convolution (3: conv, in_proj,
    out_proj), then the MLP's three; GLM's MLA checkpoints (glm4_moe_lite, read as mla_moe) keep each router's
    score-correction bias. Other biases are not counted."""
    L = int(arch.num_layers)
    if arch.layer_plan is not None:                      # Nemotron-NAS: what each layer kept, each with its norm
        sizes = {"attention": {"linear": 2, None: 0}, "ffn": {"linear": 2, None: 0}}
        kept = sum(sizes["attention"].get(a, 5) + sizes["ffn"].get(f, 4) for a, f in arch.layer_plan)
        return kept + 2 + (0 if arch.tied_embeddings else 1)
    if arch.kv_lora_rank:
        attention = 5 + 2
    else:
        attention = 2 if arch.fused_qkv else 4
    if arch.arch_type.startswith("qwen3"):
        attention += 2                                   # q_norm, k_norm
    elif arch.arch_type.startswith("qwen2"):
        attention += 3                                   # q, k and v biases
    expert_matrices, moe_layers = arch.mlp_matrices, L - int(arch.first_k_dense or 0)
    if arch.moe_layers is not None:
        moe_layers = int(arch.moe_layers)
    if arch.arch_type == "gpt_oss":
        return L * (attention + 5 + 2 + 6) + 3   # biases and sinks; router, stacked experts and their biases
    if arch.arch_type in STACKED_EXPERTS:            # each layer's experts as a few stacked tensors and a router
        moe_layers = int(arch.moe_layers or 0)
        return L * (attention + 2) + moe_layers * (STACKED_EXPERTS[arch.arch_type] + 1) \
            + (L - moe_layers) * arch.mlp_matrices + 2 + (0 if arch.tied_embeddings else 1)
    if arch.arch_type == "jamba":                        # attention or Mamba (11 tensors) a layer, then experts or MLP
        attn_layers, mamba_layers = int(arch.full_attention_layers), int(arch.linear_or_mamba_layers or 0)
        moe_layers = int(arch.moe_layers or 0)
        return L * 2 + attn_layers * 4 + mamba_layers * 11 + moe_layers * (3 * int(arch.num_experts) + 1) \
            + (L - moe_layers) * 3 + 2 + (0 if arch.tied_embeddings else 1)
    if arch.arch_type == "granitemoehybrid":             # attention or Mamba-2 a layer, experts and the shared MLP
        moe_layers = int(arch.moe_layers or 0)
        return L * (2 + 2) + int(arch.full_attention_layers) * 4 + int(arch.linear_or_mamba_layers or 0) * 8 \
            + moe_layers * 3 + 2 + (0 if arch.tied_embeddings else 1)
    if arch.arch_type == "lfm2":                         # attention with q/k norms or a short convolution a layer
        return L * (2 + arch.mlp_matrices) + int(arch.full_attention_layers) * 6 \
            + int(arch.linear_or_mamba_layers or 0) * 3 + 2 + (0 if arch.tied_embeddings else 1)
    if arch.arch_type == "nemotron_h":                   # one block a layer: the mixer or the experts, one norm
        expert_matrices = 2
        moe_layers = L - int(arch.linear_or_mamba_layers or 0) - int(arch.full_attention_layers)
        attention = 0
    if arch.is_moe:
        shared = arch.mlp_matrices if (arch.n_shared_experts or arch.shared_expert_intermediate_size) else 0
        router = 2 if arch.kv_lora_rank and GLM_MLA_ID in arch.hf_id.lower() else 1     # GLM: the router's bias too
        mlp = moe_layers * (expert_matrices * int(arch.num_experts) + router + shared) \
            + (L - moe_layers) * (0 if arch.arch_type == "nemotron_h" else arch.mlp_matrices)
    else:
        mlp = L * arch.mlp_matrices
    return L * (attention + 2) + mlp + 2 + (0 if arch.tied_embeddings else 1)


# GLM's MLA checkpoints (glm4_moe_lite, which the config reader files under mla_moe with DeepSeek and Kimi): known by
# their Hugging Face id; each MoE layer's router stores its score-correction bias beside its weight.
GLM_MLA_ID = "glm-"

# Families whose checkpoints hold each layer's experts as stacked tensors (so many a layer): DBRX's w1, v1, w2;
# Granite MoE's input_linear (gate and up) and output_linear.
STACKED_EXPERTS = {"dbrx": 3, "granitemoe": 2}


def refit_seconds_per_tensor() -> float:
    """The fixed hand-off cost of one weight tensor in a refit: verl's fully-async README measures a whole
    trainer-to-rollout synchronisation of a named model (defaults.csv: refit_reference_seconds, checkpoint-engine
    off, refit_reference_model), divided by that model's weight_tensors."""
    from ..sources.architectures import get_arch
    return number("refit_reference_seconds") / weight_tensors(get_arch(str(assumption("refit_reference_model"))))


def _slowest_link(gpus: GpuSpecs, num_gpus, collective: bool = False):
    """Bytes/s each way between the GPUs of a group: the GPU's link inside a node (`collective`: the bus bandwidth
    a collective reaches over it), the network beyond it."""
    inside = gpus.collective_bytes_per_s if collective else gpus.link_bytes_per_s
    network = number("network_gb_s_per_gpu") * 1e9
    return np.where(np.asarray(num_gpus, dtype=float) > number("gpus_per_node"), np.minimum(inside, network), inside)


def _train_compute_scale(arch: ModelArch, gpus: GpuSpecs, fine_tune: str, attention, recompute: bool,
                         train_precision: str):
    """The trainer's compute time at `train_precision` over BF16's: 1 in BF16; in FP8, the weights' share w of the
    update's FLOPs at the FP8 over the BF16 GEMM ceiling (2 on Hopper and Blackwell), the attention's at BF16:
    w / ratio + (1 − w). The memory traffic term beside it is unchanged (activations, norms and the optimizer stay
    BF16 or FP32), so FP8 trains less than twice as fast, as measured (NeMo RL's FP8 rows)."""
    if train_precision == "bf16":
        return 1.0
    gemm = (training.flops_per_param_per_token(fine_tune)
            + (number("forward_flops_per_param") if recompute else 0.0)) * decode.forward_params(arch)
    w = gemm / _update_flops_per_token(arch, fine_tune, attention, recompute)
    ratio = decode.gemm_ceiling(gpus, "fp8") / decode.gemm_ceiling(gpus, "bf16")
    return w / ratio + (1.0 - w)


def _update_flops_per_token(arch: ModelArch, fine_tune: str, attention, recompute: bool):
    """FLOPs to train one token: 6 N in full (4 N with LoRA's frozen base), one more forward pass (2 N) when
    activations are recomputed, and the attention's forward and backward (3 × its forward `attention`, the FLOPs per
    token at the sequence's mean context)."""
    per_param = training.flops_per_param_per_token(fine_tune) + (number("forward_flops_per_param") if recompute else 0.0)
    return per_param * decode.forward_params(arch) + (4.0 if recompute else 3.0) * attention


def _exchange_seconds(arch: ModelArch, gpus: GpuSpecs, num_gpus):
    """One optimizer step's parameter and gradient exchange per GPU: `sharded_exchange_bytes_per_param` bytes for
    each parameter of the model-parallel shard a GPU trains (the whole model when its weights fit on half a GPU,
    as with FSDP; 1/m of it when m GPUs must split the weights, as Megatron's tensor, pipeline and expert
    parallelism do), inside a node over the GPU's link, between nodes hierarchically (each node's GPUs share the
    inter-node part over their own network links)."""
    n = np.asarray(num_gpus, dtype=float)
    weights = float(arch.total_params) * decode.PRECISION_BYTES["bf16"]
    split = np.minimum(np.maximum(np.ceil(weights / (0.5 * gpus.memory_bytes)), 1.0), n)
    shard = number("sharded_exchange_bytes_per_param") * float(arch.total_params) / split
    per_node = number("gpus_per_node")
    inside = shard * (np.minimum(n, per_node) - 1.0) / np.minimum(n, per_node) / gpus.collective_bytes_per_s
    nodes = np.ceil(n / per_node)
    between = np.where(nodes > 1, shard / per_node * (nodes - 1.0) / nodes / (number("network_gb_s_per_gpu") * 1e9),
                       0.0)
    return inside + between


def _offload_seconds(arch: ModelArch, gpus: GpuSpecs, trainer_gpus, fine_tune: str, reference: bool, critic: bool,
                     param_offload: bool, optimizer_offload: bool, critic_param_offload: bool,
                     critic_optimizer_offload: bool):
    """CPU offload's copies in one step, (log-prob passes, update, refit) seconds. verl's FSDP workers
    (verl/workers/fsdp_workers.py) with `param_offload` move each GPU's shard of the trainer's weights (FP32: verl
    builds the actor and critic in FP32, `offload_param_bytes_per_param`) to the GPU and back to host memory
    around every call that uses them: the old policy's log-prob pass (and, with LoRA, the reference's, which is the
    actor without its adapter), the update and the hand-off to the rollout engine; the critic around its values
    pass and its update. `optimizer_offload` moves Adam's two FP32 moments (`offload_optimizer_bytes_per_param`)
    around the update. Each GPU copies its shard over its own host link at the share pageable memory reaches
    (verl's offload copies with .to("cpu"), into pageable memory; host_copy_shares). A GPU whose host link no source
    gives (host_links.csv) is charged none: `predict` refuses offload on it and `validate` says so."""
    if not (param_offload or optimizer_offload or (critic and (critic_param_offload or critic_optimizer_offload))):
        return 0.0, 0.0, 0.0
    rate = gpus.host_bytes_per_s * host_copy_shares()["pageable"]
    rate = np.where(np.isfinite(rate), rate, np.inf)
    trip = 2.0 * float(arch.total_params) / np.asarray(trainer_gpus, dtype=float) / rate   # there and back
    weights = number("offload_param_bytes_per_param") * trip
    moments = number("offload_optimizer_bytes_per_param") * trip
    actor = weights if param_offload else 0.0
    critic_weights = weights if critic and critic_param_offload else 0.0
    logprob = actor * (2.0 if fine_tune == "lora" and reference else 1.0) + critic_weights
    update = actor + (moments if optimizer_offload else 0.0) + critic_weights \
        + (moments if critic and critic_optimizer_offload else 0.0)
    return logprob, update, actor


def _adapter_seconds(arch: ModelArch, gpus: GpuSpecs, logprob_tokens, update_tokens, recompute: bool):
    """A LoRA adapter's own activation traffic in one step, (old policy's log-prob pass, update) seconds at
    bandwidth efficiency 1: each GPU's tokens through every adapted layer (lora.adapter_width_per_token), reading and
    writing the layers' inputs and outputs in BF16 as PEFT's adapter ops do (defaults.csv:
    lora_forward_activation_passes, forward; lora_backward_activation_passes, backward; the update's recomputed
    forward again). These small ops move bytes, not FLOPs, so a small model's passes feel them most: PEFT's adapter
    costs a larger share of a forward whose layers are narrow. The reference pass runs the base model (the adapter
    switched off) and the critic trains in full: neither pays it."""
    per_token = lora.adapter_width_per_token(arch) * decode.PRECISION_BYTES["bf16"] / gpus.bandwidth_bytes_per_s
    forward = number("lora_forward_activation_passes")
    update = forward * (2.0 if recompute else 1.0) + number("lora_backward_activation_passes")
    return (np.asarray(logprob_tokens, dtype=float) * per_token * forward,
            np.asarray(update_tokens, dtype=float) * per_token * update)


def _cpu_optimizer_seconds(arch: ModelArch, gpus: GpuSpecs, trainer_gpus, fine_tune: str, logprob_micro_batches,
                           update_micro_batches, optimizer_steps):
    """FSDP2's CPUOffloadPolicy on the actor in one step, (log-prob passes, update, refit) seconds: each GPU's FP32
    shard lives in host memory and crosses its host link at the pinned rate (the policy pins it; host_copy_shares)
    for every micro-batch of the actor's passes (defaults.csv: cpu_optimizer_bytes_per_param_pass for a forward-only
    pass, cpu_optimizer_bytes_per_param_update for the update, less the frozen weights' gradients under LoRA) and
    once for the hand-off to the rollout engine; each optimizer step runs AdamW on the CPU over the shard's trainable
    parameters (sources.hardware.cpu_adam_seconds_per_param). A GPU without a sourced host link pays none (predict
    refuses it there)."""
    rate = gpus.host_bytes_per_s * host_copy_shares()["pinned"]
    rate = np.where(np.isfinite(rate), rate, np.inf)
    n = np.asarray(trainer_gpus, dtype=float)
    shard = float(arch.total_params) / n
    trainable = shard if fine_tune == "full" else lora.lora_params(arch) / n
    forward = number("cpu_optimizer_bytes_per_param_pass")
    update_bytes = (number("cpu_optimizer_bytes_per_param_update") - forward) * shard \
        + forward * trainable   # the parameters there for the forward and backward, the trained ones' gradients back
    logprob = np.asarray(logprob_micro_batches, dtype=float) * forward * shard / rate
    update = np.asarray(update_micro_batches, dtype=float) * update_bytes / rate \
        + np.asarray(optimizer_steps, dtype=float) * trainable * cpu_adam_seconds_per_param()
    return logprob, update, forward * shard / rate


def _alltoall_seconds(arch: ModelArch, trained_tokens, num_gpus, link):
    """One pass's expert-parallel dispatch and combine: each token's hidden state to its k experts and back, per
    mixture-of-experts layer, over the link (none for dense models or a single GPU)."""
    if not arch.is_moe:   # zeros at the tokens' shape, not materialized
        return np.broadcast_to(0.0, np.shape(trained_tokens))
    moe_layers = float(arch.num_layers - (arch.first_k_dense or 0))
    bytes_per_token = 2.0 * arch.experts_per_token * float(arch.hidden_size) * decode.PRECISION_BYTES["bf16"] * moe_layers
    n = np.asarray(num_gpus, dtype=float)
    return np.asarray(trained_tokens, dtype=float) * bytes_per_token * (n - 1.0) / n / n / link
