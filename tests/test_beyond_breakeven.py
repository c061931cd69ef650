"""Break-even maps (tinker_nomics.analysis.breakeven): the grids are the core's own numbers, and the ratio = 1
boundary is where a direct estimate says both sides cost the same."""

import numpy as np
import pytest

from tinker_nomics.sources.successors import is_priced
from tinker_nomics import Scenario, estimate
from tinker_nomics.analysis import breakeven, compare
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.sources import newest_snapshot


def ratio_at(workload, snapshot=None, method=None, **fields):
    est = estimate(breakeven.base_scenario(workload, snapshot, **({"method": method} if method else {}))
                   .replace(**fields))
    return float(est.self_hosted.total_usd) / float(est.tinker.total_usd)


# ----------------------------------------------------------------------------- 1-D cuts


@pytest.mark.parametrize("workload,snapshot", [("math_rl", None), ("code_rl", None), ("harbor_rl", "latest"),
                                               ("osworld_rl", "latest"), ("swe_rl", None)])
def test_gpu_price_breakeven_is_exact(workload, snapshot):
    price = breakeven.breakeven_gpu_price(workload, snapshot)
    assert ratio_at(workload, snapshot, gpu_hourly_usd=price) == pytest.approx(1.0, rel=1e-9)
    # the 1-D cut over a grid lands on the same price
    found = breakeven.crossings(workload, "gpu_hourly_usd", np.linspace(0.05, 25, 2000), snapshot)
    assert len(found) == 1 and found[0] == pytest.approx(price, rel=2e-3)


def test_gpu_price_breakeven_values():
    """Under the seed method at its own (January) list, the values the original site's arithmetic gives (pinned when
    the chapter used them); the default method's are checked against a direct estimate above."""
    assert breakeven.breakeven_gpu_price("math_rl", method="seed") == pytest.approx(9.37, abs=0.01)
    assert breakeven.breakeven_gpu_price("code_rl", method="seed") == pytest.approx(1.87, abs=0.01)


def test_maps_use_the_default_method_and_the_workloads_own_model():
    """Issue 20: the maps answer the takeaway's question (the package's default method), and only Tinker's side
    moves to a successor; the self-hosted side runs the workload's own model."""
    from tinker_nomics.model.scenario import DEFAULT_METHOD
    base = breakeven.base_scenario("swe_rl", "latest")
    assert base.resolved().method == DEFAULT_METHOD and base.model == Scenario.from_workload("swe_rl").model
    est = estimate(base)
    assert est.price.model == "Qwen/Qwen3.6-27B" and est.scenario.tinker_cached_prefill
    assert breakeven.length_group_map("swe_rl", snapshot="latest").model == "Qwen/Qwen3.6-27B"
    headline = compare.headline_table(["swe_rl"], prices=newest_snapshot())[0]    # the takeaway's row
    assert float(est.tinker.total_usd) == pytest.approx(headline.tinker_usd)
    assert float(est.self_hosted.total_usd) == pytest.approx(headline.self_hosted_usd)
    assert breakeven.breakeven_gpu_price("swe_rl", "latest") == pytest.approx(
        (headline.tinker_usd - float(est.self_hosted.sandbox_usd)) / float(est.self_hosted.gpu_hours))


@pytest.mark.parametrize("workload,field,values,snapshot", [
    ("math_rl", "completion_tokens", np.geomspace(256, 65536, 1200), "latest"),
    ("code_rl", "completion_tokens", np.geomspace(64, 65536, 1200), None),
    ("osworld_rl", "group_size", np.geomspace(1, 128, 1200), "latest"),
    ("harbor_rl", "turns", np.linspace(1.5, 60, 1200), "latest"),
])
def test_one_dimensional_boundary_matches_a_direct_estimate(workload, field, values, snapshot):
    # the seed method: a cut that crosses in every case (the arithmetic of the cut is what is tested)
    found = breakeven.crossings(workload, field, values, snapshot=snapshot, method="seed")
    assert len(found) >= 1
    for value in found:
        assert ratio_at(workload, snapshot, method="seed", **{field: value}) == pytest.approx(1.0, abs=0.01)


def test_math_rl_length_crossing():
    found = breakeven.crossings("math_rl", "completion_tokens", np.geomspace(256, 65536, 1200), "latest",
                                method="seed")
    assert found[0] == pytest.approx(19_650, rel=0.01)


# ----------------------------------------------------------------------------- maps


def test_map_cells_are_the_core_numbers():
    m = breakeven.length_group_map("code_rl")
    assert m.ratio.shape == (m.y.size, m.x.size) == (breakeven.GROUP_SIZES.size, breakeven.LENGTHS_SINGLE_TURN.size)
    j, i = 3, 7
    est = estimate(Scenario.from_workload("code_rl", completion_tokens=m.x[i], group_size=m.y[j]))
    assert m.tinker_usd[j, i] == pytest.approx(float(est.tinker.total_usd))
    assert m.self_hosted_usd[j, i] == pytest.approx(float(est.self_hosted.total_usd))
    assert m.preset == (24000.0, 8.0)


@pytest.mark.parametrize("workload", ["code_rl", "harbor_rl", "osworld_rl"])
def test_map_boundary_points_break_even(workload):
    m = breakeven.price_efficiency_map(workload, snapshot="latest", method="seed")   # a map with a boundary
    lines = m.boundary()
    assert lines
    points = np.concatenate(lines)
    for x, y in points[:: max(1, len(points) // 12)]:
        assert ratio_at(workload, "latest", method="seed", gpu_hourly_usd=x, rollout_efficiency=y) == \
            pytest.approx(1.0, abs=0.04)


def test_boundary_in_index_coordinates_is_the_same_line():
    m = breakeven.price_efficiency_map("code_rl", snapshot="latest")
    data, index = m.boundary(), m.boundary(index=True)
    assert len(data) == len(index)
    # the price axis is linear: index = (price - first) / step
    step = m.x[1] - m.x[0]
    assert np.allclose(data[0][:, 0], m.x[0] + index[0][:, 0] * step)


def test_turns_model_map():
    m = breakeven.turns_model_map("swe_rl", snapshot="latest")
    models = breakeven.map_models(newest_snapshot())
    assert m.ratio.shape == (len(models), breakeven.TURNS.size)
    assert all(is_priced(name, newest_snapshot()) for name in models)
    assert models[int(m.preset[1])] == "Qwen/Qwen3.6-27B" and m.preset[0] == 25
    row = int(m.preset[1])
    i = int(np.searchsorted(m.x, 24))
    # the row is the billed successor on both sides (a model row of the map)
    est = estimate(breakeven.base_scenario("swe_rl", "latest").replace(model="Qwen/Qwen3.6-27B", turns=m.x[i],
                                                                       tinker_cached_prefill=True))
    assert m.self_hosted_usd[row, i] == pytest.approx(float(est.self_hosted.total_usd))
    for mark in m.boundary():   # per-row marks, one row tall
        assert mark.shape == (2, 2) and mark[1, 1] - mark[0, 1] == pytest.approx(0.84)
    with pytest.raises(TinkerNomicsError, match="single-turn"):
        breakeven.turns_model_map("math_rl")


def test_latest_maps_bill_successors_with_cached_prefill():
    base = breakeven.base_scenario("swe_rl", "latest")
    assert estimate(base).price.model == "Qwen/Qwen3.6-27B" and base.tinker_cached_prefill
    assert breakeven.base_scenario("swe_rl").model == "Qwen/Qwen3-32B"


# ----------------------------------------------------------------------------- the chapter's counts


def test_offers_below_counts_the_cheaper_listings():
    from tinker_nomics.faces import explorer
    offers = [{"usd": 1.5}, {"usd": 2.0}, {"usd": 2.69}]
    assert breakeven.offers_below(offers, 2.0) == 1 and breakeven.offers_below(offers, 3.0) == 3
    assert breakeven.offers_below([], 9.0) == 0
    # against the sourced H100 SXM listings: every one of them is under math_rl's break-even price at January
    # rates ($9.37, pinned above) except those dearer than it, counted directly
    listed = explorer.gpu_offers("H100 SXM")
    price = breakeven.breakeven_gpu_price("math_rl")
    assert breakeven.offers_below(listed, price) == len([o for o in listed if o["usd"] < price])
    assert 0 < breakeven.offers_below(listed, price) <= len(listed)


def test_tinker_rows_at_a_turn_count():
    m = breakeven.turns_model_map("osworld_rl", snapshot="latest")
    column = int(np.searchsorted(m.x, 30))
    expected = [label for label, r in zip(m.y_labels, m.ratio[:, column]) if r >= 1]
    assert m.tinker_rows_at(30) == expected
    # at 30 turns Tinker wins osworld_rl on its own model (the chapter: "cheaper up to about 43 turns")
    assert any(label.startswith("Qwen3-8B") for label in m.tinker_rows_at(30))
    assert m.tinker_rows_at(10_000) == m.tinker_rows_at(m.x[-1])      # past the grid: the last column
