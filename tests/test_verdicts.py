"""One answer, one voice (issue 20): a verdict with its share of draws (analysis.verdict), the words every page
states it with (faces.wording), the answers the intro, takeaway and uncertainty chapters share
(analysis.bottom_line.answers), the record the consistency test reads (faces.headlines), and the display names
tables and figures use (faces.labels) against the book's notation page."""
from __future__ import annotations

import json
import math
import re

import pytest

from conftest import REPO
from tinker_nomics import Scenario, estimate, fmt
from tinker_nomics.analysis import compare, timeline, uncertainty
from tinker_nomics.analysis.bottom_line import answers, bottom_line
from tinker_nomics.analysis.verdict import Verdict, close_call_share
from tinker_nomics.faces import labels, wording
from tinker_nomics.faces.headlines import GLUE_PREFIX, Headlines
from tinker_nomics.sources import assumptions


# ----------------------------------------------------------------------------- the verdict


def test_the_close_call_share_is_the_sourced_default():
    # data/assumptions/defaults.csv close_call_share, from issue 20: "a verdict under 80% of draws is a close call"
    assert close_call_share() == assumptions()["close_call_share"].value == 0.8


def test_a_verdict_under_the_close_call_share_names_no_winner():
    share = close_call_share()
    close = Verdict("tinker", 1.1, p_tinker=share - 0.01)
    firm = Verdict("tinker", 1.1, p_tinker=share)
    assert close.close and close.winner is None and firm.winner == "tinker" and not firm.close
    # the point estimate says self-hosting; 60% of draws say Tinker: the point verdict has only 40% of draws
    against = Verdict("self_hosted", 1.2, p_tinker=0.6)
    assert against.p_cheaper == pytest.approx(0.4) and against.close
    undrawn = Verdict("self_hosted", 3.0)
    assert not undrawn.drawn and not undrawn.close and math.isnan(undrawn.p_cheaper)
    with pytest.raises(ValueError):
        Verdict("gpus", 2.0)


def test_verdict_of_two_bills_is_compare_cheaper_factor():
    est = estimate(Scenario.from_workload("math_rl"))
    side, factor = compare.cheaper_factor(est)
    v = Verdict.of(est.tinker.total_usd, est.self_hosted.total_usd)
    assert v.cheaper == str(side) and v.factor == pytest.approx(float(factor))


# ----------------------------------------------------------------------------- the words


def test_a_close_call_is_never_written_as_a_winner():
    close = Verdict("tinker", 1.05, p_tinker=0.47)
    sentence, cell = wording.verdict(close), wording.verdict_cell(close)
    assert sentence.startswith("a close call") and "47%" in sentence and "1.1×" in sentence
    assert cell == "close call (Tinker 1.1×)"
    firm = Verdict("self_hosted", 4.01, p_tinker=0.0004)
    assert wording.verdict(firm) == "self-hosting is 4.0× cheaper, in >99% of draws"
    assert wording.verdict_cell(firm) == "self-hosted 4.0×"
    assert wording.shares_cell(firm) == "Tinker <1% · self-hosted >99%"


@pytest.mark.parametrize("value,text", [(0.0706, "0.07 days"), (1.0, "1.0 day"), (4.68, "4.7 days"),
                                        (456964.2, "456,964 days"), (float("nan"), "—")])
def test_days_read_as_a_person_writes_them(value, text):
    # "456964.2 days" was printed by a template (issue 20)
    assert wording.days(value) == text


def test_money_and_spread_match_the_tables():
    assert wording.money(13668.49) == fmt.usd(13668.49, cents=False) == "$13,668"
    assert wording.spread(135.15, 176.24) == "$135–$176" and wording.money(None) == "—"


def test_method_line_names_method_and_list():
    from tinker_nomics.sources import newest_snapshot
    line = wording.method_line("calibrated", newest_snapshot())
    assert "calibrated (the package's default)" in line and f"{newest_snapshot()}, the newest list" in line
    assert "original site" in wording.method_line("seed", "2026-01-05")
    assert "prices no tokens" in wording.method_line("calibrated", None)


# ----------------------------------------------------------------------------- the answers


@pytest.fixture(scope="module")
def answered():
    return answers(draws=20_000)


def test_answers_are_the_headline_table_with_the_uncertainty_chapters_draws(answered):
    rows = {r.workload: r for r in compare.headline_table(timeline.TAKEAWAY_WORKLOADS)}
    for a in answered:
        assert a.row == rows[a.workload]
        mc = uncertainty.simulate(a.workload, n=20_000, snapshot=a.prices)
        assert a.verdict.p_tinker == mc.p_tinker_cheaper
        q = mc.quantiles((0.1, 0.9))
        assert (a.tinker_p10, a.tinker_p90) == (float(q["tinker"][0]), float(q["tinker"][1]))
        assert a.self_hosted_p10 <= a.row.self_hosted_usd * a.measured_pace
        assert a.self_hosted_days == pytest.approx(a.row.wallclock_hours / 24)


def test_the_measured_pace_is_the_seed_veRL_runs_miss(answered):
    """analysis.seed_verl_run: the seed's exp 1b veRL run against the default method's step."""
    from tinker_nomics.analysis.seed_verl_run import seed_verl_check
    for a in answered:
        assert a.measured_pace == pytest.approx(seed_verl_check(prices=a.prices).measured_over_predicted)
        slow = estimate(Scenario.from_workload(a.workload, prices=a.prices, model_error_factor=a.measured_pace))
        assert a.self_hosted_at_measured_pace_usd == pytest.approx(float(slow.self_hosted.total_usd))


def test_the_bottom_line_names_winners_only_where_the_draws_support_them():
    line = bottom_line(draws=20_000)
    rows = {a.workload: a for a in answers(draws=20_000)}
    for side, s in line.sides.items():
        for w in s.workloads:
            assert rows[w].verdict.winner == side
    assert set(line.close_calls) == {w for w, a in rows.items() if a.verdict.close}
    named = set(line.close_calls).union(*(s.workloads for s in line.sides.values()))
    assert named == set(rows)


# ----------------------------------------------------------------------------- the record


def test_headlines_set_the_prose_and_record_it():
    glued = {}
    prose = type("P", (), {"__setitem__": lambda self, k, v: glued.__setitem__(k, v)})()
    h = Headlines(prose)
    texts = h.state("math_rl", "math_rl", "calibrated", "2026-10-07", tinker_usd=146.13, self_hosted_usd=36.44,
                    verdict=Verdict("self_hosted", 4.01, 0.0004), days=0.0706)
    assert glued["math_rl_tinker"] == texts["tinker"] == "$146" and glued["math_rl_days"] == "0.07 days"
    record = json.loads(glued[f"{GLUE_PREFIX}math_rl"])
    assert record["cheaper"] == "self_hosted" and record["factor"] == "4.0×" and record["share"] == ">99%"
    assert record["names"]["verdict"] == "math_rl_verdict"


# ----------------------------------------------------------------------------- names and notation


def test_every_symbol_of_the_display_names_is_defined_in_the_notation():
    page = (REPO / "book" / "notation.md").read_text()
    tex = {"η": r"\eta", "τ": r"\tau", "η_bw": r"\eta_\text{bw}", "η_c": r"\eta_\text{c}"}
    for name, n in labels.NAMES.items():
        if n.symbol:
            assert f"${tex.get(n.symbol, n.symbol)}$" in page, f"{name}: symbol {n.symbol} is not in book/notation.md"
    for term in ("MFU", "LOSO", "close call", "P10"):
        assert re.search(rf"^\| {re.escape(term)}", page, re.M), term


def test_a_symbol_means_one_thing():
    symbols = [n.symbol for n in labels.NAMES.values() if n.symbol]
    repeated = {s for s in symbols if symbols.count(s) > 1}
    assert repeated <= {"η_bw"}, repeated     # dense and MoE bandwidth efficiency: one symbol, two fits


def test_raw_names_finds_python_names_but_not_workloads():
    assert labels.raw_names("length_growth and math_rl") == ["length_growth"]
    assert labels.label("off_policy") == "steps off-policy (k)" and labels.label("unknown_name") == "unknown name"


# ----------------------------------------------------------------------------- panels and figures


def test_a_control_that_cannot_move_the_result_is_named_with_its_reason():
    import ipywidgets as W
    from tinker_nomics.faces.widgets import PACE_REASONS, fixed_controls
    slider = W.FloatSlider(min=0.6, max=1.0)
    # 8 steps off-policy on 16 GPUs: the rollout engine works ahead on its own 8 GPUs and the trainer on the other 8
    # sets the pace at every rollout efficiency of the slider (60% to 100%), so it cannot move the bill; at 50% the
    # rollout (its LoRA adapter served unmerged) becomes the longer side (checked below)
    slow = fixed_controls(Scenario.from_workload("math_rl", num_gpus=16, off_policy=8), {"rollout_efficiency": slider})
    assert slow["rollout_efficiency"] == PACE_REASONS["rollout_efficiency"]
    wider = fixed_controls(Scenario.from_workload("math_rl", num_gpus=16, off_policy=8),
                           {"rollout_efficiency": W.FloatSlider(min=0.5, max=1.0)})
    assert "rollout_efficiency" not in wider
    assert "output_per_turn" in slow and "completion_tokens" not in slow
    # math one step off-policy on its 8 GPUs: generation on its own GPUs (the LoRA adapter served unmerged) sets the
    # pace at every MFU from 30% to 60%
    paced = fixed_controls(Scenario.from_workload("math_rl", off_policy=1), {"mfu": W.FloatSlider(min=0.3, max=0.6)})
    assert paced["mfu"] == PACE_REASONS["mfu"]
    agent = fixed_controls(Scenario.from_workload("swe_rl"), {})
    assert "completion_tokens" in agent and "output_per_turn" not in agent
    moving = fixed_controls(Scenario.from_workload("math_rl"), {"mfu": W.FloatSlider(min=0.01, max=0.6)})
    assert "mfu" not in moving          # at 1% MFU training would set the pace: the slider moves the bill


def test_a_figure_is_narrowed_until_its_text_reads_on_a_phone():
    import matplotlib
    matplotlib.use("agg")
    import matplotlib.pyplot as plt
    from tinker_nomics.faces.plots import common
    fig, ax = plt.subplots(figsize=(7.5, 3), layout="constrained")
    ax.plot([1, 10, 100], [1, 2, 3])
    ax.set_xscale("log")
    ax.set_title("a title long enough to need wrapping once the figure is narrow enough for a phone", fontsize=10)
    ax.text(1, 1, "small", fontsize=7)
    svg = common.svg(fig)
    width = float(re.search(r'viewBox="0 0 ([\d.]+)', svg).group(1))
    smallest = min(float(x) for x in re.findall(r"font-size: ([\d.]+)px", svg))
    assert smallest * common.PHONE_COLUMN_PX / width >= common.MIN_TEXT_PX      # 9 px on a 400 px screen
    assert "10<tspan" not in svg and "font-size: 4.9" not in svg               # plain log ticks, no 10^n exponents
    plt.close(fig)
