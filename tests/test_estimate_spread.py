"""`estimate` states the default model's answer with its uncertainty beside it, as the book does: the P10–P90 of both
bills and wall-clocks over the book's Monte-Carlo (analysis.uncertainty: 100,000 seeded draws of the inputs
data/assumptions/uncertainty.csv gives the workload, and of the model's held-out error), and the verdict in the
book's words (faces.wording.verdict). A preset run as it is gives the book's own numbers (uncertainty.simulate, the
takeaway's verdict table); an input a user sets is left as given."""
from __future__ import annotations

import json

import pytest

from test_hostile_counts import _cli
from tinker_nomics.analysis import uncertainty
from tinker_nomics.analysis.verdict import Verdict
from tinker_nomics.faces import wording


def _estimate(*args):
    code, out, err = _cli("estimate", *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("workload", ["math_rl", "code_rl"])
def test_a_preset_gets_the_books_spread_and_verdict(workload):
    u = _estimate("--workload", workload)["uncertainty"]
    mc = uncertainty.simulate(workload)                     # what the takeaway's verdict table is built from
    q = mc.quantiles()
    assert u["draws"] == uncertainty.DEFAULT_DRAWS and u["fixed"] == []
    assert u["p_tinker_cheaper"] == mc.p_tinker_cheaper
    assert [u[f"tinker_usd_p{p}"] for p in (10, 50, 90)] == pytest.approx(list(q["tinker"]), rel=1e-12)
    assert [u[f"self_hosted_hours_p{p}"] for p in (10, 50, 90)] == pytest.approx(list(q["self_hosted_hours"]),
                                                                                 rel=1e-12)
    assert u["verdict"] == wording.verdict(Verdict.of(mc.point_tinker_usd, mc.point_self_hosted_usd,
                                                      mc.p_tinker_cheaper), capital=True)
    code, out, _ = _cli("estimate", "--workload", workload)
    assert f"Cheaper       {u['verdict']}" in out and "Spread        P10–P90 over 100,000 draws" in out


def test_an_input_the_user_sets_is_not_drawn():
    """math_rl draws its length growth from triangular(1.0, 1.5, 2.5) (uncertainty.csv), the only drawn input that
    moves Tinker's bill: --length-growth 1.5 holds it, and Tinker's spread closes on its point estimate."""
    free = _estimate("--workload", "math_rl")
    held = _estimate("--workload", "math_rl", "--length-growth", "1.5")
    u, point = held["uncertainty"], held["tinker"]["total_usd"]
    assert "length_growth" in free["uncertainty"]["drawn"] and free["uncertainty"]["tinker_usd_p90"] > point
    assert "length_growth" not in u["drawn"] and u["fixed"] == ["length_growth"]
    assert u["tinker_usd_p10"] == pytest.approx(point, rel=1e-12) == u["tinker_usd_p90"]
    code, out, _ = _cli("estimate", "--workload", "math_rl", "--length-growth", "1.5")
    assert "as given: length growth" in out


def test_a_close_call_is_worded_as_one():
    """exp1a_gsm8k (the seed's GSM8K run) at a GPU price 3% under its break-even (analysis.breakeven): self-hosting
    is cheaper at the point estimate, in fewer than the close-call share of the draws (data/assumptions/defaults.csv
    close_call_share)."""
    from tinker_nomics.analysis import breakeven
    from tinker_nomics.analysis.verdict import close_call_share
    price = breakeven.breakeven_gpu_price("exp1a_gsm8k") * 0.97
    d = _estimate("--workload", "exp1a_gsm8k", "--gpu-hourly-usd", repr(price))
    assert d["cheaper"] == "self_hosted"
    u = d["uncertainty"]
    agree = u["p_tinker_cheaper"] if d["cheaper"] == "tinker" else 1 - u["p_tinker_cheaper"]
    assert agree < close_call_share()
    assert u["verdict"].startswith("A close call:") and "at the point estimate, but only in" in u["verdict"]


def test_no_tinker_side_or_no_gpu_price_spreads_what_is_known():
    """Qwen2.5-7B has no Tinker price (data/prices/): no verdict, the self-hosted spread alone. The H20 has no
    sourced $/GPU-hour (data/hardware/gpu_prices.csv): its hours spread, its dollars stay unknown (null)."""
    u = _estimate("--workload", "math_rl", "--model", "Qwen2.5-7B")["uncertainty"]
    assert u["p_tinker_cheaper"] is None and u["verdict"] is None and u["self_hosted_usd_p90"] > 0
    code, out, _ = _cli("estimate", "--workload", "math_rl", "--model", "Qwen2.5-7B")
    spread = next(line for line in out.splitlines() if line.startswith("Spread"))
    assert "Tinker" not in spread and "self-hosted $" in spread
    u = _estimate("--workload", "math_rl", "--gpu", "H20")["uncertainty"]
    assert u["self_hosted_usd_p10"] is None and u["self_hosted_hours_p10"] > 0 and u["verdict"] is None
    code, out, _ = _cli("estimate", "--workload", "math_rl", "--gpu", "H20")
    spread = next(line for line in out.splitlines() if line.startswith("Spread"))
    assert "self-hosted $" not in spread and "Cheaper       unknown" in out


def test_the_plan_leaves_a_set_input_as_given_too():
    """The planner draws what estimate draws (uncertainty.draw_inputs): with --length-growth set, Tinker's row
    spreads no more than estimate's does (its bill then depends on no drawn input)."""
    code, out, err = _cli("plan", "--workload", "math_rl", "--length-growth", "1.5", "--providers", "tinker",
                          "--format", "json")
    assert code == 0, err
    row = json.loads(out)["options"][0]
    assert row["cost_usd_p10"] == pytest.approx(row["cost_usd"], rel=1e-12) == row["cost_usd_p90"]
    free = json.loads(_cli("plan", "--workload", "math_rl", "--providers", "tinker", "--format", "json")[1])
    assert free["options"][0]["cost_usd_p90"] > row["cost_usd_p90"]


def test_predict_says_how_far_the_model_lands_in_the_regimes_of_its_prediction():
    """`predict` states the held-out error beside its answer (data/calibration/errors_by_regime.csv, written by
    make calibrate): over every case and in each regime the prediction falls in; a regime with no published case
    is said to have none. The seed and exact methods are not the fit that table judges: no line."""
    from tinker_nomics.sources.calibration import regime_errors
    table = regime_errors()
    decode = ["predict", "decode", "--model", "Llama-3.1-8B", "--gpu", "H100", "--num-gpus", "1", "--concurrency",
              "1", "--input-len", "1000", "--output-len", "1000", "--precision", "int4"]
    data = json.loads(_cli(*decode, "--format", "json")[1])
    assert [r["regime"] for r in data["held_out_error"]] == ["all", "batch1", "weight_only"]
    assert data["held_out_error"][2]["median_abs_error"] == table[("decode", "weight_only")].median_abs_error
    line = next(x for x in _cli(*decode)[1].splitlines() if x.startswith("Accuracy"))
    weight_only = table[("decode", "weight_only")]
    assert f"weight-only int8/int4 {round(100 * weight_only.median_abs_error)}% ({weight_only.cases} cases)" in line
    rl = ["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--samples", "256",
          "--prompt-len", "200", "--response-len", "1000", "--fine-tune", "lora"]
    assert ("rl_step", "lora") not in table          # no published RL step trains a LoRA
    assert "LoRA: no published case" in _cli(*rl)[1]
    assert "Accuracy" not in _cli(*decode, "--method", "exact")[1]


def test_a_model_tinker_does_not_offer_lists_no_tinker_draw():
    """Left over from 2026-12-05: with no Tinker price the Spread line named 'Tinker time error' among the inputs
    drawn, though no number shown moves with it."""
    code, out, err = _cli("estimate", "--workload", "math_rl", "--model", "Qwen/Qwen2.5-7B", "--format", "json")
    assert code == 0, err
    assert not [name for name in json.loads(out)["uncertainty"]["drawn"] if name.startswith("tinker_")]
    code, out, err = _cli("estimate", "--workload", "math_rl", "--format", "json")
    assert code == 0, err
    assert "tinker_time_factor" in json.loads(out)["uncertainty"]["drawn"]   # priced: Tinker's time is drawn
