"""Monte-Carlo (tinker_nomics.analysis.uncertainty): the distributions table, its sources, the vectorized draws and
the key numbers the uncertainty chapter quotes: under the calibrated default (its model error drawn, at the
newest prices) and under the seed method at the seed's January prices."""

import csv

import numpy as np
import pytest

from tinker_nomics import sources
from tinker_nomics.analysis import uncertainty
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.sources.literature import claim, experiment
from tinker_nomics.model.scenario import BOUNDS

WORKLOADS = ("math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl")
N = 20_000   # enough for the percentiles the tests check; the book uses 10^5


PRESETS = WORKLOADS + ("exp1a_gsm8k", "exp1b_math")


@pytest.fixture(scope="module")
def january():
    return {w: uncertainty.simulate(w, n=N, method="seed") for w in WORKLOADS}


@pytest.fixture(scope="module")
def calibrated():
    return {w: uncertainty.simulate(w, n=N) for w in PRESETS}


def dist(parameter, workload="math_rl", method="seed"):
    return uncertainty.for_workload(workload, method)[parameter]


# ----------------------------------------------------------------------------- the table


def test_table_schema():
    path = sources.data_dir() / "assumptions" / "uncertainty.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == ["parameter", "applies_to", "distribution", "parameters", "relative_to_preset",
                                     "source", "reason", "methods"]
        rows = list(reader)
    assert rows
    for r in rows:
        assert r["parameter"] in BOUNDS
        assert r["distribution"] in uncertainty.KINDS
        assert r["source"].strip() and r["reason"].strip()
    parsed = uncertainty.distributions()
    assert len(parsed) == len(rows)
    assert {d.parameter for d in parsed} == {"length_growth", "rollout_efficiency", "mfu", "turns",
                                            "failure_overhead", "off_policy", "model_error_factor",
                                            "tinker_time_factor"}


@pytest.mark.parametrize("workload", WORKLOADS)
def test_each_workload_gets_one_row_per_parameter(workload):
    chosen = uncertainty.for_workload(workload, "seed")
    assert {"rollout_efficiency", "mfu", "off_policy"} <= set(chosen) and "model_error_factor" not in chosen
    multi = workload in ("harbor_rl", "swe_rl", "osworld_rl")
    assert ("turns" in chosen) == multi and ("failure_overhead" in chosen) == multi
    # the calibrated method draws its fitted model error instead of the seed's efficiency ranges, and counts
    # failed turns once (in the measured turn counts)
    chosen = uncertainty.for_workload(workload)
    assert {"model_error_factor", "off_policy"} <= set(chosen)
    assert not {"rollout_efficiency", "mfu", "failure_overhead"} & set(chosen)
    assert ("turns" in chosen) == multi


def test_model_error_is_the_fitted_spread():
    from tinker_nomics.sources.calibration import model_error
    error = dist("model_error_factor", method="calibrated").params
    assert error == {"median": 1.0, "sigma": model_error("rl_step")}


def test_bounds_come_from_their_sources():
    growth = dist("length_growth").params
    assert growth["mode"] == sources.number("length_growth")                     # the seed's default 1.5
    end, start = experiment("exp1b", "verl_response_tokens_end"), experiment("exp1b", "verl_response_tokens_start")
    assert growth["high"] == pytest.approx(round(end / start, 1))                   # 549 → 1376 tokens
    eff = dist("rollout_efficiency").params
    assert (eff["low"], eff["high"]) == (0.30, 0.70)                                # the seed's "typical" range
    mfu = dist("mfu").params
    assert mfu["median"] == sources.number("mfu")
    assert mfu["low"] == experiment("exp1a", "verl_mfu")
    with open(sources.data_dir() / "measurements" / "rl_mfu.csv", newline="") as fh:
        measured = [float(r["mfu"]) for r in csv.DictReader(fh) if r["mfu"]]
    assert mfu["high"] == max(measured)
    turns = dist("turns", "swe_rl").params
    assert turns["low"] == pytest.approx(claim("turns_start") / claim("turns_end"))
    assert turns["high"] == pytest.approx(claim("rollart_turns_high") / claim("turns_end"))
    assert dist("turns", "harbor_rl").params["high"] == 1.0                          # max_turns caps harbor
    assert dist("failure_overhead", "swe_rl").params["high"] == claim("failure_turn_overhead_high")
    assert 1.0 in dist("off_policy").params["values"]                               # the presets' k


def test_bad_rows_are_rejected(tmp_path, monkeypatch):
    src = sources.data_dir()
    for sub in ("assumptions", "workloads", "models", "prices", "hardware", "literature", "experiments",
                "measurements", "calibration"):
        (tmp_path / sub).symlink_to(src / sub) if sub != "assumptions" else (tmp_path / sub).mkdir()
    (tmp_path / "assumptions" / "defaults.csv").write_text((src / "assumptions" / "defaults.csv").read_text())
    header = "parameter,applies_to,distribution,parameters,relative_to_preset,source,reason,methods\n"
    monkeypatch.setenv("TINKER_NOMICS_DATA", str(tmp_path))
    bad_rows = {
        "gpu,all,uniform,low=1 high=2,no,s,r\n": "not a numeric Scenario field",
        "mfu,all,beta,low=1 high=2,no,s,r\n": "not one of",
        "mfu,all,triangular,low=0.3 high=0.1,no,s,r\n": "mode",
        "mfu,all,uniform,low=0.1 high=0.3,no,s,r\nmfu,math_rl,uniform,low=0.1 high=0.2,no,s,r\n": "two rows",
        "mfu,nosuch_rl,uniform,low=0.1 high=0.3,no,s,r\n": "unknown workload",
        "mfu,all,uniform,low=0.1 high=0.3,no,s,r,magic\n": "names a method",
        "mfu,all,lognormal,median=1 sigma=fitted:nothing,no,s,r\n": "names no fitted spread",
    }
    try:
        for body, message in bad_rows.items():
            (tmp_path / "assumptions" / "uncertainty.csv").write_text(header + body)
            sources.clear_caches()
            uncertainty.clear_caches()
            with pytest.raises(TinkerNomicsError, match=message):
                uncertainty.for_workload("math_rl", "seed")
    finally:
        monkeypatch.delenv("TINKER_NOMICS_DATA")
        sources.clear_caches()
        uncertainty.clear_caches()


# ----------------------------------------------------------------------------- the draws


def test_draws_are_seeded_and_stay_in_bounds():
    a = uncertainty.simulate("swe_rl", n=5000, seed=3, method="seed")
    b = uncertainty.simulate("swe_rl", n=5000, seed=3, method="seed")
    c = uncertainty.simulate("swe_rl", n=5000, seed=4, method="seed")
    assert np.array_equal(a.tinker_usd, b.tinker_usd) and not np.array_equal(a.tinker_usd, c.tinker_usd)
    assert a.draws["turns"].min() >= 18 - 1e-9 and a.draws["turns"].max() <= 50 + 1e-9
    assert a.draws["mfu"].min() >= 0.016 and a.draws["mfu"].max() <= 0.40
    assert set(np.unique(a.draws["off_policy"])) <= {1.0, 2.0, 8.0}
    assert np.all(a.draws["failure_overhead"] >= 0) and np.all(a.draws["failure_overhead"] <= 0.82)


def test_one_vectorized_call(monkeypatch):
    """The draws go through the core at once: one call for the draws plus one for the preset's point."""
    calls = []
    real = uncertainty.estimate
    monkeypatch.setattr(uncertainty, "estimate", lambda s: calls.append(s) or real(s))
    mc = uncertainty.simulate("code_rl", n=100_000)
    assert len(calls) == 2 and mc.tinker_usd.shape == (100_000,)


def test_point_estimate_is_the_preset(january, calibrated):
    from tinker_nomics import Scenario, estimate
    for method, runs in (("seed", january), ("calibrated", calibrated)):
        for name, mc in runs.items():
            est = estimate(Scenario.from_workload(name, method=method))
            assert mc.point_tinker_usd == pytest.approx(float(est.tinker.total_usd))
            assert mc.point_self_hosted_usd == pytest.approx(float(est.self_hosted.total_usd))


@pytest.mark.parametrize("workload", PRESETS)
def test_point_estimate_lies_inside_p10_p90(calibrated, workload):
    """The band and the point come from the same model: every preset's calibrated point estimate lies inside
    its own P10–P90, on both sides."""
    mc = calibrated[workload]
    q = mc.quantiles()
    assert q["tinker"][0] <= mc.point_tinker_usd <= q["tinker"][2]
    assert q["self_hosted"][0] <= mc.point_self_hosted_usd <= q["self_hosted"][2]


def test_calibrated_draws_carry_the_model_error(calibrated):
    from tinker_nomics.sources.calibration import model_error
    draws = calibrated["math_rl"].draws["model_error_factor"]
    assert np.median(draws) == pytest.approx(1.0, abs=0.02)
    assert np.std(np.log(draws)) == pytest.approx(model_error("rl_step"), rel=0.03)
    # the self-hosted band is at least as wide as the model's own error: e^±1.28σ around the point
    q = calibrated["math_rl"].quantiles()["self_hosted"]
    assert q[2] / q[0] >= np.exp(2 * 1.2 * model_error("rl_step"))


# ----------------------------------------------------------------------------- the chapter's numbers


def test_math_rl_self_hosted_stays_cheaper(january):
    mc = january["math_rl"]
    assert mc.p_tinker_cheaper < 0.1
    q = mc.quantiles()
    assert q["self_hosted"][1] == pytest.approx(28.49, rel=0.15)   # the seed's $28, median of the draws
    assert q["tinker"][1] == pytest.approx(99.20, rel=0.15)        # and its $99
    assert q["self_hosted"][0] < 28.49 < q["self_hosted"][2]
    assert mc.influence().index[0] == "mfu"                         # a training-bound run


def test_january_verdicts_hold_in_most_draws(january):
    p = {w: mc.p_tinker_cheaper for w, mc in january.items()}
    assert p["code_rl"] > 0.95 and p["harbor_rl"] > 0.95
    assert p["swe_rl"] < 0.01 and p["osworld_rl"] < 0.05


def test_today_the_flips_are_mostly_firm():
    p = {w: uncertainty.simulate(w, n=N, snapshot="latest", method="seed").p_tinker_cheaper for w in WORKLOADS}
    assert p["code_rl"] < 0.1 and p["swe_rl"] < 0.01 and p["math_rl"] < 0.05
    assert 0.6 < p["osworld_rl"] < 0.95        # Tinker in most draws, not all
    assert 0.05 < p["harbor_rl"] < 0.4         # the close call


def test_verdict_shares_and_medians_against_direct_computation(january):
    """The uncertainty chapter's derived figures, each against the draws themselves."""
    for mc in january.values():
        tinker_wins = mc.tinker_usd <= mc.self_hosted_usd
        assert mc.p_self_hosted_cheaper == pytest.approx(np.mean(~tinker_wins))
        assert mc.p_tinker_cheaper + mc.p_self_hosted_cheaper == pytest.approx(1.0)
        assert mc.majority_share == pytest.approx(max(np.mean(tinker_wins), np.mean(~tinker_wins)))
        assert mc.majority_share >= 0.5
        assert mc.tinker_median_over_point == pytest.approx(np.median(mc.tinker_usd) / mc.point_tinker_usd)
    math = january["math_rl"]
    mfu = math.draws["mfu"]
    wins = math.tinker_usd <= math.self_hosted_usd
    assert math.median_input("mfu") == pytest.approx(np.median(mfu))
    assert math.median_input("mfu", cheaper="tinker") == pytest.approx(np.median(mfu[wins]))
    assert math.median_input("mfu", cheaper="self_hosted") == pytest.approx(np.median(mfu[~wins]))
    # Tinker wins a training-bound run only at low MFU: below the seed's default 0.10 (data/assumptions), toward
    # the 1.6% veRL measured in exp 1a.
    assert math.median_input("mfu", cheaper="tinker") < sources.number("mfu") / 2
    with pytest.raises(ValueError):
        math.median_input("mfu", cheaper="gpu")
    # swe_rl's Tinker bill is skewed upward by extra turns: its median sits well above the point estimate
    assert january["swe_rl"].tinker_median_over_point > 1.3


def test_summary_columns_and_order():
    table = uncertainty.summary(["math_rl", "osworld_rl"], n=2000, method="seed")
    for side in ("tinker", "self_hosted", "ratio"):
        assert (table[f"{side}_p10"] <= table[f"{side}_p50"]).all()
        assert (table[f"{side}_p50"] <= table[f"{side}_p90"]).all()
    assert list(table.workload) == ["math_rl", "osworld_rl"] and (table.draws == 2000).all()


def test_probability_text():
    assert uncertainty.probability_text(0) == "0%" and uncertainty.probability_text(0.001) == "<1%"
    assert uncertainty.probability_text(0.999) == ">99%" and uncertainty.probability_text(0.42) == "42%"
