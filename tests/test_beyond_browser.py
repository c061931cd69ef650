"""The kernel-free explorers in the built book, in headless Chromium with the network limited to this
machine: moving a control redraws the chart from the embedded grid, with no request leaving 127.0.0.1 and
no JavaScript error. The site server and the browser are the session fixtures in tests/conftest.py (shared
with tests/test_book_site.py, which also checks these pages render offline); the site is (re)built first
when a source is newer."""

from __future__ import annotations

import json
import re

import pytest

from tinker_nomics.analysis import timeline
from tinker_nomics.sources import newest_snapshot

from test_book_site import KNOWN_PAGE_ERRORS, _is_local

pytestmark = pytest.mark.slow


@pytest.fixture()
def page(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.outside, tab.errors = [], []
    tab.on("request", lambda request: None if _is_local(request.url) else tab.outside.append(request.url))
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.site = site_url
    yield tab
    context.close()


def _clean(page):
    assert not page.outside, f"requests left this machine: {page.outside}"
    unexpected = [e for e in page.errors if not any(known in e for known in KNOWN_PAGE_ERRORS)]
    assert not unexpected, f"JavaScript errors: {unexpected}"


def test_takeaway_explorer_redraws(page):
    """The prices-over-time explorer opens on the default method's answer for math_rl at the newest list (the
    takeaway's row, with its share of draws), and moving the GPU offer redraws the self-hosted bar."""
    from tinker_nomics.analysis.bottom_line import answers
    from tinker_nomics.faces import wording
    page.goto(f"{page.site}/notebooks/prices_over_time.html", wait_until="load")
    root = page.locator('.tn-explorer[data-kind="takeaway"]')
    root.locator("svg rect").first.wait_for(timeout=20_000)
    hosted = root.locator('[data-role="hosted-total"]')
    verdict = root.locator('[data-role="verdict"]')
    math = answers(["math_rl"], prices=newest_snapshot())[0]
    assert hosted.text_content() == wording.money(math.row.self_hosted_usd)
    assert verdict.text_content().startswith(wording.verdict(math.verdict, capital=True))

    before_width = root.locator('rect[data-part="GPU time"]').get_attribute("width")
    offer = root.locator('input[data-control="offer"]')
    offer.fill(str(int(offer.get_attribute("max"))))   # the dearest sourced H100 offer
    assert hosted.text_content() != wording.money(math.row.self_hosted_usd)
    assert root.locator('rect[data-part="GPU time"]').get_attribute("width") != before_width
    assert "point estimate" in verdict.text_content()   # off the workload's own values: no share of draws

    root.locator('select[data-control="workload"]').select_option("osworld_rl")
    assert "Qwen3-8B" in root.locator('[data-role="note"]').text_content()
    assert "cached prefill" in root.locator('[data-role="note"]').text_content()
    _clean(page)


def test_takeaway_chapter_has_its_own_explorer_that_resets_to_each_workload(page):
    """Issue 20: the takeaway's explorer opens on the table's row, runs the self-hosted side on the workload's own
    model, resets every slider to the chosen workload's values, and greys a slider that cannot move the bill."""
    from tinker_nomics.analysis.bottom_line import answers
    from tinker_nomics.faces import explorer, wording
    page.goto(f"{page.site}/notebooks/takeaway.html", wait_until="load")
    root = page.locator('.tn-explorer[data-kind="takeaway"]')
    root.locator("svg rect").first.wait_for(timeout=20_000)
    hosted = root.locator('[data-role="hosted-total"]')
    rows = {a.workload: a for a in answers(prices=newest_snapshot())}
    assert hosted.text_content() == wording.money(rows["math_rl"].row.self_hosted_usd)
    note = root.locator('[data-role="note"]')
    assert timeline.snapshots()[newest_snapshot()] in note.text_content()     # the note names the list it prices
    older = timeline.dated_snapshots()[-2]
    root.locator('select[data-control="snapshot"]').select_option(older)
    assert timeline.snapshots()[older] in note.text_content()                 # moving the list always shows
    root.locator('select[data-control="snapshot"]').select_option(newest_snapshot())
    efficiency = root.locator('input[data-control="efficiency"]')
    efficiency.fill("0")                                                        # away from math_rl's own value
    root.locator('select[data-control="workload"]').select_option("swe_rl")
    assert hosted.text_content() == wording.money(rows["swe_rl"].row.self_hosted_usd)   # reset to swe_rl's values
    assert "Qwen3-32B" in root.locator('[data-role="wallclock"]').text_content()         # its own model
    clock = root.locator('[data-role="wallclock"]').text_content()
    assert f"self-hosted {wording.days(rows['swe_rl'].self_hosted_days)} on " in clock
    assert f"Tinker {wording.days(rows['swe_rl'].tinker_days)} ({wording.tinker_wallclock_basis()})" in clock
    # every preset's MFU moves its bill under the default model (a colocated step's phases add up), so the greying is
    # shown on a copy of the page whose grid says swe_rl's MFU cannot (as it cannot where generation on its own GPUs
    # sets the pace: tests/test_verdicts.py)
    grid = explorer.takeaway_data()
    assert all(all(grid["hosted"][w]["mfu_matters"]) for w in grid["workloads"])
    mfu = root.locator('input[data-control="mfu"]')
    assert not mfu.is_disabled()
    _clean(page)
    url = f"{page.site}/notebooks/takeaway.html"

    def paced_copy(route):
        body = route.fetch().text()

        def patch(match):
            data = json.loads(match.group(2))
            if "mfus" in data and "hosted" in data:
                data["hosted"]["swe_rl"]["mfu_matters"] = [False] * len(data["hosted"]["swe_rl"]["mfu_matters"])
            text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\u002f")
            return match.group(1) + text + "</script>"

        route.fulfill(body=re.sub(r'(<script type="application/json" class="tn-data">)(.*?)</script>', patch, body,
                                  flags=re.S), content_type="text/html; charset=utf-8")

    page.route(url, paced_copy)
    page.goto(url, wait_until="load")
    root = page.locator('.tn-explorer[data-kind="takeaway"]')
    root.locator("svg rect").first.wait_for(timeout=20_000)
    root.locator('select[data-control="workload"]').select_option("swe_rl")
    mfu = root.locator('input[data-control="mfu"]')
    assert mfu.is_disabled() and root.locator('[data-reason="mfu"]').text_content().strip()
    assert root.locator('[data-role="verdict"]').text_content().startswith(
        wording.verdict(rows["swe_rl"].verdict, capital=True))
    page.unroute(url)
    _clean(page)


def test_breakeven_explorer_redraws(page):
    page.goto(f"{page.site}/notebooks/break_even.html", wait_until="load")
    root = page.locator('.tn-explorer[data-kind="breakeven"]')
    root.locator("svg rect").first.wait_for(timeout=20_000)
    readout = root.locator('[data-role="readout"]')
    first = readout.text_content()
    cells = root.locator("svg rect[data-row]")
    fills = cells.evaluate_all("rs => rs.map(r => r.getAttribute('fill')).join()")

    root.locator('select[data-control="workload"]').select_option("harbor_rl")
    assert readout.text_content() != first and "Kimi-K2.6" in readout.text_content()
    assert cells.evaluate_all("rs => rs.map(r => r.getAttribute('fill')).join()") != fills

    root.locator('select[data-control="map"]').select_option("turns_model")
    assert cells.count() > 0 and root.locator('[data-role="boundary"]').count() > 0
    title = cells.first.locator("title").text_content()
    assert "self-hosted ÷ Tinker" in title and "turns per rollout" in title
    _clean(page)
