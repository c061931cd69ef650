"""The "Where to run it" page in headless Chromium: the kernel-free planner explorer opens on the chapter's own
table (compared cell by cell on the rendered page), redraws from its embedded states when a control moves, and
requests nothing from outside this machine."""

from __future__ import annotations

import pytest

from test_beyond_browser import _clean, page  # noqa: F401  (the page fixture)

pytestmark = pytest.mark.slow


def _chapter_rows(tab) -> list[list[str]]:
    """The chapter's ranked-options table (the book's table whose first header is 'rank'), as cell texts."""
    return tab.evaluate("""() => {
        const tables = Array.from(document.querySelectorAll('table.tn-table'));
        const t = tables.find(x => x.querySelector('thead th') && x.querySelector('thead th').textContent.trim() === 'rank');
        return Array.from(t.querySelectorAll('tbody tr')).map(tr =>
            Array.from(tr.querySelectorAll('th,td')).map(c => c.textContent.trim()));
    }""")


def _explorer_rows(root) -> list[list[str]]:
    return root.evaluate("""(root) => Array.from(root.querySelectorAll('table.tn-plan tbody tr')).map(tr =>
        Array.from(tr.querySelectorAll('td')).map(c => c.textContent.trim()))""")


def test_planner_explorer_opens_on_the_chapters_table(page):  # noqa: F811
    page.goto(f"{page.site}/notebooks/where_to_run.html", wait_until="load")
    root = page.locator('.tn-explorer[data-kind="planner"]')
    root.locator("table.tn-plan tbody tr").first.wait_for(timeout=20_000)
    chapter = _chapter_rows(page)
    assert chapter and _explorer_rows(root) == chapter
    assert root.locator('[data-role="best"]').text_content().startswith("Best: ")
    assert root.locator('[data-role="frontier"]').count() == 1
    assert root.locator('[data-role="option"]').count() == len(chapter)

    root.locator('select[data-control="deadline"]').select_option("0")          # twelve hours
    root.locator('select[data-control="spot"]').select_option("demand")
    rows = _explorer_rows(root)
    assert rows != chapter and not any("(spot)" in r[1] for r in rows)
    root.locator('select[data-control="workload"]').select_option("harbor_rl")
    root.locator('select[data-control="model"]').select_option("1")
    assert any(r[1].startswith("Tinker") and r[-1].startswith("not offered") for r in _explorer_rows(root))
    _clean(page)
