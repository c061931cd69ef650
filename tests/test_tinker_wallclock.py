"""Tinker's wall-clock, one voice: the step-time model (model/tinker_wallclock.py, reading the committed fit through
sources/tinker_wallclock.py), `estimate`'s Tinker wall-clock (Python, JSON, text), the planner's Tinker row, the
Monte-Carlo's Tinker time error, the verdict table's column and the sentence the book states it with.

Expected values come from the committed tables themselves, read here with the csv module (data/services/
tinker_wallclock.csv: the fitted terms a, b and the leave-one-run-out spread; data/services/tinker_step_times.csv: the
logged runs the fit was made on), and from the presets' own inputs (data/workloads/workloads.csv)."""
from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import json
import math

import numpy as np
import pytest

from conftest import REPO
from tinker_nomics import Scenario, estimate, fmt
from tinker_nomics.analysis import plan as planner
from tinker_nomics.analysis import tinker_wallclock as fitting
from tinker_nomics.analysis import uncertainty
from tinker_nomics.analysis.bottom_line import answers
from tinker_nomics.faces import wording
from tinker_nomics.faces.cli import main
from tinker_nomics.model import tinker_wallclock
from tinker_nomics.model.tokens import growth_multiplier
from tinker_nomics.sources import newest_snapshot
from tinker_nomics.sources import tinker_wallclock as committed

UNPRICED = "Qwen/Qwen2.5-7B"      # an architecture, no Tinker price in any list (tests/test_not_offered.py)


def _csv(name: str) -> list[dict]:
    with open(REPO / "data" / "services" / name, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


FIT = {r["parameter"]: float(r["value"]) for r in _csv("tinker_wallclock.csv")}
A, B = FIT["seconds_per_sequence_token"], FIT["seconds_per_batch_token"]
LOGGED = _csv("tinker_step_times.csv")


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


# ----------------------------------------------------------------------------------------------- the model


def test_the_model_gives_each_logged_run_the_committed_fits_step_time():
    """Each logged run's predicted step time is a × its completion tokens per rollout + b × its tokens sampled per
    step, with a and b as committed; and the prediction lands within the spread the fit measured."""
    assert len(LOGGED) == 6           # the four public OmniMath logs and the seed's experiments 1a and 1b
    for r in LOGGED:
        c, s = float(r["completion_tokens_per_rollout"]), float(r["sampled_tokens_per_step"])
        predicted = float(tinker_wallclock.step_seconds(c, s))
        assert predicted == pytest.approx(A * c + B * s, rel=1e-12), r["run"]
        assert abs(math.log(predicted / float(r["step_seconds"]))) < 3 * FIT["log_sd"], r["run"]
    seed_1a = next(r for r in LOGGED if r["run"] == "seed exp1a")
    assert float(seed_1a["step_seconds"]) == pytest.approx(33 * 60 / 59, rel=1e-5)   # the seed: 33 min, 59 steps


def test_the_committed_fit_is_read_as_written():
    fit = committed.committed_fit()
    assert (fit.seconds_per_sequence_token, fit.seconds_per_batch_token, fit.log_sd) == (A, B, FIT["log_sd"])
    assert fit.runs == tuple(r["run"] for r in LOGGED)
    assert [(r.run, r.step_seconds) for r in committed.logged_runs()] == \
        [(r["run"], float(r["step_seconds"])) for r in LOGGED]
    assert committed.measured_models() == sorted({r["model"].split("/")[-1] for r in LOGGED})
    assert 0 < fit.log_sd < 0.5 and fit.spread_factor == pytest.approx(math.exp(FIT["log_sd"]))


def test_a_fresh_fit_uses_the_model_and_agrees_with_its_leave_one_run_out_errors():
    """The least squares (analysis) predicts each left-out run through the model's step_seconds; the spread it
    reports is the root mean square of those errors, as the committed table records it."""
    fresh = fitting.fit(fitting.measured_runs())
    assert fresh.log_sd == pytest.approx(math.sqrt(np.mean(np.square(fresh.loo_log_errors))), rel=1e-12)
    assert fresh.log_sd == pytest.approx(FIT["log_sd"], rel=1e-5)
    assert (fresh.seconds_per_sequence_token, fresh.seconds_per_batch_token) == pytest.approx((A, B), rel=1e-5)


# ----------------------------------------------------------------------------------------------- estimate


def test_estimate_gives_the_fit_times_the_steps():
    """math_rl (64 prompts × 16 rollouts × 512 tokens × growth, 180 steps, no sandbox): steps × (a × tokens per
    rollout + b × tokens per step), the inputs as the preset states them."""
    s = Scenario.from_workload("math_rl").resolved()
    est = estimate(s)
    per_rollout = s.completion_tokens * growth_multiplier(s.length_growth)
    per_step = s.prompts_per_step * s.group_size * per_rollout
    expected = s.steps * (A * per_rollout + B * per_step) / 3600.0
    assert s.sandbox_seconds_per_rollout == 0 and s.eval_every == 0
    assert float(est.tinker_time.wallclock_hours) == pytest.approx(expected, rel=1e-12)
    assert float(est.tinker_time.step_seconds) == pytest.approx(A * per_rollout + B * per_step, rel=1e-12)


def test_each_step_waits_for_its_sandbox_as_the_planner_adds_it():
    """swe_rl's sandbox runs 240 s a rollout (data/workloads/workloads.csv): the run waits steps × 240 s on top."""
    s = Scenario.from_workload("swe_rl").resolved()
    est = estimate(s)
    fitted = s.steps * (A * est.per_rollout.output + B * est.tokens.sample / s.steps) / 3600.0
    assert s.sandbox_seconds_per_rollout > 0
    assert float(est.tinker_time.wallclock_hours) == pytest.approx(
        float(fitted) + s.steps * s.sandbox_seconds_per_rollout / 3600.0, rel=1e-12)
    assert float(est.tinker_time.sandbox_wait_hours) == pytest.approx(s.steps * s.sandbox_seconds_per_rollout / 3600)


def test_the_time_factor_scales_the_step_not_the_sandbox_and_steps_scale_the_run():
    base = Scenario.from_workload("code_rl")
    one = estimate(base).tinker_time
    twice = estimate(base.replace(steps=2 * base.resolved().steps)).tinker_time
    assert float(twice.wallclock_hours) == pytest.approx(2 * float(one.wallclock_hours), rel=1e-12)
    drawn = estimate(base.replace(tinker_time_factor=np.array([0.5, 2.0]))).tinker_time
    assert drawn.step_seconds.tolist() == pytest.approx([float(one.step_seconds) / 2, 2 * float(one.step_seconds)])
    wait = float(one.sandbox_wait_hours)
    assert wait > 0 and drawn.wallclock_hours.tolist() == pytest.approx(
        [(float(one.wallclock_hours) - wait) / 2 + wait, 2 * (float(one.wallclock_hours) - wait) + wait])


def test_json_gives_the_wallclock_and_null_where_tinker_does_not_offer_the_model():
    code, out, err = run("estimate", "--workload", "math_rl", "--format", "json")
    assert code == 0, err
    tinker = json.loads(out)["tinker"]
    est = estimate(Scenario.from_workload("math_rl"))
    assert tinker["wallclock_hours"] == pytest.approx(float(est.tinker_time.wallclock_hours), rel=1e-12)
    assert tinker["step_seconds"] == pytest.approx(float(est.tinker_time.step_seconds), rel=1e-12)
    code, out, err = run("estimate", "--workload", "math_rl", "--model", UNPRICED, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["tinker"]["not_offered"] and data["tinker"]["wallclock_hours"] is None
    assert data["tinker"]["step_seconds"] is None and data["self_hosted"]["wallclock_hours"] > 0


def test_the_text_states_the_wallclock_beside_the_bill_with_its_basis():
    code, out, err = run("estimate", "--workload", "math_rl")
    assert code == 0, err
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Tinker "))
    hours = float(estimate(Scenario.from_workload("math_rl")).tinker_time.wallclock_hours)
    spread = math.exp(FIT["log_sd"])
    assert lines[at + 1] == (f"{'':14}wall-clock ≈ {fmt.hours(hours)} (fitted to {len(LOGGED)} logged Tinker runs; "
                             f"×{spread:.1f} either way)")
    _, out, _ = run("estimate", "--workload", "math_rl", "--model", UNPRICED)
    assert "wall-clock ≈" not in out and "Tinker        not offered" in out


def test_the_calculator_states_tinkers_wallclock_as_estimate_does():
    """One voice: the kernel-backed calculator's summary says Tinker's wall-clock in the words the command uses."""
    pytest.importorskip("ipywidgets")
    from tinker_nomics.faces.widgets import Calculator
    calc = Calculator("math_rl")
    hours = float(estimate(calc.scenario()).tinker_time.wallclock_hours)
    spread = math.exp(FIT["log_sd"])
    assert (f"<th>Tinker time</th><td>wall-clock ≈ {fmt.hours(hours)} (fitted to {len(LOGGED)} logged Tinker "
            f"runs; ×{spread:.1f} either way)</td>") in calc.summary.value
    from tinker_nomics.faces.widgets import summary_html
    assert "Tinker time" not in summary_html(estimate(Scenario.from_workload("math_rl", model=UNPRICED)))


# ----------------------------------------------------------------------------------------------- the planner


def test_the_planners_tinker_row_is_estimates_wallclock_over_the_same_draws():
    scenario = Scenario.from_workload("code_rl")
    p = planner.plan(scenario, workload="code_rl", offers=(), draws=300, providers=["tinker"])
    row = p.options[p.options["kind"] == "tinker"].iloc[0]
    drawn = uncertainty.draw_inputs("code_rl", scenario.resolved(), 300, 0, leave_out=planner.FIXED_INPUTS)
    hours = estimate(scenario.replace(**drawn)).tinker_time.wallclock_hours
    assert [row["wall_hours_p10"], row["wall_hours_p50"], row["wall_hours_p90"]] == \
        pytest.approx(np.quantile(hours, planner.QUANTILES).tolist(), rel=1e-12)
    point = float(estimate(scenario).tinker_time.wallclock_hours)
    assert row["wall_hours_p10"] < point < row["wall_hours_p90"]
    assert np.std(np.log(drawn["tinker_time_factor"])) == pytest.approx(FIT["log_sd"], rel=0.15)


# ----------------------------------------------------------------------------------------------- the Monte-Carlo


def test_the_monte_carlo_draws_tinkers_time_error_from_the_fits_spread():
    dist = uncertainty.for_workload("math_rl")["tinker_time_factor"]
    assert (dist.kind, dist.params) == ("lognormal", {"median": 1.0, "sigma": FIT["log_sd"]})
    mc = uncertainty.simulate("math_rl", n=20_000)
    factor = mc.draws["tinker_time_factor"]
    assert np.std(np.log(factor)) == pytest.approx(FIT["log_sd"], rel=0.03)
    others = {k: v for k, v in mc.draws.items() if k != "tinker_time_factor"}
    plain = estimate(Scenario.from_workload("math_rl").replace(**others)).tinker_time.wallclock_hours
    assert mc.tinker_hours == pytest.approx(plain * factor, rel=1e-12)     # math_rl waits for no sandbox
    q = mc.quantiles()
    assert q["tinker_hours"].tolist() == pytest.approx(np.quantile(mc.tinker_hours, uncertainty.QUANTILES).tolist())
    assert mc.point_tinker_hours == pytest.approx(float(estimate(Scenario.from_workload("math_rl"))
                                                        .tinker_time.wallclock_hours))


def test_adding_tinkers_time_error_left_the_other_draws_as_they_were():
    """The factor is drawn from a stream of its own: every other input's draws are those of the workload's stream
    without it."""
    resolved = Scenario.from_workload("swe_rl").resolved()
    with_it = uncertainty.draw_inputs("swe_rl", resolved, 500, 0)
    rng = uncertainty.stream(0, "swe_rl")
    for name, dist in sorted(uncertainty.for_workload("swe_rl").items()):
        if name == "tinker_time_factor":
            continue
        if name == "model_error_factor":      # the calibrated method's own held-out error for this scenario
            sigma = uncertainty.scenario_model_error(resolved)
            dist = dataclasses.replace(dist, params={**dist.params, "sigma": sigma})
        values = dist.draw(500, rng) * (float(getattr(resolved, name)) if dist.relative else 1.0)
        assert np.array_equal(values, with_it[name]), name


def test_summary_gives_both_wallclocks_with_their_spread():
    row = uncertainty.summary(["swe_rl"], n=5_000).iloc[0]
    assert row["tinker_hours_p10"] < row["tinker_hours_p50"] < row["tinker_hours_p90"]
    assert row["self_hosted_hours_p10"] < row["self_hosted_hours_p50"] < row["self_hosted_hours_p90"]
    est = estimate(Scenario.from_workload("swe_rl"))
    assert row["tinker_hours_point"] == pytest.approx(float(est.tinker_time.wallclock_hours))
    assert row["self_hosted_hours_point"] == pytest.approx(float(est.self_hosted.wallclock_hours))


def test_not_offered_has_no_tinker_hours_in_the_monte_carlo():
    mc = uncertainty.simulate("math_rl", n=200, model=UNPRICED)
    assert np.isnan(mc.tinker_hours).all() and np.isnan(mc.quantiles()["tinker_hours"]).all()
    assert np.isfinite(mc.quantiles()["self_hosted_hours"]).all()


# ----------------------------------------------------------------------------------------------- the verdict table


def test_answer_rows_give_tinkers_wallclock_beside_the_self_hosted_one():
    rows = answers(prices=newest_snapshot(), draws=4_000)
    table = wording.answer_rows(rows)
    for a, row in zip(rows, table):
        keys = list(row)
        assert keys.index(wording.TINKER_DAYS) + 1 == keys.index(wording.SELF_HOSTED_DAYS)
        assert "days" in wording.TINKER_DAYS and "days" in wording.SELF_HOSTED_DAYS     # the unit, named once
        est = estimate(Scenario.from_workload(a.workload, prices=newest_snapshot()))
        assert a.tinker_days == pytest.approx(float(est.tinker_time.wallclock_hours) / 24, rel=1e-12)
        mc = uncertainty.simulate(a.workload, n=4_000, snapshot=newest_snapshot())
        low, high = np.quantile(mc.tinker_hours, (0.1, 0.9)) / 24
        assert (a.tinker_days_p10, a.tinker_days_p90) == pytest.approx((low, high), rel=1e-12)
        low_h, high_h = np.quantile(mc.self_hosted_hours, (0.1, 0.9)) / 24
        assert (a.self_hosted_days_p10, a.self_hosted_days_p90) == pytest.approx((low_h, high_h), rel=1e-12)
        assert row[wording.TINKER_DAYS] == wording.days_cell(a.tinker_days, a.tinker_days_p10, a.tinker_days_p90)
        assert row[wording.SELF_HOSTED_DAYS] == wording.days_cell(
            a.self_hosted_days, a.self_hosted_days_p10, a.self_hosted_days_p90) + f" on {a.row.num_gpus:g} GPUs"


def test_a_wallclock_cell_reads_like_days():
    """The digits `wording.days` prints (two decimals below a day, one below 100 days), the unit in the header."""
    assert wording.days_cell(0.1309, 0.096, 0.2) == "0.13 (0.10–0.20)"
    assert wording.days_cell(3.46, 2.56, 5.24) == "3.5 (2.6–5.2)"
    assert wording.days_cell(0.816, 0.58, 1.08) == "0.82 (0.58–1.1)"
    assert wording.days(0.1309) == wording.day_count(0.1309) + " days"


def test_the_sentence_is_computed_from_the_fit():
    text = wording.tinker_wallclock()
    fit = committed.committed_fit()
    assert f"the {len(LOGGED)} Tinker runs" in text
    assert fmt.series(sorted({r["model"].split("/")[-1] for r in LOGGED})) in text
    assert f"×{math.exp(FIT['log_sd']):.1f}" in text
    assert "queueing at busy times" in text and "rate limits" in text
    assert "not modelled" not in text
    assert f"{wording.about(fit.sequence_tokens_per_second)} tokens a second" in text
    assert f"{wording.about(fit.batch_tokens_per_second)} a second" in text
    assert not hasattr(wording, "TINKER_WALLCLOCK")


def test_tinkers_time_error_moves_no_bill_so_it_is_not_among_what_moves_the_verdict():
    mc = uncertainty.simulate("code_rl", n=2_000)
    point = estimate(Scenario.from_workload("code_rl").replace(
        **{k: v for k, v in mc.draws.items() if k != "tinker_time_factor"}))
    assert np.array_equal(mc.tinker_usd, point.tinker.total_usd)
    assert np.array_equal(mc.self_hosted_usd, point.self_hosted.total_usd)
    assert "tinker_time_factor" in mc.draws and "tinker_time_factor" not in mc.influence()
