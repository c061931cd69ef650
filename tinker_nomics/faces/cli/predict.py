"""`tinker-nomics predict decode | rl-step`: the hardware reality check for any model on any GPU.

    tinker-nomics predict decode  --model M | --model-config F --gpu G --num-gpus N --concurrency C
                                  --input-len I --output-len O [--precision ...] [--kv-precision ...]
    tinker-nomics predict rl-step --model M | --model-config F --gpu G --num-gpus N --samples S
                                  --prompt-len P --response-len R [--off-policy k] [--fine-tune full|lora]
                                  [--max-response-len R] [--no-reference] [--critic] [--optimizer-steps N]
                                  [--rollout-tensor-parallel T] [--rollout-memory-fraction F]
                                  [--micro-batch-tokens B | --micro-batch-samples S] [--ppo-epochs E]
                                  [--logprob-micro-batch-tokens B | --logprob-micro-batch-samples S]
                                  [--reference-micro-batch-tokens B | --reference-micro-batch-samples S]
                                  [--values-micro-batch-tokens B | --values-micro-batch-samples S]
                                  [--critic-micro-batch-tokens B | --critic-micro-batch-samples S]
                                  [--enforce-eager] [--offload-policy] [--lora-merge | --no-lora-merge]

The arithmetic is tinker_nomics.model.predict; this module parses and prints.
"""
from __future__ import annotations

import re

from ... import fmt
from ...errors import TinkerNomicsError
from ...model import predict as model_predict
from ...model.decode import KV_PRECISIONS, PRECISIONS, heads_text, layout_allowed
from ...model.scenario import METHODS
from ...sources.architectures import get_arch
from ...sources.defaults import number as default
from ...sources.hardware import get_gpu, gpu_specs
from ...sources.hf_config import load_config, stored_dtype_note
from .common import OneLineParser, add_format, add_on_off, number, to_json


def add_parser(sub) -> None:
    pred = sub.add_parser("predict", help="decode throughput or RL step time for a model on GPUs",
                          description="The hardware reality check: what a model does on GPUs, from its "
                                      "architecture, the GPU's memory, bandwidth and peak, and the calibrated "
                                      "efficiencies (or the exact/seed rooflines).")
    kinds = pred.add_subparsers(dest="kind", metavar="KIND", parser_class=OneLineParser)
    decode = kinds.add_parser("decode", help="output tokens/s of a serving engine",
                              description="Output tokens/s (total and per GPU), the concurrency that fits in KV "
                                          "memory, and which bound holds (bandwidth, compute or memory).")
    _common(decode)
    decode.add_argument("--concurrency", type=number("--concurrency"), required=True,
                        help="requests in flight (capped at what fits in the KV cache)")
    decode.add_argument("--input-len", type=number("--input-len"), required=True, help="prompt tokens per request")
    decode.add_argument("--output-len", type=number("--output-len"), required=True,
                        help="generated tokens per request")
    decode.add_argument("--precision", help=f"weight precision: {', '.join(PRECISIONS)}, or vLLM's name for one "
                                            f"(bfloat16, fp8_e4m3, awq, gptq, w8a8, nvfp4, …; default and auto: the "
                                            f"checkpoint's)")
    decode.add_argument("--kv-precision", help=f"KV-cache precision: {', '.join(KV_PRECISIONS)}, or vLLM's "
                                               f"--kv-cache-dtype name (auto, fp8_e4m3, fp8_e5m2; default bf16)")
    decode.add_argument("--num-prompts", type=number("--num-prompts"),
                        help="time a benchmark run of this many requests, at most --concurrency in flight, from its "
                             "first prompt to its last token (vLLM's bench serve --num-prompts; default: the steady "
                             "state)")
    decode.add_argument("--max-output-len", type=number("--max-output-len"),
                        help="the longest output where outputs vary (--output-len their mean, as ShareGPT's do): the "
                             "run drains its longest requests at a falling batch")
    decode.add_argument("--tensor-parallel", type=number("--tensor-parallel"),
                        help="GPUs per engine copy (default: one engine over all of --num-gpus where that size "
                             "splits the model's attention and key/value heads, else the largest size that does, the "
                             "rest as copies; must divide --num-gpus)")
    decode.add_argument("--max-num-seqs", type=number("--max-num-seqs"),
                        help="the engine's cap on sequences decoded at once (default: vLLM's: 1024 on GPUs of 70 GiB "
                             "or more other than A100s, else 256)")
    decode.add_argument("--expert-parallel", type=number("--expert-parallel"),
                        help="GPUs of each engine copy that hold a mixture of experts' routed experts whole (vLLM's "
                             "--enable-expert-parallel: all of --tensor-parallel; TensorRT-LLM's EP size; default 1: "
                             "every expert sliced over them)")
    rl = kinds.add_parser("rl-step", help="seconds of one RL step",
                          description="Generation, training and step seconds of one colocated RL step.")
    _common(rl)
    rl.add_argument("--samples", type=number("--samples"), required=True, help="rollouts per step (prompts × group)")
    rl.add_argument("--prompt-len", type=number("--prompt-len"), required=True, help="mean prompt tokens")
    rl.add_argument("--response-len", type=number("--response-len"), required=True, help="mean response tokens")
    rl.add_argument("--off-policy", type=number("--off-policy"), default=0.0,
                    help="k, async staleness bound; 0 = synchronous (default)")
    rl.add_argument("--rollout-gpus", type=number("--rollout-gpus"),
                    help="the GPUs the rollout engine has to itself, the trainer the rest: beside each other with "
                         "--off-policy of at least 1, taking turns without (default: colocated; off-policy, the "
                         "model's split where that is faster)")
    rl.add_argument("--fine-tune", default="full", help="full (default) or lora")
    rl.add_argument("--max-response-len", type=number("--max-response-len"),
                    help="the longest response a step actually generates (verl logs it as response_length/max), "
                         "not the length cap (data.max_response_length), which responses may never reach (default: "
                         "the mean × the ratio fitted on logged runs)")
    rl.add_argument("--no-reference", action="store_true", help="no reference-model log-prob pass (no KL term)")
    rl.add_argument("--critic", action="store_true", help="PPO with a critic: its value pass and its update")
    rl.add_argument("--optimizer-steps", type=number("--optimizer-steps"),
                    help="optimizer steps (mini-batches) per RL step (default 4: verl's 1024 / 256)")
    rl.add_argument("--rollout-tensor-parallel", type=number("--rollout-tensor-parallel"),
                    help="GPUs per rollout engine (default: the smallest size that holds the model, splits its "
                         "attention and key/value heads as vLLM requires and divides the GPUs)")
    rl.add_argument("--rollout-memory-fraction", type=number("--rollout-memory-fraction"),
                    help="the rollout engine's share of GPU memory (vLLM's gpu_memory_utilization; default "
                         f"{default('rollout_memory_fraction'):g}, verl's)")
    rl.add_argument("--micro-batch-tokens", type=number("--micro-batch-tokens"),
                    help="tokens per GPU in one trainer micro-batch (verl's ppo_max_token_len_per_gpu; default "
                         f"{default('micro_batch_tokens'):,.0f}, verl's)")
    rl.add_argument("--micro-batch-samples", type=number("--micro-batch-samples"),
                    help="sequences per GPU in one trainer micro-batch instead (verl's ppo_micro_batch_size_per_gpu "
                         "with use_dynamic_bsz off)")
    rl.add_argument("--ppo-epochs", type=number("--ppo-epochs"),
                    help="passes of the update over the step's batch (verl's ppo_epochs; default 1); "
                         "--optimizer-steps then counts every pass's steps (default 4 a pass)")
    # each log-prob pass's own micro-batches: (flag stem, the pass, verl's settings for it, its default)
    for stem, what, verl, fallback in (
            ("logprob", "the old policy's log-prob pass", "rollout.log_prob_", "the update's"),
            ("reference", "the reference model's log-prob pass", "ref.log_prob_", "the old policy's"),
            ("values", "the critic's values pass (--critic)", "critic.forward_", "the old policy's"),
            ("critic", "the critic's update (--critic)", "critic.ppo_", "the actor's")):
        rl.add_argument(f"--{stem}-micro-batch-tokens", type=number(f"--{stem}-micro-batch-tokens"),
                        help=f"tokens per GPU in one micro-batch of {what} (verl's {verl}max_token_len_per_gpu; "
                             f"default: {fallback})")
        rl.add_argument(f"--{stem}-micro-batch-samples", type=number(f"--{stem}-micro-batch-samples"),
                        help=f"sequences per GPU in one micro-batch of {what} instead (verl's "
                             f"{verl}micro_batch_size_per_gpu)")
    rl.add_argument("--generation-rounds", type=number("--generation-rounds"),
                    help="generation calls per step where the step generates again until it keeps enough groups "
                         "(DAPO's dynamic sampling; verl's train/num_gen_batches; default 1)")
    rl.add_argument("--generation-samples", type=number("--generation-samples"),
                    help="sequences each generation call generates (verl's data.gen_batch_size × rollout.n; default "
                         "--samples, which the step trains)")
    rl.add_argument("--max-num-seqs", type=number("--max-num-seqs"),
                    help="a rollout engine's cap on sequences decoded at once (verl's rollout.max_num_seqs; default "
                         f"{default('rollout_max_num_seqs'):,.0f}, verl's)")
    rl.add_argument("--rollout-precision",
                    help="the rollout engine's weights: bf16 (the default: the trainer's), fp8 (FP8 rollout: verl's "
                         "rollout.quantization=fp8; training stays BF16), int8, int4, … or a vLLM name for one")
    rl.add_argument("--rollout-kv-precision",
                    help="the rollout engine's KV cache: bf16 (default) or fp8 (vLLM's --kv-cache-dtype fp8)")
    rl.add_argument("--train-precision",
                    help="the trainer's GEMMs: bf16 (default) or fp8 (Transformer Engine's FP8 training, as NeMo RL's "
                         "fp8_cfg and verl's Megatron fp8 recipes run it; FP8 tensor cores needed)")
    rl.add_argument("--param-offload", action="store_true",
                    help="the trainer's weights wait in host memory between phases (verl's actor "
                         "fsdp_config.param_offload): each GPU's FP32 shard crosses its host link around every call")
    rl.add_argument("--optimizer-offload", action="store_true",
                    help="Adam's moments wait in host memory between updates (verl's fsdp_config.optimizer_offload)")
    rl.add_argument("--no-gradient-checkpointing", action="store_true",
                    help="the update keeps the forward pass's activations instead of recomputing them (verl's "
                         "enable_gradient_checkpointing off): 6 N FLOPs per trained token, not 8 N")
    rl.add_argument("--padded-len", type=number("--padded-len"),
                    help="tokens the trainer pads every sequence to where it keeps the padding (verl's "
                         "use_remove_padding off: data.max_prompt_length + data.max_response_length); default: no "
                         "padding, each pass computes the real tokens")
    rl.add_argument("--critic-padded-len", type=number("--critic-padded-len"),
                    help="the same for the critic's passes (--critic; verl's critic.model.use_remove_padding off)")
    rl.add_argument("--enforce-eager", action="store_true",
                    help="the rollout engine runs without CUDA graphs (vLLM's enforce_eager; the default of older verl "
                         "releases): each decode step waits on the host launching every layer's kernels")
    rl.add_argument("--offload-policy", action="store_true",
                    help="the actor's weights, gradients and Adam's moments stay in host memory and Adam steps on "
                         "the CPU (FSDP2's CPUOffloadPolicy, verl's actor fsdp_config.offload_policy): every "
                         "micro-batch streams the weights over the host link")
    add_on_off(rl, "--lora-merge", "with --fine-tune lora, the rollout engine gets the adapter merged into the "
                                   "weights (verl's actor_rollout_ref.model.lora.merge) and decodes at the base "
                                   "model's speed; by default it serves the adapter unmerged, as verl does, at the "
                                   "measured share of that speed")


def _common(p) -> None:
    p.add_argument("--model", help="model id or short name (see `tinker-nomics models`)")
    p.add_argument("--model-config", help="a Hugging Face config.json instead of --model")
    p.add_argument("--gpu", required=True, help="GPU (see `tinker-nomics gpus`)")
    p.add_argument("--num-gpus", type=number("--num-gpus"), required=True, help="GPUs")
    p.add_argument("--method", default="calibrated", help=f"{', '.join(reversed(METHODS))} (default calibrated)")
    add_format(p)


def _arch(args):
    if args.model and args.model_config:
        raise TinkerNomicsError("give --model or --model-config, not both")
    if args.model_config:
        return load_config(args.model_config)
    if args.model:
        return get_arch(args.model)
    raise TinkerNomicsError("give --model or --model-config")


# The Python arguments of model.predict whose names its messages use, as the flags a command-line user typed: every
# argument is its flag with dashes, but for the engine setting --enforce-eager sets.
FLAG_OF = {"rollout_eager": "--enforce-eager", "gradient_checkpointing": "--no-gradient-checkpointing",
           "max_output_tokens": "--max-output-len"}
PYTHON_NAMES = ("num_gpus", "concurrency", "input_len", "output_len", "tensor_parallel", "max_num_seqs", "precision",
                "kv_precision", "method", "samples", "prompt_len", "response_len", "off_policy", "fine_tune",
                "max_response_len", "optimizer_steps", "rollout_tensor_parallel", "rollout_memory_fraction",
                "micro_batch_tokens", "micro_batch_samples", "logprob_micro_batch_tokens",
                "logprob_micro_batch_samples", "reference_micro_batch_tokens", "reference_micro_batch_samples",
                "values_micro_batch_tokens", "values_micro_batch_samples", "critic_micro_batch_tokens",
                "critic_micro_batch_samples", "ppo_epochs", "rollout_eager", "generation_rounds",
                "generation_samples", "param_offload", "optimizer_offload", "gradient_checkpointing", "num_prompts",
                "max_output_tokens", "expert_parallel", "rollout_precision", "rollout_kv_precision",
                "train_precision", "rollout_gpus", "padded_len", "critic_padded_len", "lora_merge",
                "offload_policy")
# a name with an underscore anywhere in a message; a one-word name only where it opens the message (as a subject)
_NAMED = re.compile(r"(?<![\w.-])(" + "|".join(sorted((n for n in PYTHON_NAMES if "_" in n), key=len, reverse=True))
                    + r")(?![\w.-])|^(" + "|".join(n for n in PYTHON_NAMES if "_" not in n) + r")(?= )")


def as_flags(message: str) -> str:
    """A model.predict message with each Python argument it names written as its command-line flag."""
    return _NAMED.sub(lambda m: FLAG_OF.get(m.group(0), "--" + m.group(0).replace("_", "-")), message)


def run(args) -> str:
    try:
        return _run(args)
    except TinkerNomicsError as exc:   # the Python names model.predict uses, as the flags this command takes
        raise TinkerNomicsError(as_flags(str(exc))) from None


def _run(args) -> str:
    if not getattr(args, "kind", None):
        raise TinkerNomicsError("predict needs a kind: decode or rl-step (see tinker-nomics predict --help)")
    arch, gpu = _arch(args), get_gpu(args.gpu)
    if args.kind == "decode":
        result = model_predict.predict_decode(arch, gpu, args.num_gpus, args.concurrency, args.input_len,
                                              args.output_len, args.precision, args.kv_precision, args.method,
                                              args.tensor_parallel, args.max_num_seqs, args.num_prompts,
                                              args.max_output_len, args.expert_parallel)
        data = result.to_dict()
        if data["method"] == "calibrated":
            from ...analysis import calibration
            regimes = calibration.decode_regimes(
                arch, gpu_specs(gpu), data["requested_concurrency"] <= 1, data["concurrency"] >= 64,
                data["precision"], data["tensor_parallel"], args.input_len + args.output_len)
            data["held_out_error"] = calibration.held_out("decode", regimes)
        data["notes"] = _context_notes(arch, args.input_len + (args.max_output_len or args.output_len),
                                       "a request reaches {tokens} tokens (input and output)", data["precision"])
        if args.tensor_parallel is None and not layout_allowed(arch, data["tensor_parallel"]):
            # the default engine spans every GPU; tensor parallelism alone cannot split these heads that way
            data["notes"].append(
                f"no tensor-parallel size that splits {data['model']}'s {heads_text(arch)} spans the "
                f"{fmt.number(data['num_gpus'])} GPUs: the engine is timed as one model spread over all of them "
                f"(tensor parallel {data['tensor_parallel']:g}), as pipeline or expert parallelism would spread it; "
                f"--tensor-parallel takes a size that splits the heads")
        if args.format == "json":
            return to_json(data)
        return "\n".join([
            f"{data['model']} on {fmt.number(data['num_gpus'])} × {data['gpu']} · decode · method {data['method']} · weights "
            f"{data['precision']}, KV {data['kv_precision']}",
            f"Output        {data['output_tokens_per_second']:,.0f} tokens/s "
            f"({data['output_tokens_per_second_per_gpu']:,.0f} per GPU)",
            f"Concurrency   {data['concurrency']:,.0f} of {data['requested_concurrency']:,.0f} requested "
            f"(tensor parallel {data['tensor_parallel']:g}"
            + (f", experts split whole over {data['expert_parallel']:g} GPUs" if data["expert_parallel"] != 1 else "")
            + ")" + (f"; {fmt.number(data['busy_replicas'])} of {fmt.number(data['replicas'])} engine copies busy"
                     if data["replicas"] > 1 else ""),
            f"Bound         {data['bound']}"] + accuracy_lines(data.get("held_out_error"), "decode throughput")
            + [f"Note          {note}" for note in data["notes"]]
            + ([f"Run           {fmt.count(data['num_prompts'] or data['requested_concurrency'], 'prompt')}, "
                f"the longest output "
                f"{data['max_output_len'] or args.output_len:,.0f} tokens: timed from the first prompt to the last "
                f"token (every prefill, and the drain of the longest outputs)"]
               if data["num_prompts"] is not None or data["max_output_len"] is not None else []))
    result = model_predict.predict_rl_step(arch, gpu, args.num_gpus, args.samples, args.prompt_len,
                                           args.response_len, args.off_policy, args.fine_tune, args.method,
                                           args.max_response_len, not args.no_reference, args.critic,
                                           args.optimizer_steps, args.rollout_tensor_parallel,
                                           args.rollout_memory_fraction, args.micro_batch_tokens,
                                           args.micro_batch_samples, args.ppo_epochs, args.enforce_eager,
                                           args.logprob_micro_batch_tokens, args.logprob_micro_batch_samples,
                                           args.reference_micro_batch_tokens, args.reference_micro_batch_samples,
                                           args.values_micro_batch_tokens, args.values_micro_batch_samples,
                                           args.critic_micro_batch_tokens, args.critic_micro_batch_samples,
                                           args.generation_rounds, args.generation_samples, args.max_num_seqs,
                                           args.param_offload, args.optimizer_offload,
                                           not args.no_gradient_checkpointing, args.rollout_precision,
                                           args.rollout_kv_precision, args.train_precision, args.rollout_gpus,
                                           args.padded_len, args.critic_padded_len, bool(args.lora_merge),
                                           args.offload_policy)
    data = result.to_dict()
    if data["method"] == "calibrated":
        from ...analysis import calibration
        times = data if data["feasible"] else data["on_fitting_gpus"]
        longest = args.prompt_len + (args.response_len if args.max_response_len is None else args.max_response_len)
        regimes = calibration.rl_regimes(arch, gpu_specs(gpu), times["rollout_tensor_parallel"], longest,
                                         data["fine_tune"])
        data["held_out_error"] = calibration.held_out("rl_step", regimes)
    longest = args.prompt_len + (args.max_response_len if args.max_response_len is not None else args.response_len)
    data["notes"] = _context_notes(arch, longest, "a sequence reaches {tokens} tokens (prompt and "
                                   + ("longest" if args.max_response_len is not None else "mean") + " response)",
                                   data["weights"])
    if args.offload_policy:
        from ...sources.hardware import cpu_adam_seconds_per_param
        data["notes"].append(f"the actor trains with FSDP2's CPUOffloadPolicy: its FP32 shard crosses the host link "
                             f"for every micro-batch and Adam steps on the CPU at "
                             f"{cpu_adam_seconds_per_param() * 1e9:.1f} ns a parameter (one thread a GPU, "
                             f"data/measurements/cpu_adam.csv); a host with fewer cores than GPUs steps slower")
    if data["method"] == "calibrated" and data["fine_tune"] == "lora":
        data["notes"].append(model_predict.lora_rollout_note(bool(args.lora_merge))
                             + ("" if args.lora_merge else "; --lora-merge times merged weights"))
    if args.format == "json":
        return to_json(data)
    return "\n".join(rl_step_lines(data, heads_text(arch)) + accuracy_lines(data.get("held_out_error"), "RL step time")
                     + [f"Note          {note}" for note in data["notes"]])


def _context_notes(arch, longest, what: str, weights: str) -> list[str]:
    """The notes on the model a prediction ran: a checkpoint stored wider than the `weights` costed, a context
    longer than the model is configured for."""
    from ...model.estimate import context_note
    return [note for note in (stored_dtype_note(arch, weights), context_note(arch, arch.hf_id, longest, what)) if note]


def accuracy_lines(rows: list[dict] | None, what: str) -> list[str]:
    """How far the calibrated model lands on published cases it was not fitted to (analysis.calibration.held_out):
    over every case, then in each regime this prediction falls in, or that no published case falls in it."""
    if not rows:
        return []
    first, text = rows[0], []
    for r in rows[1:]:
        text.append(f"{r['label']} {fmt.pct(r['median_abs_error'], 0)} ({fmt.count(r['cases'], 'case')})"
                    if r["cases"] else f"{r['label']}: no published case")
    return [f"Accuracy      {what} off by a median {fmt.pct(first['median_abs_error'], 0)} on "
            f"{fmt.count(first['cases'], 'published case')} held out by family"
            + (f"; in its regimes: {'; '.join(text)}" if text else "")]


def rl_step_lines(data: dict, heads: str = "attention heads") -> list[str]:
    """The text of `predict rl-step`: the phases, or, where the GPUs asked for cannot hold the job, that fact first
    and the times on the smallest count that can, said to be on that count (the JSON says the same)."""
    head = (f"{data['model']} on {fmt.number(data['num_gpus'])} × {data['gpu']} · RL step ({data['fine_tune']} fine-tune) · "
            f"method {data['method']}")
    times = data
    lines = [head]
    low = [text for text, on in ((f"rollout {data['rollout_precision']} weights", data["rollout_precision"] != "bf16"),
                                 (f"{data['rollout_kv_precision']} KV cache", data["rollout_kv_precision"] != "bf16"),
                                 (f"training {data['train_precision']} GEMMs", data["train_precision"] != "bf16")) if on]
    if low:
        lines.append(f"Precision     {', '.join(low)}; the rest in bf16")
    elif data["checkpoint_precision"] != data["weights"]:
        lines.append(f"Note          the checkpoint holds {data['checkpoint_precision']} weights; RL trains and samples "
                     f"the {data['weights']} model, which is what is timed")
    if not data["feasible"]:
        times = data["on_fitting_gpus"]
        lines.append(f"Does not fit  {fmt.number(data['num_gpus'])} × {data['gpu']} cannot run the job: the trainer and "
                     f"whole copies of a rollout engine that holds the model and splits its {heads} (vLLM's rule) do "
                     f"not fit them; the smallest count that can is {fmt.number(data['fitting_gpus'])}, and the times "
                     f"below are on {fmt.number(data['fitting_gpus'])} × {data['gpu']}")
    waves, rounds = times["rollout_waves"], data.get("generation_rounds", 1)
    lines += [
        f"Generation    {fmt.seconds(times['generation_seconds'])} ({fmt.count(times['rollout_concurrency'], 'sequence')} at "
        f"a time, {waves:g} wave{'s' if waves != 1 else ''}"
        + (f" a round, {rounds:g} rounds" if rounds != 1 else "") + ")",
        f"Log-probs     {fmt.seconds(times['logprob_seconds'])}",
        f"Training      {fmt.seconds(times['training_seconds'])}",
        f"Refit         {fmt.seconds(times['refit_seconds'])}",
        f"Other         {fmt.seconds(times['other_seconds'])}",
        f"Step          {fmt.seconds(times['step_seconds'])} ({LAYOUTS[times['layout']]})"]
    if times["layout"] in ("separate", "split") and times.get("rollout_gpus") is not None:
        trainer = times.get("num_gpus", data["num_gpus"]) - times["rollout_gpus"]
        one = times["rollout_gpus"] == 1
        lines.append(f"Layout        {fmt.count(times['rollout_gpus'], 'GPU')} generate{'s' if one else ''}, "
                     f"{fmt.number(trainer)} train{'s' if trainer == 1 else ''}")
    return lines


LAYOUTS = {"colocated": "generation and training take turns on the same GPUs",
           "separate": "generation on its own GPUs beside the trainer, the longer of the two",
           "split": "generation on its own GPUs, then training on the rest, one after the other",
           "overlapped": "the method overlaps generation and training on the same GPUs, the longer of the two"}
