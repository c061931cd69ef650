"""`tinker-nomics estimate`: one scenario, Tinker versus self-hosted."""
from __future__ import annotations

import re

import numpy as np

from ... import fmt
from ...analysis.services import other_services
from ...errors import TinkerNomicsError
from ...model.estimate import estimate
from ...model.scenario import Scenario
from ...sources.workloads import get_workload, workloads
from .. import labels, wording
from .common import add_format, add_on_off, number, to_json

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


HARDWARE_FLAGS = ("--gpu", "--num-gpus")     # one GPU choice: estimate's, not plan's (plan tries them all)


def add_scenario_arguments(parser, hardware: bool = True) -> None:
    """The workload flags `estimate` takes (a preset and every Scenario field), for every verb that runs a
    workload (estimate, plan). `hardware=False` leaves out the one-GPU choice (--gpu, --num-gpus)."""
    parser.add_argument("--workload", help="preset: " + ", ".join(workloads()))
    parser.add_argument("--model", help="model id or short name (Qwen/Qwen3-8B or Qwen3-8B)")
    parser.add_argument("--model-config", help="a Hugging Face config.json: the self-hosted side's architecture (the "
                                               "Tinker bill uses --model, or the model the config names)")
    parser.add_argument("--prices", help="Tinker price snapshot (default: the newest; see `tinker-nomics prices`)")
    for flag, (_, text) in NUMERIC_FLAGS.items():
        if hardware or flag not in HARDWARE_FLAGS:
            parser.add_argument(flag, type=number(flag), help=text)
    add_on_off(parser, "--tinker-cached-prefill", "bill cache-hit prompt tokens at the snapshot's cached-prefill rate")
    add_on_off(parser, "--lora-merge", "self-hosted LoRA (calibrated): the rollout engine gets the adapter merged into "
                                       "the weights and decodes at the base model's speed (default: unmerged, as "
                                       "verl serves it)")
    if hardware:
        parser.add_argument("--gpu", help="self-hosted GPU (H100 SXM, H200 SXM, B200, ...; see `tinker-nomics gpus`)")
    parser.add_argument("--sandbox", help="none, modal or sandboxfusion (free, local)")
    parser.add_argument("--method", help="calibrated (default: exact, memory-feasible rollouts, efficiencies fitted "
                                         "to published measurements), exact (architecture-exact) or seed (the "
                                         "original site's formulas)")
    parser.add_argument("--decode-model", help="auto, bandwidth (roofline on bytes only) or roofline (compute-aware)")
    parser.add_argument("--fine-tune", help="lora (default) or full")
    parser.add_argument("--calibration", metavar="FILE",
                        help="use the rollout efficiency and MFU fitted from your own run (written by `validate RUN "
                             "--save-calibration FILE`); --rollout-efficiency, --mfu and --method still override it")


def scenario_from_args(args) -> tuple[Scenario, str | None, dict[str, str]]:
    """The Scenario the workload flags describe (a preset with flags over it), the calibration file's note, and the
    fields that file set (each with how an error names it: `in_flags`)."""
    overrides = {field: getattr(args, flag[2:].replace("-", "_"), None) for flag, (field, _) in NUMERIC_FLAGS.items()}
    overrides.update(model=args.model, prices=args.prices, gpu=getattr(args, "gpu", None), sandbox=args.sandbox,
                     method=args.method, decode_model=args.decode_model, fine_tune=args.fine_tune,
                     tinker_cached_prefill=args.tinker_cached_prefill, model_config=args.model_config,
                     lora_merge=args.lora_merge)
    from ...model.scenario import check_whole
    if args.tinker_cached_prefill is False and args.tinker_cached_prefill_usd_per_m is not None:
        raise TinkerNomicsError("--tinker-cached-prefill-usd-per-m sets the rate of cached prompt tokens, which "
                                "--no-tinker-cached-prefill bills at the full rate: give one of the two")
    if args.prices is not None and not args.prices.strip():
        raise TinkerNomicsError("--prices needs a snapshot id (list them with `tinker-nomics prices`)")
    try:
        check_whole(overrides)
    except TinkerNomicsError as exc:
        raise in_flags(exc) from None
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
    try:
        if args.workload:
            scenario = Scenario.from_workload(args.workload, **overrides)
        else:
            scenario = Scenario(**{k: v for k, v in overrides.items() if v is not None})
        resolved = scenario.resolved()
    except TinkerNomicsError as exc:
        raise in_flags(exc, from_file) from None
    _refuse_settings_the_method_has_not(resolved, args)
    _refuse_settings_the_turns_have_not(resolved, overrides, args.workload)
    _refuse_settings_nothing_reads(resolved, overrides)
    return scenario, calibration_note, from_file


def _refuse_settings_nothing_reads(scenario: Scenario, given: dict) -> None:
    """A flag that prices or sizes something this run does not have is refused in one line (the bill was the same
    with or without it): a sandbox's size with no sandbox, the cached-prefill rate with no cache hits, the size of
    evaluations that never run."""
    def scalar(name):
        value = np.asarray(getattr(scenario, name), dtype=float)
        return float(value) if value.ndim == 0 else None
    # (--sandbox-seconds-per-rollout stays: an environment's time lengthens both wall-clocks without a priced sandbox)
    said = [flag for flag in ("--sandbox-cpu-cores", "--sandbox-memory-gib") if given.get(NUMERIC_FLAGS[flag][0])
            is not None]
    if said and str(scenario.sandbox) == "none":
        raise TinkerNomicsError(f"{', '.join(said)}: a setting of a sandbox, and this run has none (--sandbox "
                                f"none): name one with --sandbox (modal, sandboxfusion) or drop it")
    if given.get("tinker_cached_prefill_usd_per_m") is not None and scalar("cache_hit_rate") == 0:
        raise TinkerNomicsError("--tinker-cached-prefill-usd-per-m prices prompt tokens that hit the cache, and this "
                                "run's cache-hit rate is 0: set --cache-hit-rate too, or drop it")
    if given.get("eval_prompts") is not None and scalar("eval_every") == 0:
        raise TinkerNomicsError("--eval-prompts sizes the evaluations, and this run runs none (--eval-every 0): set "
                                "--eval-every too, or drop it")


# flags that shape only one kind of rollout (model/tokens.py rollout): a single-turn run samples --completion-tokens;
# a multi-turn run samples --output-per-turn each turn, adds --observation-per-turn, and retries --failure-overhead
SINGLE_TURN_FLAGS = {"--completion-tokens": "completion_tokens"}
MULTI_TURN_FLAGS = {"--output-per-turn": "output_per_turn", "--observation-per-turn": "observation_per_turn",
                    "--failure-overhead": "failure_overhead"}


def _refuse_settings_the_turns_have_not(scenario: Scenario, given: dict, workload: str | None) -> None:
    """A token flag the run's kind of rollout does not read is refused in one line, not silently ignored (with
    --turns 1, --output-per-turn changed nothing; on a multi-turn preset, --completion-tokens changed nothing)."""
    turns = np.asarray(scenario.turns, dtype=float)
    run = f"workload {workload}" if workload and given.get("turns") is None else "this run"
    if np.all(turns <= 1):
        ignored = [flag for flag, field in MULTI_TURN_FLAGS.items() if given.get(field) is not None]
        if ignored:
            raise TinkerNomicsError(f"{', '.join(ignored)}: a setting of multi-turn runs (--turns more than 1); "
                                    f"{run} is single-turn and samples --completion-tokens (drop it or set --turns)")
    elif np.all(turns > 1):
        ignored = [flag for flag, field in SINGLE_TURN_FLAGS.items() if given.get(field) is not None]
        if ignored:
            shown = fmt.number(float(turns.flat[0]))
            raise TinkerNomicsError(f"{', '.join(ignored)}: a setting of single-turn runs; {run} has {shown} turns "
                                    f"and samples --output-per-turn in each (set that instead, or --turns 1)")


# flags only some methods read: the calibrated method processes prompts at its fitted compute efficiency and decodes
# with its own phase model; the seed method prices prompts only for multi-turn runs
METHOD_FLAGS = {"--prefill-mfu": ("prefill_mfu", ("exact", "seed")), "--decode-model": ("decode_model", ("exact", "seed"))}


def _refuse_settings_the_method_has_not(scenario: Scenario, args) -> None:
    """A flag the scenario's method does not read is refused in one line, not silently ignored."""
    given = [flag for flag, (attr, _) in METHOD_FLAGS.items() if getattr(args, attr, None) is not None]
    if not given:
        return
    method = scenario.method
    ignored = [flag for flag in given if method not in METHOD_FLAGS[flag][1]]
    if ignored:
        raise TinkerNomicsError(f"{', '.join(ignored)}: a setting of the exact and seed methods; the {method} method "
                                f"does not read it (drop it or use --method exact)")


def in_flags(exc: TinkerNomicsError, from_file: dict[str, str] | None = None) -> TinkerNomicsError:
    """The error with Scenario field names replaced by the flags a user types (or, for a value a calibration file
    set, by the file's name for it)."""
    message = str(exc)
    for flag, (field, _) in NUMERIC_FLAGS.items():
        # a whole word only: not the tail of a flag already spelled out (--checkpoint-every-steps)
        message = re.sub(rf"(?<![-\w]){field}\b", lambda _: (from_file or {}).get(field, flag), message)
    for field in CHOICE_FIELDS:   # "method must be one of ..." (model/scenario.py _choice): only where it opens
        message = re.sub(rf"^{field} must be one of", f"--{field.replace('_', '-')} must be one of", message)
    # the on/off settings, and a choice named with its value ("give fine_tune lora", "use method calibrated")
    message = re.sub(r"(?<![-\w])lora_merge\b", "--lora-merge", message)
    message = re.sub(r"\b(fine_tune|method) (lora|calibrated)\b", lambda m: f"--{m.group(1).replace('_', '-')} "
                                                                            f"{m.group(2)}", message)
    return TinkerNomicsError(message)


CHOICE_FIELDS = ("method", "decode_model", "fine_tune")


def add_parser(sub) -> None:
    est = sub.add_parser("estimate", help="one scenario, Tinker versus self-hosted",
                         description="Estimate one RL run on Tinker and on rented GPUs. A --workload preset fills "
                                     "the inputs; explicit flags override it.")
    add_scenario_arguments(est)
    est.add_argument("--gpu-offers", metavar="PATH",
                     help="a copy of the SkyPilot catalog (a folder laid out like its catalogs/, or one vms.csv): "
                          "without --gpu-hourly-usd, the GPU is priced at the cheapest on-demand offer for it there")
    add_format(est)


def run(args) -> str:
    scenario, calibration_note, from_file = scenario_from_args(args)
    if args.gpu_offers is not None and args.gpu_hourly_usd is None:
        scenario = _priced_from_offers(scenario, args.gpu_offers)
    try:
        result = estimate(scenario)
        quotes = other_services(scenario, result) if _scalar(result) else []
    except TinkerNomicsError as exc:  # speak in flags, not Python field names
        raise in_flags(exc, from_file) from None
    data = result.to_dict()
    if args.workload:
        data["workload"] = get_workload(args.workload).name
    if calibration_note:
        data["notes"].append(calibration_note)
    data["other_services"] = [q.to_dict() for q in quotes]
    if _scalar(result) and result.self_hosted is not None:
        try:
            data["uncertainty"] = spread(scenario, args.workload, given_inputs(args, from_file))
        except TinkerNomicsError as exc:   # a draw past what the arithmetic holds: the answer stands without it
            data["uncertainty"] = None
            data["notes"].append(f"the spread over the draws is not computed: {in_flags(exc, from_file)}")
    if args.format == "json":
        return to_json(data)
    return render_estimate(data)


def given_inputs(args, from_file: dict) -> set[str]:
    """The Scenario fields the user set (by flag, or through --calibration's file): the Monte-Carlo leaves them as
    given, in `estimate` and `plan` alike."""
    return {field for flag, (field, _) in NUMERIC_FLAGS.items()
            if getattr(args, flag[2:].replace("-", "_"), None) is not None} | set(from_file)


def spread(scenario: Scenario, workload: str | None, given) -> dict:
    """The estimate's uncertainty (analysis.uncertainty.around): P10/P50/P90 of both bills and wall-clocks over the
    draws, the share of draws in which Tinker is cheaper, which inputs were drawn and which the user fixed, and the
    verdict as the book words it."""
    from ...analysis import uncertainty
    from ...analysis.verdict import Verdict

    mc = uncertainty.around(scenario, workload, fixed=sorted(given))
    q = mc.quantiles()
    # a draw that moves only Tinker's side (its step time) is not one of this answer's where Tinker prices nothing
    drawn = [name for name in sorted(mc.draws) if not (mc.tinker_not_offered and name.startswith("tinker_"))]
    out = {"draws": mc.n, "seed": 0, "drawn": drawn, "fixed": sorted(set(given) & set(
        uncertainty.for_workload(workload or "custom", str(scenario.resolved().method))))}
    for side, key in (("tinker", "tinker"), ("self_hosted", "self_hosted")):
        for p, v in zip(uncertainty.QUANTILES, q[key]):
            out[f"{side}_usd_p{int(100 * p)}"] = float(v)
        for p, v in zip(uncertainty.QUANTILES, q[f"{key}_hours"]):
            out[f"{side}_hours_p{int(100 * p)}"] = float(v)
    priced = not np.isnan(mc.point_self_hosted_usd)
    compared = mc.tinker_not_offered is None and priced
    out["p_tinker_cheaper"] = mc.p_tinker_cheaper if compared else None
    # a factor needs two bills that print as dollars (a side at $0.00 has none: cheaper_text words it)
    sayable = compared and min(round(mc.point_tinker_usd, 2), round(mc.point_self_hosted_usd, 2)) > 0
    out["verdict"] = wording.verdict(Verdict.of(mc.point_tinker_usd, mc.point_self_hosted_usd, mc.p_tinker_cheaper),
                                     capital=True) if sayable else None
    return out


def _scalar(result) -> bool:
    return result.self_hosted is None or np.ndim(result.self_hosted.total_usd) == 0


def _priced_from_offers(scenario: Scenario, path: str) -> Scenario:
    """The scenario at the cheapest on-demand offer for its GPU in the catalog copy at `path`."""
    from ...sources.offers import load_offers

    gpu = scenario.resolved().gpu
    found = [o for o in load_offers(path) if o.gpu == gpu and "on_demand_below_spot" not in o.flags]
    if not found:
        raise TinkerNomicsError(f"--gpu-offers {path}: no on-demand offer for {gpu} there; give --gpu-hourly-usd")
    cheapest = min(found, key=lambda o: (o.usd_per_gpu_hour, o.provider, o.instance_type))
    source = (f"cheapest on-demand offer for {gpu} in {path}: {cheapest.provider} {cheapest.instance_type} "
              f"(${cheapest.usd_per_hour:g}/h for {cheapest.accelerator_count} GPU{'s' * (cheapest.accelerator_count != 1)}; "
              f"{cheapest.source})")
    return scenario.replace(gpu_hourly_usd=cheapest.usd_per_gpu_hour, gpu_hourly_usd_source=source)


def render_estimate(d: dict) -> str:
    sc, tk, tokens, sh = d["scenario"], d["tinker"], d["tokens"], d["self_hosted"]
    not_offered = tk.get("not_offered")     # Tinker's list bills neither the model nor a successor: no dollars
    billed = tk.get("billed_model")
    prices = f"Tinker prices {sc['prices']}" + (f" (billed as {billed}, its successor)" if billed and
                                                 billed != sc["model"] else "")
    head = " · ".join(x for x in (d.get("workload"), sc["model"], prices, f"method {sc['method']}") if x)
    mode = (f"{sc['turns']:g} turns × {sc['output_per_turn']:g} out + {sc['observation_per_turn']:g} obs"
            if sc["turns"] > 1 else f"L={sc['completion_tokens']:g}")
    lines = [head,
             f"Run: B={fmt.number(sc['prompts_per_step'])} × G={fmt.number(sc['group_size'])} × S={fmt.number(sc['steps'])} steps, {mode}, "
             f"P={sc['prompt_tokens']:g}, growth {sc['length_growth']:g}, K={sc['substeps']:g}",
             "",
             f"Tokens        sample {fmt.tokens(tokens['sample'])}   train {fmt.tokens(tokens['train'])}   "
             f"prefill {fmt.tokens(tokens['prefill'])}",
             f"Tinker        not offered: {not_offered}" if not_offered else
             f"Tinker        {fmt.usd(tk['total_usd'])} = sample {fmt.usd(tk['sample_usd'])} + train "
             f"{fmt.usd(tk['train_usd'])} + prefill {fmt.usd(tk['prefill_usd'])} + sandbox "
             f"{fmt.usd(tk['sandbox_usd'])} + storage {fmt.usd(tk['storage_usd'])}"]
    if tk.get("wallclock_hours") is not None:
        lines.append(f"{'':14}wall-clock ≈ {fmt.hours(tk['wallclock_hours'])} ({wording.tinker_wallclock_basis()})")
    if sh is None:
        lines.append("Self-hosted   not computed (no published architecture)")
    else:
        overlap = ("sequential" if not sh["overlapped"] else "overlapped" if sc["method"] != "calibrated" else
                   "rollout on its own GPUs")
        priced = sh["total_usd"] is not None   # None: no sourced $/GPU-hour for the GPU (a note says so)
        if not sh["feasible"]:   # said first, in the words predict rl-step uses, before any figure
            lines.append(f"Self-hosted   does not fit on {fmt.number(sc['num_gpus'])} × {sc['gpu']}: the smallest count that "
                         f"can hold the job is {fmt.number(sh['fitting_gpus'])}, and the figures below are on "
                         f"{fmt.number(sh['fitting_gpus'])} × {sc['gpu']}")
        if sc["method"] == "calibrated":
            phases = (f"generation {fmt.hours(sh['rollout_hours'])}, log-probs {fmt.hours(sh['logprob_hours'])}, "
                      f"training {fmt.hours(sh['train_hours'])}, refit and rest "
                      f"{fmt.hours(sh['refit_hours'] + sh['other_hours'])}")
        else:
            phases = f"rollout {fmt.hours(sh['rollout_hours'])}, train {fmt.hours(sh['train_hours'])}"
        label = "Self-hosted   " if sh["feasible"] else " " * 14
        lines += [
            (f"{label}{fmt.usd(sh['total_usd'])} = {sh['gpu_hours']:,.1f} GPU-h × "
             f"{fmt.usd(sh['gpu_hourly_usd'])} on {fmt.number(sh['num_gpus'])} × {sc['gpu']} + sandbox "
             f"{fmt.usd(sh['sandbox_usd'])}") if priced else
            (f"{label}dollars unknown: {sh['gpu_hours']:,.1f} GPU-h on {fmt.number(sh['num_gpus'])} × {sc['gpu']} + "
             f"sandbox {fmt.usd(sh['sandbox_usd'])}"),
            f"              {phases}; wall-clock {fmt.hours(sh['wallclock_hours'])} (k={sc['off_policy']:g}, "
            f"{overlap})",
            f"              min GPUs {fmt.number(sh['min_gpus'])}; KV cache {sh['kv_cache_gb']:,.1f} GB "
            f"({'fits' if sh['kv_cache_fits'] else 'does not fit'}); rollout "
            f"{fmt.count(sh['rollout_concurrency'], 'sequence')} at a time, {fmt.number(sh['rollout_waves'])} wave{'s' if sh['rollout_waves'] != 1 else ''} per step",
            f"              $/GPU-hour: {sh['gpu_hourly_usd_source'] if priced else 'unknown (see the note)'}"]
        u = d.get("uncertainty")
        if u is not None:
            lines += spread_lines(u, not not_offered, priced)
        if not_offered:
            lines.append("Cheaper       unknown (Tinker does not offer this model)")
        elif priced:   # the book's verdict where both bills print as dollars (spread), else the two amounts
            verdict = (u or {}).get("verdict") or cheaper_text(d["cheaper"], tk["total_usd"], sh["total_usd"])
            lines.append(f"Cheaper       {verdict}")
        else:
            lines.append("Cheaper       unknown (the self-hosted dollars are not known)")
    lines += other_services_lines(d.get("other_services", []))
    for note in d["notes"]:
        if not (not_offered and note.endswith(not_offered)):   # the Tinker line says it already
            lines.append(f"Note: {note}")
    return "\n".join(lines)


def spread_lines(u: dict, tinker: bool, priced: bool) -> list[str]:
    """P10–P90 of each side's bill and wall-clock over the draws, and what was drawn."""
    def side(name, key, dollars):   # the book's words for a spread (wording.spread), the plan's for a wall-clock
        money = f"{wording.spread(u[f'{key}_usd_p10'], u[f'{key}_usd_p90'])}, " if dollars else ""
        return f"{name} {money}{fmt.duration(u[f'{key}_hours_p10'])}–{fmt.duration(u[f'{key}_hours_p90'])}"
    parts = ([side("Tinker", "tinker", True)] if tinker else []) + [side("self-hosted", "self_hosted", priced)]
    drawn = " · ".join(labels.label(name, symbol=False) for name in u["drawn"]) or "nothing"
    fixed = f"; as given: {' · '.join(labels.label(n, symbol=False) for n in u['fixed'])}" if u["fixed"] else ""
    return [f"Spread        P10–P90 over {u['draws']:,} draws: {'; '.join(parts)}",
            f"{'':14}drawn: {drawn}{fixed}"]


def cheaper_text(side: str, tinker_usd: float, self_hosted_usd: float) -> str:
    """'self-hosted (3.5×)'; a side that costs nothing, or less than the cent it prints as, has no factor (it would
    be a ratio of billions to a bill shown as $0.00): 'self-hosted ($0.00 against $99.20)'."""
    cheaper, other = (tinker_usd, self_hosted_usd) if side == "tinker" else (self_hosted_usd, tinker_usd)
    name = side.replace("_", "-")
    if round(cheaper, 2) > 0:
        return f"{name} ({other / cheaper:,.1f}×)"
    if other > 0:
        return f"{name} ({fmt.usd(cheaper)} against {fmt.usd(other)})"
    return f"neither (both cost {fmt.usd(0.0)})"


def other_services_lines(quotes: list[dict]) -> list[str]:
    """One line per managed service that prices the model or the GPU (tinker-nomics plan compares them all)."""
    lines = ["Other services"] if quotes else []
    for q in quotes:
        total = "rates incomplete" if q["total_usd"] is None else fmt.usd(q["total_usd"])
        state = "" if q["available"] else f"; {q['why_not']}"
        lines.append(f"{'':14}{q['service']}: {total}" + (f" = {q['detail']}" if q["total_usd"] is not None
                                                           else "") + state)
    return lines
