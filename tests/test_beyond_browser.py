"""The kernel-free explorers in the built book, in headless Chromium with the network limited to this
machine: moving a control redraws the chart from the embedded grid, with no request leaving 127.0.0.1 and
no JavaScript error. The site server and the browser are the session fixtures in tests/conftest.py (shared
with tests/test_book_site.py, which also checks these pages render offline); the site is (re)built first
when a source is newer."""

from __future__ import annotations

import pytest

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
    page.goto(f"{page.site}/notebooks/prices_over_time.html", wait_until="load")
    root = page.locator('.tn-explorer[data-kind="takeaway"]')
    root.locator("svg rect").first.wait_for(timeout=20_000)
    hosted = root.locator('[data-role="hosted-total"]')
    verdict = root.locator('[data-role="verdict"]')
    assert hosted.text_content() == "$28.49"           # math_rl at the preset: the README's self-hosted cost
    assert verdict.text_content().startswith("Self-hosted is cheaper by 3.5×")

    before_width = root.locator('rect[data-part="GPU time"]').get_attribute("width")
    offer = root.locator('input[data-control="offer"]')
    offer.fill(str(int(offer.get_attribute("max"))))   # the dearest sourced H100 offer
    assert hosted.text_content() != "$28.49"
    assert root.locator('rect[data-part="GPU time"]').get_attribute("width") != before_width

    root.locator('select[data-control="workload"]').select_option("osworld_rl")
    root.locator('select[data-control="snapshot"]').select_option(newest_snapshot())
    assert "Qwen3-8B" in root.locator('[data-role="note"]').text_content()
    assert "cached prefill" in root.locator('[data-role="note"]').text_content()
    _clean(page)


def test_takeaway_chapter_has_its_own_calibrated_explorer(page):
    """Issue 12: the takeaway page carries its own kernel-free explorer, under the calibrated method; it starts on
    math_rl at the newest dated list (where the chapter's answer is priced), the preset's GPU offer and the fitted
    efficiencies."""
    from tinker_nomics import fmt
    from tinker_nomics.analysis import timeline
    page.goto(f"{page.site}/notebooks/takeaway.html", wait_until="load")
    root = page.locator('.tn-explorer[data-kind="takeaway"]')
    root.locator("svg rect").first.wait_for(timeout=20_000)
    first = timeline.dated_snapshots()[-1]
    row = timeline.verdicts(("math_rl",), [first], method="calibrated").iloc[0]
    hosted = root.locator('[data-role="hosted-total"]')
    assert hosted.text_content() == fmt.usd(row.self_hosted_usd)
    note = root.locator('[data-role="note"]')
    assert timeline.snapshots()[first] in note.text_content()     # the note names the list it prices
    older = timeline.dated_snapshots()[-2]
    root.locator('select[data-control="snapshot"]').select_option(older)
    assert timeline.snapshots()[older] in note.text_content()     # moving the list always shows on the page
    root.locator('select[data-control="workload"]').select_option("swe_rl")
    assert hosted.text_content() != fmt.usd(row.self_hosted_usd)
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
