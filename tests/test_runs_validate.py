"""Reconciliation and calibration (tinker_nomics.runs: meters, calibrate, validate): exact bills of synthetic runs, cached-prefill
modes, caveats, price-as, the four OmniMath bills, and the seed's experiments 1a and 1b.

Rates used in the hand computations are the data/prices/tinker_prices.csv rows named in each test.
"""
import json
import math

import pytest

import run_shapes as shapes
from tinker_nomics import TinkerNomicsError
from tinker_nomics.model.billing import meter_cost
from tinker_nomics.sources import get_price
from tinker_nomics.sources.bundled_runs import bundled_runs
from tinker_nomics.runs.read import read_run
from tinker_nomics.runs.calibrate import SIGN_CONVENTION, calibrate
from tinker_nomics.runs.meters import bill_meters, same_architecture
from tinker_nomics.analysis.run_bills import bundled_bills, snapshot_bills, successor_over_own
from tinker_nomics.analysis.seed_experiments import seed_experiment, seed_experiments_table
from tinker_nomics.runs.validate import validate_run

JAN, OCT = "2026-01-05", "2026-10-07"


def sync_dir(tmp_path, records=None, config=shapes.NESTED_CONFIG):
    return shapes.write_cookbook_dir(tmp_path / "run", records or shapes.sync_records(), config)


# ------------------------------------------------------------------------------------ exact bills

def test_synthetic_bill_is_exact(tmp_path):
    # Qwen3-8B, January 2026: prefill 0.13, sample 0.40, train 0.40 USD per million tokens.
    # sample 5700 × 0.40 + train 5060 × 0.40 + prefill 570 × 0.13 = 2280 + 2024 + 74.1 = 4378.1 per million tokens
    v = validate_run(sync_dir(tmp_path), prices=JAN)
    assert v.bill.model == "Qwen/Qwen3-8B"                    # from config.json
    assert (v.bill.meters.sample, v.bill.meters.train, v.bill.meters.prefill) == (5700, 5060, 570)
    assert v.bill.sample_usd == pytest.approx(2280e-6, rel=1e-12)
    assert v.bill.train_usd == pytest.approx(2024e-6, rel=1e-12)
    assert v.bill.prefill_usd == pytest.approx(74.1e-6, rel=1e-12)
    assert v.total_usd == pytest.approx(4378.1e-6, rel=1e-12)
    assert v.per_step["cumulative_usd"].iloc[-1] == pytest.approx(v.total_usd, rel=1e-12)
    # per step: step 0 = sample 1000 + 500, train 1100, prefill 100 + 50
    first = v.per_step.iloc[0]
    assert (first["sample_tokens"], first["train_tokens"], first["prefill_tokens"]) == (1500, 1100, 150)
    assert first["cost_usd"] == pytest.approx((1500 * 0.40 + 1100 * 0.40 + 150 * 0.13) * 1e-6, rel=1e-12)


def test_bill_uses_the_price_tables_not_typed_rates(tmp_path):
    v = validate_run(sync_dir(tmp_path), prices=OCT)
    price = get_price("Qwen3-8B", OCT)
    expected = float(meter_cost(5700, price.sample) + meter_cost(5060, price.train) + meter_cost(570, price.prefill))
    assert v.total_usd == pytest.approx(expected, rel=1e-12)


def test_logged_cache_hits_are_billed_at_the_cached_rate(tmp_path):
    run = read_run(shapes.write_cookbook_dir(tmp_path / "r", shapes.v061_records(), shapes.NESTED_CONFIG))
    v = validate_run(run, prices=OCT)                                        # auto = logged
    assert v.bill.cached_mode == "logged" and v.bill.meters.cached_prefill == 340
    # Qwen3-8B 2026-10-07: prefill 0.195, cached 0.039 → (640 − 340) × 0.195 + 340 × 0.039 per million
    assert v.bill.prefill_usd == pytest.approx((300 * 0.195 + 340 * 0.039) * 1e-6, rel=1e-12)
    assert v.per_step["prefill_usd"].sum() == pytest.approx(v.bill.prefill_usd, rel=1e-12)
    january = validate_run(run, prices=JAN)                                  # no cached rate in January
    assert january.bill.prefill_usd == pytest.approx(640 * 0.13e-6, rel=1e-12)
    assert any("no cached-prefill rate" in n for n in january.notes)
    none = validate_run(run, prices=OCT, cached_prefill="none")
    assert none.bill.prefill_usd == pytest.approx(640 * 0.195e-6, rel=1e-12)


def test_group_cache_assumption(tmp_path):
    # G = 4 from config.json: 3 of 4 training prompt tokens hit, 460 × 3/4 = 345; the 110 eval prompt tokens miss
    v = validate_run(sync_dir(tmp_path), prices=OCT, cached_prefill="group")
    assert v.bill.meters.cached_prefill == 345
    assert v.bill.prefill_usd == pytest.approx(((570 - 345) * 0.195 + 345 * 0.039) * 1e-6, rel=1e-12)
    assert "G−1 of every G = 4" in v.cached_basis
    bare = read_run(shapes.write_jsonl(tmp_path / "m.jsonl", shapes.sync_records()))
    with pytest.raises(TinkerNomicsError, match="needs the group size G"):
        validate_run(bare, model="Qwen3-8B", prices=OCT, cached_prefill="group")
    assert validate_run(bare, model="Qwen3-8B", prices=OCT, cached_prefill="group",
                        group_size=2).bill.meters.cached_prefill == 230
    with pytest.raises(TinkerNomicsError, match="no env/all/total_cached_ob_tokens"):
        validate_run(bare, model="Qwen3-8B", cached_prefill="logged")
    with pytest.raises(TinkerNomicsError, match="cached prefill must be one of"):
        validate_run(bare, model="Qwen3-8B", cached_prefill="sometimes")


# ------------------------------------------------------------------------------------ models and prices

def test_model_comes_from_config_or_argument(tmp_path):
    bare = read_run(shapes.write_jsonl(tmp_path / "m.jsonl", shapes.sync_records()))
    with pytest.raises(TinkerNomicsError, match=r"m.jsonl: which model\? no config.json beside it; pass --model"):
        validate_run(bare)
    v = validate_run(sync_dir(tmp_path), model="Llama-3.1-8B", prices=JAN)
    assert v.bill.model == "meta-llama/Llama-3.1-8B"
    assert any("config.json says Qwen/Qwen3-8B" in n for n in v.notes)


def test_unpriced_model_names_where_it_is_priced_and_price_as_bills_it(tmp_path):
    path = sync_dir(tmp_path)
    with pytest.raises(TinkerNomicsError) as info:
        validate_run(path, model="Qwen/Qwen3-30B-A3B-Instruct-2507", prices=JAN)
    message = str(info.value)
    assert "no Tinker price for Qwen/Qwen3-30B-A3B-Instruct-2507 as of snapshot 2026-01-05" in message
    assert "--price-as MODEL" in message and "same architecture: Qwen/Qwen3-30B-A3B (priced in 2026-01-05" in message
    assert "VL" not in message   # the vision model shares the language model's row but is priced apart
    with pytest.raises(TinkerNomicsError, match="it is priced in 2026-01-05, 2026-H1"):
        validate_run(path, model="Qwen/Qwen3-30B-A3B", prices=OCT)
    v = validate_run(path, model="Qwen/Qwen3-30B-A3B-Instruct-2507", prices=JAN, price_as="Qwen3-30B-A3B")
    direct = validate_run(path, model="Qwen/Qwen3-30B-A3B", prices=JAN)
    assert v.total_usd == direct.total_usd and v.bill.price_model == "Qwen/Qwen3-30B-A3B"
    assert any("billed at Qwen/Qwen3-30B-A3B's rates" in n for n in v.notes)
    assert v.to_dict()["price_model"] == "Qwen/Qwen3-30B-A3B"
    assert same_architecture("Qwen/Qwen3-30B-A3B-Instruct-2507") == ["Qwen/Qwen3-30B-A3B"]


def test_snapshot_table_marks_unpriced_snapshots(tmp_path):
    table = snapshot_bills(read_run(sync_dir(tmp_path)), "Qwen/Qwen3-30B-A3B", (JAN, OCT), ("none",))
    assert table["total_usd"].notna().tolist() == [True, False]
    assert "no Tinker price" in table["note"].iloc[1]


# ------------------------------------------------------------------------------------ caveats

def test_multi_turn_caveat_and_no_calibration(tmp_path):
    records = shapes.sync_records()
    for r in records:
        r["env/all/turns_per_episode"] = 3.0
    v = validate_run(sync_dir(tmp_path, records), prices=JAN)
    caveat = next(c for c in v.caveats if c.startswith("multi-turn run"))
    assert "up to 3 turns" in caveat and "over-counts the train meter" in caveat
    assert v.calibration.table.empty and "multi-turn" in v.calibration.notes[0]
    assert "multi-turn run" in v.render()


def test_async_and_eval_caveats(tmp_path):
    v = validate_run(shapes.write_cookbook_dir(tmp_path / "a", shapes.async_records(), shapes.NESTED_CONFIG),
                     prices=JAN)
    assert any(c.startswith("async run") for c in v.caveats)
    assert any(c.startswith("eval rollouts are billed and included: 3 evals") for c in v.caveats)


def test_kl_scoring_caveat_on_the_v2_log():
    b = bundled_runs()["gptoss-20b-v2"]
    v = validate_run(b.path, model=b.model, prices=JAN)
    assert any("kl_policy_base" in c for c in v.caveats) and v.run.mode == "sync"


# ------------------------------------------------------------------------------------ the four OmniMath bills

# Hand computation from the totals pinned in test_runs.py (independent json sums) and the January 2026 rows:
# gpt-oss-20b and Qwen3-30B-A3B are both prefill 0.12, sample 0.30, train 0.36 USD per million.
#   v3b:      sample 648,510,506 + 15,322,695; train 25,995,888 + 648,510,506; prefill 25,995,888 + 740,341
#             → 663,833,201 × 0.30 + 674,506,394 × 0.36 + 26,736,229 × 0.12 = 199.150 + 242.822 + 3.208 = 445.18
OMNIMATH_JANUARY = {"gptoss-20b-v2": 15.02, "gptoss-20b-v3b": 445.18, "qwen3-30b-instruct-v3b": 461.69,
                    "qwen3-30b-think-v3b": 235.45}
# gpt-oss-20b as of 2026-10-07 (carried forward from 2026-09-05): prefill 0.18, sample 0.45, train 0.396, cached 0.036
OMNIMATH_OCTOBER = {"gptoss-20b-v2": 19.92, "gptoss-20b-v3b": 570.64}


@pytest.mark.parametrize("name", sorted(OMNIMATH_JANUARY))
def test_omnimath_bills(name):
    b = bundled_runs()[name]
    v = validate_run(b.path, model=b.model, prices=JAN, price_as=b.price_as)
    m = v.bill.meters
    rates = (0.30, 0.36, 0.12)
    by_hand = (m.sample * rates[0] + m.train * rates[1] + m.prefill * rates[2]) / 1e6
    assert v.total_usd == pytest.approx(by_hand, rel=1e-12)
    assert round(v.total_usd, 2) == OMNIMATH_JANUARY[name]
    if name in OMNIMATH_OCTOBER:
        october = validate_run(b.path, model=b.model, prices=OCT)
        assert round(october.total_usd, 2) == OMNIMATH_OCTOBER[name]


def test_bundled_bills_table():
    table = bundled_bills((JAN, OCT)).set_index("run")
    assert table.loc["gptoss-20b-v3b", "usd_2026-01-05"] == pytest.approx(445.18, abs=0.005)
    # G = 16 (the author's setup): 15/16 of 25,995,888 training prompt tokens at 0.036 instead of 0.18
    saving = 25_995_888 * 15 / 16 * (0.18 - 0.036) / 1e6
    assert table.loc["gptoss-20b-v3b", "usd_2026-10-07"] - table.loc["gptoss-20b-v3b", "usd_2026-10-07_cached"] \
        == pytest.approx(saving, rel=1e-9)
    assert math.isnan(table.loc["qwen3-30b-think-v3b", "usd_2026-10-07"])
    assert table.loc["qwen3-30b-instruct-v3b", "billed_as"] == "Qwen/Qwen3-30B-A3B"


def test_successor_over_own_is_october_on_the_successor_over_january():
    """The run validation chapter's 'think_successor_ratio': the thinking Qwen3-30B-A3B run billed on its successor
    (Qwen3.6-35B-A3B, data/models/successors.csv) at October prices, over its own January bill."""
    table = bundled_bills((JAN, OCT))
    by_run = table.set_index("run")
    think = by_run.loc["qwen3-30b-think-v3b"]
    expected = think["usd_2026-10-07_successor"] / think["usd_2026-01-05"]
    assert successor_over_own(table, "qwen3-30b-think-v3b", OCT, JAN) == pytest.approx(expected)
    assert successor_over_own(by_run, "qwen3-30b-think-v3b", "latest", JAN) == pytest.approx(expected)
    assert expected > 1                                 # a dearer model, not the same one repriced
    assert math.isnan(successor_over_own(table, "gptoss-20b-v3b", OCT, JAN))        # still priced: no successor
    assert math.isnan(successor_over_own(bundled_bills((JAN,)), "qwen3-30b-think-v3b", OCT, JAN))


# ------------------------------------------------------------------------------------ calibration

def test_calibration_recovers_a_linear_run_exactly(tmp_path):
    # No evals; ac per episode 125, 137.5, 150, 162.5 (linear), P = 460 / 32 = 14.375 per episode.
    # Window 0.2 of 4 steps = 1 step: L = 125, growth = 162.5 / 125 = 1.3, average 125 × 1.15 = 143.75.
    records = [{k: v for k, v in r.items() if not k.startswith("test/")} for r in shapes.sync_records()]
    v = validate_run(sync_dir(tmp_path, records), prices=JAN)
    cal = v.calibration
    assert cal.inputs["completion_tokens"] == 125 and cal.inputs["length_growth"] == pytest.approx(1.3)
    assert cal.inputs["prompt_tokens"] == 14.375 and cal.inputs["episodes_per_step"] == 8
    assert cal.inputs["prompts_per_step"] == 2 and cal.inputs["group_size"] == 4       # G from config.json
    exact = cal.table[cal.table["method"] == "exact"].set_index("meter")
    assert exact.loc["sample", "predicted_tokens"] == pytest.approx(4600)
    assert exact.loc["train", "predicted_tokens"] == pytest.approx(5060)
    assert exact.loc["prefill", "predicted_tokens"] == pytest.approx(460)
    assert abs(exact.loc["total", "usd_error"]) < 1e-12
    seed = cal.table[cal.table["method"] == "seed"].set_index("meter")
    assert seed.loc["train", "tokens_error"] == pytest.approx((4600 - 5060) / 5060)   # seed trains completions only
    assert cal.sign_convention == SIGN_CONVENTION


def test_calibration_with_evals_and_its_sign(tmp_path):
    # Evals before steps 0 and 2: cadence 2, 4 prompts each. The model counts ceil(4 / 2) = 2 evals of 4 rollouts
    # at the training lengths: 2 × 4 × 143.75 = 1150 sampled and 2 × 4 × 14.375 = 115 prompt tokens,
    # against 1100 and 110 logged.
    cal = calibrate(read_run(sync_dir(tmp_path)), "Qwen3-8B", JAN)
    assert cal.inputs["eval_every"] == 2 and cal.inputs["eval_prompts"] == 4 and cal.inputs["eval_runs"] == 2
    exact = cal.table[cal.table["method"] == "exact"].set_index("meter")
    assert exact.loc["sample", "predicted_tokens"] == pytest.approx(4600 + 1150)
    assert exact.loc["prefill", "predicted_tokens"] == pytest.approx(460 + 115)
    assert exact.loc["sample", "tokens_error"] == pytest.approx((5750 - 5700) / 5700)     # positive: over-predicts


def test_calibration_of_a_real_run_is_plausible():
    b = bundled_runs()["gptoss-20b-v3b"]
    v = validate_run(b.path, model=b.model, prices=JAN)
    inputs = v.calibration.inputs
    assert inputs["episodes_per_step"] == 2048 and inputs["group_size"] == 16 and inputs["prompts_per_step"] == 128
    assert inputs["eval_every"] == 10 and inputs["eval_prompts"] == 664
    assert 0 < inputs["length_growth"] < 1                      # completions got shorter over this run
    assert (v.calibration.table["usd_error"].abs() < 0.25).all()


def test_to_dict_has_the_contract_keys_and_is_json(tmp_path):
    d = validate_run(sync_dir(tmp_path), prices=JAN).to_dict()
    for key in ("model", "prices", "steps"):
        assert key in d
    for key in ("sample", "train", "prefill", "eval_sample", "eval_prefill"):
        assert isinstance(d["tokens"][key], float)
    for key in ("sample_usd", "train_usd", "prefill_usd", "total_usd"):
        assert isinstance(d["tinker"][key], float)
    assert d["steps"] == 4 and d["calibration"]["rows"] and d["caveats"]
    json.dumps(d, allow_nan=False)


# ------------------------------------------------------------------------------------ the seed's exp 1a and 1b

def test_exp1a_bill_from_the_seed_totals():
    # Seed empirical validation page (seeds/001): actual 24.7M / 30.0M / 13.5M tokens at $0.22 / $0.22 / $0.07
    # → "$5.44 / $6.60 / $0.95 = $12.99"; "Actual bill: $12.96 ... Error: 0.2%".
    e = seed_experiment("exp1a")
    m = e.bill.meters
    assert (m.sample, m.train, m.prefill) == (24.7e6, 30.0e6, 13.5e6)   # 19.3M + 5.4M; 10.7M + 19.3M; 13.5M
    assert e.computed_usd == pytest.approx(5.434 + 6.6 + 0.945, abs=1e-9)   # 12.979 from the rounded totals
    assert e.billed_usd == 12.96
    # the seed's own $12.99 and 0.2% lie within the rounding of its printed token totals (±0.05M each figure)
    assert abs(12.99 - e.computed_usd) <= e.rounding_usd
    low, high = e.error_range
    assert low <= 0.002 <= high
    assert e.error == pytest.approx((12.979 - 12.96) / 12.96, abs=1e-9)     # +0.15% from the rounded totals
    for meter, printed in (("sample", 5.44), ("train", 6.60), ("prefill", 0.95)):
        measured = float(e.table.loc[e.table["meter"] == meter, "measured_usd"].iloc[0])
        assert abs(measured - printed) <= 0.005 + 2 * 0.05e6 * get_price("Qwen3-4B-Instruct-2507", JAN).rate(meter) / 1e6


def test_exp1b_bill_from_the_seed_totals():
    # Seed page: actual 75.1M / 86.9M / 20.2M → "$16.53 / $19.12 / $1.42 = $37.06"; "Actual Tinker bill (console
    # diff) $37.01"; "Error: 0.1%".
    e = seed_experiment("exp1b")
    assert e.computed_usd == pytest.approx(16.522 + 19.118 + 1.414, abs=1e-9)   # 37.054
    assert abs(37.06 - e.computed_usd) <= e.rounding_usd
    low, high = e.error_range
    assert low <= 0.001 <= high and round(e.error, 3) == 0.001
    assert e.bill.meters.eval_sample == 6.7e6 and e.bill.meters.eval_prefill == 1.8e6


def test_seed_prediction_tables():
    # Seed page, exp 1a predicted: 34.0M / 34.0M / 6.0M tokens, $7.49 / $7.49 / $0.42 = $15.39
    a = seed_experiment("exp1a").table.set_index("meter")
    assert round(a.loc["sample", "predicted_tokens"] / 1e6, 1) == 34.0
    assert round(a.loc["train", "predicted_tokens"] / 1e6, 1) == 34.0
    assert round(a.loc["prefill", "predicted_tokens"] / 1e6, 1) == 6.0
    assert round(a.loc["sample", "predicted_usd"], 2) == 7.49 and round(a.loc["prefill", "predicted_usd"], 2) == 0.42
    assert a.loc["total", "predicted_usd"] == pytest.approx(15.39, abs=0.006)   # 15.395; the seed truncates
    assert a.loc["sample", "tokens_error"] > 0 > a.loc["prefill", "tokens_error"]  # over on length, under on prompts
    # exp 1b predicted: 92.4M sample and train at $20.33 each; prefill by the page's own B·G·P·S rule = 18.4M
    # (the printed 1.8M omits G; see test_seed_figures.test_exp1b_prediction_and_its_prefill_slip)
    b = seed_experiment("exp1b").table.set_index("meter")
    assert round(b.loc["sample", "predicted_tokens"] / 1e6, 1) == 92.4 and round(b.loc["sample", "predicted_usd"], 2) \
        == 20.33
    assert round(b.loc["prefill", "predicted_tokens"] / 1e6, 1) == 18.4
    both = seed_experiments_table().set_index("experiment")
    assert list(both.index) == ["exp1a", "exp1b"] and (both["error_low"] <= both["error"]).all()
    with pytest.raises(TinkerNomicsError, match="unknown seed experiment"):
        seed_experiment("exp9")


def test_bill_meters_directly():
    from tinker_nomics.runs.meters import MeterTokens
    m = MeterTokens.from_counts(19.3e6, 10.7e6, 5.4e6, 2.8e6)
    bill = bill_meters(m, "Qwen3-4B-Instruct-2507", JAN)
    assert (bill.meters.sample, bill.meters.train, bill.meters.prefill) == (24.7e6, 30.0e6, 13.5e6)
    assert bill.total_usd == pytest.approx(12.979, abs=1e-9)
