"""`tinker-nomics estimate`: one scenario, Tinker versus self-hosted."""
from __future__ import annotations

import argparse
import re

from ... import fmt
from ...errors import TinkerNomicsError
from ...model.estimate import estimate
from ...model.scenario import Scenario
from ...sources.workloads import get_workload, workloads
from .common import add_format, number, to_json

# flag -> Scenario field, for the numeric inputs of `estimate`
NUMERIC_FLAGS = {
    "--prompts-per-step": ("prompts_per_step", "B, prompts (groups) per step"),
    "--group-size": ("group_size", "G, rollouts per prompt"),
    "--steps": ("steps", "S, training steps"),
    "--completion-tokens": ("completion_tokens", "L, average completion tokens at the start of the run"),
    "--prompt-tokens": ("prompt_tokens", "P, prompt tokens"),
    "--length-growth": ("length_growth", "end/start completion length factor (1.5 -> x1.25 on average)"),
    "--substeps": ("substeps", "K, gradient passes over each batch"),
    "--turns": ("turns", "N, turns per rollout (> 1: agentic multi-turn mode)"),
    "--output-per-turn": ("output_per_turn", "O, sampled tokens per turn"),
    "--observation-per-turn": ("observation_per_turn", "Obs, environment tokens appended per turn"),
    "--failure-overhead": ("failure_overhead", "extra share of turns from failed rollouts (0.18-0.82)"),
    "--cache-hit-rate": ("cache_hit_rate", "prefix-cache hit rate of prompt tokens (self-hosted; Tinker only "
                                           "with --tinker-cached-prefill)"),
    "--tinker-cached-prefill-usd-per-m": ("tinker_cached_prefill_usd_per_m",
                                          "override the cached-prefill rate in USD per million tokens"),
    "--off-policy": ("off_policy", "k, async staleness bound; 0 = synchronous"),
    "--num-gpus": ("num_gpus", "GPUs (raised to the model's minimum)"),
    "--gpu-hourly-usd": ("gpu_hourly_usd", "USD per GPU-hour (default: the registry's default listing)"),
    "--rollout-efficiency": ("rollout_efficiency", "share of the decode roofline reached (0-1]"),
    "--mfu": ("mfu", "training model-FLOPs utilization (0-1]"),
    "--prefill-mfu": ("prefill_mfu", "prompt-processing utilization (0-1]"),
    "--sandbox-seconds-per-rollout": ("sandbox_seconds_per_rollout", "sandbox time per rollout"),
    "--sandbox-cpu-cores": ("sandbox_cpu_cores", "CPU cores per sandbox"),
    "--sandbox-memory-gib": ("sandbox_memory_gib", "GiB of memory per sandbox"),
    "--eval-every": ("eval_every", "evaluate every this many steps (0 = no evals)"),
    "--eval-prompts": ("eval_prompts", "prompts per evaluation (one rollout each)"),
    "--lora-rank": ("lora_rank", "LoRA rank (checkpoint size and storage)"),
}


def add_parser(sub) -> None:
    est = sub.add_parser("estimate", help="one scenario, Tinker versus self-hosted",
                         description="Estimate one RL run on Tinker and on rented GPUs. A --workload preset fills "
                                     "the inputs; explicit flags override it.")
    est.add_argument("--workload", help="preset: " + ", ".join(workloads()))
    est.add_argument("--model", help="model id or short name (Qwen/Qwen3-8B or Qwen3-8B)")
    est.add_argument("--model-config", help="a Hugging Face config.json: the self-hosted side's architecture (the "
                                            "Tinker bill uses --model, or the model the config names)")
    est.add_argument("--prices", help="Tinker price snapshot (default: the newest; see `tinker-nomics prices`)")
    for flag, (_, text) in NUMERIC_FLAGS.items():
        est.add_argument(flag, type=number(flag), help=text)
    est.add_argument("--tinker-cached-prefill", action=argparse.BooleanOptionalAction, default=None,
                     help="bill cache-hit prompt tokens at the snapshot's cached-prefill rate")
    est.add_argument("--gpu", help="self-hosted GPU (H100 SXM, H200 SXM, B200, ...; see `tinker-nomics gpus`)")
    est.add_argument("--sandbox", help="none, modal or sandboxfusion (free, local)")
    est.add_argument("--method", help="calibrated (default: exact, memory-feasible rollouts, efficiencies fitted to "
                                      "published measurements), exact (architecture-exact) or seed (the original "
                                      "site's formulas)")
    est.add_argument("--decode-model", help="auto, bandwidth (roofline on bytes only) or roofline (compute-aware)")
    est.add_argument("--fine-tune", help="lora (default) or full")
    est.add_argument("--calibration", metavar="FILE",
                     help="use the rollout efficiency and MFU fitted from your own run (written by `validate RUN "
                          "--save-calibration FILE`); --rollout-efficiency, --mfu and --method still override it")
    add_format(est)


def run(args) -> str:
    overrides = {field: getattr(args, flag[2:].replace("-", "_")) for flag, (field, _) in NUMERIC_FLAGS.items()}
    overrides.update(model=args.model, prices=args.prices, gpu=args.gpu, sandbox=args.sandbox, method=args.method,
                     decode_model=args.decode_model, fine_tune=args.fine_tune,
                     tinker_cached_prefill=args.tinker_cached_prefill, model_config=args.model_config)
    calibration_note = None
    from_file: dict[str, str] = {}   # Scenario field -> how an error names it when the calibration file set it
    if args.calibration is not None:
        from ...runs.calibration_file import load_calibration   # the run readers load only when asked for

        if not args.calibration.strip():
            raise TinkerNomicsError("--calibration needs a path")
        calibration = load_calibration(args.calibration)
        for field, value in calibration.overrides().items():
            if overrides.get(field) is None:
                overrides[field] = value
                from_file[field] = f"the {field} of calibration {args.calibration}"
        calibration_note = calibration.note()
        if args.method and args.method.strip().lower() != calibration.method:
            calibration_note += (f"; fitted with method {calibration.method}, used here with --method "
                                 f"{args.method.strip().lower()} as given")
    if args.workload:
        scenario = Scenario.from_workload(args.workload, **overrides)
    else:
        scenario = Scenario(**{k: v for k, v in overrides.items() if v is not None})
    try:
        result = estimate(scenario)
    except TinkerNomicsError as exc:  # speak in flags, not Python field names
        message = str(exc)
        for flag, (field, _) in NUMERIC_FLAGS.items():
            message = re.sub(rf"\b{field}\b", from_file.get(field, flag), message)
        raise TinkerNomicsError(message) from None
    data = result.to_dict()
    if args.workload:
        data["workload"] = get_workload(args.workload).name
    if calibration_note:
        data["notes"].append(calibration_note)
    if args.format == "json":
        return to_json(data)
    return render_estimate(data)


def render_estimate(d: dict) -> str:
    sc, tk, tokens, sh = d["scenario"], d["tinker"], d["tokens"], d["self_hosted"]
    billed = tk.get("billed_model")
    prices = f"Tinker prices {sc['prices']}" + (f" (billed as {billed}, its successor)" if billed and
                                                 billed != sc["model"] else "")
    head = " · ".join(x for x in (d.get("workload"), sc["model"], prices, f"method {sc['method']}") if x)
    mode = (f"{sc['turns']:g} turns × {sc['output_per_turn']:g} out + {sc['observation_per_turn']:g} obs"
            if sc["turns"] > 1 else f"L={sc['completion_tokens']:g}")
    lines = [head,
             f"Run: B={sc['prompts_per_step']:g} × G={sc['group_size']:g} × S={sc['steps']:g} steps, {mode}, "
             f"P={sc['prompt_tokens']:g}, growth {sc['length_growth']:g}, K={sc['substeps']:g}",
             "",
             f"Tokens        sample {fmt.tokens(tokens['sample'])}   train {fmt.tokens(tokens['train'])}   "
             f"prefill {fmt.tokens(tokens['prefill'])}",
             f"Tinker        {fmt.usd(tk['total_usd'])} = sample {fmt.usd(tk['sample_usd'])} + train "
             f"{fmt.usd(tk['train_usd'])} + prefill {fmt.usd(tk['prefill_usd'])} + sandbox "
             f"{fmt.usd(tk['sandbox_usd'])} + storage {fmt.usd(tk['storage_usd'])}"]
    if sh is None:
        lines.append("Self-hosted   not computed (no published architecture)")
    else:
        overlap = "overlapped" if sc["off_policy"] > 0 else "sequential"
        priced = sh["total_usd"] is not None   # None: no sourced $/GPU-hour for the GPU (a note says so)
        if not sh["feasible"]:   # said first, in the words predict rl-step uses, before any figure
            lines.append(f"Self-hosted   does not fit on {sc['num_gpus']:g} × {sc['gpu']}: the smallest count that "
                         f"can hold the job is {sh['fitting_gpus']:g}, and the figures below are on "
                         f"{sh['fitting_gpus']:g} × {sc['gpu']}")
        if sc["method"] == "calibrated":
            phases = (f"generation {fmt.hours(sh['rollout_hours'])}, log-probs {fmt.hours(sh['logprob_hours'])}, "
                      f"training {fmt.hours(sh['train_hours'])}, refit and rest "
                      f"{fmt.hours(sh['refit_hours'] + sh['other_hours'])}")
        else:
            phases = f"rollout {fmt.hours(sh['rollout_hours'])}, train {fmt.hours(sh['train_hours'])}"
        label = "Self-hosted   " if sh["feasible"] else " " * 14
        lines += [
            (f"{label}{fmt.usd(sh['total_usd'])} = {sh['gpu_hours']:,.1f} GPU-h × "
             f"{fmt.usd(sh['gpu_hourly_usd'])} on {sh['num_gpus']:g} × {sc['gpu']} + sandbox "
             f"{fmt.usd(sh['sandbox_usd'])}") if priced else
            (f"{label}dollars unknown: {sh['gpu_hours']:,.1f} GPU-h on {sh['num_gpus']:g} × {sc['gpu']} + "
             f"sandbox {fmt.usd(sh['sandbox_usd'])}"),
            f"              {phases}; wall-clock {fmt.hours(sh['wallclock_hours'])} (k={sc['off_policy']:g}, "
            f"{overlap})",
            f"              min GPUs {sh['min_gpus']:g}; KV cache {sh['kv_cache_gb']:,.1f} GB "
            f"({'fits' if sh['kv_cache_fits'] else 'does not fit'}); rollout {sh['rollout_concurrency']:,.0f} "
            f"sequences at a time, {sh['rollout_waves']:g} wave{'s' if sh['rollout_waves'] != 1 else ''} per step",
            f"              $/GPU-hour: {sh['gpu_hourly_usd_source'] if priced else 'unknown (see the note)'}"]
        lines.append(f"Cheaper       {cheaper_text(d['cheaper'], tk['total_usd'], sh['total_usd'])}" if priced else
                     "Cheaper       unknown (the self-hosted dollars are not known)")
    for note in d["notes"]:
        lines.append(f"Note: {note}")
    return "\n".join(lines)


def cheaper_text(side: str, tinker_usd: float, self_hosted_usd: float) -> str:
    """'self-hosted (3.5×)'; a side that costs nothing has no factor: 'self-hosted ($0.00 against $99.20)'."""
    cheaper, other = (tinker_usd, self_hosted_usd) if side == "tinker" else (self_hosted_usd, tinker_usd)
    name = side.replace("_", "-")
    if cheaper > 0:
        return f"{name} ({other / cheaper:.1f}×)"
    if other > 0:
        return f"{name} ({fmt.usd(cheaper)} against {fmt.usd(other)})"
    return f"neither (both cost {fmt.usd(0.0)})"
