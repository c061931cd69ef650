"""`tinker-nomics validate PATH`: the bill of a finished run, from its logs, against the cost model.

The run readers (and pandas) are imported when the command runs, so `estimate` starts without them.
"""
from __future__ import annotations

from ...errors import TinkerNomicsError
from .common import add_format, number, to_json


def add_parser(sub) -> None:
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
    val.add_argument("--run", metavar="NAME", help="the run to read from an export that holds several (an error for "
                                                   "a log that holds one)")
    val.add_argument("--cached-prefill", choices=("auto", "none", "logged", "group"), default="auto",
                     help="prompt tokens billed at the cached rate: auto (the logged cache hits when logged, else "
                          "none), none, logged, or group (assume G-1 of every G rollouts hit; needs G)")
    val.add_argument("--group-size", type=number("--group-size"), metavar="G",
                     help="rollouts per prompt, for --cached-prefill group and calibration (default: config.json)")
    val.add_argument("--report", metavar="DIR",
                     help="also render the validation chapter for this run into DIR (papermill; DIR must not exist "
                          "unless --force, and may not be a symbolic link or lie inside the log folder)")
    val.add_argument("--force", action="store_true", help="with --report: replace the report files in DIR (other "
                                                          "files stay)")
    add_format(val)


def run(args) -> str:
    from ... import sources
    from ...runs.meters import check_group_size_fits, checked_group_size
    from ...runs.read import read_run
    from ...runs.report import check_report_dir, render_report
    from ...runs.validate import validate_run

    # Every option is checked before the log is read: a bad one costs nothing and is never silently dropped.
    if args.force and args.report is None:
        raise TinkerNomicsError("--force only applies with --report DIR")
    if args.report is not None:
        check_report_dir(args.report, args.path, args.force)
    if args.group_size is not None:
        checked_group_size(args.group_size, "--group-size")
    for flag, name in (("--model", args.model), ("--price-as", args.price_as)):
        if name is not None:
            if not name.strip():
                raise TinkerNomicsError(f"{flag} needs a model name (got an empty one)")
            sources.resolve_model(name)
    if args.prices is not None:
        sources.resolve_snapshot(args.prices)
    log = read_run(args.path, run=args.run)
    if args.group_size is not None:
        check_group_size_fits(log, args.group_size, "--group-size")
    result = validate_run(log, model=args.model, prices=args.prices, price_as=args.price_as,
                          cached_prefill=args.cached_prefill, group_size=args.group_size, run=args.run)
    report = render_report(result, args.report, args.path, force=args.force) if args.report is not None else None
    if args.format == "json":
        data = result.to_dict()
        if report is not None:
            data["report"] = str(report)
        return to_json(data)
    text = result.render()
    return text + (f"\nReport: {report}" if report is not None else "")
