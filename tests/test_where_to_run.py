"""The "Where to run it" chapter's arithmetic (analysis/where_to_run.py), its figures, its kernel-free planner
explorer (faces/explorer.py planner_*) and its panel: the explorer's opening state is the chapter's table, value by
value; every state is precomputed; the page's script only looks values up."""
from __future__ import annotations

import json
import re

import matplotlib
import numpy as np
import pytest

from tinker_nomics import sources
from tinker_nomics.analysis import plan as planner
from tinker_nomics.analysis import where_to_run
from tinker_nomics.faces import explorer, plots

matplotlib.use("Agg")
DRAWS = 60


@pytest.fixture(scope="module")
def data():
    return explorer.planner_data(workloads=("math_rl", "harbor_rl"), draws=DRAWS)


def _chapter_table(workload: str, deadline: float, model_index: int = 0, budget=None, spot=None):
    """What the chapter's notebook shows for this state: listed_table of the explorer's own evaluation."""
    model = explorer.planner_models(workload)[model_index]
    ev = explorer.planner_evaluation(workload, model, explorer.PLANNER_DEADLINES, DRAWS, 0, "latest")
    return where_to_run.listed_table(ev.plan(deadline, budget, spot))


def test_opening_state_is_the_chapters_table_value_by_value(data):
    o = data["opening"]
    assert (o["workload"], o["model"], o["budget"], o["spot"]) == ("math_rl", 0, 0, "both")
    key = f"{o['workload']}|{o['model']}|{o['deadline']}|{o['budget']}|{o['spot']}"
    table = _chapter_table("math_rl", explorer.PLANNER_DEADLINES[o["deadline"]])
    assert data["columns"] == list(table.columns)
    assert explorer.planner_rows(data, key) == table.astype(str).values.tolist()


@pytest.mark.parametrize("state", ["harbor_rl|1|0|1|demand", "math_rl|1|4|2|both", "harbor_rl|0|1|0|both"])
def test_other_states_are_their_plans(data, state):
    w, mi, j, k, sid = state.split("|")
    spot = dict((s, v) for s, v, _ in explorer.PLANNER_SPOTS)[sid]
    table = _chapter_table(w, explorer.PLANNER_DEADLINES[int(j)], int(mi), explorer.PLANNER_BUDGETS[int(k)], spot)
    assert explorer.planner_rows(data, state) == table.astype(str).values.tolist()


def test_every_state_is_there_and_points_at_its_options(data):
    n = len(data["workloads"]) * 2 * len(explorer.PLANNER_DEADLINES) * len(explorer.PLANNER_BUDGETS) * \
        len(explorer.PLANNER_SPOTS)
    assert len(data["states"]) == n
    for key, state in data["states"].items():
        w, mi = key.split("|")[:2]
        options = data["plots"][f"{w}|{mi}"]["options"]
        assert state["rows"] and state["best"]
        assert all(0 <= row[0] < len(options) for row in state["rows"])
    for plot in data["plots"].values():
        for option in plot["options"]:
            assert all(v is None or -0.01 <= v <= 1.01 for v in option[5:])
        assert all(0 <= i < len(plot["options"]) for ids in plot["frontier"].values() for i in ids)
        assert [t[0] for t in plot["x_ticks"]] == sorted(t[0] for t in plot["x_ticks"])


def test_the_70b_state_says_tinker_does_not_offer_it(data):
    rows = explorer.planner_rows(data, "math_rl|1|3|0|both")
    tinker = [r for r in rows if r[1].startswith("Tinker")]
    assert tinker and tinker[0][-1].startswith("not offered")


def test_the_page_carries_the_data_and_the_script(data):
    fragment = explorer._fragment("planner", data, "Where to run it, explorable")
    body = re.search(r'class="tn-data">(.*?)</script>', fragment, re.S).group(1)
    assert "</" not in body and json.loads(body)["columns"] == data["columns"]
    js = explorer.SCRIPT.read_text()
    assert 'kindName === "planner"' in js and "function planner(root, data)" in js


def test_best_table_and_sweep_agree_with_the_plans():
    evals = where_to_run.evaluations(("math_rl",), deadlines=(24.0, 168.0), draws=DRAWS)
    table = where_to_run.best_table(evals, (24.0, 168.0))
    for row in table.to_dict("records"):
        p = evals["math_rl"].plan(row["deadline_hours"])
        assert row["best_cost_usd"] == p.best["cost_usd"]
        assert row["tinker_cost_usd"] == p.options[p.options["kind"] == "tinker"].iloc[0]["cost_usd"]
    ratio = where_to_run.versus_tinker(table)
    assert np.allclose(ratio, table["tinker_cost_usd"] / table["best_cost_usd"])
    sweep = where_to_run.deadline_sweep(evals, (24.0, 168.0))
    assert sweep["best_cost_usd"].tolist() == table["best_cost_usd"].tolist()


def test_sizing_and_its_table():
    from tinker_nomics import Scenario
    frame = planner.sizing(Scenario.from_workload("math_rl", model="Qwen2.5-7B"), "H20", workload="math_rl",
                           max_gpus=6, deadlines=(24.0,), draws=DRAWS)
    fit = where_to_run.fewest_that_fit(frame)
    assert fit == int(frame["fitting_gpus"].iloc[0]) and not frame["feasible"].iloc[:fit - 1].any()
    text = where_to_run.sizing_table(frame)
    assert text["holds the model"].tolist() == ["no"] * (fit - 1) + ["yes"] * (6 - fit + 1)
    on_time = where_to_run.fewest_on_time(frame)
    assert on_time is None or frame.loc[frame["num_gpus"] == on_time, "p_meets@0"].iloc[0] >= 0.8


def test_counts_and_tables_of_the_sources(peakless):
    counts = where_to_run.catalog_counts()
    assert counts["offers"] == counts["mapped"] + counts["unmapped"] and counts["providers"] == 12
    assert counts["suspect"] == 4 and counts["recorded"] == ["2026-12-02"]
    summary = where_to_run.offer_summary()
    assert summary["offers"].sum() == counts["mapped"] - counts["suspect"]
    # a GPU the registry has no peak for is listed, and said not to be planned (the planner drops its offers)
    unplanned = {g for g, row in summary.iterrows() if row["planned"] != "yes"}
    assert unplanned == {g for g in summary.index if not sources.get_gpu(g).bf16_dense_tflops} and unplanned
    services = where_to_run.services_table()
    assert "Fireworks dedicated trainers" in set(services["service"])


def test_figures_draw():
    evals = where_to_run.evaluations(("math_rl",), deadlines=(24.0, 168.0), draws=DRAWS)
    p = evals["math_rl"].plan(168.0)
    fig = plots.pareto(p, title="math_rl")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "frontier" in labels and "Tinker (per token)" in labels and "best" in labels
    fig = plots.best_by_deadline(where_to_run.deadline_sweep(evals, (24.0, 168.0)))
    assert fig.axes[0].get_xlabel() == "deadline"


def test_panel_redraws():
    pytest.importorskip("ipywidgets")
    from tinker_nomics.faces.widgets import PlannerPanel
    panel = PlannerPanel("math_rl", draws=DRAWS)
    first = panel.summary.value
    assert "Best:" in first
    panel.deadline.value = 12.0
    panel.spot.value = False
    assert panel.plan().options["spot"].sum() == 0
    panel.workload.value = "harbor_rl"
    assert panel.model.options == tuple(explorer.planner_models("harbor_rl"))
    assert "Tinker" in panel.summary.value


def test_panel_figure_stays_small():
    """The rented offers are thousands of markers; drawn one SVG element each, the panel's figure was 2.4 MB, and
    papermill (nbclient) waited out its whole timeout on the chapter's panel cell (a 318 s book build). The cloud is
    drawn as one image inside the SVG instead; the text stays text."""
    pytest.importorskip("ipywidgets")
    from tinker_nomics.faces.widgets import PlannerPanel
    panel = PlannerPanel("math_rl", draws=DRAWS)
    svg = panel.out.outputs[-1]["data"]["image/svg+xml"] if panel.out.outputs else None
    if svg is None:     # outside a kernel the Output widget keeps nothing: draw the same figure the redraw draws
        import io
        fig = plots.pareto(panel.plan())
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg")
        svg = buffer.getvalue()
    assert len(svg) < 400_000
    assert "<image" in svg


def test_two_costs_the_prose_compares_never_print_as_one_figure():
    """Two different costs that round to the same whole dollars get their cents (osworld_rl's best option and Tinker
    were $2,399 each in the chapter's prose); the same cost, or costs that already differ, print as before."""
    a, b = {"cost_usd": 2399.2}, {"cost_usd": 2398.9}
    assert (where_to_run.cost_text(a, beside=b), where_to_run.cost_text(b, beside=a)) == ("$2,399.20", "$2,398.90")
    assert where_to_run.cost_text(a, beside=a) == where_to_run.cost_text(a) == "$2,399"
    assert where_to_run.cost_text(a, beside={"cost_usd": 3100.0}) == "$2,399"
    assert where_to_run.cost_text(None, beside=a) == "—"


def test_a_resold_machine_is_named_by_its_upstream_cloud_not_its_catalog_key():
    """Book review 2026-12-05 (finding 20): the options table read 'primeintellect runpod__5xA5000_24GB__40__145 × 1'.
    Every Prime Intellect key in the bundled catalog (sources/offers) is spelled out, its numbers those of the
    catalog row's vCPUs and MemoryGiB columns; other providers' instance types are left as the catalog names them."""
    from tinker_nomics.sources.offers import offers
    resold = [o for o in offers() if o.provider == "primeintellect"]
    assert resold
    for o in resold:
        text = where_to_run.where_text({"where": f"{o.provider} {o.instance_type} × 1", "instance_type": o.instance_type})
        upstream, *_, cpus, ram = o.instance_type.split("__")
        assert text == f"primeintellect via {upstream} ({cpus} vCPUs, {ram} GiB RAM) × 1", text
    other = next(o for o in offers() if o.provider == "lambda")
    row = {"where": f"lambda {other.instance_type} × 1", "instance_type": other.instance_type}
    assert where_to_run.where_text(row) == row["where"]


def test_the_chapters_labels_follow_the_options_not_their_names():
    """QA s8 #4: the chapter's table marked "best" and "frontier" on every row whose `where` text matched the best or
    a frontier option's; each label is now the option's own (the ranking's first row, the option's frontier flag),
    and an offer the catalog lists at several prices says it is the cheapest of them."""
    from tinker_nomics.analysis import plan as planner
    model = explorer.planner_models("math_rl")[0]
    ev = explorer.planner_evaluation("math_rl", model, explorer.PLANNER_DEADLINES, DRAWS, 0, "latest")
    p = ev.plan(168)
    table = where_to_run.listed_table(p, top=40)
    shown = planner.listed(p.options, 40)
    notes = table["note"].tolist()
    assert [i for i, n in enumerate(notes) if "best" in n.split("; ")] == ([0] if p.best is not None else [])
    assert ["frontier" in n.split("; ") for n in notes] == [bool(f) for f in shown["frontier"]]
    several = [bool(x == x and x > 1) for x in shown["listed_prices"]]
    assert ["listed prices" in n for n in notes] == several
