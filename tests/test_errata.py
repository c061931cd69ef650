"""The errata page's numbers (tinker_nomics.analysis.errata): each seed figure, its recomputation and the consistent value."""
import pytest

from tinker_nomics.analysis import errata
from tinker_nomics.sources import number

E = {e.key: e for e in errata.all_errata()}


def test_every_erratum_is_on_a_seed_page_and_formats():
    assert {e.page for e in E.values()} <= set(errata.PAGES)
    for e in E.values():
        texts = e.texts()
        assert all(isinstance(v, str) and v for v in texts.values()), e.key
        assert e.why and e.figure


def test_keys_are_unique_and_glue_names_do_not_collide():
    names = [name for e in errata.all_errata() for name in e.texts()]
    assert len(names) == len(set(names))
    assert len(E) == len(errata.all_errata())


def test_printed_figures_table_loads_with_quotes():
    table = errata.printed_figures()
    assert all(p.source.startswith("seed ") and p.page in errata.PAGES for p in table.values())
    with pytest.raises(Exception):
        errata.printed("no such figure")


def test_kv_unit_slip():
    e = E["kv_unit"]
    assert round(e.consistent / 1e9, 1) == 83.9          # 16 KB per billion: the FLOP page's figure
    assert e.seed == pytest.approx(e.consistent / 1000)   # the printed "0.016 KB": a thousandfold slip


def test_lora_qwen3_8b_three_numbers():
    e = E["lora_8b"]
    assert round(e.printed / 1e6) == 186 and round(e.seed / 1e6) == 175 and round(e.consistent / 1e6) == 185


def test_moe_checkpoints_use_the_cookbook_counts():
    rows = {r.model: r for r in errata.moe_checkpoints()}
    assert round(rows["Qwen3-30B-A3B"].seed_rule_bytes / 1e6) == 116     # the seed's rule reproduces this row
    for r in rows.values():
        assert r.exact_bytes > 5 * r.seed_rule_bytes
        if r.cookbook_bytes is not None:
            assert r.exact_bytes == pytest.approx(r.cookbook_bytes)
    assert rows["Kimi-K2-Thinking"].cookbook_bytes is not None          # measured for Kimi-K2.6, same shapes


def test_flop_page_throughputs():
    assert round(E["decode_838"].seed) == 838
    assert E["decode_838"].consistent == pytest.approx(838 * 0.7 / 0.5, rel=1e-3)
    assert E["train_86625"].seed == pytest.approx(86_625)
    assert E["train_86625"].consistent == pytest.approx(86_625 * 4 / 6)


def test_per_step_train_time_at_6n():
    e = E["step_train"]
    assert round(e.seed, 1) == 48.4
    assert e.consistent == pytest.approx(e.seed * 1.5)
    assert round(100 * e.details["seed_share"][0]) == 75 > round(100 * e.details["full_share"][0])
    assert e.details["implied_mfu"][0] == pytest.approx(0.525)


def test_growth_and_per_gpu_and_b_crit():
    assert E["growth"].seed == 0.20 and E["growth"].consistent == pytest.approx(0.25)
    assert E["per_gpu"].seed == 1024 and E["per_gpu"].consistent == 128
    assert E["per_gpu"].consistent < E["per_gpu"].details["b_crit"][0]
    assert round(E["b_crit"].seed) == 296 and int(E["b_crit"].seed) == 295 and round(E["b_crit"].consistent) == 295


def test_mla():
    e = E["mla"]
    assert e.seed == 0.933 and e.consistent > e.seed
    assert e.details["implied_gain"][0] == pytest.approx(1 / (1 - 0.933))
    assert e.details["quoted_gain"][0] < e.details["implied_gain"][0]


def test_empirical_page():
    assert E["exp1a_total"].seed_text == "$15.39" and E["exp1a_total"].details["rows_sum"][0] == pytest.approx(15.40)
    e = E["exp1b_prefill"]
    assert round(e.consistent / 1e6, 1) == 18.4 and e.seed == 1.8e6
    assert round(e.details["implied_prompt"][0]) == 150
    assert e.details["growth"][0] == pytest.approx(1.4, abs=0.01)
    assert round(e.details["seed_total"][0], 2) == 40.78
    assert round(E["exp1a_tokens"].consistent / 1e6, 1) == 68.2
    assert E["exp1a_cache"].consistent == 128 * 178
    c = E["exp1b_cache"]
    assert round(c.consistent / 1e6, 1) == 2.3 and round(c.details["table_saving"][0], 2) == 1.01
    assert c.details["saving"][0] > c.details["table_saving"][0]


def test_verl_prediction_is_computed_not_quoted():
    e = E["verl"]
    assert e.seed == pytest.approx(28 / 60)
    assert 0 < e.consistent < e.seed


def test_verl_prediction_states_both_rates():
    """Errata prices the preset at the registry's default B200 rate; the empirical chapter at the rate the seed's
    recorded $77 for 116 min on 8 GPUs implies (77 / (8 × 116/60) ≈ $4.98). Both figures are on the errata page,
    and the second is the empirical chapter's 'model, default MFU' dollars."""
    from tinker_nomics.analysis import experiments
    from tinker_nomics.sources import default_gpu_price
    d = E["verl"].details
    assert d["hourly"][0] == default_gpu_price("B200").usd_per_gpu_hour
    assert d["hourly_provider"][0] == default_gpu_price("B200").provider
    assert d["seed_rate"][0] == pytest.approx(77 / (8 * 116 / 60))
    row = experiments.verl_comparison("exp1a").row("model, default MFU")
    assert d["usd_at_seed_rate"][0] == pytest.approx(row["usd"])
    # the GPU bill is hours × rate: the two dollar figures differ by the ratio of the rates
    assert d["usd_at_seed_rate"][0] / d["usd"][0] == pytest.approx(d["seed_rate"][0] / d["hourly"][0])


def test_caching_cases_order():
    none, group, free92, group_real, real92 = errata.swe_rl_caching()
    totals = [c.total_usd for c in (none, group, free92, group_real, real92)]
    assert totals[0] == max(totals) and none.label == errata.NO_CACHE
    assert "92%" in free92.label and free92.hit_rate == 0.92 and group.hit_rate == 7 / 8
    assert free92.total_usd < real92.total_usd < totals[0]
    assert free92.total_usd == pytest.approx(6885, rel=0.10)             # the seed's takeaway figure
    assert errata.cached_prefill_share() == pytest.approx(0.2)
    assert group.prefill_usd == pytest.approx(none.prefill_usd / 8)
    assert group_real.total_usd > real92.total_usd


def test_kimi_needs_90_h100():
    e = E["kimi"]
    assert e.seed == 8 and e.consistent == 90 and e.details["exact"][0] >= 90


def test_compact_tables_cover_every_page():
    for page in errata.PAGES:
        rows = errata.errata_rows(page)
        assert rows and all(set(r) == {"figure", "seed", "consistent", "why"} for r in rows)


def test_departures():
    d = {x.key: x for x in errata.departures()}
    assert set(d) == {"kv_length", "replicas", "sandbox", "train_tokens"}
    assert d["kv_length"].details["conversation"][0] > d["kv_length"].details["output"][0]
    assert d["replicas"].details["replica"][0] > 1
    assert d["sandbox"].details["harbor_wait"][0] <= d["sandbox"].details["harbor_rollout"][0]
    assert all(d[k].texts() for k in d)


def test_implied_growth_inverts_the_average_multiplier():
    from tinker_nomics.model import tokens
    assert errata.implied_growth(tokens.growth_multiplier(1.7)) == pytest.approx(1.7)
    assert errata.sequences_gain(0.5) == 2 and number("length_growth") == 1.5


def test_a_figure_that_is_not_an_error_gets_no_errata_row():
    """Issue 20: an errata row whose entry was "Nothing to fix" (exp 1a's total, the unrounded sum rounded once)."""
    from tinker_nomics.analysis import errata as errata_module
    rows = [r for page in ("cost model", "FLOP accounting", "empirical validation", "takeaway")
            for r in errata_module.errata_rows(page)]
    assert rows and not any("nothing to fix" in r["why"].lower() for r in rows)
    keys = {e.key for e in errata_module.all_errata() if not e.error}
    assert "exp1a_total" in keys
    assert not any(r["figure"] == "exp 1a predicted bill" for r in rows)
