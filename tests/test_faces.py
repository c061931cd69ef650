"""The book's faces: the comparison helpers the chapters call, the figures, and the Calculator widget."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tinker_nomics import Scenario, estimate  # noqa: E402
from tinker_nomics.analysis import compare
from tinker_nomics.faces import plots
from tinker_nomics.model import tokens
from tinker_nomics.sources.literature import claim, olmo3_gpu_hours  # noqa: E402
from tinker_nomics.sources import get_gpu  # noqa: E402
from tinker_nomics.faces.widgets import Calculator, summary_html  # noqa: E402
from tinker_nomics.sources.workloads import workloads  # noqa: E402

PRESETS = ["math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl"]
H100 = get_gpu("H100 SXM")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ----------------------------------------------------------------------------------------- compare.py

def test_cheaper_factor_is_dearer_over_cheaper():
    est = estimate(Scenario.from_workload("math_rl"))
    side, factor = compare.cheaper_factor(est)
    assert str(side) == "self_hosted"
    assert float(factor) == pytest.approx(float(est.tinker.total_usd / est.self_hosted.total_usd))
    assert float(factor) >= 1


def test_meter_shares_sum_to_one():
    shares = compare.meter_shares(estimate(Scenario.from_workload("swe_rl")))
    assert sum(float(v) for v in shares.values()) == pytest.approx(1.0)
    assert float(shares["prefill"]) > 0.5


def test_meters_share_adds_the_named_meters():
    """README's math_rl bill: $99.20 = sample $47.19 + train $47.19 + prefill $4.79 + storage $0.04, so sample
    and train are (47.19 + 47.19) / 99.20 ≈ 95% of it (the cost model chapter's 'share_sample_train')."""
    est = estimate(Scenario.from_workload("math_rl"))
    t = est.tinker
    both = float(compare.meters_share(est))
    assert both == pytest.approx(float((t.sample_usd + t.train_usd) / t.total_usd))
    assert both == pytest.approx((47.19 + 47.19) / 99.20, abs=1e-3)
    assert float(compare.meters_share(est, ("prefill",))) == pytest.approx(float(compare.meter_shares(est)["prefill"]))


def test_workload_table_matches_estimate_and_shows_cached_only_where_the_preset_caches():
    rows = {r.workload: r for r in compare.workload_table(PRESETS, prices="2026-01-05")}
    assert list(rows) == PRESETS
    for name, row in rows.items():
        est = estimate(Scenario.from_workload(name, prices="2026-01-05"))
        assert row.tinker_usd == pytest.approx(float(est.tinker.total_usd))
        assert row.self_hosted_usd == pytest.approx(float(est.self_hosted.total_usd))
        assert row.factor >= 1
        assert (row.tinker_free_cache_usd is not None) == (name in ("swe_rl", "osworld_rl"))
    assert rows["swe_rl"].tinker_free_cache_usd < rows["swe_rl"].tinker_usd
    exact = compare.workload_table(["math_rl"], method="exact")[0]
    assert exact.tinker_usd != rows["math_rl"].tinker_usd


def test_free_cache_verdict():
    """The seed's takeaway: with cache hits free, Tinker would bill swe_rl about $6,885 against $8,280 self-hosted
    (seed takeaway table), so the hypothetical tips swe_rl to Tinker under the seed's own model; presets without a
    cache have no verdict."""
    rows = {r.workload: r for r in compare.workload_table(PRESETS, prices="2026-01-05", method="seed")}
    for row in rows.values():
        if row.tinker_free_cache_usd is None:
            assert row.free_cache_cheaper is None
        else:
            expected = "tinker" if row.tinker_free_cache_usd <= row.self_hosted_usd else "self_hosted"
            assert row.free_cache_cheaper == expected
    assert rows["swe_rl"].free_cache_cheaper == "tinker"
    assert rows["math_rl"].free_cache_cheaper is None


def test_off_policy_speedups_sync_is_baseline():
    result = compare.off_policy_speedups(Scenario.from_workload("math_rl"), (0, 1, 2))
    assert result.speedup[0] == 1.0
    assert result.speedup[1] > 1.0                     # overlap: max instead of sum
    assert result.abort_rate[2] == pytest.approx(0.10)
    assert np.all(result.tinker_usd == result.tinker_usd[0])   # Tinker's bill ignores k
    with pytest.raises(ValueError):
        compare.off_policy_speedups(Scenario.from_workload("math_rl"), (1, 2))


def test_method_comparison_rows():
    rows = {r.quantity: r for r in compare.method_comparison(Scenario.from_workload("math_rl", method="seed"))}
    assert rows["sampled tokens"].seed == rows["sampled tokens"].exact
    assert rows["trained tokens"].exact > rows["trained tokens"].seed   # exact trains on prompt + completion
    seed = estimate(Scenario.from_workload("math_rl", method="seed"))
    assert rows["Tinker bill"].seed == pytest.approx(float(seed.tinker.total_usd))


def test_memory_and_checkpoint_tables():
    mem = {r.model: r for r in compare.memory_table(["Qwen3-8B", "Kimi-K2-Thinking"], H100)}
    assert mem["Qwen3-8B"].min_gpus == 2 and mem["Qwen3-8B"].kv_bytes_per_token_seed == 128_000
    assert mem["Kimi-K2-Thinking"].min_gpus > 8
    ckpt = {r.model: r for r in compare.checkpoint_table(["Qwen3-8B", "Qwen3-32B"], 32, "2026-01-05")}
    assert round(ckpt["Qwen3-32B"].seed_bytes / 1e6) == 512           # the seed's table
    assert ckpt["Qwen3-8B"].cookbook_bytes == pytest.approx(ckpt["Qwen3-8B"].exact_bytes)
    assert ckpt["Qwen3-32B"].cookbook_bytes is None
    assert ckpt["Qwen3-32B"].seed_usd_per_month == pytest.approx(0.0512, abs=1e-4)


def test_decode_curve_and_kv_share():
    batch = np.array([1.0, 64.0, 1024.0])
    weights_only = compare.decode_curve("Qwen3-8B", H100, batch, 640, kv=False)
    assert weights_only[0] == pytest.approx(209.375)                   # 3.35e12 / 16e9
    with_kv = compare.decode_curve("Qwen3-8B", H100, batch, 640)
    assert np.all(with_kv <= weights_only) and with_kv[-1] < weights_only[-1]
    share = compare.kv_share_of_step("Qwen3-8B", batch, 640)
    assert 0 < share[0] < share[1] < share[2] < 1


def test_prefill_after_cache_and_olmo():
    assert float(tokens.prefill_after_cache(1000, 0.92)) == pytest.approx(80)
    olmo = olmo3_gpu_hours()
    assert round(olmo.continued_rl, -3) == 113_000
    assert olmo.sft_sweep == olmo.sft_sweep_per_rate * claim("olmo3_sft_learning_rates")


# ----------------------------------------------------------------------------------------- plots.py

def test_plots_return_figures():
    est = estimate(Scenario.from_workload("swe_rl"))
    figs = [
        plots.cost_breakdown(est),
        plots.cost_breakdowns({"math_rl": estimate(Scenario.from_workload("math_rl")), "swe_rl": est}),
        plots.workload_comparison(["a", "b"], [1.0, 2.0], [2.0, 1.0], [0.5, np.nan]),
        plots.prefill_vs_turns(np.arange(1, 5), np.arange(4) * 10.0, np.arange(4) * 1.0),
        plots.sweep(np.arange(3), {"Tinker": np.arange(3) + 1.0, "Self-hosted": np.arange(3) + 2.0}, "L"),
        plots.decode_throughput(np.array([1, 10, 100]), {"a": np.array([1.0, 10, 100])}, critical_batch=50),
        plots.async_speedups(["a", "b"], [1, 2], [[1.2, 1.3], [1.0, 1.1]], {"k = 1": (1.7, 1.7), "k ≥ 2": (2, 2.7)}),
    ]
    for fig in figs:
        assert isinstance(fig, matplotlib.figure.Figure) and fig.axes


# ----------------------------------------------------------------------------------------- widgets.py

@pytest.mark.parametrize("workload", sorted(workloads()))
def test_calculator_builds_for_every_preset(workload):
    calc = Calculator(workload)
    assert "Tinker" in calc.summary.value and "color:#b00" not in calc.summary.value
    assert calc.workload.value == workload


@pytest.mark.parametrize("method", ["calibrated", "exact", "seed"])
@pytest.mark.parametrize("workload", sorted(workloads()))
def test_calculator_prices_exactly_the_preset_it_holds(workload, method):
    """A panel loaded with a preset prices that preset: no slider clips a preset value (osworld_rl's 1650 s of
    sandbox per rollout once priced as 120 s, so the takeaway panel disagreed with the takeaway table)."""
    calc = Calculator(workload, method=method)
    panel, preset = estimate(calc.scenario()), estimate(Scenario.from_workload(workload, method=method))
    assert panel.tinker.total_usd == pytest.approx(preset.tinker.total_usd, rel=1e-12)
    assert panel.self_hosted.total_usd == pytest.approx(preset.self_hosted.total_usd, rel=1e-12)


def test_calculator_widens_a_slider_rather_than_clip_an_override():
    calc = Calculator("swe_rl", turns=200)   # the turns slider ends at 60
    assert calc.controls["turns"].value == 200 and calc.scenario().turns == 200


def test_calculator_disables_the_length_controls_the_model_does_not_read():
    """tokens.rollout reads the completion length L for a single turn and the per-turn lengths for more."""
    calc = Calculator("swe_rl")
    assert calc.controls["completion_tokens"].disabled and not calc.controls["output_per_turn"].disabled
    calc.controls["turns"].value = 1
    assert not calc.controls["completion_tokens"].disabled and calc.controls["output_per_turn"].disabled
    assert calc.controls["observation_per_turn"].disabled
    # swe_rl's preset has no completion length: one turn of it is refused in one line (no $0 Tinker wall-clock),
    # with the slider that fixes it open; giving a length redraws the bill
    assert "completion_tokens must be more than 0" in calc.summary.value
    calc.controls["completion_tokens"].value = 512
    assert "must be" not in calc.summary.value and "Tinker" in calc.summary.value


def test_calculator_redraws_when_a_slider_moves():
    calc = Calculator("math_rl")
    before = calc.summary.value
    calc.controls["completion_tokens"].value = 4096
    assert calc.summary.value != before
    assert calc.scenario().completion_tokens == 4096


def test_calculator_compact_and_workload_switch():
    calc = Calculator("swe_rl", compact=True)
    assert "swe_rl" == calc.workload.value
    calc.workload.value = "math_rl"
    assert calc.model.value == "Qwen/Qwen3-8B"
    assert "Qwen3-8B" in calc.summary.value or "self-hosted" in calc.summary.value


def test_slider_labels_use_mathjax_inline_delimiters():
    calc = Calculator("math_rl")
    labels = [w.description for w in calc.controls.values()]
    assert not any("$" in label and "GPU-hour" not in label for label in labels)
    assert any(r"\(" in label for label in labels)


def test_summary_names_the_price_snapshot_and_factor():
    text = summary_html(estimate(Scenario.from_workload("math_rl", prices="2026-01-05")))
    assert "2026-01-05" in text and "×" in text


@pytest.mark.parametrize("workload, gpu, words", [
    # data/workloads/workloads.csv: the presets take the seed's $2.69, which RunPod's row in gpu_prices.csv lists
    ("code_rl", "H100 SXM", ["the seed site's rate", "RunPod (Community Cloud) listed it on 2026-09-25"]),
    ("code_rl", "H200 SXM", ["RunPod (Community Cloud), read 2026-09-25"]),   # the registry's default row
])
def test_the_panel_names_a_rate_by_provider_and_day_not_by_registry_path(workload, gpu, words):
    """Book review 2026-12-05 (finding 20): the calculator's Prices row quoted the registry's provenance string,
    "(preset math_rl: seed takeaway page '$2.69/hr' (RunPod … in data/hardware/gpu_prices.csv))"."""
    import html
    text = html.unescape(summary_html(estimate(Scenario.from_workload(workload, gpu=gpu))))
    prices = text[text.index("Prices"):text.index("Tokens")]
    assert all(w in prices for w in words), prices
    assert not any(w in prices for w in ("data/", ".csv", "preset ", "registry default", "http")), prices


def test_crossover():
    assert compare.crossover([1, 2, 3], [5, 5, 5], [1, 4, 6]) == (3.0, "tinker")
    assert compare.crossover([1, 2], [1, 1], [2, 2]) == (None, None)


def test_priced_workloads():
    assert compare.priced_workloads(PRESETS, "2026-01-05") == PRESETS
    later = compare.priced_workloads(PRESETS, "2026-10-07")
    assert "math_rl" in later and "swe_rl" not in later   # Qwen3-32B is not listed after the repricing


def test_first_crossing():
    assert compare.first_crossing([1, 2, 3, 4], [0, 1, 5, 6], [2, 2, 2, 2]) == 3.0
    assert compare.first_crossing([1, 2], [0, 0], [1, 1]) is None


def test_experiment_panel_reprices_with_the_readers_assumptions():
    """The empirical chapter's panel: it starts from the seed's prediction ($15.39 for exp 1a, the seed's
    empirical validation page) and moves when a slider moves; the logged side is the bill of the reported tokens."""
    from tinker_nomics.faces.widgets import ExperimentPanel
    panel = ExperimentPanel("exp1a")
    rows, billed, _ = panel.comparison()
    assert round(sum(r[2] for r in rows), 2) == pytest.approx(15.39, abs=0.006)
    assert billed == 12.96                       # Tinker's bill for exp 1a (seed page)
    before = panel.summary.value
    panel.completion.value = 320                 # the run's average completion (seed page)
    assert panel.summary.value != before
    panel.experiment.value = "exp1b"
    assert panel.completion.value == 800         # exp 1b's assumed completion (seed page)


def test_calculator_states_a_model_switched_by_a_price_list():
    """Qwen3-32B (swe_rl) is not listed after the July 2026 repricing: the panel keeps it for the self-hosted side,
    bills Tinker's side on its named successor (as `estimate` does), and says so."""
    from tinker_nomics.sources.successors import model_for
    calc = Calculator("swe_rl", prices="2026-01-05")
    calc.prices.value = "2026-10-07"
    successor, _ = model_for("Qwen/Qwen3-32B", "2026-10-07")
    assert successor != "Qwen/Qwen3-32B" and calc.model.value == "Qwen/Qwen3-32B"
    assert "does not price Qwen/Qwen3-32B" in calc.summary.value and successor in calc.summary.value
    assert estimate(calc.scenario()).price.model == successor
    calc.controls["steps"].value = 10            # the statement is about that change only
    assert "does not price" not in calc.summary.value


def test_calculator_takes_a_new_gpus_default_rate_and_names_its_source():
    from tinker_nomics.sources import default_gpu_price
    calc = Calculator("math_rl")
    calc.gpu.value = "H200 SXM"
    rate = default_gpu_price("H200 SXM")
    assert calc.controls["gpu_hourly_usd"].value == pytest.approx(rate.usd_per_gpu_hour)
    assert calc.scenario().gpu_hourly_usd == pytest.approx(rate.usd_per_gpu_hour)
    assert rate.provider in calc.summary.value and "per GPU-hour" in calc.summary.value
    calc.controls["gpu_hourly_usd"].value = 9.99
    assert "set on the panel" in calc.summary.value


def test_calculator_has_the_sandbox_failure_and_lora_controls():
    calc = Calculator("code_rl")
    assert {"none", "modal", "sandboxfusion"} <= set(calc.sandbox.options[i][1] for i in range(len(calc.sandbox.options)))
    before = estimate(calc.scenario())
    calc.sandbox.value = "sandboxfusion"          # free and local: the sandbox line of Tinker's bill goes to $0
    assert float(estimate(calc.scenario()).tinker.sandbox_usd) == 0 < float(before.tinker.sandbox_usd)
    calc.controls["lora_rank"].value = 128
    assert float(estimate(calc.scenario()).checkpoint_gb) > float(before.checkpoint_gb)
    agent = Calculator("swe_rl")
    tokens_before = float(estimate(agent.scenario()).tokens.prefill)
    agent.controls["failure_overhead"].value = min(agent.controls["failure_overhead"].value + 0.3, 1.0)
    assert float(estimate(agent.scenario()).tokens.prefill) > tokens_before


def test_panel_readouts_and_labels_are_not_cut():
    """Long labels wrap and readouts keep room for five digits (the CSS each panel ships)."""
    from tinker_nomics.faces.widgets import PANEL_CSS, SLIDERS
    assert "white-space:normal" in PANEL_CSS and "min-width:5.5em" in PANEL_CSS
    assert all("…" not in label for label, _ in SLIDERS.values())
    # token counts read "13,000" (swe_rl's prompt) rather than "13000", in the panel's readout
    for field in ("completion_tokens", "prompt_tokens", "output_per_turn", "observation_per_turn"):
        assert SLIDERS[field][1]().readout_format == ",d", field


def test_experiment_panel_states_its_sign_convention_once():
    from tinker_nomics.faces.widgets import ExperimentPanel
    text = ExperimentPanel("exp1a").summary.value
    assert text.lower().count("signed error") == 1


def test_flop_panel_moves_with_the_batch():
    """B, G and L are controls of the FLOP panel: a bigger batch means more concurrent sequences."""
    from tinker_nomics.faces.widgets import FlopPanel
    panel = FlopPanel("Qwen3-8B", "H100 SXM", 8, 64, 16, 512)
    before = panel.report.value
    for control, value in ((panel.prompts, 128), (panel.group, 8), (panel.length, 4096)):
        control.value = value
        assert panel.report.value != before
        before = panel.report.value


def test_a_margin_that_prints_as_one_times_is_said_in_percent():
    """Book review 2026-12-05: 'Tinker 1.0× cheaper' (takeaway, at the measured pace) said nothing; below 1.05× the
    margin reads in percent, in the sentence, the cell, the panel and the explorer's rule alike."""
    from pathlib import Path

    from tinker_nomics.analysis.verdict import Verdict
    from tinker_nomics.faces import wording
    assert wording.factor(1.023) == "2.3%" and wording.factor(3.33) == "3.3×" and wording.factor(1234.5) == "1,234.5×"
    close = Verdict.of(100.0, 102.0)
    assert wording.verdict(close) == "Tinker is 2.0% cheaper" and wording.verdict_cell(close) == "Tinker 2.0%"
    js = (Path(__file__).resolve().parents[1] / "tinker_nomics" / "faces" / "explorer.js").read_text()
    assert '(100 * (factor - 1)).toFixed(1) + "%"' in js


def test_the_model_dropdown_shows_a_long_context_price_key_as_its_model_and_context():
    """Book review 2026-12-05 (finding 20): the dropdown listed Tinker's price keys ('openai/gpt-oss-120b:peft:131072')."""
    from tinker_nomics.faces.widgets import model_options
    options = dict((value, label) for label, value in model_options("2026-10-07", "Qwen/Qwen3-8B"))
    keys = [v for v in options if ":peft:" in v]
    assert keys, "the 2026-10-07 list prices long-context variants (data/prices/)"
    for key in keys:
        base, _, context = key.partition(":peft:")
        assert options[key].startswith(base) and ":peft:" not in options[key]
        assert f"{int(context) // 1024}K-token context" in options[key]
    calc = Calculator("math_rl")
    assert all(":peft:" not in label for label, _ in calc.model.options)


def test_the_calculator_states_the_books_verdict_with_its_share_of_draws():
    """At a preset's own values the panel's 'Cheaper' row is the takeaway's verdict, from the same 100,000 seeded
    draws (uncertainty.simulate); moved, it draws PANEL_DRAWS around the panel's values (a redraw stays fast) and
    says how many; the seed and exact methods, which the book's verdict is not, keep the point estimate's factor."""
    import html as html_module
    import re

    from tinker_nomics.analysis import uncertainty
    from tinker_nomics.analysis.verdict import Verdict
    from tinker_nomics.faces import widgets, wording

    def cheaper(calc):
        return html_module.unescape(re.search(r"Cheaper</th><td>(.*?)</td>", calc.summary.value).group(1))
    calc = Calculator("code_rl")
    mc = uncertainty.simulate("code_rl")
    book = wording.verdict(Verdict.of(mc.point_tinker_usd, mc.point_self_hosted_usd, mc.p_tinker_cheaper), True)
    assert mc.n == uncertainty.DEFAULT_DRAWS
    assert cheaper(calc) == "<b>" + book.replace("of draws", f"of {mc.n:,} draws") + "</b>"
    calc.controls["steps"].value = calc.controls["steps"].value + 10
    assert f"of {widgets.PANEL_DRAWS:,} draws" in cheaper(calc)
    calc.method.value = "exact"
    assert "draws" not in cheaper(calc) and "×" in cheaper(calc)
