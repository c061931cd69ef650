"""The sentences and cells every page states a verdict with, so no two pages word the same answer differently.

A verdict (analysis.verdict.Verdict) reads "self-hosting is 4.0× cheaper (in >99% of draws)"; under the close-call
share it reads "a close call: Tinker is 1.1× cheaper at the point estimate, but only in 47% of draws", never as a
winner. Bills, spreads and wall-clocks read the same way in every table and paragraph.

    from tinker_nomics.faces import wording
    wording.verdict(v)          # the sentence
    wording.verdict_cell(v)     # a table cell: "self-hosted 4.0×" or "close call (Tinker 1.1×)"
"""
from __future__ import annotations

import math
import re

from .. import fmt, sources
from ..analysis.uncertainty import probability_text
from ..analysis.verdict import Verdict, close_call_share
from ..sources.tinker_wallclock import committed_fit, measured_models

SIDE = {"tinker": "Tinker", "self_hosted": "self-hosting"}          # as the subject of a sentence
SIDE_CELL = {"tinker": "Tinker", "self_hosted": "self-hosted"}      # in a table cell


def probability(p: float) -> str:
    """A share of draws for prose: '<1%' and '>99%' rather than a rounded 0% or 100% (uncertainty's rule)."""
    return "n/a" if math.isnan(float(p)) else probability_text(p)


def side(name: str, capital: bool = False) -> str:
    text = SIDE[name]
    return text[:1].upper() + text[1:] if capital else text


def money(usd: float | None) -> str:
    """A run's bill: whole dollars ($146, $13,668); a dash when not computed."""
    if usd is None or (isinstance(usd, float) and math.isnan(usd)):
        return "—"
    return fmt.usd(usd, cents=False)


def spread(p10: float, p90: float) -> str:
    """The P10–P90 of a bill: '$135–$176'."""
    return f"{money(p10)}–{money(p90)}"


def days(value: float) -> str:
    """A wall-clock in days: two decimals below one day, one below 100 days, whole above (0.07 days, 23.9 days,
    1,204 days)."""
    text = day_count(value)
    return text if text == "—" else f"{text} {'day' if text in ('1.0', '1.00') else 'days'}"


def day_count(value: float) -> str:
    """The number `days` prints, without the unit (a table whose header names the unit): '0.07', '23.9'."""
    value = float(value)
    if math.isnan(value):
        return "—"
    return f"{value:.2f}" if value < 1 else (f"{value:,.1f}" if value < 100 else f"{value:,.0f}")


def factor(x: float) -> str:
    """How much cheaper the cheaper side is: '3.3×', or, where that would print as '1.0×' (it says nothing), the
    margin in percent: '2.3%'. explorer.js words a moved explorer's factor the same way."""
    x = float(x)
    return f"{x:,.1f}×" if f"{x:.1f}" != "1.0" else f"{100 * (x - 1):.1f}%"


def methods_cell(methods: str) -> str:
    """Which methods draw an input, for a table cell: 'every method', 'the default (calibrated)', 'seed and exact'."""
    from ..model.scenario import DEFAULT_METHOD, METHODS

    names = methods.split()
    if set(names) >= set(METHODS):
        return "every method"
    return " and ".join(f"the default ({n})" if n == DEFAULT_METHOD else n for n in names)


def share(v: Verdict) -> str:
    """'in >99% of draws' (the share agreeing with the point estimate), '' when nothing was drawn."""
    return f"in {probability(v.p_cheaper)} of draws" if v.drawn else ""


def verdict(v: Verdict, capital: bool = False) -> str:
    """The sentence: 'self-hosting is 4.0× cheaper, in >99% of draws', or, below the close-call share,
    'a close call: Tinker is 1.1× cheaper at the point estimate, but only in 47% of draws'."""
    if v.close:
        text = (f"a close call: {side(v.cheaper)} is {factor(v.factor)} cheaper at the point estimate, but only "
                f"{share(v)}")
    else:
        text = f"{side(v.cheaper)} is {factor(v.factor)} cheaper" + (f", {share(v)}" if v.drawn else "")
    return text[:1].upper() + text[1:] if capital else text


def verdict_cell(v: Verdict) -> str:
    """A table cell: 'self-hosted 4.0×', or 'close call (Tinker 1.1×)'."""
    point = f"{SIDE_CELL[v.cheaper]} {factor(v.factor)}"
    return f"close call ({point})" if v.close else point


def shares_cell(v: Verdict) -> str:
    """A table cell with the share of draws each side is cheaper in: 'Tinker <1% · self-hosted >99%'."""
    if not v.drawn:
        return "—"
    return f"Tinker {probability(v.p_tinker)} · self-hosted {probability(v.p_self_hosted)}"


def close_call_rule() -> str:
    """'fewer than 80% of draws' (the close-call share, data/assumptions/defaults.csv)."""
    return f"fewer than {fmt.pct(close_call_share(), 0)} of draws"


def method_line(method: str, prices: str | None, what: str = "") -> str:
    """The line at the top of a chapter: which method and which price list its numbers use.
    'Method: calibrated (the package's default) · Tinker prices: 2026-10-07, the newest list'."""
    from ..model.scenario import DEFAULT_METHOD
    from ..sources import newest_snapshot

    name = f"{method} (the package's default)" if method == DEFAULT_METHOD else (
        f"{method} (the original site's arithmetic)" if method == "seed" else method)
    if prices is None:
        listed = "none (this chapter prices no tokens)"
    else:
        listed = prices + (", the newest list" if prices == newest_snapshot() else
                           (", the original site's list" if prices == "2026-01-05" else ""))
    return f"Method: {name} · Tinker prices: {listed}" + (f" · {what}" if what else "")


def tinker_wallclock_basis() -> str:
    """What Tinker's wall-clock rests on, for the line that states it: 'fitted to 6 logged Tinker runs; ×1.3 either
    way' (the committed step-time fit, data/services/tinker_wallclock.csv: its runs and its leave-one-run-out
    spread)."""
    fit = committed_fit()
    return f"fitted to {len(fit.runs)} logged Tinker runs; ×{fit.spread_factor:.1f} either way"


def tinker_wallclock() -> str:
    """The sentence that says where Tinker's wall-clock comes from and what it leaves out, computed from the committed
    step-time fit: its runs and their models, its two rates, its spread."""
    fit = committed_fit()
    return (f"Tinker publishes no throughput, so its wall-clock here is a fit to the step times of the "
            f"{len(fit.runs)} Tinker runs whose logs record them ({fmt.series(measured_models())}): a step takes one "
            f"rollout's tokens at about {about(fit.sequence_tokens_per_second)} tokens a second plus all the step's "
            f"sampled tokens at about {about(fit.batch_tokens_per_second)} a second, plus the sandbox wait. The fit misses "
            f"a run it was not fitted on by ×{fit.spread_factor:.1f} either way (one standard deviation), and the "
            f"draws carry that error. It does not model queueing at busy times or rate limits, nor a model's size "
            f"beyond what those runs show")


def self_hosted_time(s) -> str:
    """Where the self-hosted wall-clock goes, in the order a step runs (model.selfhosted.SelfHosted, one scenario):
    'rollout 1.92 h; trainer 2.08 h: log-probs 49.2 min + update 1.26 h; side by side, wall-clock 2.10 h'. The
    trainer's passes are named apart where the method runs log-prob passes (calibrated); the seed and exact methods
    count one training phase. Off-policy on GPUs of their own the two overlap; else they take turns."""
    def inner(x):   # inside parentheses: no nested "(… days)"
        return fmt.hours(x) if float(x) < 48 else f"{float(x):,.0f} h"

    logprob = float(s.logprob_hours)
    trainer = (f"trainer {fmt.hours(s.trainer_hours)}: log-probs {inner(logprob)} + update {inner(s.train_hours)}"
               if logprob > 0 else f"training {fmt.hours(s.train_hours)}")
    how = "side by side" if bool(s.separate) else "in turn"
    return f"rollout {fmt.hours(s.rollout_hours)}; {trainer}; {how}, wall-clock {fmt.hours(s.wallclock_hours)}"


def days_cell(value: float, p10: float, p90: float) -> str:
    """A wall-clock in days with its P10–P90, for a column headed in days: '0.13 (0.10–0.20)', '6.2 (3.9–13.3)'."""
    return f"{day_count(value)} ({day_count(p10)}–{day_count(p90)})"


TINKER_DAYS = "Tinker wall-clock, days"               # the verdict table's wall-clock columns
SELF_HOSTED_DAYS = "self-hosted wall-clock, days"


def answer_rows(answers, model: bool = False, fit: bool = False) -> list[dict]:
    """The verdict table's rows for analysis.bottom_line.answers, the same on every page that prints it: the verdict
    first (so a phone shows it without scrolling sideways), then each side's bill with its P10–P90, the share of
    draws each side wins, and each side's wall-clock with its P10–P90 (Tinker's from its step-time fit,
    `tinker_wallclock()`). `model` adds the model each side runs, `fit` how the rollout fits on the GPUs."""
    rows = []
    for a in answers:
        r = a.row
        row = {"workload": a.workload, "verdict": verdict_cell(a.verdict)}
        if model:
            row["model (Tinker bills)"] = r.model.split("/")[-1] + (
                f" ({r.billed_model.split('/')[-1]})" if r.successor else "")
        row.update({
            "Tinker (P10–P90)": f"{money(r.tinker_usd)} ({spread(a.tinker_p10, a.tinker_p90)})",
            "self-hosted (P10–P90)": f"{money(r.self_hosted_usd)} ({spread(a.self_hosted_p10, a.self_hosted_p90)})",
            "cheaper in": shares_cell(a.verdict),
            TINKER_DAYS: days_cell(a.tinker_days, a.tinker_days_p10, a.tinker_days_p90),
            SELF_HOSTED_DAYS: f"{days_cell(a.self_hosted_days, a.self_hosted_days_p10, a.self_hosted_days_p90)} "
                              f"on {r.num_gpus:g} GPUs",
        })
        if fit:
            row["rollouts"] = rollout_fit(r)
        rows.append(row)
    return rows


def rollout_fit(r) -> str:
    """How a run's rollout fits on the GPUs (compare.HeadlineRow): '96 at a time, 11 waves', or that it does not."""
    run = f"{r.rollout_concurrency:,.0f} at a time" + (f", {r.rollout_waves:g} waves" if r.rollout_waves > 1 else "")
    return run if r.feasible else f"does not fit on {r.requested_gpus:g} GPUs; {run} on {r.num_gpus:g}"


def about(value: float) -> str:
    """A crossing point for prose: two significant figures above 100 (25,000), one decimal below (8.9)."""
    value = float(value)
    return f"{float(f'{value:.2g}'):,.0f}" if value >= 100 else f"{value:.1f}"


def along(segments, unit: str) -> str:
    """A 1-D cut (analysis.breakeven.segments) in words: 'self-hosting is cheaper up to about 25,000 tokens, Tinker
    beyond', or 'Tinker is cheaper at every value from 32 to 65,536 tokens'."""
    if len(segments) == 1:
        side_, low, high = segments[0]
        return f"{side(side_)} is cheaper everywhere from {low:,.0f} to {high:,.0f} {unit}"
    parts = [f"{side(segments[0][0])} is cheaper up to about {about(segments[0][2])} {unit}"]
    for side_, low, high in segments[1:-1]:
        parts.append(f"{side(side_)} from there to about {about(high)}")
    parts.append(f"{side(segments[-1][0])} beyond")
    return ", ".join(parts)


def rate_source(source, gpu: str, rate: float) -> str:
    """Where a page's $/GPU-hour comes from, told to a reader: the provider and the day it was read ("RunPod
    (Community Cloud), read 2026-09-25"; "the seed site's rate: …" for a preset's), not the registry's provenance
    string with its file paths, which the command line and JSON keep."""
    text = str(source or "")
    if text.startswith("preset "):
        listed = [p for p in sources.gpu_prices() if p.gpu == gpu and abs(p.usd_per_gpu_hour - rate) < 0.005]
        where = (f"{listed[0].provider} listed it on {listed[0].date}" if listed[0].date else
                 f"{listed[0].provider} lists it") if listed else ""
        seed = "seed" in text.split(":", 1)[-1]
        return ("the seed site's rate" if seed else "the preset's rate") + (f"; {where}" if where else "")
    match = re.match(r"registry default for [^:]+: (.*), (\d{4}-\d{2}-\d{2}|undated) \(", text)
    if match:
        return f"{match.group(1)}, read {match.group(2)}" if match.group(2) != "undated" else match.group(1)
    if text.startswith("unknown"):
        return f"no sourced rate for the {gpu}: set one"
    return text

