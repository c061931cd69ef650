"""The third hostile-input sweep (2026-12-05, /work/notes/s8/cli_qa3.md): the planner's labels and flags, and names
from a user's files that change how the text around them shows.

- Finding 4: `plan` put "best" and "frontier" on every option whose `where` text matched, so a catalog listing one
  instance at several prices (one row per region) showed three "best, frontier" rows that could not be told apart.
- Finding 5: `--gpus G --gpu-hourly-usd X --spot` dropped the user's own rate while a note said it was planned.
- Finding 12: a right-to-left override or a line break in a file name reached headlines and report.html as itself.
- Finding 13: `--providers tinker --gpus B200` ignored --gpus without a word; huge times printed without digit
  grouping; `--confidence 0.0001` read "0% confidence".
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from test_hostile_counts import _cli
from tinker_nomics import fmt
from tinker_nomics.errors import TinkerNomicsError

ROOT = Path(__file__).resolve().parent.parent
RTL = "\u202e"          # RIGHT-TO-LEFT OVERRIDE: 'evil\u202egol.log' shows as 'evilgol.log' reversed
ZERO_WIDTH = "\u200b"   # ZERO WIDTH SPACE


def _catalog(tmp_path: Path, spot_prices) -> Path:
    """A SkyPilot-style catalog folder: one instance type listed once per region at different spot prices."""
    folder = tmp_path / "offers" / "prov"
    folder.mkdir(parents=True)
    rows = ["InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice"]
    rows += [f"i1,H100,1,26,200,2.49,r{i},,{p}" for i, p in enumerate(spot_prices, start=1)]
    (folder / "vms.csv").write_text("\n".join(rows) + "\n")
    return folder.parent


def test_an_instance_listed_at_several_prices_is_one_option_at_the_cheapest(tmp_path):
    prices = [1.0, 1.2, 0.9]   # the QA repro's three regions
    offers = _catalog(tmp_path, prices)
    code, out, err = _cli("plan", "--workload", "math_rl", "--draws", "20", "--gpu-offers", str(offers),
                          "--max-gpus", "2", "--spot", "--format", "json", "--top", "0")
    assert code == 0, err
    data = json.loads(out)
    rented = [o for o in data["options"] if o["kind"] == "rented"]
    assert sorted(o["where"] for o in rented) == ["prov i1 × 1 (spot)", "prov i1 × 2 (spot)"]
    assert {o["usd_per_gpu_hour"] for o in rented} == {min(prices)}
    assert {o["listed_prices"] for o in rented} == {len(prices)} and all(type(o["listed_prices"]) is int
                                                                          for o in rented)
    assert all(f"cheapest of {len(prices)} prices" in o["caveat"] and f"${max(prices):,.2f}" in o["caveat"]
               for o in rented)
    code, table, err = _cli("plan", "--workload", "math_rl", "--draws", "20", "--gpu-offers", str(offers),
                            "--max-gpus", "2", "--spot", "--top", "8")
    assert code == 0, err
    ranked = [line for line in table.splitlines() if line.split()[:1] and line.split()[0].replace(",", "").isdigit()]
    assert [line.split()[0] for line in ranked if "best" in line] == ["1"]


def test_frontier_and_best_labels_follow_the_options_themselves():
    """The frontier flag is each option's own (JSON `frontier`), and the text table labels exactly those rows."""
    code, out, err = _cli("plan", "--workload", "math_rl", "--draws", "50", "--providers", "mithril", "--format",
                          "json", "--top", "0")
    assert code == 0, err
    data = json.loads(out)
    flagged = sorted((o["cost_usd"], o["wall_hours"]) for o in data["options"] if o["frontier"])
    assert flagged == sorted((o["cost_usd"], o["wall_hours"]) for o in data["pareto"])
    assert data["options"][0] == data["best"]
    names = [o["where"] for o in data["options"]]
    assert len(names) == len(set(names)), "two options a reader cannot tell apart"


def test_the_users_own_rate_stays_planned_under_spot():
    args = ["plan", "--workload", "math_rl", "--draws", "30", "--gpus", "H100", "--gpu-hourly-usd", "0.5",
            "--format", "json", "--top", "0"]
    code, out, err = _cli(*args, "--spot")
    assert code == 0, err
    data = json.loads(out)
    given = [o for o in data["options"] if o["kind"] == "given"]
    assert given and all(o["usd_per_gpu_hour"] == 0.5 for o in given)
    assert all(o["spot"] for o in data["options"] if o["kind"] in ("rented", "managed"))
    assert not [o for o in data["options"] if o["kind"] == "managed"]   # services bill on demand


def test_gpus_and_spot_that_narrow_nothing_are_said_to():
    code, out, err = _cli("plan", "--workload", "math_rl", "--draws", "20", "--providers", "tinker", "--gpus", "B200",
                          "--spot")
    assert code == 0, err
    assert "--gpus and --spot narrow rented GPUs, and the providers named rent none" in out


def test_long_times_and_small_confidences_read_as_numbers():
    assert fmt.duration(24 * 1_234_567.0) == "1,234,567 days"
    assert fmt.duration(24 * 12.34) == "12.3 days"
    code, out, err = _cli("plan", "--workload", "math_rl", "--draws", "20", "--top", "3")
    assert code == 0, err
    tinker = next(line for line in out.splitlines() if "Tinker (" in line)
    assert tinker.split()[0].replace(",", "").isdigit() and "," in tinker.split()[0]   # 18,389 as the book writes it
    code, out, err = _cli("plan", "--workload", "math_rl", "--draws", "20", "--confidence", "0.0001", "--top", "1")
    assert code == 0, err
    assert "at 0.01% confidence" in out.splitlines()[1]


@pytest.mark.parametrize("invisible", [RTL, ZERO_WIDTH, "\u2028", "\u2066", "\ufeff"])
def test_invisible_characters_from_a_users_file_are_shown_escaped(invisible):
    name = f"evil{invisible}gol.log"
    assert invisible not in fmt.printable(name) and repr(invisible)[1:-1] in fmt.printable(name)
    assert invisible not in str(TinkerNomicsError(f"{name}: not a log"))
    assert invisible not in fmt.markdown_literal(name)


def test_a_model_config_named_with_a_line_break_or_bidi_override_heads_one_line(tmp_path):
    config = ROOT / "data" / "models" / "configs" / "google--gemma-3-12b-it.json"
    for stem in ("two\nlines<script>", f"r{RTL}lo", "t\tu"):
        path = tmp_path / f"{stem}.json"
        shutil.copy(config, path)
        code, out, err = _cli("predict", "decode", "--model-config", str(path), "--gpu", "H100", "--num-gpus", "8",
                              "--concurrency", "64", "--input-len", "500", "--output-len", "500")
        assert code == 0, err
        headline = out.splitlines()[0]
        assert headline.startswith(repr(stem)[1:-1] + " on 8 × H100"), headline
        assert RTL not in out and "\t" not in out


def test_a_bidi_override_in_a_log_name_is_escaped_in_the_report_page_and_summary(tmp_path):
    """The file name heads report.html's <title> and summary.txt (validate's text); the JSON keeps it as it is."""
    from test_reliability_round3 import write_console
    from tinker_nomics.analysis.run_report import report_page
    from tinker_nomics.faces.report_html import report_html
    from tinker_nomics.runs.ledger import check_run
    log = write_console(tmp_path / f"run{RTL}gol.log", 4)
    result = check_run(log, gpu="H100 SXM")
    summary = result.render()
    page = report_html(report_page(result), summary, {})
    assert RTL not in summary and repr(RTL)[1:-1] in summary.splitlines()[0]
    assert RTL not in page.split("</title>")[0] and repr(RTL)[1:-1] in page.split("</title>")[0]
    assert result.summary()["run"] == f"run{RTL}gol.log"   # the data keep the name as it is
