"""The empirical validation chapter's arithmetic (tinker_nomics.analysis.experiments) against the seed's page.

Figures quoted from seeds/001 (the empirical validation page) are in the comments; the seed rounds, so the
tests compare to the printed digits.
"""
import math

import matplotlib
import pytest

from tinker_nomics import Scenario, estimate
from tinker_nomics.analysis import experiments as ex
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.sources.literature import experiment
from tinker_nomics.sources import get_price
from tinker_nomics.analysis.seed_experiments import seed_experiment

matplotlib.use("Agg")
JAN = "2026-01-05"


@pytest.mark.parametrize("name", ex.EXPERIMENTS)
@pytest.mark.parametrize("informed", [False, True])
def test_error_sources_add_up_to_the_error_of_each_meter(name, informed):
    scenario = ex.informed_scenario(name) if informed else None
    frame = ex.error_sources(name, scenario)
    table = seed_experiment(name).table.set_index("meter")
    est = estimate(scenario) if informed else None
    for meter, rows in frame.groupby("meter"):
        predicted = float(getattr(est.tokens, meter)) if informed else table.loc[meter, "predicted_tokens"]
        assert rows["tokens"].sum() == pytest.approx(predicted - table.loc[meter, "measured_tokens"], abs=1e-3)
    assert set(frame["cause"]) <= set(ex.CAUSES)
    by_cause = ex.error_by_cause(frame)
    assert list(by_cause.index) == list(ex.CAUSES) + ["net"]
    assert by_cause["net"] == pytest.approx(by_cause[list(ex.CAUSES)].sum())
    if not informed:
        t = seed_experiment(name).table.set_index("meter")
        assert by_cause["net"] == pytest.approx(t.loc["total", "predicted_usd"] - t.loc["total", "measured_usd"])


def test_exp1a_errors_cancel():
    # Seed: "The cost model overestimates completion length (predicted 512, actual avg 320) but doesn't count eval
    # tokens. These errors roughly cancel out" — sample predicted 34.0M vs 19.3M trained + 5.4M eval.
    frame = ex.error_sources("exp1a").set_index(["meter", "cause"])
    assert frame.loc[("sample", "completion length"), "tokens"] == pytest.approx(128 * 8 * 59 * 512 * 1.1 - 19.3e6)
    assert frame.loc[("sample", "eval rollouts"), "tokens"] == -5.4e6
    assert frame.loc[("train", "prompts in the train meter"), "tokens"] == -10.7e6   # train = ob + ac
    assert frame.loc[("prefill", "eval rollouts"), "tokens"] == pytest.approx(-2.8e6)  # 13.5M − 10.7M
    causes = ex.error_by_cause(ex.error_sources("exp1a"))
    assert causes["completion length"] > 0 > causes["eval rollouts"]
    assert causes["prompts in the train meter"] < 0 and causes["rounding"] == 0


def test_exp1b_rounding_is_the_printed_remainder():
    # 68.5M ac + 6.7M eval = 75.2M against the printed 75.1M sample total
    frame = ex.error_sources("exp1b").set_index(["meter", "cause"])
    assert frame.loc[("sample", "rounding"), "tokens"] == pytest.approx(0.1e6)


@pytest.mark.parametrize("name, every, bill", [("exp1a", 5, 12.96), ("exp1b", 5, 37.01)])
def test_informed_prediction_lands_on_the_bill(name, every, bill):
    # Seed: "A more accurate model would use actual completion length and explicitly include eval cost."
    s = ex.informed_scenario(name)
    assert s.eval_every == every and s.method == "exact" and s.length_growth == 1.0
    summary = ex.prediction_summary(name)
    assert summary["billed_usd"] == bill
    assert abs(summary["informed_error"]) < 0.01 < abs(summary["preset_error"])
    assert summary["preset_completion_avg"] == pytest.approx(512 * 1.1 if name == "exp1a" else 800 * 1.2)


def test_prediction_summary_matches_the_seed_page():
    a, b = ex.prediction_summary("exp1a"), ex.prediction_summary("exp1b")
    assert round(a["preset_usd"], 2) == pytest.approx(15.39, abs=0.011)   # "$15.39"
    assert round(a["logged_error"], 3) == 0.001 and a["logged_error_low"] < 0.002 < a["logged_error_high"]
    assert round(b["logged_error"], 3) == 0.001                              # "Error: 0.1%"
    # the preset's exp 1b prefill is B·G·P·S (18.4M); the seed printed 1.8M and $40.78 (errata)
    assert b["preset_usd"] > 40.78


def test_prefill_evidence():
    # Seed: "No caching (predicted) ~181K, Actual ~181K" (exp 1a); "Per-rollout prediction (B×G×prompt =
    # 128×8×191) = 196K ✓. Per-group prediction (B×prompt = 128×191) = 24K ✗" (exp 1b).
    a, b = ex.prefill_evidence("exp1a"), ex.prefill_evidence("exp1b")
    assert a.per_rollout == 128 * 8 * 178 and a.per_group == 128 * 178
    assert round(b.per_rollout / 1e3) == 196 and round(b.per_group / 1e3) == 24
    assert round(a.logged_per_step / 1e3) == 181 and round(b.logged_per_step / 1e3) == 196
    for e in (a, b):
        assert abs(e.logged_vs_per_rollout - 1) < 0.01 and e.logged_vs_per_group == pytest.approx(8, rel=0.01)
        assert abs(e.console_vs_logged) < 0.002          # "matches our W&B sum within 0.1%"
        assert e.console_vs_per_group < -0.08            # a per-group bill would have shown ~8%+ fewer tokens
    assert round((b.logged_total - b.per_group_total) / 1e6) == 16   # "billable tokens would be ~16M lower"


def test_cached_share_and_savings():
    assert ex.cached_share() == 0.2                       # "cached prefill billed at 20% from 2026-07-17"
    shares = ex.cached_shares()
    assert next(iter(shares)) == 0.2 and shares[0.2] > sum(shares.values()) / 2
    assert ex.cached_share_models() == (shares[0.2], sum(shares.values()))
    with pytest.raises(TinkerNomicsError, match="no cached-prefill rate"):
        ex.cached_shares(JAN)
    rate = get_price("Qwen3-4B-Instruct-2507", JAN).prefill
    a = ex.cached_savings("exp1a")
    assert a.hits == pytest.approx(10.7e6 * 7 / 8) and a.snapshot == JAN
    assert a.saving_usd == pytest.approx(a.hits * rate * 0.8 / 1e6)
    assert a.free_saving_usd == pytest.approx(a.hits * rate / 1e6)
    assert a.cached_bill_usd == pytest.approx(a.bill_usd - a.saving_usd)
    b = ex.cached_savings("exp1b")
    assert round(b.free_saving_usd, 2) == 1.13   # the measured 18.4M less 18.4M / G, free; printed $1.01 (errata)
    assert 0 < b.saving_share < a.saving_share < 0.05


def test_verl_comparison_exp1a():
    # Seed: Tinker 33 min, $12.96; veRL 1 h 56 m, MFU 1.6%, ~$77; model "~28 min (MFU=10%)", "~$19".
    c = ex.verl_comparison("exp1a")
    assert c.gpu == "B200" and c.num_gpus == 8
    assert c.gpu_hourly_usd == pytest.approx(77 / (8 * 116 / 60)) == ex.cluster_hourly_usd()
    assert (c.tinker_minutes, c.tinker_usd, c.verl_minutes, c.verl_usd) == (33, 12.96, 116, 77)
    assert c.verl_usd_recorded and not c.verl_projected
    default, measured = c.row("model, default MFU"), c.row("model, measured MFU")
    est = estimate(Scenario.from_workload("exp1a_gsm8k", method="seed", gpu_hourly_usd=c.gpu_hourly_usd))
    assert default["minutes"] == pytest.approx(float(est.self_hosted.wallclock_hours) * 60)
    assert default["usd"] == pytest.approx(float(est.self_hosted.total_usd))
    assert default["mfu"] == 0.10 and measured["mfu"] == 0.016
    assert measured["minutes"] > default["minutes"] and measured["usd"] > default["usd"]
    # the seed's ~28 min at MFU 10% is not what the preset gives (errata: verl)
    assert default["minutes"] < experiment("exp1a", "model_wallclock_min") / 2
    assert c.verl_over_model > 3 and c.unexplained_minutes > 60
    assert c.setup_usd == pytest.approx(1.5 * 8 * c.gpu_hourly_usd)
    assert c.setup_over_tinker == pytest.approx(c.setup_usd / 12.96)
    assert c.default_rate_premium == pytest.approx(c.default_hourly_usd / c.gpu_hourly_usd - 1)
    assert c.accuracy_metric == "GSM8K test" and (c.tinker_accuracy, c.verl_accuracy) == (0.913, 0.931)
    other = ex.verl_comparison("exp1a", gpu_hourly_usd=c.default_hourly_usd)
    assert other.row("model, default MFU")["usd"] > default["usd"] and other.rate_basis == "given"


def test_verl_comparison_exp1b_is_projected():
    c = ex.verl_comparison("exp1b")
    assert c.verl_projected and not c.verl_usd_recorded and c.verl_minutes == 190
    assert c.verl_usd == pytest.approx(190 / 60 * 8 * c.gpu_hourly_usd)
    assert c.row("model, measured MFU")["mfu"] == 0.0185 and math.isnan(c.setup_hours)
    assert 0 < c.row("model, measured MFU")["rollout_share"] < c.row("model, default MFU")["rollout_share"] < 0.5


def test_experiment_ratios():
    # Seed, exp 1b vs 1a: cost 2.9×, tokens 2.7×, completion 2.2×, steps 1.6×, $/M $0.190 vs $0.203 (1.07×)
    r = ex.experiment_ratios().set_index("quantity")
    assert round(r.loc["bill (USD)", "ratio"], 1) == 2.9
    assert round(r.loc["billable tokens (console)", "ratio"], 1) == 2.7
    assert round(r.loc["average completion (tokens)", "ratio"], 1) == 2.2
    assert round(r.loc["steps", "ratio"], 1) == 1.6
    assert round(r.loc["effective USD per million", "exp1a"], 3) == 0.190
    assert round(r.loc["effective USD per million", "exp1b"], 3) == 0.203
    assert round(r.loc["effective USD per million", "ratio"], 2) == 1.07
    # the meter mix explains the rate: sample and train cost the same, so only the prefill share moves it
    for name in ex.EXPERIMENTS:
        e = seed_experiment(name)
        assert r.loc["USD per million from the meter mix", name] == pytest.approx(e.computed_usd / e.bill.meters.total * 1e6)
    assert r.loc["prefill share of tokens", "ratio"] < 1


def test_length_drift():
    d = ex.length_drift()
    assert (d.start, d.end) == (549, 1376) and d.growth == pytest.approx(1376 / 549)
    assert d.drift_usd > d.stable_usd and d.increase > 0
    assert round(d.step_growth, 1) == 3.1 and round(d.lr_ratio) == 49   # "tripled (76s → 237s)", "49x LR gap"


def test_unknown_experiment():
    for f in (ex.informed_scenario, ex.error_sources, ex.prefill_evidence, ex.cached_savings, ex.verl_comparison):
        with pytest.raises(TinkerNomicsError, match="unknown seed experiment"):
            f("exp9")


def test_figures():
    from tinker_nomics.faces import plots as pe
    fig = pe.meters_predicted_vs_actual(ex.meter_frame(), {n: experiment(n, "billed_usd") for n in ex.EXPERIMENTS},
                                        ex.LABELS)
    assert len(fig.axes) == 2 and all(len(ax.patches) == 8 for ax in fig.axes)   # 4 meters × 2 series
    comparisons = {n: ex.verl_comparison(n) for n in ex.EXPERIMENTS}
    fig = pe.cost_vs_wallclock(comparisons, ex.LABELS, {"exp1a": (28, 19)})
    assert [len(ax.collections) for ax in fig.axes] == [5, 4]
