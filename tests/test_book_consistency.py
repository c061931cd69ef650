"""One answer, one voice (issue 20), read from the built book: every chapter states its bills, factors and verdicts
through faces.headlines, which glues what it said under `headlines`; this test reads every chapter's glue from the
executed notebooks (_build/jupyter_execute/**/*.glue.json, written by `make book`; faces.headlines glues each record
under `headline_<key>`) and fails when

- two pages state a different bill, factor or verdict for the same workload, method and price list;
- a page's prose says something other than its record (the record names the prose values it set);
- a verdict of the default method is stated without its share of draws, or a close call as a winner;
- a chapter does not name its method and price list (`method_line`, set through faces.wording.method_line);

and, for each kernel-free explorer, that at its opening state it shows what the table or figure beside it shows,
value by value (the explorer's embedded grid against the table in the same executed notebook).
"""
from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import JUPYTER_CACHE, REPO, toc_documents
from tinker_nomics.faces import wording
from tinker_nomics.faces.headlines import GLUE_PREFIX
from tinker_nomics.model.scenario import DEFAULT_METHOD

pytestmark = pytest.mark.slow

EXECUTED = REPO / "_build" / "jupyter_execute"
CHAPTERS = [d for d in toc_documents() if d.suffix == ".ipynb"]


def _glue(document: Path) -> dict[str, str]:
    path = EXECUTED / document.relative_to(REPO).with_suffix(".glue.json")
    assert path.is_file(), f"{path.relative_to(REPO)} is missing: build the book first (make book)"
    out = {}
    for name, output in json.loads(path.read_text()).items():
        data = output.get("data", {})
        text = next((v for k, v in data.items() if k.endswith("text/plain")), "")
        out[name] = "".join(text) if isinstance(text, list) else text
    return out


def _executed(name: str) -> dict:
    """A chapter with the outputs of its execution in the book's jupyter-cache (what the built page shows)."""
    import nbformat
    from jupyter_cache import get_cache

    source = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
    _, merged = get_cache(str(JUPYTER_CACHE)).merge_match_into_notebook(source)
    return json.loads(nbformat.writes(merged))


@pytest.fixture(scope="module")
def glued(built_site):
    return {d.relative_to(REPO).as_posix(): _glue(d) for d in CHAPTERS}


@pytest.fixture(scope="module")
def records(glued):
    found = []
    for page, values in glued.items():
        for name, value in values.items():
            if name.startswith(GLUE_PREFIX):
                found.append({**json.loads(value), "page": page})
    return found


def test_every_chapter_names_its_method_and_price_list(glued):
    for page, values in glued.items():
        line = values.get("method_line", "")
        assert line.startswith("Method: ") and "Tinker prices: " in line, f"{page}: no method line ({line!r})"


def test_the_headline_chapters_record_what_they_state(records):
    pages = {r["page"] for r in records}
    for page in ("book/intro.ipynb", "notebooks/takeaway.ipynb", "notebooks/uncertainty.ipynb",
                 "notebooks/prices_over_time.ipynb", "notebooks/cost_model.ipynb"):
        assert page in pages, f"{page} records no headline"


def disagreements(records) -> list[str]:
    """Every field two records of the same workload, method and price list state differently."""
    groups = defaultdict(list)
    for r in records:
        groups[(r["workload"], r["method"], r["prices"])].append(r)
    found = []
    for key, group in groups.items():
        for field in ("tinker", "self_hosted", "cheaper", "factor", "share", "close", "days", "tinker_days",
                      "tinker_spread", "self_hosted_spread"):
            stated = {(r["page"], r[field]) for r in group if r.get(field) is not None}
            if len({value for _, value in stated}) > 1:
                found.append(f"{key} {field}: " + ", ".join(f"{p} says {v!r}" for p, v in sorted(stated)))
    return found


def test_the_check_finds_a_planted_disagreement():
    # The issue's own example: harbor_rl "Tinker 5.3× cheaper" on one page, "self-hosted 1.1× cheaper" on another.
    base = {"workload": "harbor_rl", "method": "calibrated", "prices": "2026-10-07", "names": {}}
    planted = [{**base, "page": "takeaway", "cheaper": "tinker", "factor": "5.3×", "tinker": "$1,346"},
               {**base, "page": "prices_over_time", "cheaper": "self_hosted", "factor": "1.1×", "tinker": "$1,346"},
               {**base, "page": "intro", "prices": "2026-01-05", "cheaper": "self_hosted", "factor": "1.1×"}]
    found = disagreements(planted)
    assert len(found) == 2 and all("2026-10-07" in f for f in found)
    assert any(f.endswith("prices_over_time says 'self_hosted', takeaway says 'tinker'") for f in found)


def test_no_two_pages_state_a_different_bill_factor_or_verdict(records):
    found = disagreements(records)
    assert not found, "\n".join(found)


def test_a_page_says_what_it_recorded(records, glued):
    wrong = []
    for r in records:
        for field, name in r["names"].items():
            said = glued[r["page"]].get(name)
            recorded = r.get({"hosted": "self_hosted", "hosted_spread": "self_hosted_spread"}.get(field, field))
            if field == "verdict":
                recorded = r["factor"]            # the sentence carries the factor
            if said is None or recorded is None or recorded not in said:
                wrong.append(f"{r['page']}: {name} = {said!r}, the record says {recorded!r}")
    assert not wrong, "\n".join(wrong)


def test_default_method_verdicts_carry_their_draws_and_close_calls_say_so(records, glued):
    problems = []
    for r in records:
        if r["method"] != DEFAULT_METHOD or "cheaper" not in r:
            continue
        if r.get("share") is None:
            problems.append(f"{r['page']}: {r['workload']} at {r['prices']} states a verdict with no share of draws")
        name = r["names"].get("verdict")
        if name and r["close"] and "close call" not in glued[r["page"]][name]:
            problems.append(f"{r['page']}: {r['workload']} is a close call but reads {glued[r['page']][name]!r}")
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------- explorers against their tables


def _outputs_html(notebook: dict) -> list[str]:
    out = []
    for cell in notebook["cells"]:
        for o in cell.get("outputs", []):
            text = o.get("data", {}).get("text/html")
            if text:
                out.append("".join(text) if isinstance(text, list) else text)
    return out


def _explorer(notebook: dict, kind: str) -> dict:
    for chunk in _outputs_html(notebook):
        if f'data-kind="{kind}"' in chunk:
            return json.loads(re.search(r'class="tn-data">(.*?)</script>', chunk, re.S).group(1))
    raise AssertionError(f"no {kind} explorer in the executed notebook")


def _table(notebook: dict, caption_start: str) -> list[dict]:
    """The rows of the book table whose caption starts with `caption_start`, as {header: cell text}."""
    for chunk in _outputs_html(notebook):
        caption = re.search(r'<p class="tn-table-caption">(.*?)</p>', chunk, re.S)
        if caption and html.unescape(caption.group(1)).startswith(caption_start):
            strip = lambda cell: html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()   # noqa: E731
            head = [strip(c) for c in re.findall(r"<th[^>]*scope=\"col\"[^>]*>(.*?)</th>", chunk, re.S)]
            rows = []
            for row in re.findall(r"<tbody>(.*?)</tbody>", chunk, re.S)[0].split("</tr>")[:-1]:
                cells = [strip(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
                rows.append(dict(zip(head, cells)))
            return rows
    raise AssertionError(f"no table captioned {caption_start!r}")


def _at_start(data: dict, workload: str, snapshot: str) -> tuple[str, str, str]:
    """(Tinker, self-hosted, verdict) as the explorer prints them at the workload's own values."""
    start = data["meta"][workload]["start"]
    hosted = data["hosted"][workload]["total"][start["offer"]][start["efficiency"]][start["mfu"]]
    return (wording.money(data["tinker"][f"{workload}|{snapshot}"]["total"]), wording.money(hosted),
            data["meta"][workload]["answers"].get(snapshot, ""))


def test_the_takeaway_explorer_opens_on_the_takeaway_table(built_site, glued):
    notebook = _executed("takeaway")
    data = _explorer(notebook, "takeaway")
    newest = data["snapshots"][0]["id"]
    rows = _table(notebook, "The default method's answer")
    assert data["start"] == (rows[0].get("workload") or rows[0].get(""))      # it opens on the first row
    values = glued["notebooks/takeaway.ipynb"]
    for row in rows:
        workload = row.get("workload") or row[""]
        tinker, hosted, said = _at_start(data, workload, newest)
        assert row["Tinker (P10–P90)"].startswith(tinker + " ("), (workload, row, tinker)
        assert row["self-hosted (P10–P90)"].startswith(hosted + " ("), (workload, row, hosted)
        assert said.lower() == values[f"{workload}_verdict"].lower(), (workload, said)
        assert row["verdict"] == wording.verdict_cell(_verdict_of(said, row["verdict"])), (workload, row["verdict"])
        # and both wall-clocks, as the explorer prints them at the workload's own values
        start = data["meta"][workload]["start"]
        tinker_days = wording.day_count(data["tinker"][f"{workload}|{newest}"]["days"])
        hosted_days = wording.day_count(data["hosted"][workload]["days"][start["efficiency"]][start["mfu"]])
        assert row[wording.TINKER_DAYS].startswith(tinker_days + " ("), (workload, row, tinker_days)
        assert row[wording.SELF_HOSTED_DAYS].startswith(hosted_days + " ("), (workload, row, hosted_days)


def _verdict_of(sentence: str, cell: str):
    """The verdict a sentence states, rebuilt to word its table cell (side, factor and whether it is close)."""
    from tinker_nomics.analysis.verdict import Verdict
    close = sentence.lower().startswith("a close call")
    side = "tinker" if re.search(r"(call: )?Tinker is", sentence) else "self_hosted"
    times = re.search(r"([\d.]+)×", sentence)   # '3.3×', or a margin that would read 1.0×: '3.5% cheaper'
    factor = float(times.group(1)) if times else 1 + float(re.search(r"([\d.]+)% cheaper", sentence).group(1)) / 100
    p = float(re.search(r"(\d+)% of draws", sentence).group(1)) / 100 if close else None
    return Verdict(side, factor, p_tinker=(p if side == "tinker" else 1 - p) if close else None)


def test_the_prices_over_time_explorer_shows_its_table(built_site):
    notebook = _executed("prices_over_time")
    data = _explorer(notebook, "takeaway")
    rows = _table(notebook, "The default method's answer at")
    assert rows, "no verdict table"
    for row in rows:
        workload, snapshot = row["workload · prices"].split(" · ")
        tinker, hosted, said = _at_start(data, workload, snapshot)
        assert row["Tinker"] == tinker and row["self-hosted"] == hosted, (row, tinker, hosted)
        assert row["verdict"] == wording.verdict_cell(_verdict_of(said, row["verdict"])), (row, said)


def test_the_break_even_explorer_opens_on_the_first_map(built_site, glued):
    from tinker_nomics import fmt
    from tinker_nomics.analysis import breakeven
    data = _explorer(_executed("break_even"), "breakeven")
    start = data["start"]
    assert (start["workload"], start["snapshot"], start["map"]) == ("math_rl", data["snapshots"][-1], "length_group")
    shown = data["maps"][start["snapshot"]][start["workload"]][start["map"]]
    m = breakeven.length_group_map(start["workload"], snapshot=start["snapshot"])
    assert shown["x"] and len(shown["x"]) == m.x.size and len(shown["y"]) == m.y.size       # the figure's grid
    assert fmt.pct(shown["tinker_share"], 0) == glued["notebooks/break_even.ipynb"]["math_rl_share"]
