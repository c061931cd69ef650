"""What a finished run cost, from its logs, and how far the cost model's prediction was off: `validate_run`
reads the logs (runs.read), sums the meters and bills them (runs.meters), re-predicts the run
(runs.calibrate), and gathers everything into one `Validation`, which the CLI prints and the report renders.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import fmt, sources
from ..errors import TinkerNomicsError
from ..model.billing import meter_cost
from ..sources.prices import Price
from .calibrate import DEFAULT_WINDOW, Calibration, calibrate
from .meters import (MeterTokens, RunBill, bill_meters, cached_tokens_per_step, check_group_size_fits,
                     checked_group_size, run_meters, step_meters)
from .read import read_run
from .runlog import RunLog, frame_from_records

MULTI_TURN_CAVEAT = (
    "multi-turn run (up to {turns:g} turns per episode): tinker-cookbook merges the turns of an episode whose "
    "prompts extend each other into one training datum, so the shared prefix is trained once, but "
    "env/all/total_ob_tokens counts the whole history again on every turn; train = ob + ac therefore "
    "over-counts the train meter (the sample and prefill meters are exact)")
PER_STEP_COLUMNS = ["step", "has_train", "sample_tokens", "train_tokens", "prefill_tokens", "cached_prefill_tokens",
                    "cost_usd", "cumulative_usd"]


@dataclass(frozen=True)
class Validation:
    """A run's bill from its logs: meters, money per step, calibration of the cost model, caveats."""
    run: RunLog
    bill: RunBill
    per_step: pd.DataFrame       # step, meter tokens, cached prefill, USD per meter, cost and cumulative cost
    calibration: Calibration | None
    cached_basis: str
    caveats: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)   # the arguments validate_run was given

    @property
    def total_usd(self) -> float:
        return self.bill.total_usd

    def summary(self) -> dict:
        """Headline numbers of the run, for prose and tables (the book glues these)."""
        b, m, train = self.bill, self.bill.meters, self.run.train
        seconds = train["step_seconds"]
        hours = float(seconds.sum()) / 3600.0 if seconds.notna().any() else math.nan
        eval_usd = _eval_usd(b)
        total = b.total_usd
        return {
            "run": Path(self.run.source).name, "model": b.model, "price_model": b.price_model, "prices": b.prices,
            "format": self.run.kind, "mode": self.run.mode, "steps": self.run.n_steps,
            "first_step": int(train["step"].min()), "last_step": int(train["step"].max()),
            "eval_runs": int(len(self.run.eval_steps)),
            "episodes_per_step": float(train["episodes"].mean()) if train["episodes"].notna().any() else math.nan,
            "hours": hours, "step_minutes_mean": float(seconds.mean()) / 60.0 if seconds.notna().any() else math.nan,
            "sample_tokens": m.sample, "train_tokens": m.train, "prefill_tokens": m.prefill,
            "eval_sample_tokens": m.eval_sample, "eval_prefill_tokens": m.eval_prefill,
            "train_completion_tokens": m.train_completion, "train_prompt_tokens": m.train_prompt,
            "tokens": m.total, "sample_usd": b.sample_usd, "train_usd": b.train_usd, "prefill_usd": b.prefill_usd,
            "total_usd": total, "eval_usd": eval_usd, "eval_usd_share": eval_usd / total if total else math.nan,
            "usd_per_step": total / self.run.n_steps,
            "usd_per_million_tokens": total / m.total * 1e6 if m.total else math.nan,
            "usd_per_hour": total / hours if hours and not math.isnan(hours) else math.nan,
            "prefill_usd_share": b.prefill_usd / total if total else math.nan,
        }

    def to_dict(self, per_step: bool = True, log: bool = False) -> dict:
        """The numbers of `validate --format json`, as strict-JSON values (NaN is null). With `log`, also everything
        `from_dict` needs to rebuild this Validation: the tidy table, the per-step costs and the options (what
        the report writes to validation.json and its notebook reads, so page and summary agree)."""
        b, m = self.bill, self.bill.meters
        out = {
            "model": b.model, "price_model": b.price_model, "prices": b.prices, "source": self.run.source,
            "format": self.run.kind, "mode": self.run.mode, "run_name": self.run.run_name,
            "steps": self.run.n_steps, "eval_runs": int(len(self.run.eval_steps)),
            "tokens": m.to_dict(),
            "tinker": {"sample_usd": b.sample_usd, "train_usd": b.train_usd, "prefill_usd": b.prefill_usd,
                       "total_usd": b.total_usd,
                       "cached_prefill": {"mode": b.cached_mode, "tokens": m.cached_prefill,
                                          "rate_usd_per_million": b.cached_rate, "basis": self.cached_basis},
                       "rates_usd_per_million": {"prefill": b.price.prefill, "sample": b.price.sample,
                                                 "train": b.price.train, "cached_prefill": b.price.cached_prefill},
                       "rates_source": dict(b.price.provenance)},
            "logged": _logged_summary(self.run),
            "calibration": self.calibration.to_dict() if self.calibration is not None else None,
            "caveats": list(self.caveats), "notes": list(self.notes),
        }
        if per_step:
            out["per_step"] = fmt.json_records(self.per_step[PER_STEP_COLUMNS])
        if log:
            out["log"] = {"run": self.run.to_dict(), "per_step": fmt.json_records(self.per_step),
                          "bill_notes": list(b.notes), "options": self.options}
        return fmt.json_safe(out)

    @classmethod
    def from_dict(cls, d: dict) -> "Validation":
        """The Validation that `to_dict(log=True)` wrote."""
        if "log" not in d:
            raise TinkerNomicsError("this validation JSON has no 'log' section (write it with to_dict(log=True), as "
                                    "`validate --report` does)")
        tk, cached = d["tinker"], d["tinker"]["cached_prefill"]
        rates = tk["rates_usd_per_million"]
        price = Price(d["price_model"], d["prices"], rates["prefill"], rates["sample"], rates["train"],
                      rates["cached_prefill"], dict(tk["rates_source"]))
        meters = MeterTokens(**{k: math.nan if v is None else v for k, v in d["tokens"].items()})
        bill = RunBill(d["model"], price, meters, cached["mode"], cached["rate_usd_per_million"], tk["sample_usd"],
                       tk["train_usd"], tk["prefill_usd"], tuple(d["log"]["bill_notes"]))
        records = d["log"]["per_step"]
        per_step = frame_from_records(records, list(records[0]) if records else ["step", "has_train"])
        calibration = Calibration.from_dict(d["calibration"]) if d["calibration"] is not None else None
        return cls(RunLog.from_dict(d["log"]["run"]), bill, per_step, calibration, cached["basis"],
                   tuple(d["caveats"]), tuple(d["notes"]), dict(d["log"]["options"]))

    @classmethod
    def from_json(cls, path) -> "Validation":
        """The Validation in a report's validation.json."""
        from .files import load_json
        return cls.from_dict(load_json(path, str(path)))

    def render(self) -> str:
        return render_validation(self.to_dict(per_step=False))

    def per_step_table(self) -> pd.DataFrame:
        """One row per step: what `--per-step FILE` writes (the JSON's per_step, and the reward and time)."""
        return self.per_step[PER_STEP_COLUMNS + ["reward", "eval_reward", "step_seconds"]]


def _logged_summary(run: RunLog) -> dict:
    out = {}
    if run.train["logged_cost_usd"].notna().any():
        out["cost_step_usd_sum"] = float(run.train["logged_cost_usd"].sum())
    if run.train["logged_trained_tokens"].notna().any():
        out["trained_tokens_sum"] = float(run.train["logged_trained_tokens"].sum())
    out.update({k: v for k, v in run.logged_totals.items()})
    return out


def resolve_run_model(run: RunLog, model: str | None) -> tuple[str, list[str]]:
    notes = []
    if model:
        canonical = sources.resolve_model(model)
        if run.model and sources.resolve_model(run.model) != canonical:
            notes.append(f"model {canonical} given explicitly; config.json says {run.model}")
        return canonical, notes
    if run.model:
        return sources.resolve_model(run.model), notes
    why = "its config.json has no model_name" if run.config else "no config.json beside it"
    raise TinkerNomicsError(f"{run.source}: which model? {why}; pass --model (e.g. Qwen/Qwen3-8B)")


def validate_run(path_or_run, model: str | None = None, prices: str | None = None, price_as: str | None = None,
                 cached_prefill: str = "auto", group_size: float | None = None, run: str | None = None,
                 calibration: bool = True, window: float = DEFAULT_WINDOW) -> Validation:
    """The bill of a finished run from its logs (a path, or a RunLog already read), and the calibration."""
    for name, value in (("model", model), ("prices", prices), ("price_as", price_as), ("run", run),
                        ("cached_prefill", cached_prefill)):
        if value is not None and not isinstance(value, str):
            raise TinkerNomicsError(f"{name} must be a text, got {value!r} ({type(value).__name__})")
    if not isinstance(path_or_run, (str, os.PathLike, RunLog)):
        raise TinkerNomicsError(f"the run must be a path or a RunLog, got {type(path_or_run).__name__}")
    if group_size is not None:
        group_size = checked_group_size(group_size)
    log = path_or_run if isinstance(path_or_run, RunLog) else read_run(path_or_run, run=run)
    if group_size is not None:
        check_group_size_fits(log, group_size)
    canonical, notes = resolve_run_model(log, model)
    hits, mode, basis = cached_tokens_per_step(log, cached_prefill, group_size)
    meters = run_meters(log, hits)
    try:
        bill = bill_meters(meters, canonical, prices, price_as, mode)
    except TinkerNomicsError as exc:
        raise TinkerNomicsError(f"{log.source}: {exc}") from None
    per_step = step_meters(log.steps)
    per_step["cached_prefill_tokens"] = hits
    price = bill.price
    per_step["sample_usd"] = meter_cost(per_step["sample_tokens"], price.rate("sample"))
    per_step["train_usd"] = meter_cost(per_step["train_tokens"], price.rate("train"))
    cached_rate = bill.cached_rate if bill.cached_rate is not None else price.rate("prefill")
    per_step["prefill_usd"] = (meter_cost(per_step["prefill_tokens"] - hits, price.rate("prefill"))
                               + meter_cost(hits, cached_rate))
    per_step["cost_usd"] = per_step["sample_usd"] + per_step["train_usd"] + per_step["prefill_usd"]
    per_step["cumulative_usd"] = per_step["cost_usd"].cumsum()
    per_step["reward"] = log.steps["reward"].to_numpy()
    per_step["eval_reward"] = log.steps["eval_reward"].to_numpy()
    per_step["step_seconds"] = log.steps["step_seconds"].to_numpy()

    caveats = list(log.notes) + _caveats(log, meters, bill)
    notes = notes + list(bill.notes) + [f"cached prefill: {basis}"]
    cal = None
    if calibration:
        try:
            cal = calibrate(log, canonical, prices, price_as, window, group_size)
        except TinkerNomicsError as exc:
            notes.append(f"no calibration: {exc}")
    options = {"model": model, "prices": prices, "price_as": price_as, "cached_prefill": cached_prefill,
               "group_size": group_size, "run": run, "calibration": calibration, "window": window}
    return Validation(log, bill, per_step, cal, basis, tuple(caveats), tuple(notes), options)


def _caveats(run: RunLog, meters: MeterTokens, bill: RunBill) -> list[str]:
    out = []
    train = run.train
    if run.multi_turn:
        text = MULTI_TURN_CAVEAT.format(turns=float(train["turns"].max()))
        if train["logged_trained_tokens"].notna().any():
            text += (f"; the log's tokens/trained (the datums' real length) sums to "
                     f"{fmt.tokens(train['logged_trained_tokens'].sum())} against ob + ac = {fmt.tokens(meters.train)}")
        out.append(text)
    if run.mode.startswith("async"):
        out.append("async run: rollouts sampled but never trained (requeued as too stale, or in flight when the run "
                   "stopped) were billed but are not in env/all/*, so this bill can be slightly low")
    kl = sorted(k for k in run.keys if k in ("kl_policy_base", "kl_pre_post_v1"))
    if kl:
        out.append(f"the log has {', '.join(kl)}: KL scoring against the reference (or post-update) policy re-reads "
                   f"every datum as prefill, which Tinker bills and these meters leave out, so the bill is low")
    if meters.eval_sample > 0:
        share = fmt.pct(_eval_usd(bill) / bill.total_usd) if bill.total_usd else "n/a"
        out.append(f"eval rollouts are billed and included: {len(run.eval_steps)} evals, "
                   f"{fmt.tokens(meters.eval_sample)} sampled + {fmt.tokens(meters.eval_prefill)} prompt tokens "
                   f"({share} of the bill); tinker-cookbook's own cost tracker leaves them out")
    if run.train["logged_cost_usd"].notna().any():
        out.append(f"the run's own estimate (cost/step_usd, at the rates fetched when it ran, eval excluded) sums to "
                   f"{fmt.usd(run.train['logged_cost_usd'].sum())}")
    out.append("not in the bill: checkpoint storage, failed requests, sandboxes")
    return out


def _eval_usd(bill: RunBill) -> float:
    p = bill.price
    return float(meter_cost(bill.meters.eval_sample, p.rate("sample")) +
                 meter_cost(bill.meters.eval_prefill, p.rate("prefill")))


def render_validation(d: dict) -> str:
    """The human-readable form of `Validation.to_dict()` (what `tinker-nomics validate` prints)."""
    tk, tokens = d["tinker"], d["tokens"]
    billed_as = f" (billed as {d['price_model']})" if d["price_model"] != d["model"] else ""
    lines = [f"{fmt.printable(Path(d['source']).name, limit=160)} · {d['model']}{billed_as} · Tinker prices {d['prices']} · "
             f"{d['format']} ({d['mode']})",
             f"Steps         {d['steps']:,} training steps, {d['eval_runs']:,} evals",
             f"Tokens        sample {fmt.tokens(tokens['sample'])} (eval {fmt.tokens(tokens['eval_sample'])})   "
             f"train {fmt.tokens(tokens['train'])}   prefill {fmt.tokens(tokens['prefill'])} "
             f"(eval {fmt.tokens(tokens['eval_prefill'])}, cached {fmt.tokens(tokens['cached_prefill'])})",
             f"Tinker        {fmt.usd(tk['total_usd'])} = sample {fmt.usd(tk['sample_usd'])} + train "
             f"{fmt.usd(tk['train_usd'])} + prefill {fmt.usd(tk['prefill_usd'])}",
             "Rates         USD per million: " + ", ".join(
                 f"{k.replace('_', ' ')} {v:g}" for k, v in tk["rates_usd_per_million"].items() if v is not None)]
    cal = d.get("calibration")
    if cal and cal["rows"]:
        inp = cal["inputs"]
        lines += ["",
                  f"Calibration   measured inputs: B×G {inp['episodes_per_step']:,.0f}, L {inp['completion_tokens']:,.0f} "
                  f"→ growth {inp['length_growth']:.2f}, P {inp['prompt_tokens']:,.0f}, "
                  f"{inp['eval_runs']} evals × {inp['eval_prompts']:,.0f} every {inp['eval_every']:g} steps",
                  f"              {cal['sign_convention']}"]
        rows = [[r["method"], r["meter"], fmt.tokens(r["predicted_tokens"]), fmt.tokens(r["measured_tokens"]),
                 _spct(r["tokens_error"]), fmt.usd(r["predicted_usd"]), fmt.usd(r["measured_usd"]),
                 _spct(r["usd_error"])] for r in cal["rows"]]
        lines.append(_table(rows, ["method", "meter", "predicted", "measured", "error", "pred. USD", "meas. USD",
                                   "error"], indent="  "))
    elif cal:
        lines += ["", "Calibration   " + "; ".join(cal["notes"])]
    lines.append("")
    lines += [f"Caveat: {c}" for c in d["caveats"]]
    lines += [f"Note: {n}" for n in d["notes"]]
    return "\n".join(lines)


def _spct(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.signed_pct(x)


def _table(rows, header, indent="") -> str:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out = [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    out.insert(1, indent + "  ".join("-" * w for w in widths))
    return "\n".join(out)
