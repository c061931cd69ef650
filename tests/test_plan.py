"""The planner (tinker_nomics.analysis.plan, `tinker-nomics plan`): ranked options, the best one recomputed
independently, the frontier on constructed cases, agreement with `estimate`, properties, one-line errors."""
from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinker_nomics import Scenario, TinkerNomicsError, estimate, fmt
from tinker_nomics.analysis import plan as planner
from tinker_nomics.analysis import uncertainty
from tinker_nomics.faces.cli import main
from tinker_nomics.sources import get_gpu
from tinker_nomics.sources.offers import Offer, offers
from tinker_nomics.sources.services import managed_services
from tinker_nomics.sources.workloads import workloads

CONTRACT = {"where", "billing", "gpu", "num_gpus", "provider", "spot", "cost_usd", "wall_hours", "cost_usd_p50", "cost_usd_p10", "cost_usd_p90",
            "wall_hours_p50", "wall_hours_p10", "wall_hours_p90", "p_meets_deadline", "feasible", "dropped_because"}
FAST = dict(draws=60, max_gpus=16)


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def offer(provider: str, instance: str, gpu: str, count: int, usd_per_hour: float, spot: float | None = None,
          flags=()) -> Offer:
    """A made-up offer for constructed cases (prices per instance-hour)."""
    return Offer(provider, instance, gpu, count, gpu, "test", None, usd_per_hour, spot, 1, "test", tuple(flags),
                 "catalogs/test/vms.csv", "test", "2026-12-02")


# ----------------------------------------------------------------------------------------- the best, independently


def _available(option: dict) -> bool:
    """Whether an option can be bought, decided from the registries rather than from the plan's own verdict."""
    if option["kind"] == "rented":
        listed = [o for o in offers() if o.provider == option["provider"] and o.instance_type == option["instance_type"]]
        return bool(listed) and "on_demand_below_spot" not in listed[0].flags and \
            get_gpu(option["gpu"]).bf16_dense_tflops is not None
    if option["kind"] == "managed":
        return any(s.service in option["where"] and s.status == "available" for s in managed_services()) and \
            get_gpu(option["gpu"]).bf16_dense_tflops is not None
    if option["kind"] == "tinker":
        return option["cost_usd"] is not None
    return False       # per-token services here are closed, in preview or have no measured wall-clock


def independent_best(data: dict) -> float | None:
    confidence, budget = data["confidence"], data["budget_usd"]
    eligible = [o["cost_usd"] for o in data["options"]
                if o["feasible"] and o["p_meets_deadline"] is not None and o["p_meets_deadline"] >= confidence
                and (budget is None or o["cost_usd_at_confidence"] <= budget) and _available(o)]
    return min(eligible) if eligible else None


@pytest.mark.parametrize("workload", list(workloads()))
def test_every_preset_plans_to_a_ranked_table_and_json_whose_best_is_the_minimum(workload):
    args = ["plan", "--workload", workload, "--deadline", "3d", "--draws", "60", "--max-gpus", "16"]
    code, out, err = run(*args, "--format", "json", "--top", "0")
    assert code == 0, err
    data = json.loads(out)
    assert {"confidence", "deadline_hours", "options", "best", "pareto"} <= set(data)
    assert data["deadline_hours"] == 72 and data["confidence"] == 0.8
    assert len(data["options"]) == data["options_considered"] > 100
    for option in data["options"][:50] + data["pareto"]:
        assert CONTRACT <= set(option)
    expected = independent_best(data)
    if expected is None:
        assert data["best"] is None
    else:
        assert data["best"]["cost_usd"] == pytest.approx(expected, rel=1e-12)
        assert data["options"][0] == data["best"]            # ranked: the best first
    costs = [o["cost_usd"] for o in data["options"] if o["dropped_because"] is None]
    assert costs == sorted(costs)
    code, table, err = run(*args)
    assert code == 0 and err == ""
    assert table.splitlines()[0].startswith(workload) and "rank" in table and "Tinker" in table
    assert ("Best          none" in table) == (data["best"] is None)


# ----------------------------------------------------------------------------------------- the frontier


@pytest.mark.parametrize("points, frontier", [
    ([(1, 10), (2, 5), (3, 1)], [True, True, True]),                  # a clean trade-off
    ([(1, 10), (2, 11), (3, 1)], [True, False, True]),                # dearer and slower than the first
    ([(1, 5), (1, 5)], [True, True]),                                 # equal: neither beats the other
    ([(1, 5), (1, 6)], [True, False]),                                # as cheap, slower
    ([(1, 5), (2, 5)], [True, False]),                                # as fast, dearer
    ([(5, 1), (4, 2), (3, 3), (6, 0.5), (4, 3)], [True, True, True, True, False]),
    ([(1, np.nan), (2, 3)], [False, True]),                           # no wall-clock: not on the frontier
    ([], []),
])
def test_pareto_on_constructed_cases(points, frontier):
    cost = np.array([p[0] for p in points], dtype=float)
    wall = np.array([p[1] for p in points], dtype=float)
    assert planner.pareto_mask(cost, wall).tolist() == frontier


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=12))
def test_pareto_against_the_definition(points):
    cost = np.array([p[0] for p in points], dtype=float)
    wall = np.array([p[1] for p in points], dtype=float)
    mask = planner.pareto_mask(cost, wall)
    for i, (c, w) in enumerate(points):
        beaten = any(c2 <= c and w2 <= w and (c2 < c or w2 < w) for c2, w2 in points)
        assert mask[i] == (not beaten)


def test_plan_pareto_is_the_frontier_of_its_buyable_options():
    p = planner.plan(Scenario.from_workload("math_rl"), workload="math_rl", deadline_hours=24, **FAST)
    frame = p.options
    dropped = frame["dropped_because"].fillna("")
    buyable = frame[frame["feasible"] & ((dropped == "") | dropped.str.startswith(("misses", "over budget")))]
    points = list(zip(buyable["cost_usd"], buyable["wall_hours"]))
    expected = {w for w, (c, h) in zip(buyable["where"], points)
                if not any(c2 <= c and h2 <= h and (c2 < c or h2 < h) for c2, h2 in points)}
    assert set(p.pareto["where"]) == expected and len(expected) > 1


# ----------------------------------------------------------------------------------------- the same model as estimate


def picked_options(frame):
    """Three GPU options to check against `estimate`: the first rented on-demand one on time, the last managed one
    that fits, and the first rented one of 4 GPUs that fits."""
    return [frame[(frame["kind"] == "rented") & ~frame["spot"] & frame["dropped_because"].isna()].iloc[0],
            frame[(frame["kind"] == "managed") & frame["feasible"]].iloc[-1],
            frame[(frame["kind"] == "rented") & (frame["num_gpus"] == 4) & frame["feasible"]].iloc[0]]


def test_options_agree_with_estimate_on_the_same_inputs():
    scenario = Scenario.from_workload("math_rl")
    p = planner.plan(scenario, workload="math_rl", deadline_hours=24, draws=200, max_gpus=16)
    draws = uncertainty.draw_inputs("math_rl", scenario.resolved(), 200, 0, leave_out=planner.FIXED_INPUTS)
    frame = p.options
    for option in picked_options(frame):
        est = estimate(scenario.replace(gpu=option["gpu"], num_gpus=float(option["num_gpus"]),
                                        gpu_hourly_usd=option["usd_per_gpu_hour"], **draws))
        cost = np.quantile(est.self_hosted.total_usd, planner.QUANTILES)
        wall = np.quantile(est.self_hosted.wallclock_hours, planner.QUANTILES)
        assert [option["cost_usd_p10"], option["cost_usd_p50"], option["cost_usd_p90"]] == \
            pytest.approx(cost.tolist(), rel=1e-9), option["where"]
        assert [option["wall_hours_p10"], option["wall_hours_p50"], option["wall_hours_p90"]] == \
            pytest.approx(wall.tolist(), rel=1e-9), option["where"]
    tinker = frame[frame["kind"] == "tinker"].iloc[0]
    est = estimate(scenario.replace(**draws))
    assert [tinker["cost_usd_p10"], tinker["cost_usd_p50"], tinker["cost_usd_p90"]] == \
        pytest.approx(np.quantile(est.tinker.total_usd, planner.QUANTILES).tolist(), rel=1e-9)
    assert [tinker["wall_hours_p10"], tinker["wall_hours_p50"], tinker["wall_hours_p90"]] == \
        pytest.approx(np.quantile(est.tinker_time.wallclock_hours, planner.QUANTILES).tolist(), rel=1e-9)


@pytest.mark.parametrize("workload", ["math_rl", "code_rl"])
def test_each_option_tells_estimates_answer_for_it(workload):
    """One answer: an option's cost and wall-clock are what `estimate` says for the same run on its GPUs at its rate
    (and Tinker's are estimate's Tinker bill and wall-clock), not a median of the draws; the draws' P10–P90 are
    beside them. Expected values: `estimate` on the preset, called here on its own."""
    scenario = Scenario.from_workload(workload)
    # a deadline of ten days: code_rl's fastest on-demand GPUs (16 of them) take close to three
    p = planner.plan(scenario, workload=workload, deadline_hours=240, draws=200, max_gpus=16)
    frame = p.options
    for option in picked_options(frame):
        est = estimate(scenario.replace(gpu=option["gpu"], num_gpus=float(option["num_gpus"]),
                                        gpu_hourly_usd=option["usd_per_gpu_hour"]))
        assert option["cost_usd"] == pytest.approx(float(est.self_hosted.total_usd), rel=1e-9), option["where"]
        assert option["wall_hours"] == pytest.approx(float(est.self_hosted.wallclock_hours), rel=1e-9)
        assert option["cost_usd_p10"] < option["cost_usd_p90"] and option["wall_hours_p10"] < option["wall_hours_p90"]
    tinker = frame[frame["kind"] == "tinker"].iloc[0]
    est = estimate(scenario)
    assert tinker["cost_usd"] == pytest.approx(float(est.tinker.total_usd), rel=1e-9)
    assert tinker["wall_hours"] == pytest.approx(float(est.tinker_time.wallclock_hours), rel=1e-9)
    # the table prints the Tinker bill `estimate` prints
    code, out, err = run("plan", "--workload", workload, "--deadline", "3d", "--draws", "200", "--max-gpus", "16")
    assert code == 0, err
    assert fmt.usd(float(est.tinker.total_usd)) in out


def test_spot_option_is_the_estimate_plus_its_interruptions():
    scenario = Scenario.from_workload("math_rl")
    model = planner.spot_model(interruptions_per_month=30.0, restart_minutes=20.0)
    cheap = offer("testcloud", "8x", "H100 SXM", 8, 16.0, spot=8.0)
    p = planner.plan(scenario, workload="math_rl", offers=(cheap,), draws=100, max_gpus=8, spot_model_=model,
                     providers=["testcloud"])
    row = p.options[p.options["spot"]].iloc[0]
    draws = uncertainty.draw_inputs("math_rl", scenario.resolved(), 100, 0, leave_out=planner.FIXED_INPUTS)
    est = estimate(scenario.replace(gpu="H100 SXM", num_gpus=8.0, gpu_hourly_usd=1.0, **draws))
    per_hour = 30.0 / (30.4375 * 24)           # data/assumptions/defaults.csv days_per_month
    wall, ok = planner.spot_hours(est.self_hosted.wallclock_hours, 1, 180, per_hour, 20 / 60, 20)
    assert ok.all()
    assert row["wall_hours_p50"] == pytest.approx(np.median(wall), rel=1e-9)
    assert row["cost_usd_p50"] == pytest.approx(np.median(wall * 8 * 1.0), rel=1e-9)


def test_spot_hours():
    # no interruptions: the run as it is
    hours, ok = planner.spot_hours(np.array([10.0]), 1, 100, 0.0, 0.5, 20)
    assert hours.tolist() == [10.0] and ok.all()
    # 0.05 interruptions an hour, each losing half of 2 h plus 1 h restart: load 0.1 -> 10 / 0.9
    hours, ok = planner.spot_hours(np.array([10.0]), 1, 100, 0.05, 1.0, 20)
    assert hours[0] == pytest.approx(10 / 0.9) and ok.all()
    # two instances double the rate; at load >= 1 the run never finishes
    hours, ok = planner.spot_hours(np.array([10.0]), 2, 100, 0.25, 1.0, 20)
    assert not ok.any() and np.isinf(hours).all()


# ----------------------------------------------------------------------------------------- properties


SMALL = (offer("alpha", "1x", "H100 SXM", 1, 2.5, spot=1.6), offer("alpha", "8x", "H100 SXM", 8, 19.0),
         offer("beta", "1x", "A100 80GB SXM", 1, 1.3, spot=0.9), offer("beta", "4x", "L40S", 4, 3.2))
BASE = Scenario.from_workload("math_rl", steps=60)


def _plan(**kwargs):
    return planner.plan(BASE, workload="math_rl", draws=40, max_gpus=8, **kwargs)


def _best_cost(p) -> float:
    return np.inf if p.best is None else p.best["cost_usd"]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(0.05, 30.0), st.floats(1.0, 20.0))
def test_a_later_deadline_never_raises_the_best_cost(deadline, later):
    assert _best_cost(_plan(offers=SMALL, deadline_hours=deadline * later)) <= \
        _best_cost(_plan(offers=SMALL, deadline_hours=deadline))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(SMALL) - 1), st.floats(0.1, 20.0), st.floats(0.2, 30.0))
def test_adding_an_offer_never_raises_the_best_cost(left_out, usd_per_hour, deadline):
    fewer = tuple(o for i, o in enumerate(SMALL) if i != left_out)
    extra = offer("gamma", "2x", "H200 SXM", 2, usd_per_hour)
    assert _best_cost(_plan(offers=SMALL + (extra,), deadline_hours=deadline)) <= \
        _best_cost(_plan(offers=SMALL, deadline_hours=deadline))
    assert _best_cost(_plan(offers=SMALL, deadline_hours=deadline)) <= \
        _best_cost(_plan(offers=fewer, deadline_hours=deadline))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(1.0, 300.0), st.floats(1.0, 10.0))
def test_a_larger_budget_never_removes_an_option_that_met_the_smaller(budget, more):
    small = _plan(offers=SMALL, deadline_hours=12, budget_usd=budget).options
    large = _plan(offers=SMALL, deadline_hours=12, budget_usd=budget * more).options
    met = set(small.loc[small["dropped_because"].isna(), "where"])
    assert met <= set(large.loc[large["dropped_because"].isna(), "where"])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(0.02, 0.8), st.floats(5.0, 120.0))
def test_spot_is_never_cheaper_when_its_interruptions_make_it_dearer(discount, restart_minutes):
    # interruptions per hour set so that the restarts alone stretch the run by more than the spot discount:
    # rate × restart > discount, so every draw's spot bill exceeds the on-demand one
    per_hour = (discount + 0.01) / (restart_minutes / 60.0)
    model = planner.spot_model(interruptions_per_month=per_hour * 30.4375 * 24, restart_minutes=restart_minutes)
    only = (offer("delta", "1x", "H100 SXM", 1, 3.0, spot=3.0 * (1 - discount)),)
    options = _plan(offers=only, spot_model_=model, providers=["delta"]).options
    for n, group in options.groupby("num_gpus"):
        demand, spot = group[~group["spot"]].iloc[0], group[group["spot"]].iloc[0]
        if not demand["feasible"]:
            continue
        if str(spot["dropped_because"]).startswith("spot interruptions"):
            assert spot["cost_usd_p50"] is None or np.isnan(spot["cost_usd_p50"])     # never finishes: no figure
        else:
            assert spot["cost_usd_p50"] > demand["cost_usd_p50"], n


# ----------------------------------------------------------------------------------------- filters and inputs


def test_filters():
    p = _plan(offers=SMALL, gpus=["H100"], spot=False)
    rented = p.options[p.options["kind"].isin(["rented", "managed"])]
    assert set(rented["gpu"]) == {"H100 SXM"} and not rented["spot"].any()
    p = _plan(offers=SMALL, providers=["tinker"])
    assert set(p.options["kind"]) == {"tinker"}
    p = _plan(offers=SMALL, spot=True, providers=["alpha", "beta"])
    assert p.options["spot"].all() and set(p.options["provider"]) == {"alpha", "beta"}
    assert planner.resolve_gpus(["H100"]) == ["H100 SXM", "H100 PCIe", "H100 NVL"]


def test_a_given_rate_prices_gpus_no_offer_lists():
    p = _plan(offers=SMALL, gpus=["H20"], given_rate=1.5)
    h20 = p.options[p.options["gpu"] == "H20"]
    assert len(h20) == 8 and set(h20["usd_per_gpu_hour"]) == {1.5}
    fitting = h20[h20["feasible"]]["num_gpus"].min()
    assert (h20[h20["num_gpus"] < fitting]["dropped_because"].str.startswith("does not fit")).all()


def test_a_model_tinker_does_not_offer_still_plans_on_gpus():
    """Qwen2.5-7B has an architecture (data/models/configs) and no Tinker price in any list: Tinker is listed as not
    offered, with estimate's reason and no figures, and the GPU options are estimate's own self-hosted side on the
    model itself (no stand-in model, no other price list)."""
    scenario = Scenario.from_workload("math_rl", model="Qwen2.5-7B")
    p = planner.plan(scenario, workload="math_rl", offers=SMALL, draws=40, max_gpus=8)
    tinker = p.options[p.options["kind"] == "tinker"].iloc[0]
    reason = estimate(scenario).tinker_not_offered
    assert reason and tinker["dropped_because"] == f"not offered: {reason}"
    assert np.isnan(tinker["cost_usd_p50"]) and np.isnan(tinker["wall_hours_p50"])
    assert p.best is not None and p.best["kind"] == "rented"
    option = p.options[(p.options["kind"] == "rented") & p.options["feasible"] & ~p.options["spot"]].iloc[0]
    draws = uncertainty.draw_inputs("math_rl", scenario.resolved(), 40, 0, leave_out=planner.FIXED_INPUTS)
    est = estimate(scenario.replace(gpu=option["gpu"], num_gpus=float(option["num_gpus"]),
                                    gpu_hourly_usd=option["usd_per_gpu_hour"], **draws))
    assert est.scenario.model == "Qwen/Qwen2.5-7B" and est.tinker_not_offered == reason
    assert option["cost_usd_p50"] == pytest.approx(np.median(est.self_hosted.total_usd), rel=1e-9)
    assert option["wall_hours_p50"] == pytest.approx(np.median(est.self_hosted.wallclock_hours), rel=1e-9)


def test_a_list_that_retired_the_model_names_the_newest_that_bills_it():
    """Llama-3.1-70B is priced in the January and H1 lists only (data/prices/tinker_prices.csv): at the newest list
    Tinker is not offered, and the reason names 2026-H1; with that list added, Tinker is priced there."""
    scenario = Scenario.from_workload("math_rl", model="Llama-3.1-70B")
    p = planner.plan(scenario, workload="math_rl", offers=SMALL, draws=40, max_gpus=8, providers=["tinker"],
                     tinker_lists=["2026-H1"])
    rows = p.options.set_index("where")
    newest = rows.loc[f"Tinker ({scenario.resolved().prices} list)"]
    assert newest["dropped_because"].startswith("not offered: ") and "newest list that bills it is 2026-H1" in \
        newest["dropped_because"]
    assert rows.loc["Tinker (2026-H1 list)", "cost_usd_p50"] > 0
    assert pd.isna(rows.loc["Tinker (2026-H1 list)", "dropped_because"])


def test_a_model_without_an_architecture_plans_on_tinker_only():
    """thinkingmachines/Inkling: priced by Tinker, no published architecture (data/models has no row for it): the GPU
    options are listed, dropped as not modelled, with one note; sizing it is one line."""
    from tinker_nomics.sources import has_arch
    assert not has_arch("Inkling")
    scenario = Scenario.from_workload("math_rl", model="Inkling")
    p = planner.plan(scenario, workload="math_rl", offers=SMALL, draws=40, max_gpus=8)
    gpus = p.options[p.options["kind"].isin(["rented", "managed"])]
    assert len(gpus) and (gpus["dropped_because"] == "not modelled: the self-hosted side cannot be evaluated").all()
    assert p.notes.count("the self-hosted side cannot be evaluated: thinkingmachines/Inkling has no published "
                         "architecture (give its config.json with --model-config)") == 1
    assert p.best is not None and p.best["kind"] == "tinker"
    with pytest.raises(TinkerNomicsError, match="^the self-hosted side cannot be evaluated: thinkingmachines/Inkling"):
        planner.sizing(scenario, "H100", draws=20, max_gpus=2)


def test_a_plan_for_a_model_with_neither_side_is_one_line():
    """Qwen3.8-27B: sampling rates only in Tinker's lists and no published architecture: nothing can be planned."""
    code, out, err = run("plan", "--workload", "math_rl", "--model", "Qwen3.8-27B", "--draws", "20")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "neither side can be computed for Qwen/Qwen3.8-27B" in err


def test_over_budget_still_shows_the_cheapest():
    code, out, err = run("plan", "--workload", "math_rl", "--budget", "0.01", "--deadline", "2d", "--draws", "40",
                         "--max-gpus", "8")
    assert code == 0 and err == ""
    assert "Best          none" in out and "Over budget   cheapest on time:" in out
    code, out, _ = run("plan", "--workload", "math_rl", "--budget", "0.01", "--deadline", "2d", "--draws", "40",
                       "--max-gpus", "8", "--format", "json")
    data = json.loads(out)
    assert data["best"] is None and data["cheapest_over_budget"]["dropped_because"].startswith("over budget")


@pytest.mark.parametrize("args, needle", [
    (["--deadline", "0"], "--deadline must be more than 0 hours, got '0'"),
    (["--deadline=-3h"], "--deadline must be more than 0 hours, got '-3h'"),
    (["--deadline", "-2"], "--deadline must be more than 0 hours, got '-2'"),
    (["--deadline", "soon"], "--deadline must be hours or days, such as 36h, 3d or 48, got 'soon'"),
    (["--gpus", "H1000"], "unknown GPU 'H1000'; closest:"),
    (["--providers", "runpd"], "unknown provider 'runpd'; closest: runpod"),
    (["--confidence", "1.5"], "--confidence must be a share in (0, 1], got 1.5"),
    (["--max-gpus", "0"], "--max-gpus must be a whole number >= 1, got 0"),
    (["--budget", "-5"], "--budget must be a number of dollars > 0, got -5"),
    (["--gpu-offers", "/nonexistent/catalog"], "GPU offers /nonexistent/catalog: no such file or folder"),
    (["--gpu-hourly-usd", "2"], "--gpu-hourly-usd in a plan prices the GPUs of --gpus"),
])
def test_bad_input_is_one_line(args, needle):
    code, out, err = run("plan", "--workload", "math_rl", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err, err


def test_a_malformed_offers_file_is_one_line_naming_file_line_and_column(tmp_path):
    folder = tmp_path / "v7" / "runpod"
    folder.mkdir(parents=True)
    bad = folder / "vms.csv"
    bad.write_text("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price\n"
                   "1x_H100_SECURE,H100,1.0,16,80,H100,CA,,2.39\n1x_H100_SECURE,H100,1.0,16,80,H100,US,,two\n")
    code, out, err = run("plan", "--workload", "math_rl", "--gpu-offers", str(tmp_path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{bad} line 3 column Price: 'two' is not a number" in err


def test_a_newer_catalog_copy_is_read_by_the_same_code(tmp_path):
    folder = tmp_path / "v7" / "runpod"
    folder.mkdir(parents=True)
    (folder / "vms.csv").write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price\r\n"
        "8x_H100-SXM_SECURE,H100-SXM,8.0,128,640,H100-SXM,CA,,15.2\r\n")
    code, out, err = run("plan", "--workload", "math_rl", "--gpu-offers", str(tmp_path), "--draws", "40",
                         "--providers", "runpod", "--format", "json", "--top", "0")
    assert code == 0, err
    data = json.loads(out)
    assert {o["where"] for o in data["options"]} == {"runpod 8x_H100-SXM_SECURE × 1",
                                                     *(f"runpod 8x_H100-SXM_SECURE × {m}" for m in range(2, 9))}
    assert data["best"]["usd_per_gpu_hour"] == pytest.approx(1.9)


def test_the_command_lines_defaults_are_the_planners():
    from tinker_nomics.faces.cli import plan as verb
    assert (verb.DEFAULT_CONFIDENCE, verb.DEFAULT_MAX_GPUS, verb.DEFAULT_DRAWS) == \
        (planner.DEFAULT_CONFIDENCE, planner.DEFAULT_MAX_GPUS, planner.DEFAULT_DRAWS)


# ------------------------------------------------------------------------------- GPUs the planner cannot time

def test_gpus_the_planner_cannot_time_or_rent_are_said_not_silently_empty(peakless):
    """`--gpus` naming only GPUs without a sourced dense peak used to stop with an internal array error; a GPU no
    offer rents gave an empty table and no word. Each is now a note, the offers are dropped with their reason, and
    Tinker is still planned."""
    from tinker_nomics import sources
    no_peak = sorted(n for n, g in sources.gpus().items() if not g.bf16_dense_tflops)
    rented = {o.gpu for o in offers() if o.gpu}
    offered_no_peak = [g for g in no_peak if g in rented]
    unrented = [g for g, spec in sources.gpus().items() if spec.bf16_dense_tflops and g not in rented]
    assert offered_no_peak and unrented, "the registry no longer has such GPUs: this test checks nothing"
    p = planner.plan(Scenario.from_workload("math_rl"), workload="math_rl", deadline_hours=24,
                     gpus=[offered_no_peak[0], unrented[0]], **FAST)
    gpu_rows = p.options[p.options["gpu"] == offered_no_peak[0]]
    assert len(gpu_rows) and not gpu_rows["feasible"].any()
    assert gpu_rows["dropped_because"].str.contains("no sourced dense BF16 peak").all()
    assert p.best is not None and p.best["kind"] == "tinker"
    assert any(offered_no_peak[0] in n and "cannot be planned" in n for n in p.notes)
    assert any(unrented[0] in n and "no offer rents" in n for n in p.notes)


def test_gpus_spread_over_instances_say_so_and_lose_ties_to_one_instance():
    """Two 1-GPU instances and one 2-GPU instance at the same rate per GPU: the plan times both alike (one node's
    links: it has no figure for a provider's network between instances), ranks the single instance first and says
    of the other that its network is not modelled; a single instance carries no such caveat."""
    pair = (offer("alpha", "1x", "H100 SXM", 1, 2.5), offer("alpha", "2x", "H100 SXM", 2, 5.0))
    p = _plan(offers=pair, deadline_hours=1000.0, gpus=["H100 SXM"])
    two = p.options[(p.options["kind"] == "rented") & (p.options["num_gpus"] == 2)]
    assert len(two) == 2 and two["cost_usd_p50"].nunique() == 1
    first, second = two.iloc[0], two.iloc[1]
    assert (first["instances"], second["instances"]) == (1, 2)
    assert first["caveat"] is None or "instances" not in str(first["caveat"])
    assert second["caveat"] == planner.SEPARATE_INSTANCES.format(n=2)


def test_a_managed_service_as_the_best_option_names_no_gpus():
    """With only H20s asked for and no offer renting them, Tinker is the best option: its line has no "(—)"."""
    code, out, err = run("plan", "--workload", "math_rl", "--gpus", "H20", "--draws", "20", "--top", "3")
    assert code == 0 and err == ""
    best = next(line for line in out.splitlines() if line.startswith("Best"))
    assert best.startswith("Best          Tinker (") and "(—)" not in best
