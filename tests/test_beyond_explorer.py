"""The kernel-free explorers (tinker_nomics.faces.explorer): the page carries the package's numbers, and the
JavaScript only looks them up (no CDN, no cost formula, nothing that clashes with Sphinx's globals)."""

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

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
    table = timeline.verdicts()
    assert [s["id"] for s in takeaway["snapshots"]] == timeline.dated_snapshots()
    for row in table.itertuples():
        t = takeaway["tinker"][f"{row.workload}|{row.snapshot}"]
        assert t["total"] == pytest.approx(row.tinker_usd, rel=1e-3)
        assert t["model"] == row.model and t["successor"] == bool(row.successor)
        h = takeaway["hosted"][f"{row.workload}|{row.model}"]
        offers = [o["usd"] for o in takeaway["offers"]]
        i = next(k for k, o in enumerate(takeaway["offers"]) if o["usd"] == 2.69 and o["default"])
        j, k = takeaway["efficiencies"].index(0.7), takeaway["mfus"].index(0.1)
        assert h["total"][i][j][k] == pytest.approx(row.self_hosted_usd, rel=1e-3)
        assert len(h["total"]) == len(offers)


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


def test_calibrated_grid_starts_at_the_fitted_values_and_holds_the_calibrated_verdicts():
    """The takeaway chapter's own explorer (issue 12): the calibrated method's bills, with the sliders starting at
    the fitted decode bandwidth efficiency (data/calibration/parameters.csv) and the update's achieved MFU, where
    the grid must reproduce timeline.verdicts under the calibrated method."""
    from tinker_nomics.sources.calibration import parameters
    data = payload(explorer.takeaway_html(method="calibrated"))
    assert data["method"] == "calibrated"
    for row in timeline.verdicts(method="calibrated").itertuples():
        preset = data["meta"][row.workload]["preset"]
        assert preset["rollout_efficiency"] == pytest.approx(parameters().decode_bandwidth_efficiency, rel=1e-9)
        assert 0 < preset["mfu"] < 1
        assert data["tinker"][f"{row.workload}|{row.snapshot}"]["total"] == pytest.approx(row.tinker_usd, rel=1e-3)
        i = next(k for k, o in enumerate(data["offers"]) if o["usd"] == preset["gpu_hourly_usd"] and o["default"])
        j, k = data["efficiencies"].index(preset["rollout_efficiency"]), data["mfus"].index(preset["mfu"])
        h = data["hosted"][f"{row.workload}|{row.model}"]["total"][i][j][k]
        assert h == pytest.approx(row.self_hosted_usd, rel=1e-3)   # the grid keeps 4 significant digits
