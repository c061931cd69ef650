"""The kernel-free explorers (tinker_nomics.faces.explorer): the page carries the package's numbers, and the
JavaScript only looks them up (no CDN, no cost formula, nothing that clashes with Sphinx's globals)."""

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from tinker_nomics import Scenario, estimate
from tinker_nomics.analysis import breakeven, timeline
from tinker_nomics.faces import explorer

JS = explorer.SCRIPT.read_text()


def payload(fragment: str) -> dict:
    match = re.search(r'<script type="application/json" class="tn-data">(.*?)</script>', fragment, re.S)
    assert match, "no embedded JSON block"
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def takeaway():
    return payload(explorer.takeaway_html())


@pytest.fixture(scope="module")
def maps():
    return payload(explorer.breakeven_html())


def test_takeaway_grid_holds_the_timeline(takeaway):
    """At each workload's own slider values the grid holds the default method's answer at every dated list (issue
    20: the explorer shows what the tables beside it show), and the self-hosted side runs the workload's model."""
    table = timeline.verdicts()
    assert [s["id"] for s in takeaway["snapshots"]] == timeline.dated_snapshots()[::-1]   # newest first
    assert takeaway["start"] == takeaway["workloads"][0]
    for row in table.itertuples():
        t = takeaway["tinker"][f"{row.workload}|{row.snapshot}"]
        assert t["total"] == pytest.approx(row.tinker_usd, rel=1e-7)
        assert t["model"] == row.model and t["successor"] == bool(row.successor)
        h = takeaway["hosted"][row.workload]
        assert h["model"] == row.preset_model
        start = takeaway["meta"][row.workload]["start"]
        assert h["total"][start["offer"]][start["efficiency"]][start["mfu"]] == pytest.approx(row.self_hosted_usd,
                                                                                              rel=1e-7)
        assert len(h["total"]) == len(takeaway["offers"])


def test_takeaway_grid_prints_the_answer_with_its_share_of_draws(takeaway):
    """At its own values a workload prints the page's verdict sentence (close calls as close calls)."""
    from tinker_nomics.analysis.bottom_line import answers
    from tinker_nomics.faces import wording
    newest = takeaway["snapshots"][0]["id"]
    for a in answers(takeaway["workloads"], prices=newest):
        assert takeaway["meta"][a.workload]["answers"][newest] == wording.verdict(a.verdict, capital=True)


def test_a_slider_is_disabled_exactly_where_it_cannot_move_the_bill(takeaway):
    """A slider is disabled exactly where the grid shows it cannot move the bill. Under the default method a
    colocated step's phases add up (harbor_rl needs all 93 GPUs for one copy of its trainer, so it cannot split
    them), so both its sliders always matter, and so do math_rl's, whose 8 GPUs split or take turns as is faster
    at each grid point. (The greyed path: tests/test_verdicts.py, a control that cannot move the result.)"""
    for name, h in takeaway["hosted"].items():
        total = np.asarray(h["total"], dtype=float)
        for k, matters in enumerate(h["efficiency_matters"]):      # at every GPU offer alike
            assert matters == bool(np.all(np.ptp(total[:, :, k], axis=1) > 1e-6 * total[:, 0, k]))
        for j, matters in enumerate(h["mfu_matters"]):
            assert matters == bool(np.all(np.ptp(total[:, j, :], axis=1) > 1e-6 * total[:, j, 0]))
    for name in ("harbor_rl", "math_rl"):
        assert all(takeaway["hosted"][name]["mfu_matters"]) and all(takeaway["hosted"][name]["efficiency_matters"])


def test_offers_are_the_sourced_prices(takeaway):
    from tinker_nomics import sources
    listed = sorted(p.usd_per_gpu_hour for p in sources.gpu_prices() if p.gpu == "H100 SXM")
    assert [o["usd"] for o in takeaway["offers"]] == listed


def test_map_grid_holds_the_maps(maps):
    snaps = timeline.dated_snapshots()
    assert maps["snapshots"] == [snaps[0], snaps[-1]]
    m = breakeven.length_group_map("osworld_rl", snapshot=snaps[-1])
    page = maps["maps"][snaps[-1]]["osworld_rl"]["length_group"]
    assert np.allclose(page["ratio"], m.ratio, rtol=5e-3)   # 3 significant digits
    assert len(page["boundary"]) == len(m.boundary())
    assert "turns_model" in maps["maps"][snaps[-1]]["swe_rl"] and "turns_model" not in maps["maps"][snaps[-1]]["math_rl"]
    assert len(maps["palette"]) == 256 and all(0 <= c <= 255 for row in page["color"] for c in row)


def test_script_is_self_contained():
    urls = set(re.findall(r"https?://[^\s\"')]+", JS))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls          # a namespace, never fetched
    assert "import " not in JS and "require(" not in JS and "fetch(" not in JS
    # Sphinx defines a global `_`; the script must not declare or assign one.
    assert not re.search(r"(var|let|const)\s+_\b|\b_\s*=[^=]", JS)
    assert JS.lstrip().startswith("/*") and "(function () {" in JS and JS.rstrip().endswith("})();")


def test_fragment_escapes_the_json(maps):
    fragment = explorer.takeaway_html()
    body = re.search(r'class="tn-data">(.*?)</script>', fragment, re.S).group(1)
    assert "</" not in body


def test_script_parses():
    # node comes with npm, which `make install` needs to vendor the book's JavaScript (tools/vendor_js.sh)
    assert shutil.which("node"), "node is missing: install Node.js (npm) as .ci/run does"
    subprocess.run(["node", "--check", str(explorer.SCRIPT)], check=True)


def test_the_sliders_start_at_each_workloads_own_values():
    """Under the calibrated method the sliders start at the fitted decode bandwidth efficiency
    (data/calibration/parameters.csv) and the MFU the update achieves on each workload's own model, never the
    successor's; under the seed method at the preset's."""
    from tinker_nomics.sources.calibration import parameters
    for method in ("calibrated", "seed"):
        data = payload(explorer.takeaway_html(method=method))
        assert data["method"] == method
        for name in data["workloads"]:
            start = data["meta"][name]["start"]
            preset = Scenario.from_workload(name, method=method).resolved()
            if method == "calibrated":
                assert data["efficiencies"][start["efficiency"]] == pytest.approx(
                    parameters().decode_bandwidth_efficiency, rel=1e-9)
                achieved = estimate(preset).self_hosted.train_mfu
                assert data["mfus"][start["mfu"]] == pytest.approx(float(np.max(achieved)), rel=1e-9)
                assert 0 < data["mfus"][start["mfu"]] < 1
            else:
                assert data["efficiencies"][start["efficiency"]] == pytest.approx(float(preset.rollout_efficiency))
                assert data["mfus"][start["mfu"]] == pytest.approx(float(preset.mfu))
            assert data["offers"][start["offer"]]["usd"] == pytest.approx(float(preset.gpu_hourly_usd))


def test_calibrated_grid_at_the_start_holds_the_calibrated_verdicts():
    """At the sliders' start the grid must print what the takeaway table prints (timeline.verdicts, calibrated
    method, newest list): the explorer never disagrees with the table beside it."""
    data = payload(explorer.takeaway_html(method="calibrated"))
    newest = data["snapshots"][0]["id"]
    for row in timeline.verdicts(method="calibrated").itertuples():
        if row.snapshot != newest:
            continue
        start = data["meta"][row.workload]["start"]
        assert data["tinker"][f"{row.workload}|{row.snapshot}"]["total"] == pytest.approx(row.tinker_usd, rel=1e-6)
        hosted = data["hosted"][row.workload]["total"][start["offer"]][start["efficiency"]][start["mfu"]]
        assert hosted == pytest.approx(row.self_hosted_usd, rel=1e-6)


def test_the_explorers_wallclocks_are_the_tables(takeaway):
    """At each workload's own values and the newest list, the explorer prints both wall-clocks as the verdict table
    beside it does (faces.wording.answer_rows): Tinker's from its step-time fit, the self-hosted one from the model;
    and the basis it names is the table's."""
    from tinker_nomics.analysis.bottom_line import answers
    from tinker_nomics.faces import wording
    newest = takeaway["snapshots"][0]["id"]
    answered = answers(takeaway["workloads"], prices=newest)
    assert {a.workload for a in answered} == set(takeaway["workloads"])
    for a, row in zip(answered, wording.answer_rows(answered)):
        start = takeaway["meta"][a.workload]["start"]
        tinker_days = takeaway["tinker"][f"{a.workload}|{newest}"]["days"]
        hosted_days = takeaway["hosted"][a.workload]["days"][start["efficiency"]][start["mfu"]]
        assert row[wording.TINKER_DAYS].startswith(wording.day_count(tinker_days) + " ("), (a.workload, tinker_days)
        assert row[wording.SELF_HOSTED_DAYS].startswith(wording.day_count(hosted_days) + " ("), \
            (a.workload, hosted_days)
        assert tinker_days == pytest.approx(a.tinker_days, rel=1e-7)
    assert takeaway["tinker_wallclock_basis"] == wording.tinker_wallclock_basis()
    assert "data.tinker_wallclock_basis" in JS and "days(t.days)" in JS
