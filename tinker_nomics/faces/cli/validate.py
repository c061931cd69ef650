"""`tinker-nomics validate PATH`: the bill of a finished run, from its logs, against the cost model.

The run readers (and pandas) are imported when the command runs, so `estimate` starts without them.
"""
from __future__ import annotations

from ... import fmt
from ...errors import TinkerNomicsError
from .common import add_format, number


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
    val.add_argument("--run", metavar="NAME", help="the run to read from an export that holds several")
    val.add_argument("--cached-prefill", choices=("auto", "none", "logged", "group"), default="auto",
                     help="prompt tokens billed at the cached rate: auto (the logged cache hits when logged, else "
                          "none), none, logged, or group (assume G-1 of every G rollouts hit; needs G)")
    val.add_argument("--group-size", type=number("--group-size"), metavar="G",
                     help="rollouts per prompt, for --cached-prefill group and calibration (default: config.json)")
    val.add_argument("--report", metavar="DIR",
                     help="also render the validation chapter for this run into DIR (papermill; DIR must not exist)")
    val.add_argument("--force", action="store_true", help="with --report: overwrite the report files in DIR")
    add_format(val)


def run(args) -> str:
    from ...runs.report import check_report_dir, render_report
    from ...runs.validate import validate_run

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
        return fmt.json_text(data)
    text = result.render()
    return text + (f"\nReport: {report}" if report is not None else "")
