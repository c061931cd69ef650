"""`tinker-nomics validate RUN`: both sides of the ledger for a finished run, from its logs.

A run on Tinker (tinker-cookbook logs): its bill from the logs, the cost model's prediction per meter, the same steps
priced on rented GPUs, and (with --usage) Tinker's own usage export against the log. A self-hosted run (verl, TRL,
NeMo RL, OpenRLHF): what the GPUs did, the self-hosted model's per-phase error and the efficiencies that would have matched, and the same
tokens billed on Tinker. The run readers (and pandas) are imported when the command runs, so `estimate` starts
without them.
"""
from __future__ import annotations

import math
import os

from ... import sources
from ...errors import TinkerNomicsError
from ...sources.hf_config import load_config
from .common import add_format, number, to_json


def add_parser(sub) -> None:
    val = sub.add_parser(
        "validate", help="both sides of the ledger for a finished run, from its logs",
        description="Check a finished run from its logs and price it on the other side. PATH is a tinker-cookbook "
                    "log folder or metrics.jsonl (the run ran on Tinker), a verl, NeMo RL, OpenRLHF or SkyRL console "
                    "log, verl file-logger .jsonl or TRL trainer_state.json (the run ran on your GPUs), a W&B export "
                    "(.csv, .json, .jsonl, .parquet, or a chart-panel CSV), TensorBoard event file or W&B run folder "
                    "(wandb/run-<date>-<id>/, or its run-<id>.wandb) of any of them or of a SkyRL run, or a "
                    "`tinker billing usage` "
                    "export. The framework is detected from the log's keys. Nothing is written into PATH's folder.")
    val.add_argument("path", metavar="PATH", help="log folder, log file, W&B export or run folder, or usage export")
    val.add_argument("--ran-on", choices=("tinker", "self-hosted"),
                     help="where the run ran (default: detected from the log); a log of the other side is refused")
    val.add_argument("--model", help="the run's model (default: from the log's config)")
    val.add_argument("--model-config", metavar="PATH",
                     help="a Hugging Face config.json for the run's model: its architecture for the GPU side (any "
                          "model, also one the registry lacks)")
    val.add_argument("--prices", help="Tinker price snapshot (default: the newest; see `tinker-nomics prices`)")
    val.add_argument("--price-as", metavar="MODEL",
                     help="bill at another model's rates (e.g. a variant the snapshot does not list); stated in "
                          "the output")
    val.add_argument("--run", metavar="NAME", help="the run to read from an export that holds several (an error for "
                                                   "a log that holds one)")
    val.add_argument("--cached-prefill", choices=("auto", "none", "logged", "group"), default="auto",
                     help="prompt tokens billed at the cached rate: auto (the logged cache hits when logged, else "
                          "none), none, logged, or group (assume G-1 of every G rollouts hit; needs G)")
    val.add_argument("--group-size", type=number("--group-size"), metavar="G",
                     help="rollouts (samples) per prompt (default: the log's config)")
    val.add_argument("--prompts-per-step", type=number("--prompts-per-step"), metavar="B",
                     help="self-hosted: prompts per step (default: the log's config; TRL, NeMo RL logs without "
                          "token counts and OpenRLHF logs without rollout/num_samples need it with --group-size)")
    val.add_argument("--prompt-len", type=number("--prompt-len"), metavar="P",
                     help="self-hosted: mean prompt tokens per sample, for a log that records neither its prompt "
                          "length nor its token counts (SkyRL)")
    gpus = val.add_argument_group("GPUs", "self-hosted runs: the GPUs they ran on; Tinker runs: the GPUs to price "
                                          "them on (default: the package's, data/assumptions/defaults.csv)")
    gpus.add_argument("--gpu", help="GPU type (H100 SXM, B200, ...; `tinker-nomics gpus` lists them)")
    gpus.add_argument("--num-gpus", type=number("--num-gpus"), metavar="N",
                      help="GPU count (self-hosted default: the log's config)")
    gpus.add_argument("--gpu-hourly-usd", type=number("--gpu-hourly-usd"), metavar="USD",
                      help="USD per GPU-hour (default: the registry's default listing for the GPU)")
    gpus.add_argument("--fine-tune", choices=("full", "lora"),
                      help="full or LoRA training (default: the log's config; Tinker runs are LoRA)")
    gpus.add_argument("--method", choices=("calibrated", "exact", "seed"),
                      help="the self-hosted model's method (default: the package's default)")
    gpus.add_argument("--off-policy", type=number("--off-policy"), metavar="K",
                      help="async staleness bound: Tinker runs on GPUs (default: the package's); self-hosted runs "
                           "that ran asynchronously (default: the log's config, else synchronous)")
    gpus.add_argument("--rollout-gpus", type=number("--rollout-gpus"), metavar="N",
                      help="self-hosted asynchronous runs: the GPUs the rollout engine had to itself, of --num-gpus "
                           "(default: the log's config, else the model's split)")
    val.add_argument("--usage", metavar="EXPORT",
                     help="Tinker runs: a `tinker billing usage` export (CSV or JSON) to reconcile with the log")
    val.add_argument("--session", action="append", metavar="ID",
                     help="with --usage: keep only this session's rows (repeatable)")
    val.add_argument("--save-calibration", metavar="FILE",
                     help="self-hosted runs: write the fitted rollout efficiency and MFU to FILE (JSON) for "
                          "`estimate --calibration FILE`")
    val.add_argument("--per-step", metavar="FILE",
                     help="also write one row per logged step to FILE: Parquet (.parquet) or JSON lines (.jsonl); the "
                          "JSON output itself holds the run's summary only")
    val.add_argument("--report", metavar="DIR",
                     help="also render the run-validation chapter for this run into DIR (papermill; DIR must not "
                          "exist)")
    val.add_argument("--force", action="store_true",
                     help="overwrite the report files in DIR and an existing --save-calibration or --per-step FILE")
    add_format(val)


MAX_PROMPT_LEN = 10 ** 7   # tokens: beyond any model's context


def _checked(args) -> None:
    """Numbers checked before any reading: a bad option is one line naming it."""
    from ...model.scenario import BOUNDS, check_whole
    from ...sources import number
    rules = {"group_size": 1.0, "prompts_per_step": 1.0, "num_gpus": 1.0, "gpu_hourly_usd": 0.0, "off_policy": 0.0,
             "rollout_gpus": 1.0}
    for name, low in rules.items():
        value = getattr(args, name)
        high = number("max_gpus") if name in ("num_gpus", "rollout_gpus") else BOUNDS[name][2]
        if value is not None and not (math.isfinite(value) and low <= value <= high):
            raise TinkerNomicsError(f"--{name.replace('_', '-')} must be a finite number from {low:g} to {high:g}, "
                                    f"got {value:g}")
    if args.rollout_gpus is not None and args.rollout_gpus % 1:
        raise TinkerNomicsError(f"--rollout-gpus must be a whole number of GPUs, got {args.rollout_gpus:g}")
    if args.rollout_gpus is not None and args.num_gpus is not None and args.rollout_gpus >= args.num_gpus:
        raise TinkerNomicsError(f"--rollout-gpus ({args.rollout_gpus:g}) must leave GPUs to train on: fewer than "
                                f"--num-gpus ({args.num_gpus:g})")
    if args.prompt_len is not None and not (math.isfinite(args.prompt_len) and 0 < args.prompt_len <= MAX_PROMPT_LEN):
        raise TinkerNomicsError(f"--prompt-len must be a finite number of tokens above 0 and at most "
                                f"{MAX_PROMPT_LEN:,}, got {args.prompt_len:g}")
    try:
        check_whole({name: getattr(args, name) for name in rules})
    except TinkerNomicsError as exc:
        name = str(exc).split(" ", 1)[0]
        raise TinkerNomicsError(f"--{name.replace('_', '-')} {str(exc).split(' ', 1)[1]}") from None
    for name in ("save_calibration", "usage", "model_config", "per_step"):
        value = getattr(args, name)
        if value is not None and not value.strip():
            raise TinkerNomicsError(f"--{name.replace('_', '-')} needs a path")
    if args.force and not (args.report is not None or args.save_calibration or args.per_step):
        raise TinkerNomicsError("--force only applies with --report DIR, --save-calibration FILE or --per-step FILE")


def run(args) -> str:
    from ...runs.calibration_file import calibration_record, check_destination, save_calibration
    from ...runs.detect import USAGE, detect
    from ...runs.ledger import check_run
    from ...runs.report import check_report_dir
    from ..report import render_report
    from ...runs.meters import checked_group_size
    from ...runs.outputs import check_table_file, write_table_file
    from ...runs.validate_hosted import HostedValidation

    # Every option is checked before the log is read: a bad one costs nothing and is never silently dropped.
    _checked(args)
    if args.group_size is not None:
        checked_group_size(args.group_size, "--group-size")
    for flag, name in (("--model", args.model), ("--price-as", args.price_as)):
        if name is not None:
            if not name.strip():
                raise TinkerNomicsError(f"{flag} needs a model name (got an empty one)")
            if not (flag == "--model" and sources.architectures.has_arch(name)):   # a fine-tune's name reads as
                sources.resolve_model(name)                                        # its base, as in estimate
    if args.prices is not None:
        if not args.prices.strip():
            raise TinkerNomicsError("--prices needs a snapshot id (list them with `tinker-nomics prices`)")
        sources.resolve_snapshot(args.prices)
    if args.model and args.model_config:
        raise TinkerNomicsError("give --model or --model-config, not both")
    arch = load_config(args.model_config) if args.model_config else None
    inputs = (args.usage, args.model_config)   # besides the log: never overwritten by what the command writes
    if args.report is not None:  # refuse a bad report folder before reading anything
        check_report_dir(args.report, args.path, args.force, inputs)
        if detect(args.path).side == USAGE:
            raise TinkerNomicsError("--report renders the chapter for a run's logs; a usage export alone has none "
                                    "(pass it with --usage beside the run's log)")
    if args.save_calibration:
        check_destination(args.save_calibration, args.path, args.force, inputs)
    if args.per_step:
        check_table_file(args.per_step, "--per-step", args.path, args.force, inputs)
        if args.save_calibration and os.path.abspath(args.per_step) == os.path.abspath(args.save_calibration):
            raise TinkerNomicsError("--per-step and --save-calibration name the same file")
    result = check_run(args.path, args.ran_on, model=args.model, prices=args.prices, price_as=args.price_as,
                       cached_prefill=args.cached_prefill, group_size=args.group_size, run=args.run, gpu=args.gpu,
                       num_gpus=args.num_gpus, gpu_hourly_usd=args.gpu_hourly_usd, fine_tune=args.fine_tune,
                       prompts_per_step=args.prompts_per_step, method=args.method, off_policy=args.off_policy,
                       usage=args.usage, sessions=args.session, arch=arch, prompt_len=args.prompt_len,
                       rollout_gpus=args.rollout_gpus)
    saved = None
    if args.save_calibration:
        if not isinstance(result, HostedValidation):
            raise TinkerNomicsError("--save-calibration needs a self-hosted run (its logged GPU time is what is "
                                    "fitted); this log ran on Tinker")
        saved = save_calibration(calibration_record(result.calibration()), args.save_calibration, args.path,
                                 args.force, inputs)
    per_step = write_table_file(result.per_step_table(), args.per_step) if args.per_step else None
    report = None
    if args.report is not None:
        # the chapter shows this very result (runs.report); the options only label the page, with a Tinker run's
        # resolved model and snapshot
        bill = getattr(getattr(result, "validation", None), "bill", None)
        report = render_report(result, args.report, args.path, force=args.force, inputs=inputs, parameters={
            "model": args.model or (bill.model if bill else None), "prices": args.prices or (bill.prices if bill else None),
            "price_as": args.price_as, "group_size": args.group_size, "run_name": args.run, "ran_on": args.ran_on, "gpu": args.gpu, "num_gpus": args.num_gpus,
            "gpu_hourly_usd": args.gpu_hourly_usd, "fine_tune": args.fine_tune,
            "prompts_per_step": args.prompts_per_step, "cached_prefill": args.cached_prefill})
    if args.format == "json":
        data = result.to_dict(per_step=False)
        if report is not None:
            data["report"] = str(report)
        if saved is not None:
            data["calibration_file"] = str(saved)
        if per_step is not None:
            data["per_step_file"] = str(per_step)
        return to_json(data)
    text = result.render()
    if saved is not None:
        text += f"\nCalibration: {saved}"
    if per_step is not None:
        text += f"\nPer-step rows: {per_step}"
    return text + (f"\nReport: {report}" if report is not None else "")
