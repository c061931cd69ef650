"""A model Tinker does not offer: `estimate` still computes the self-hosted side (it needs only the architecture),
and Tinker's side is absent: its dollars NaN (null in JSON), `cheaper` null, one note saying why. Only a model with
neither a Tinker price nor an architecture is refused, in one line.

The models are picked by what the data says of them, and each test checks that first:
  Qwen/Qwen2.5-7B      an architecture (data/models/configs/Qwen--Qwen2.5-7B.json), no Tinker price in any list;
  meta-llama/Llama-3.1-8B   an architecture, priced in the January and H1 lists only (data/prices/tinker_prices.csv);
  Qwen/Qwen3.8-27B     sampling rates only in Tinker's lists, no architecture.
The self-hosted figures are pinned against the same scenario on a priced stand-in model (Qwen3-8B) given the same
architecture with --model-config: the self-hosted side must not depend on the Tinker side.
"""
from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from tinker_nomics import Scenario, TinkerNomicsError, estimate
from tinker_nomics.errors import UnknownNameError
from tinker_nomics.faces.cli import main
from tinker_nomics.model import finite
from tinker_nomics.sources import has_arch, newest_snapshot, snapshots
from tinker_nomics.sources.successors import billed_as, is_priced
from tinker_nomics.sources.tables import data_dir

UNPRICED = "Qwen/Qwen2.5-7B"
CONFIG = data_dir() / "models" / "configs" / "Qwen--Qwen2.5-7B.json"
STAND_IN = "Qwen/Qwen3-8B"           # priced in the newest list (the math_rl preset's model)
RETIRED = "meta-llama/Llama-3.1-8B"
NEITHER = "Qwen/Qwen3.8-27B"


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def estimate_json(*args):
    code, out, err = run("estimate", *args, "--format", "json")
    assert code == 0 and err == "", err
    return json.loads(out)


def leaves(tree, prefix=""):
    """Dotted key -> value of every leaf of a JSON object (lists kept whole)."""
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            out.update(leaves(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def test_the_models_are_what_the_tests_say():
    assert has_arch(UNPRICED) and not any(is_priced(UNPRICED, s) for s in snapshots())
    assert CONFIG.is_file() and billed_as(STAND_IN, newest_snapshot()) == (STAND_IN, None)
    assert has_arch(RETIRED) and not is_priced(RETIRED, newest_snapshot()) and billed_as(RETIRED, newest_snapshot()) \
        is None and [s for s in snapshots() if is_priced(RETIRED, s)] == ["2026-01-05", "2026-H1"]
    assert not has_arch(NEITHER) and all(billed_as(NEITHER, s) is None for s in snapshots())


# ------------------------------------------------------------------------------------------ the Python API


@pytest.mark.parametrize("method", ["calibrated", "exact", "seed"])
def test_self_hosted_side_equals_the_priced_stand_in_with_the_same_architecture(method):
    """Every self-hosted number, the token streams and the LoRA sizes are those of Qwen3-8B given Qwen2.5-7B's
    config.json; only Tinker's side differs (absent here, billed there)."""
    alone = estimate(Scenario.from_workload("math_rl", model=UNPRICED, method=method, prices=newest_snapshot()))
    stand_in = estimate(Scenario.from_workload("math_rl", model=STAND_IN, model_config=str(CONFIG), method=method,
                                               prices=newest_snapshot()))
    assert alone.tinker_not_offered and stand_in.tinker_not_offered is None
    ours, theirs = finite.numbers(alone), finite.numbers(stand_in)
    assert set(ours) == set(theirs)
    for name, value in ours.items():
        if name.startswith("tinker."):
            continue
        assert np.array_equal(np.asarray(value), np.asarray(theirs[name])), name
        assert np.all(np.isfinite(np.asarray(value, dtype=float))), name
    assert float(alone.self_hosted.total_usd) > 0 and float(stand_in.tinker.total_usd) > 0


def test_exactly_tinkers_dollars_are_nan():
    est = estimate(Scenario.from_workload("math_rl", model=UNPRICED))
    nan = {name for name, value in finite.numbers(est).items() if np.any(np.isnan(np.asarray(value, dtype=float)))}
    assert nan == set(finite.NOT_OFFERED_DOLLARS + finite.NOT_OFFERED_HOURS) == \
        {n for n in finite.numbers(est) if n.startswith("tinker.")}
    assert est.price is None and est.successor is None and str(est.cheaper) == "unknown"
    assert float(est.tokens.sample) > 0            # token streams do not depend on prices


def test_the_exemption_is_only_for_tinkers_dollars():
    """An input that would overflow is still refused, naming it, for a model Tinker does not offer (by its sanity
    ceiling now, before the arithmetic)."""
    with pytest.raises(TinkerNomicsError, match=r"^steps must be a finite number >= 1 and <= 1e\+07, got 1e\+306"):
        estimate(Scenario.from_workload("math_rl", model=UNPRICED, steps=1e306))


def test_an_array_of_scenarios_has_the_broadcast_shape_and_null_everywhere():
    steps = np.array([10.0, 100.0, 1000.0])
    est = estimate(Scenario.from_workload("math_rl", model=UNPRICED, steps=steps))
    assert np.shape(est.tinker.total_usd) == steps.shape and np.isnan(est.tinker.total_usd).all()
    assert est.cheaper.tolist() == ["unknown"] * 3
    d = est.to_dict()
    assert d["cheaper"] == [None] * 3 and d["tinker"]["total_usd"] == [None] * 3
    assert all(x > 0 for x in d["self_hosted"]["total_usd"])
    frame = est.to_frame()
    assert len(frame) == 3 and frame["tinker.total_usd"].isna().all() and (frame["self_hosted.total_usd"] > 0).all()


def test_the_reason_names_the_newest_list_that_bills_the_model():
    est = estimate(Scenario.from_workload("math_rl", model=RETIRED))
    assert est.tinker_not_offered == (f"the {newest_snapshot()} price list does not price {RETIRED}; the newest list "
                                      f"that bills it is 2026-H1")
    assert est.notes.count(f"Tinker's side is not computed: {est.tinker_not_offered}") == 1
    at_h1 = estimate(Scenario.from_workload("math_rl", model=RETIRED, prices="2026-H1"))
    assert at_h1.tinker_not_offered is None and float(at_h1.tinker.total_usd) > 0
    assert float(at_h1.self_hosted.total_usd) == float(est.self_hosted.total_usd)   # not a function of the list
    never = estimate(Scenario.from_workload("math_rl", model=UNPRICED)).tinker_not_offered
    assert never == f"the {newest_snapshot()} price list does not price {UNPRICED}; no Tinker list bills it"


def test_a_list_with_sampling_rates_only_says_so():
    """Qwen3.5-27B: its 2026-H1 row gives sampling rates only (status sampling_only in data/prices)."""
    from tinker_nomics.sources.prices import get_price
    assert not get_price("Qwen3.5-27B", "2026-H1").complete
    est = estimate(Scenario.from_workload("math_rl", model="Qwen3.5-27B", prices="2026-H1"))
    assert "2026-H1 price list gives only sampling rates for Qwen/Qwen3.5-27B (no train price)" in \
        est.tinker_not_offered


def test_a_retired_model_whose_successor_is_not_priced_either():
    """A retired model is billed on its named successor (data/models/successors.csv) from the lists that price the
    successor; in an older list that prices neither (Qwen3-30B-A3B-Instruct-2507 in January), the reason says so."""
    from tinker_nomics.sources.successors import successors
    retired, snap = next((r, s) for r in successors() for s in snapshots() if billed_as(r, s) is None)
    est = estimate(Scenario.from_workload("math_rl", model=retired, prices=snap))
    assert f"prices neither {retired} nor its named successor {successors()[retired].successor}" in \
        est.tinker_not_offered
    assert float(est.self_hosted.total_usd) > 0


def test_neither_side_is_one_error_line():
    with pytest.raises(TinkerNomicsError, match=f"^neither side can be computed for {NEITHER}: .*no published "
                                                f"architecture .*--model-config"):
        estimate(Scenario.from_workload("math_rl", model=NEITHER))
    code, out, err = run("estimate", "--workload", "math_rl", "--model", NEITHER)
    assert code == 2 and out == "" and err.count("\n") == 1 and f"neither side can be computed for {NEITHER}" in err


def test_bad_names_and_snapshots_stay_errors():
    with pytest.raises(UnknownNameError, match="unknown model 'Qwen2.5-7X'"):
        estimate(Scenario.from_workload("math_rl", model="Qwen2.5-7X"))
    with pytest.raises(UnknownNameError, match="unknown price snapshot '2026-02-30'"):
        estimate(Scenario.from_workload("math_rl", model=UNPRICED, prices="2026-02-30"))


def test_a_name_no_registry_knows_is_taken_with_its_config():
    """--model-config gives the architecture, so the name need not be in the registries: Tinker does not offer it,
    and the self-hosted side is the config's."""
    named = estimate(Scenario.from_workload("math_rl", model="someone/my-7b", model_config=str(CONFIG)))
    registry = estimate(Scenario.from_workload("math_rl", model=UNPRICED))
    assert named.scenario.model == "someone/my-7b" and "does not price someone/my-7b" in named.tinker_not_offered
    assert float(named.self_hosted.total_usd) == float(registry.self_hosted.total_usd)


def test_a_config_naming_a_model_no_registry_knows(tmp_path):
    """Without --model, the config's `_name_or_path` is the model Tinker's lists are searched for."""
    config = json.loads(CONFIG.read_text())
    config["_name_or_path"] = "someone/unpriced-model"
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    data = estimate_json("--prompts-per-step", "8", "--group-size", "8", "--steps", "10", "--completion-tokens", "100",
                         "--prompt-tokens", "10", "--model-config", str(path))
    assert data["scenario"]["model"] == "someone/unpriced-model" and data["tinker"]["total_usd"] is None
    assert "does not price someone/unpriced-model" in data["tinker"]["not_offered"]
    assert data["self_hosted"]["total_usd"] > 0


# ------------------------------------------------------------------------------------------ the command line


def test_json_keys_stay_and_nulls_are_exactly_tinkers_dollars_and_cheaper():
    priced = estimate_json("--workload", "math_rl", "--model", STAND_IN, "--model-config", str(CONFIG))
    alone = estimate_json("--workload", "math_rl", "--model", UNPRICED)
    ours, theirs = leaves(alone), leaves(priced)
    rates_source = {k for k in set(ours) | set(theirs) if k.startswith("tinker.rates_source")}
    assert set(ours) - rates_source == set(theirs) - rates_source   # no key disappears (values may be null)
    newly_null = {k for k, v in ours.items() if v is None} - {k for k, v in theirs.items() if v is None} \
        - {"scenario.model_config"}          # the stand-in's config path
    assert newly_null == {"tinker.sample_usd", "tinker.train_usd", "tinker.prefill_usd", "tinker.sandbox_usd",
                          "tinker.storage_usd", "tinker.total_usd", "tinker.billed_model", "cheaper",
                          "tinker.wallclock_hours", "tinker.step_seconds",
                          *(f"tinker.rates_usd_per_million.{m}" for m in ("prefill", "sample", "train",
                                                                        "cached_prefill")),
                          # the spread of Tinker's side and the verdict (estimate's `uncertainty`)
                          *(f"uncertainty.tinker_{q}_p{p}" for q in ("usd", "hours") for p in (10, 50, 90)),
                          "uncertainty.p_tinker_cheaper", "uncertainty.verdict"}
    assert ours["tinker.rates_source"] == {} and theirs["tinker.not_offered"] is None
    assert alone["self_hosted"] == priced["self_hosted"] and alone["tokens"] == priced["tokens"]
    assert [n for n in alone["notes"] if "Tinker" in n] == [f"Tinker's side is not computed: {ours['tinker.not_offered']}"]


def test_text_says_not_offered_and_keeps_the_self_hosted_lines():
    code, out, err = run("estimate", "--workload", "math_rl", "--model", UNPRICED)
    assert code == 0 and err == ""
    reason = estimate(Scenario.from_workload("math_rl", model=UNPRICED)).tinker_not_offered
    lines = out.splitlines()
    assert f"Tinker        not offered: {reason}" in lines
    assert "Cheaper       unknown (Tinker does not offer this model)" in lines
    assert not any(line.startswith("Note:") and "Tinker" in line for line in lines)   # the Tinker line says it once
    assert "$" not in next(line for line in lines if line.startswith("Tinker "))
    _, stand_in, _ = run("estimate", "--workload", "math_rl", "--model", STAND_IN, "--model-config", str(CONFIG))

    def hosted(text):
        rows = text.splitlines()
        start = next(i for i, line in enumerate(rows) if line.startswith("Self-hosted"))
        end = next(i for i, line in enumerate(rows) if line.startswith("Spread"))   # its Tinker part differs
        return rows[start:end]
    assert hosted(out) == hosted(stand_in) and len(hosted(out)) == 4
    services = out[out.index("Other services"):].splitlines()
    assert len(services) >= 2 and "$" in services[1]


def test_text_of_a_gpu_without_a_rate_and_a_model_tinker_does_not_offer():
    """Both sides' dollars unknown: times still shown, no dollar figure on either side, no side claimed."""
    code, out, err = run("estimate", "--workload", "math_rl", "--model", UNPRICED, "--gpu", "H20")
    assert code == 0 and err == ""
    assert "Tinker        not offered:" in out and "Self-hosted   dollars unknown" in out
    assert "Cheaper       unknown (Tinker does not offer this model)" in out
    data = estimate_json("--workload", "math_rl", "--model", UNPRICED, "--gpu", "H20")
    assert data["cheaper"] is None and data["self_hosted"]["total_usd"] is None and data["self_hosted"]["gpu_hours"] > 0


# ------------------------------------------------------------------------------------------ the callers


def test_the_calculator_shows_not_offered():
    from tinker_nomics.faces.widgets import Calculator
    calc = Calculator("math_rl", model=UNPRICED)
    assert calc.model.value == UNPRICED and "not offered" in calc.summary.value
    assert "nan" not in calc.summary.value.lower() and "color:#b00" not in calc.summary.value
    assert "unknown (Tinker does not offer this model)" in calc.summary.value
    assert float(estimate(calc.scenario()).self_hosted.total_usd) > 0


def test_the_calculator_keeps_its_model_on_a_list_that_does_not_bill_it():
    """Llama-3.1-8B is billed on the H1 list and on no later one: moving the panel's price list keeps the model (its
    self-hosted side does not depend on the list), says so, and shows Tinker's side as not offered."""
    from tinker_nomics.faces.widgets import Calculator
    calc = Calculator("math_rl", model=RETIRED, prices="2026-H1")
    hosted = float(estimate(calc.scenario()).self_hosted.total_usd)
    assert "not offered" not in calc.summary.value and RETIRED in [value for _, value in calc.model.options]
    calc.prices.value = newest_snapshot()
    assert calc.model.value == RETIRED and "not offered" in calc.summary.value
    assert f"bills neither {RETIRED} nor a successor of it" in calc.summary.value
    assert float(estimate(calc.scenario()).self_hosted.total_usd) == hosted
    calc.prices.value = "2026-H1"
    assert calc.model.value == RETIRED and "not offered" not in calc.summary.value


def test_the_cost_figure_draws_a_model_tinker_does_not_offer():
    import matplotlib
    matplotlib.use("Agg")
    from tinker_nomics.faces import plots
    fig = plots.cost_breakdown(estimate(Scenario.from_workload("math_rl", model=UNPRICED)))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("not offered" in t for t in texts) and not any("nan" in t.lower() for t in texts)


def test_the_monte_carlo_keeps_the_self_hosted_spread_and_compares_nothing():
    from tinker_nomics.analysis import uncertainty
    alone = uncertainty.simulate("math_rl", n=200, model=UNPRICED)
    stand_in = uncertainty.simulate("math_rl", n=200, model=STAND_IN, model_config=str(CONFIG))
    assert alone.tinker_not_offered and stand_in.tinker_not_offered is None
    assert np.array_equal(alone.self_hosted_usd, stand_in.self_hosted_usd)
    assert np.isnan(alone.quantiles()["tinker"]).all()
    with pytest.raises(TinkerNomicsError, match="Tinker does not offer this run"):
        alone.p_tinker_cheaper
    row = uncertainty.summary(["math_rl"], n=200, model=UNPRICED).iloc[0]
    assert row["tinker_not_offered"] == alone.tinker_not_offered and row["self_hosted_p50"] > 0


def test_the_takeaway_row_and_the_break_even_say_why():
    from tinker_nomics.analysis import breakeven, compare
    (row,) = compare.headline_table(["math_rl"], model=UNPRICED)
    assert not row.priced and row.note == estimate(Scenario.from_workload("math_rl", model=UNPRICED)).tinker_not_offered
    with pytest.raises(TinkerNomicsError, match="^a break-even GPU price needs Tinker's bill"):
        breakeven.breakeven_gpu_price("math_rl", model=UNPRICED)
    rows = {r.quantity: r for r in compare.method_comparison(Scenario.from_workload("math_rl", model=UNPRICED))}
    assert "Tinker bill" not in rows and rows["self-hosted cost"].exact > 0


@pytest.mark.parametrize("release, base", [("Qwen/Qwen3-8B-Instruct", STAND_IN), ("Qwen/Qwen3-8B-AWQ", STAND_IN),
                                           ("meta-llama/Llama-3.1-8B-Instruct", RETIRED)])
def test_a_release_of_a_listed_model_gets_the_self_hosted_side_and_a_pointer_to_what_tinker_bills(release, base):
    """A fine-tune or quantized release (sources.architectures.release_of) is not on Tinker's lists: estimate
    computes the self-hosted side with its base model's architecture (the same dollars as the base, since RL here
    trains and samples in bf16) and says which model Tinker bills instead, where the list bills it."""
    snapshot = newest_snapshot()
    assert not is_priced(release, snapshot) and has_arch(release)
    mine = estimate(Scenario.from_workload("math_rl").replace(model=release))
    theirs = estimate(Scenario.from_workload("math_rl").replace(model=base))
    assert mine.tinker_not_offered and np.isnan(mine.tinker.total_usd)
    assert mine.self_hosted.total_usd == pytest.approx(theirs.self_hosted.total_usd, rel=1e-12)
    note = next(n for n in mine.notes if "not computed" in n)
    assert f"read with the architecture of {base}" in note
    assert (f"--model {base} prices that" in note) == (billed_as(base, snapshot) is not None)
    code, out, err = run("estimate", "--workload", "math_rl", "--model", release, "--format", "json")
    assert code == 0 and not err and json.loads(out)["tinker"]["total_usd"] is None
