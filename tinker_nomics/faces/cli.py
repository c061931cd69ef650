"""The `tinker-nomics` command line: estimate a run, list the registries.

Exit status 0 on success, 2 on bad arguments or bad input with one line on stderr naming the bad value.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import traceback

from .. import fmt, sources
from ..errors import TinkerNomicsError
from ..model.scenario import Scenario, estimate
from ..sources.price_list import price_rows, priced_models, resolve_snapshot, snapshots
from ..sources.prices import get_price
from ..sources.workloads import get_workload, workloads

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


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str):
        raise TinkerNomicsError(f"{self.prog}: {message}")


def _number(flag: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expects a number, got {text!r}") from None
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="tinker-nomics",
                           description="What RL fine-tuning costs on Tinker versus your own GPUs.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)

    est = sub.add_parser("estimate", help="one scenario, Tinker versus self-hosted",
                         description="Estimate one RL run on Tinker and on rented GPUs. A --workload preset fills "
                                     "the inputs; explicit flags override it.")
    est.add_argument("--workload", help="preset: " + ", ".join(workloads()))
    est.add_argument("--model", help="model id or short name (Qwen/Qwen3-8B or Qwen3-8B)")
    est.add_argument("--prices", help="Tinker price snapshot (default: the newest; see `tinker-nomics prices`)")
    for flag, (_, text) in NUMERIC_FLAGS.items():
        est.add_argument(flag, type=_number(flag), help=text)
    est.add_argument("--tinker-cached-prefill", action=argparse.BooleanOptionalAction, default=None,
                     help="bill cache-hit prompt tokens at the snapshot's cached-prefill rate")
    est.add_argument("--gpu", help="self-hosted GPU (H100 SXM, H200 SXM, B200, ...; see `tinker-nomics gpus`)")
    est.add_argument("--sandbox", help="none, modal or sandboxfusion (free, local)")
    est.add_argument("--method", help="seed (the original site's formulas, default) or exact (architecture-exact)")
    est.add_argument("--decode-model", help="auto, bandwidth (roofline on bytes only) or roofline (compute-aware)")
    est.add_argument("--fine-tune", help="lora (default) or full")
    _format(est)

    for name, text in (("workloads", "list the workload presets"), ("models", "list the models"),
                       ("gpus", "list the GPUs and their $/GPU-hour")):
        _format(sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + "."))
    prices = sub.add_parser("prices", help="list Tinker price snapshots, or the prices as of one",
                            description="Without options: the dated snapshots. With --snapshot: every model's "
                                        "prices as of that snapshot. With --model: that model across snapshots.")
    prices.add_argument("--snapshot", help="snapshot id (e.g. 2026-01-05), or 'latest'")
    prices.add_argument("--model", help="one model's prices in every snapshot")
    _format(prices)
    _add_validate(sub)
    return parser


def _format(p):
    p.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")


# --------------------------------------------------------------------------------------------- commands


def cmd_estimate(args) -> str:
    overrides = {field: getattr(args, flag[2:].replace("-", "_")) for flag, (field, _) in NUMERIC_FLAGS.items()}
    overrides.update(model=args.model, prices=args.prices, gpu=args.gpu, sandbox=args.sandbox, method=args.method,
                     decode_model=args.decode_model, fine_tune=args.fine_tune,
                     tinker_cached_prefill=args.tinker_cached_prefill)
    if args.workload:
        scenario = Scenario.from_workload(args.workload, **overrides)
    else:
        scenario = Scenario(**{k: v for k, v in overrides.items() if v is not None})
    try:
        result = estimate(scenario)
    except TinkerNomicsError as exc:  # speak in flags, not Python field names
        message = str(exc)
        for flag, (field, _) in NUMERIC_FLAGS.items():
            message = re.sub(rf"\b{field}\b", flag, message)
        raise TinkerNomicsError(message) from None
    data = result.to_dict()
    if args.workload:
        data["workload"] = get_workload(args.workload).name
    if args.format == "json":
        return json.dumps(data, indent=2)
    return render_estimate(data)


def render_estimate(d: dict) -> str:
    sc, tk, tokens, sh = d["scenario"], d["tinker"], d["tokens"], d["self_hosted"]
    head = " · ".join(x for x in (d.get("workload"), sc["model"], f"Tinker prices {sc['prices']}",
                                  f"method {sc['method']}") if x)
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
        lines += [
            f"Self-hosted   {fmt.usd(sh['total_usd'])} = {sh['gpu_hours']:,.1f} GPU-h × "
            f"{fmt.usd(sh['gpu_hourly_usd'])} on {sh['num_gpus']:g} × {sc['gpu']} + sandbox "
            f"{fmt.usd(sh['sandbox_usd'])}",
            f"              rollout {fmt.hours(sh['rollout_hours'])}, train {fmt.hours(sh['train_hours'])}, "
            f"wall-clock {fmt.hours(sh['wallclock_hours'])} (k={sc['off_policy']:g}, {overlap})",
            f"              min GPUs {sh['min_gpus']:g}; KV cache {sh['kv_cache_gb']:,.1f} GB "
            f"({'fits' if sh['kv_cache_fits'] else 'does not fit'})"]
        cheaper, other = (tk["total_usd"], sh["total_usd"]) if d["cheaper"] == "tinker" else \
            (sh["total_usd"], tk["total_usd"])
        factor = other / cheaper if cheaper > 0 else math.inf
        lines.append(f"Cheaper       {d['cheaper'].replace('_', '-')} ({factor:.1f}×)")
    for note in d["notes"]:
        lines.append(f"Note: {note}")
    return "\n".join(lines)


def table(rows: list[list], header: list[str]) -> str:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def cmd_workloads(args) -> str:
    data = []
    for w in workloads().values():
        f = w.fields
        shape = (f"{f.get('turns', 1):g} turns" if f.get("turns", 1) > 1 else f"L={f.get('completion_tokens', 0):g}")
        data.append({"name": w.name, "description": w.description, "fields": f, "sources": w.sources,
                     "summary": [w.name, f["model"], f"{f['prompts_per_step']:g}×{f['group_size']:g}",
                                 f"{f['steps']:g}", shape, w.description]})
    if args.format == "json":
        return json.dumps([{k: v for k, v in d.items() if k != "summary"} for d in data], indent=2)
    return table([d["summary"] for d in data], ["workload", "model", "B×G", "steps", "length", "description"])


def cmd_models(args) -> str:
    priced = {}
    for r in price_rows():
        if r.status == "primary":
            priced.setdefault(sources.split_context(r.model)[0], set()).add(r.snapshot)
    out = []
    for name in sources.model_names():
        arch = sources.get_arch(name) if sources.has_arch(name) else None
        snaps = sorted(priced.get(name, ()), key=lambda s: snapshots().get(s, ""))
        out.append({
            "model": name, "architecture": arch.arch_type if arch else None,
            "total_params": arch.total_params if arch else None, "active_params": arch.active_params if arch else None,
            "kv_bytes_per_token": arch.kv_bytes_per_token if arch else None,
            "tinker_status": arch.tinker_status if arch else "priced only",
            "price_snapshots": snaps, "source_url": arch.source_url if arch else None})
    if args.format == "json":
        return json.dumps(out, indent=2)
    rows = [[m["model"], m["architecture"] or "-",
             f"{m['total_params'] / 1e9:.1f}B" if m["total_params"] else "-",
             f"{m['active_params'] / 1e9:.2f}B" if m["active_params"] else "-",
             f"{m['kv_bytes_per_token'] / 1024:.0f} KiB" if m["kv_bytes_per_token"] else "-",
             ", ".join(m["price_snapshots"]) or "-"] for m in out]
    return table(rows, ["model", "type", "total", "active", "KV/token", "Tinker price snapshots"])


def cmd_gpus(args) -> str:
    out = []
    for g in sources.gpus().values():
        listings = [p for p in sources.gpu_prices() if p.gpu == g.gpu]
        default = next((p for p in listings if p.default), None)
        out.append({"gpu": g.gpu, "description": g.description, "memory_gb": g.memory_gb,
                    "hbm_bandwidth_tb_s": g.hbm_bandwidth_tb_s, "bf16_dense_tflops": g.bf16_dense_tflops,
                    "fp8_dense_tflops": g.fp8_dense_tflops, "source_url": g.source_url,
                    "default_usd_per_gpu_hour": default.usd_per_gpu_hour if default else None,
                    "default_provider": default.provider if default else None,
                    "listings": [{"provider": p.provider, "usd_per_gpu_hour": p.usd_per_gpu_hour, "date": p.date,
                                  "source_url": p.source_url} for p in listings]})
    if args.format == "json":
        return json.dumps(out, indent=2)
    rows = [[g["gpu"], f"{g['memory_gb']:g} GB", f"{g['hbm_bandwidth_tb_s']:g} TB/s",
             f"{g['bf16_dense_tflops']:g}" if g["bf16_dense_tflops"] else "-",
             fmt.usd(g["default_usd_per_gpu_hour"]) if g["default_usd_per_gpu_hour"] else "-",
             g["default_provider"] or "-", str(len(g["listings"]))] for g in out]
    return table(rows, ["gpu", "memory", "bandwidth", "BF16 TFLOPS", "default $/h", "default listing", "listings"])


def _priced(pairs):
    """(model, snapshot, Price) for every pair Tinker prices, skipping the pairs it does not."""
    for model, snap in pairs:
        try:
            yield model, snap, get_price(model, snap)
        except TinkerNomicsError:
            continue


def cmd_prices(args) -> str:
    if args.model:
        model = sources.resolve_model(args.model)
        out = [{"snapshot": snap, "prefill": p.prefill, "sample": p.sample, "train": p.train,
                "cached_prefill": p.cached_prefill, "notes": list(p.notes)}
               for _, snap, p in _priced((model, snap) for snap in snapshots())]
        if not out:
            raise TinkerNomicsError(f"Tinker prices {model} in no snapshot")
        if args.format == "json":
            return json.dumps({"model": model, "usd_per_million_tokens": out}, indent=2)
        return f"{model}, USD per million tokens\n" + table(
            [[o["snapshot"], _rate(o["prefill"]), _rate(o["sample"]), _rate(o["train"]), _rate(o["cached_prefill"])]
             for o in out], ["snapshot", "prefill", "sample", "train", "cached prefill"])
    if args.snapshot:
        snap = resolve_snapshot(args.snapshot)
        out = [{"model": model, "prefill": p.prefill, "sample": p.sample, "train": p.train,
                "cached_prefill": p.cached_prefill, "provenance": p.provenance, "notes": list(p.notes)}
               for model, _, p in _priced((model, snap) for model in priced_models())]
        if args.format == "json":
            return json.dumps({"snapshot": snap, "effective_date": snapshots()[snap],
                               "usd_per_million_tokens": out}, indent=2)
        rows = [[o["model"], _rate(o["prefill"]), _rate(o["sample"]), _rate(o["train"]), _rate(o["cached_prefill"]),
                 "carried forward" if o["notes"] else ""] for o in out]
        return f"Tinker prices as of {snap}, USD per million tokens\n" + table(
            rows, ["model", "prefill", "sample", "train", "cached prefill", "note"])
    out = []
    for snap, date in snapshots().items():
        rows = [r for r in price_rows() if r.snapshot == snap and r.status == "primary"]
        out.append({"snapshot": snap, "effective_date": date, "models_listed": len(rows),
                    "sources": sorted({r.source_url for r in rows})})
    if args.format == "json":
        return json.dumps(out, indent=2)
    return table([[o["snapshot"], o["effective_date"], o["models_listed"], o["sources"][0][:70]] for o in out],
                 ["snapshot", "ordered as", "models", "source"]) + \
        "\n(newest is the default; `tinker-nomics prices --snapshot ID` lists one)"


def _rate(x) -> str:
    return "-" if x is None else f"{x:g}"


def _add_validate(sub) -> None:
    val = sub.add_parser(
        "validate", help="the bill of a finished run, from its logs",
        description="Bill a finished run from its logs (sample = training + eval completions; train = training "
                    "prompt + completion; prefill = every prompt) and compare the cost model's prediction. PATH is a "
                    "tinker-cookbook log folder, a metrics.jsonl, or a W&B history export (.csv, .json, .jsonl, "
                    ".parquet, or a chart-panel CSV). Nothing is written into PATH.")
    val.add_argument("path", metavar="PATH", help="log folder, metrics.jsonl or W&B export")
    val.add_argument("--model", help="the run's model (default: model_name in config.json)")
    val.add_argument("--prices", help="Tinker price snapshot (default: the newest; see `tinker-nomics prices`)")
    val.add_argument("--price-as", metavar="MODEL",
                     help="bill at another model's rates (e.g. a variant the snapshot does not list); stated in "
                          "the output")
    val.add_argument("--run", metavar="NAME", help="the run to read from an export that holds several")
    val.add_argument("--cached-prefill", choices=("auto", "none", "logged", "group"), default="auto",
                     help="prompt tokens billed at the cached rate: auto (the logged cache hits when logged, else "
                          "none), none, logged, or group (assume G-1 of every G rollouts hit; needs G)")
    val.add_argument("--group-size", type=_number("--group-size"), metavar="G",
                     help="rollouts per prompt, for --cached-prefill group and calibration (default: config.json)")
    val.add_argument("--report", metavar="DIR",
                     help="also render the validation chapter for this run into DIR (papermill; DIR must not exist)")
    val.add_argument("--force", action="store_true", help="with --report: overwrite the report files in DIR")
    _format(val)


def cmd_validate(args) -> str:
    from ..runs.report import check_report_dir, render_report
    from ..runs.validate import validate_run

    if args.force and not args.report:
        raise TinkerNomicsError("--force only applies with --report DIR")
    if args.report:  # refuse a bad report folder before reading anything
        check_report_dir(args.report, args.path, args.force)
    result = validate_run(args.path, model=args.model, prices=args.prices, price_as=args.price_as,
                          cached_prefill=args.cached_prefill, group_size=args.group_size, run=args.run)
    report = None
    if args.report:
        report = render_report(result, args.report, args.path, model=args.model, prices=args.prices,
                               price_as=args.price_as, group_size=args.group_size, run_name=args.run,
                               force=args.force)
    if args.format == "json":
        data = result.to_dict()
        if report is not None:
            data["report"] = str(report)
        return json.dumps(data, indent=2)
    text = result.render()
    return text + (f"\nReport: {report}" if report is not None else "")


COMMANDS = {"estimate": cmd_estimate, "workloads": cmd_workloads, "models": cmd_models, "gpus": cmd_gpus,
            "prices": cmd_prices, "validate": cmd_validate}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return 2
        print(COMMANDS[args.command](args))
        return 0
    except TinkerNomicsError as exc:
        print(f"tinker-nomics: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug, not a user mistake: one line unless debugging
        if os.environ.get("TINKER_NOMICS_DEBUG"):
            traceback.print_exc()
        else:
            print(f"tinker-nomics: internal error: {type(exc).__name__}: {exc} "
                  f"(set TINKER_NOMICS_DEBUG=1 for the traceback, and please report it)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
