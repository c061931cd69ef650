"""Prices over time (tinker_nomics.analysis.timeline): the takeaway verdicts under every dated price list, the
successor table, and the drivers of each flip, pinned against their sources."""

import math

import pytest

from tinker_nomics.sources.successors import is_priced, model_for, successors
from tinker_nomics import Scenario, estimate
from tinker_nomics.analysis import timeline
from tinker_nomics.sources import get_price, newest_snapshot
from tinker_nomics.sources import get_arch, models, resolve_model

WORKLOADS = timeline.TAKEAWAY_WORKLOADS
JANUARY = "2026-01-05"
# The seed's takeaway table (seeds/002): who wins each workload at January prices.
SEED_WINNERS = {"math_rl": "self_hosted", "code_rl": "tinker", "harbor_rl": "tinker", "swe_rl": "self_hosted",
                "osworld_rl": "self_hosted"}


@pytest.fixture(scope="module")
def table():
    return timeline.verdicts()


@pytest.fixture(scope="module")
def seed_table():
    """The same lists under the seed method: the original site's arithmetic, whose January figures are pinned."""
    return timeline.verdicts(method="seed")


def row(table, workload, snapshot):
    found = table[(table.workload == workload) & (table.snapshot == snapshot)]
    assert len(found) == 1
    return found.iloc[0]


# ----------------------------------------------------------------------------- successors.csv


def test_successors_schema_and_sources():
    table = successors()
    # the three retired takeaway models, and the two Qwen3-30B-A3B variants of the bundled OmniMath runs
    assert set(table) == {"Qwen/Qwen3-4B-Instruct-2507", "moonshotai/Kimi-K2-Thinking", "Qwen/Qwen3-32B",
                          "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B-Instruct-2507"}
    for s in table.values():
        assert s.source_url.startswith("https://github.com/thinking-machines-lab/tinker-cookbook/")
        assert s.reason and s.retired_evidence
        # retired: the registry marks it legacy, and no price list from the repricing on prices it
        assert "retired" in models()[s.retired].tinker_status
        assert not is_priced(s.retired, newest_snapshot())
        # successor: in Tinker's current lineup and priced in full today
        assert models()[s.successor].tinker_status == "current"
        assert is_priced(s.successor, newest_snapshot())


ARCH_FIELDS = ("hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim", "intermediate_size",
               "vocab_size", "num_experts", "experts_per_token", "moe_intermediate_size", "n_shared_experts",
               "first_k_dense", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
               "v_head_dim", "full_attention_layers", "linear_or_mamba_layers", "total_params")


@pytest.mark.parametrize("retired", sorted(successors()))
def test_same_architecture_flag_matches_the_registry(retired):
    s = successors()[retired]
    a, b = get_arch(s.retired), get_arch(s.successor)
    same = all(getattr(a, f) == getattr(b, f) for f in ARCH_FIELDS)
    assert same == s.same_architecture


def test_model_for_swaps_only_retired_models():
    assert model_for("Qwen3-8B", newest_snapshot()) == ("Qwen/Qwen3-8B", None)
    assert model_for("Qwen3-32B", JANUARY)[0] == "Qwen/Qwen3-32B"
    model, successor = model_for("Kimi-K2-Thinking", newest_snapshot())
    assert model == "moonshotai/Kimi-K2.6" and successor.same_architecture


# ----------------------------------------------------------------------------- snapshots


def test_dated_snapshots():
    dated = timeline.dated_snapshots()
    assert {"2026-01-05", "2026-07-17", "2026-10-07"} <= set(dated)
    assert dated[0] == JANUARY and dated[-1] == newest_snapshot()
    assert "2026-H1" not in dated and timeline.undated_snapshots() == ["2026-H1"]


def test_the_undated_list_repeats_january_for_the_preset_models():
    """Why leaving 2026-H1 out loses nothing: for the five preset models it lists January's prices."""
    for name in WORKLOADS:
        model = resolve_model(Scenario.from_workload(name).model)
        h1, jan = get_price(model, "2026-H1"), get_price(model, JANUARY)
        assert (h1.prefill, h1.sample) == (jan.prefill, jan.sample)


# ----------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize("workload", WORKLOADS)
def test_january_row_is_the_seed_takeaway_preset(seed_table, workload):
    r = row(seed_table, workload, JANUARY)
    est = estimate(Scenario.from_workload(workload, method="seed"))
    assert not r.successor and not r.cached_billing
    assert r.tinker_usd == pytest.approx(float(est.tinker.total_usd), rel=1e-12)
    assert r.self_hosted_usd == pytest.approx(float(est.self_hosted.total_usd), rel=1e-12)
    assert r.cheaper == str(est.cheaper) == SEED_WINNERS[workload]


def test_math_rl_january_reproduces_the_readme(seed_table):
    r = row(seed_table, "math_rl", JANUARY)
    assert round(r.tinker_usd, 2) == 99.20 and round(r.self_hosted_usd, 2) == 28.49


@pytest.mark.parametrize("snapshot", [JANUARY, "latest"])
def test_every_row_is_the_takeaways_answer_at_that_list(table, snapshot):
    """Issue 20: prices over time restates the takeaway's answer (compare.headline_table, the default method) at
    each list, so no two pages give a workload two bills at the same list; the self-hosted side is the workload's
    own model at every list."""
    from tinker_nomics.analysis import compare
    from tinker_nomics.sources import resolve_snapshot
    snap = resolve_snapshot(snapshot)
    for h in compare.headline_table(WORKLOADS, prices=snap):
        r = row(table, h.workload, snap)
        assert r.tinker_usd == pytest.approx(h.tinker_usd, rel=1e-12)
        assert r.self_hosted_usd == pytest.approx(h.self_hosted_usd, rel=1e-12)
        assert r.cheaper == h.cheaper and r.model == h.billed_model
    hosted = {w: {round(row(table, w, s).self_hosted_usd, 6) for s in timeline.dated_snapshots()} for w in WORKLOADS}
    assert all(len(v) == 1 for v in hosted.values()), hosted


def test_newest_list_bills_successors_and_cached_prefill(table):
    last = newest_snapshot()
    for name, model in (("code_rl", "Qwen/Qwen3.5-4B"), ("harbor_rl", "moonshotai/Kimi-K2.6"),
                        ("swe_rl", "Qwen/Qwen3.6-27B"), ("math_rl", "Qwen/Qwen3-8B"), ("osworld_rl", "Qwen/Qwen3-8B")):
        r = row(table, name, last)
        assert r.model == model and r.successor == (model != resolve_model(Scenario.from_workload(name).model))
        assert r.cached_billing
        assert r.cache_hit_rate == float(Scenario.from_workload(name).resolved().cache_hit_rate)


def test_cached_prefill_saves_80_percent_of_the_hit_share(table):
    """Cached prompt tokens bill at 20% of prefill (reference/prices-sources.md): the saving is
    prefill × hit share × 0.8, for the preset's hit share."""
    r = row(table, "osworld_rl", newest_snapshot())
    assert r.cached_prefill_rate == pytest.approx(0.2 * r.prefill_rate)
    saving = r.tinker_uncached_usd - r.tinker_usd
    assert saving == pytest.approx(r.prefill_uncached_usd * r.cache_hit_rate * 0.8, rel=1e-9)
    assert r.cache_hit_rate == 0.92


def test_which_verdicts_flip(table):
    """The flips are the intro's (analysis.bottom_line, from compare.headline_table at both lists): one answer."""
    from tinker_nomics.analysis.bottom_line import bottom_line
    flips = timeline.flips(table)
    line = bottom_line()
    assert set(flips.index[flips.flipped]) == set(line.flipped)
    for name in WORKLOADS:
        r = row(table, name, newest_snapshot())
        assert flips.loc[name, "after"] == r.cheaper and flips.loc[name, "ratio_after"] == pytest.approx(r.ratio)


def test_snapshots_after_the_repricing_agree(table):
    later = [s for s in timeline.dated_snapshots() if s != JANUARY]
    for name in WORKLOADS:
        values = {round(row(table, name, s).tinker_usd, 6) for s in later}
        assert len(values) == 1, name


# ----------------------------------------------------------------------------- drivers


def test_typical_repricing_is_the_documented_one():
    """reference/prices-sources.md: prefill and sample ×1.5, train ×1.1; gpt-oss-120b is the outlier."""
    assert timeline.typical_repricing(JANUARY, newest_snapshot()) == {"prefill": 1.5, "sample": 1.5, "train": 1.1}
    table = timeline.repricing_factors(JANUARY, newest_snapshot()).set_index("model")
    assert table.loc["openai/gpt-oss-120b", "sample"] == pytest.approx(0.84 / 0.44)
    assert table.loc["Qwen/Qwen3-8B", "train"] == pytest.approx(1.1)


@pytest.mark.parametrize("workload", ["math_rl", "osworld_rl"])
def test_same_model_change_is_exactly_the_repricing(workload):
    d = timeline.drivers(workload)
    assert not d.successor
    assert d.steps[1][1] == pytest.approx(d.steps[2][1], rel=1e-9)   # counterfactual = the real new list
    assert all(v == pytest.approx(1.0) for v in d.model_change.values())


def test_code_rl_model_change_matches_the_pre_repricing_list():
    """The model factor the drivers infer (rate change ÷ repricing) equals what the undated pre-July list,
    which priced both models, shows directly: Qwen3.5-4B at 0.22/0.67 against Qwen3-4B-Instruct-2507's
    0.07/0.22."""
    d = timeline.drivers("code_rl")
    old, new = get_price("Qwen3-4B-Instruct-2507", JANUARY), get_price("Qwen3.5-4B", "2026-H1")
    assert d.model_change["prefill"] == pytest.approx(new.prefill / old.prefill, rel=1e-9)
    assert d.model_change["sample"] == pytest.approx(new.sample / old.sample, rel=1e-9)


def test_drivers_last_step_is_the_cache_discount(table):
    """Step 4 differs from step 3 only by the cached rate: by the hit share's prefill × 0.8 (reference/
    prices-sources.md: cached prompt tokens bill at 20% of prefill), and not at all without cache hits."""
    last = newest_snapshot()
    for name in WORKLOADS:
        d = timeline.drivers(name)
        r = row(table, name, last)
        assert d.prefill_share_last == pytest.approx(r.prefill_uncached_usd / r.tinker_uncached_usd)
        assert d.cached_saving_usd == pytest.approx(r.prefill_uncached_usd * r.cache_hit_rate * 0.8, rel=1e-6)
        assert d.steps[2][2] == d.steps[3][2]                      # the self-hosted side does not move


def test_a_cache_hit_share_override_lowers_only_tinkers_bill():
    """The chapter's harbor_rl what-if (its turns hitting the cache like swe_rl's): the override reaches Tinker's
    bill, as a direct estimate at that share gives it."""
    last = newest_snapshot()
    plain = row(timeline.verdicts(["harbor_rl"], [last]), "harbor_rl", last)
    hit = timeline.verdicts(["harbor_rl"], [last], cache_hit_rate=0.92).iloc[0]
    direct = estimate(Scenario.from_workload("harbor_rl", prices=last, cache_hit_rate=0.92,
                                             tinker_cached_prefill=True))
    assert hit.tinker_usd == pytest.approx(float(direct.tinker.total_usd)) and hit.tinker_usd < plain.tinker_usd


def test_drivers_steps_end_at_the_table(table):
    last = newest_snapshot()
    for name in WORKLOADS:
        d = timeline.drivers(name)
        r0, r1 = row(table, name, JANUARY), row(table, name, last)
        assert d.steps[0][1] == pytest.approx(r0.tinker_usd) and d.steps[-1][1] == pytest.approx(r1.tinker_usd)
        assert d.steps[-1][2] == pytest.approx(r1.self_hosted_usd)
        assert math.isclose(d.prefill_share_first, r0.prefill_usd / r0.tinker_usd)


# ----------------------------------------------------------------------------- the chapter's small figures


def test_advantage_is_the_dearer_over_the_cheaper():
    assert timeline.advantage(2.5) == pytest.approx(2.5) and timeline.advantage(0.4) == pytest.approx(2.5)
    assert timeline.advantage(1.0) == 1.0
    assert list(timeline.advantage([0.5, 4.0])) == [2.0, 4.0]


def test_factor_column_matches_compare_cheaper_factor(table):
    """The verdict table's factor is compare.cheaper_factor's (the takeaway table's "3.5×" for math_rl)."""
    from tinker_nomics.analysis import compare
    for name in WORKLOADS:
        r = row(table, name, JANUARY)
        _, factor = compare.cheaper_factor(estimate(Scenario.from_workload(name, prices=JANUARY)))
        assert r.factor == pytest.approx(float(factor))
        assert r.factor == pytest.approx(max(r.tinker_usd, r.self_hosted_usd) / min(r.tinker_usd, r.self_hosted_usd))


def test_drivers_factor_and_cached_saving():
    d = timeline.drivers("osworld_rl")
    _, t, h = d.steps[1]
    assert d.factor(1) == pytest.approx(max(t, h) / min(t, h))
    assert d.cached_saving_usd == pytest.approx(d.steps[2][1] - d.steps[3][1])
    # With cached prefill the hit share of prompt tokens pays 20% of the rate: the saving is 80% of the hits'
    # prefill at the new list's rate (the prefill part of step 3, times the hit share, times 0.8).
    r = row(timeline.verdicts(["osworld_rl"], [newest_snapshot()]), "osworld_rl", newest_snapshot())
    assert d.cached_saving_usd == pytest.approx(r.prefill_uncached_usd * r.cache_hit_rate * 0.8, rel=1e-6)
    table = timeline.drivers_table(["osworld_rl"])
    assert list(table["factor"]) == pytest.approx([d.factor(i) for i in range(4)])


def test_repricing_outliers_is_gpt_oss_120b():
    """reference/prices-sources.md: every model priced in both lists moved ×1.5/×1.5/×1.1 except gpt-oss-120b."""
    outliers = timeline.repricing_outliers(JANUARY, newest_snapshot())
    assert list(outliers["model"]) == ["openai/gpt-oss-120b"]
    assert outliers["sample"].max() == pytest.approx(0.84 / 0.44)


def test_same_totals(table):
    later = [s for s in timeline.dated_snapshots() if s != JANUARY]
    assert timeline.same_totals(table, later)
    assert not timeline.same_totals(table, [JANUARY] + later)
    assert timeline.same_totals(table, [JANUARY])


def test_workload_successors_are_the_takeaway_models_only():
    """successors.csv also names Qwen3-30B-A3B's successor for the bundled runs; the takeaway workloads retire
    three models: code_rl's, harbor_rl's and swe_rl's (the prices-over-time chapter's "new lineup")."""
    found = timeline.workload_successors(WORKLOADS, newest_snapshot())
    assert list(found) == ["Qwen/Qwen3-4B-Instruct-2507", "moonshotai/Kimi-K2-Thinking", "Qwen/Qwen3-32B"]
    assert {s.successor for s in found.values()} == {"Qwen/Qwen3.5-4B", "moonshotai/Kimi-K2.6", "Qwen/Qwen3.6-27B"}
    assert len(successors()) > len(found)
    assert timeline.workload_successors(WORKLOADS, JANUARY) == {}
    assert timeline.workload_successors(["math_rl", "osworld_rl"]) == {}


@pytest.mark.parametrize("workload", sorted(WORKLOADS))
def test_tinker_bill_does_not_depend_on_the_gpu_model(workload):
    """The exact and calibrated methods differ in how they model the GPUs, not in Tinker's meter: at one price list
    both bill the same tokens at the same rates, cached prompt tokens at the list's cached rate where it has one
    (the cost_model chapter showed swe_rl's bill at $147,767 exact and $55,948 calibrated for one list). The seed
    method keeps the seed's own token counts (training on completions only, no aborted prefill), so its bill differs
    by those terms alone."""
    last = newest_snapshot()
    totals = {m: float(estimate(Scenario.from_workload(workload, method=m, prices=last)).tinker.total_usd)
              for m in ("exact", "calibrated")}
    assert totals["exact"] == pytest.approx(totals["calibrated"], rel=1e-12), totals
