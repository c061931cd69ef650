"""The built book in headless Chromium, with the network limited to this machine.

For every page in _toc.yml: nothing is requested from outside 127.0.0.1, no local file is missing, no
JavaScript error is raised, and what the page contains actually renders:
- ipywidgets (the page has `application/vnd.jupyter.widget-view+json` script tags): each view is drawn
  by the vendored widget manager, and images inside widget outputs load;
- figures (every `img` in the article, matplotlib PNGs included): each one loads;
- math (Sphinx `.math` elements): MathJax typesets it, without errors.
A full-page screenshot of each page goes to _build/screenshots/<page>.png.
The site is (re)built first when a source is newer (tests/conftest.py: `built_site`); the local server and
the browser are the session fixtures `site_url` and `browser` in tests/conftest.py, shared with
tests/test_beyond_browser.py (one Playwright instance per session).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import REPO, page_name, toc_documents

pytestmark = pytest.mark.slow

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
# Jupyter Book 1 injects sphinx-thebe's inline script twice on every page; harmless.
KNOWN_PAGE_ERRORS = ("Identifier 'THEBE_JS_URL' has already been declared",)
SCREENSHOTS = REPO / "_build" / "screenshots"
RENDER_TIMEOUT_MS = 20_000

PAGES = [page_name(document) for document in toc_documents()]


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("data", "blob") or parts.hostname in LOCAL_HOSTS


# embed-amd.js draws each widget view into a div.widget-subarea that it inserts just before the view's
# <script type="application/vnd.jupyter.widget-view+json"> tag; an unrendered view has no such div.
UNRENDERED_VIEWS_JS = """() => [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
    .filter(s => { const d = s.previousElementSibling;
                   return !(d && d.classList.contains('widget-subarea') && d.querySelector('.jupyter-widgets')
                            && d.getBoundingClientRect().height > 0); })
    .map(s => s.textContent.slice(0, 120))"""
IMAGES_JS = """() => [...document.querySelectorAll('article img')].map(img => ({
    src: img.getAttribute('src').slice(0, 100),
    loaded: img.complete && img.naturalWidth > 0,
    in_widget: !!img.closest('.widget-subarea')}))"""
MATH_JS = """() => ({typeset: document.querySelectorAll('mjx-container').length,
                   errors: document.querySelectorAll('mjx-merror').length})"""


@pytest.mark.parametrize("page_path", PAGES)
def test_page_renders_offline(page_path, site_url, built_site, browser):
    html_file = built_site / f"{page_path}.html"
    assert html_file.is_file(), f"{html_file.relative_to(REPO)} was not built"
    html = html_file.read_text()
    has_widgets = 'type="application/vnd.jupyter.widget-view+json"' in html
    has_math = 'class="math notranslate' in html
    built_figures = len(re.findall(r'<img [^>]*src="[^"]*_images/', html))

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    outside, failed, page_errors, timeouts = [], [], [], []
    page.on("request", lambda request: None if _is_local(request.url) else outside.append(request.url))
    page.on("requestfailed", lambda request: failed.append(f"{request.url} ({request.failure})"))
    page.on("response", lambda response: response.status >= 400 and failed.append(f"{response.url} (HTTP {response.status})"))
    page.on("pageerror", lambda error: page_errors.append(str(error)))

    def wait_until(script: str, what: str) -> None:
        try:
            page.wait_for_function(script, timeout=RENDER_TIMEOUT_MS)
        except PlaywrightTimeout:
            timeouts.append(f"{what} (waited {RENDER_TIMEOUT_MS / 1000:.0f} s)")

    try:
        page.goto(f"{site_url}/{page_path}.html", wait_until="load")
        if has_widgets:
            wait_until(f"() => ({UNRENDERED_VIEWS_JS})().length === 0", "widgets to render")
        if has_math:
            wait_until("() => document.querySelector('mjx-container') !== null", "MathJax to typeset")
        page.wait_for_load_state("networkidle")
        unrendered_views = page.evaluate(UNRENDERED_VIEWS_JS)
        images = page.evaluate(IMAGES_JS)
        math = page.evaluate(MATH_JS)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{page_path.replace('/', '_')}.png"), full_page=True)
    finally:
        context.close()

    # Causes first (a blocked or missing script), then their symptoms (nothing rendered).
    assert not outside, f"requests left this machine: {outside}"
    assert not failed, f"local requests failed: {failed}"
    unexpected = [e for e in page_errors if not any(known in e for known in KNOWN_PAGE_ERRORS)]
    assert not unexpected, f"JavaScript errors: {unexpected}"
    assert not timeouts, f"timed out waiting for: {timeouts}"
    assert not unrendered_views, f"widget views left unrendered: {unrendered_views}"
    broken = [image["src"] for image in images if not image["loaded"]]
    assert not broken, f"images that did not load: {broken}"
    assert len(images) >= built_figures, f"{built_figures} figures in the HTML but {len(images)} in the page"
    if has_widgets and '"image/png"' in html:  # the widget state holds a figure drawn at build time
        assert any(image["in_widget"] for image in images), "no figure was drawn inside the widgets"
    if has_math:
        assert math["typeset"] > 0 and math["errors"] == 0, f"MathJax: {math}"
