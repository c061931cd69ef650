"""The chapters as a Binder reader meets them: live in JupyterLab, with the extensions Binder installs.

`make test-live` (its own phase of .ci/run, offline like the others) starts the pinned JupyterLab from
requirements.txt on 127.0.0.1, with jupyterlab-myst and the ipywidgets front end, over a scratch copy of
notebooks/ and book/ (the chapters read data/ through a link; nothing in the repository is written). Headless Chromium
(the session's `browser` fixture in tests/conftest.py) then opens every chapter of _toc.yml, runs all cells,
and checks what the reader sees:
- no cell raised, and no widget failed to draw ("Error displaying widget");
- every markdown cell is rendered by MyST with its numbers: no raw `{glue`/`{eval` role, no `{eval}`
  expression left unevaluated (jupyterlab-myst shows those as the expression in code font), and no myst-nb glue
  role, which jupyterlab-myst does not know and shows as the glued name;
- on every chapter with a calculator panel or a kernel-free explorer, every control of its first panel is
  moved (sliders with the keyboard, as a reader would) and the panel's output must change each time; a control
  that is disabled because it cannot change the result must show why; an explorer must not be typeset as math by
  JupyterLab.
Screenshots go to _build/screenshots/live/. These tests are marked `live` and do not run in `make test`.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import REPO, page_name, toc_notebooks
from test_prose_numbers import GLUE_PENDING

pytestmark = [pytest.mark.live, pytest.mark.slow]

SCREENSHOTS = REPO / "_build" / "screenshots" / "live"
RUN_TIMEOUT_MS = 240_000
CHANGE_TIMEOUT_MS = 20_000
NOTEBOOKS = toc_notebooks()


# --------------------------------------------------------------------------------------------- JupyterLab


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings(root: Path) -> Path:
    """User settings: every cell in the DOM (no windowing), no autosave, no news or update checks, and the
    notebook's own kernel started without asking."""
    settings = root / "settings"
    for plugin, values in {
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none", "autoStartDefaultKernel": True},
        "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
        "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    }.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return settings


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("live")
    shutil.copytree(REPO / "notebooks", root / "notebooks")
    shutil.copytree(REPO / "book", root / "book", ignore=shutil.ignore_patterns("_vendor", "_static"))
    (root / "data").symlink_to(REPO / "data")           # chapters name some inputs relative to notebooks/
    port, token = _free_port(), os.urandom(12).hex()
    jupyter = Path(sys.executable).parent / "jupyter"
    log = open(root / "lab.log", "w")
    proc = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}", "--expose-app-in-browser",
         f"--LabServerApp.user_settings_dir={_settings(root)}", f"--LabServerApp.workspaces_dir={root / 'ws'}",
         "--LabApp.news_url="],
        cwd=root, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(root / 'lab.log').read_text()[-3000:]}",
                                pytrace=False)
                time.sleep(0.3)
        yield {"url": f"http://127.0.0.1:{port}", "token": token, "root": root}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


# --------------------------------------------------------------------------------------------- in the page

CURRENT = "window.jupyterapp.shell.currentWidget"
READY_JS = f"""async () => {{ const w = {CURRENT}; await w.context.ready; await w.sessionContext.ready; }}"""
DONE_JS = f"""() => {{ const w = {CURRENT};
    const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
    const cells = w.content.widgets.filter(c => c.model.type === 'code');
    return kernel && kernel.status === 'idle' && cells.every(c => c.model.executionCount !== null); }}"""
ERRORS_JS = f"""() => {CURRENT}.content.widgets.flatMap((c, i) => c.model.type !== 'code' ? [] :
    c.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => `cell ${{i}}: ${{o.ename}}: ${{o.evalue}}`))"""
# jupyterlab-myst renders a markdown cell into div.myst; an {eval} it could not evaluate stays as <code>expr</code>.
MARKDOWN_JS = f"""() => {CURRENT}.content.widgets.flatMap((c, i) => {{
    if (c.model.type !== 'markdown') return [];
    const rendered = c.node.querySelector('.myst');
    if (!rendered) return [`cell ${{i}}: not rendered by MyST`];
    const text = rendered.innerText, found = [];
    for (const role of ['{{glue', '{{eval']) if (text.includes(role)) found.push(`cell ${{i}}: raw ${{role}} role`);
    for (const code of rendered.querySelectorAll('code'))
      if (/^prose\\.\\w+$/.test(code.textContent.trim())) found.push(`cell ${{i}}: unevaluated ${{code.textContent}}`);
    // jupyterlab-myst shows a role it does not know, such as myst-nb's {{glue:text}}, as its bare content
    for (const m of c.model.sharedModel.getSource().matchAll(/\\{{glue[:\\w]*\\}}`([\\w.:-]+)`/g))
      if (new RegExp(`(^|[^\\w])${{m[1]}}([^\\w]|$)`).test(text)) found.push(`cell ${{i}}: glue role shown as ${{m[1]}}`);
    return found; }})"""


def _open_and_run(page, lab, notebook: Path) -> None:
    # A workspace of its own, reset: JupyterLab would otherwise reopen the chapters earlier tests opened.
    page.goto(f"{lab['url']}/lab/workspaces/{notebook.stem}/tree/{notebook.relative_to(REPO).as_posix()}"
              f"?reset&token={lab['token']}")
    page.wait_for_function(f"() => window.jupyterapp && {CURRENT} && {CURRENT}.sessionContext", timeout=90_000)
    page.evaluate(READY_JS)
    page.evaluate("async () => { await window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    page.wait_for_function(DONE_JS, timeout=RUN_TIMEOUT_MS)
    page.wait_for_timeout(500)   # the last widget views and markdown renders settle


def _shutdown(page) -> None:
    page.evaluate(f"async () => {{ await {CURRENT}.sessionContext.shutdown(); }}")


# --------------------------------------------------------------------------------------------- the panels
# A panel's "output" is what a reader reads off it: its text and the figure it shows. Moving a control must
# change it. Sliders move by keyboard (End, or Home when already at the end); pickers take another option;
# toggle buttons another button; checkboxes flip; a tab bar is walked so every tab's controls are reached.

SIGNATURE_JS = """root => root.innerText + '|' + [...root.querySelectorAll('img')].map(i => i.src.length + i.src.slice(-80)).join()
    + '|' + [...root.querySelectorAll('svg rect, svg path')].map(r => (r.getAttribute('width') || '') + (r.getAttribute('fill') || '') + (r.getAttribute('d') || '').slice(0, 30)).join()"""


def _wait_changed(page, root, before: str, what: str, problems: list[str]) -> None:
    try:
        page.wait_for_function(f"([root, before]) => ({SIGNATURE_JS})(root) !== before",
                               arg=[root.element_handle(), before], timeout=CHANGE_TIMEOUT_MS)
    except PlaywrightTimeout:
        problems.append(f"moving {what} did not change the panel's output")
    page.wait_for_timeout(150)


def _move_widget_controls(page, root, problems: list[str]) -> int:
    moved = 0
    tabs = root.locator(".lm-TabBar-tab")
    for t in range(max(tabs.count(), 1)):
        if tabs.count():
            tabs.nth(t).click()
            page.wait_for_timeout(200)
        visible = root.locator(".widget-slider:visible, .widget-dropdown:visible, .widget-toggle-buttons:visible, "
                               ".widget-checkbox:visible")
        for i in range(visible.count()):
            control = visible.nth(i)
            label = (control.locator(".widget-label").first.inner_text() if control.locator(".widget-label").count()
                     else control.inner_text())[:60] or f"control {i}"
            before = root.evaluate(SIGNATURE_JS)
            classes = control.get_attribute("class") or ""
            if "widget-slider" in classes and control.locator(".noUi-target[disabled]").count():
                # a control that cannot change this run's result is greyed, and the panel says why (issue 20)
                name = label.split("(")[0].split("\n")[0].strip()
                fixed = root.locator(".tn-fixed")
                if not (fixed.count() and name and name in fixed.first.inner_text()):
                    problems.append(f"{label!r} is disabled without a reason shown")
                continue
            if "widget-slider" in classes:
                handle = control.locator(".noUi-handle").first
                handle.focus()
                at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
                page.keyboard.press("Home" if at_max else "End")
            elif "widget-dropdown" in classes:
                select = control.locator("select")
                current = select.evaluate("s => s.selectedIndex")
                count = select.evaluate("s => s.options.length")
                if count < 2:
                    continue
                select.select_option(index=(current + 1) % count)
            elif "widget-toggle-buttons" in classes:
                buttons = control.locator("button:not(.mod-active)")
                if not buttons.count():
                    continue
                buttons.first.click()
            else:
                control.locator("input").click()
            _wait_changed(page, root, before, f"{label!r}", problems)
            moved += 1
    return moved


def _move_explorer_controls(page, root, problems: list[str]) -> int:
    moved = 0
    for kind in ("select", "input[type=range]"):
        controls = root.locator(kind)
        for i in range(controls.count()):
            control = controls.nth(i)
            name = control.get_attribute("data-control") or kind
            before = root.evaluate(SIGNATURE_JS)
            if kind == "select":
                count = control.evaluate("s => s.options.length")
                if count < 2:
                    continue
                control.select_option(index=(control.evaluate("s => s.selectedIndex") + 1) % count)
            elif control.is_disabled():   # cannot move this workload's bill: greyed, with the reason beside it
                reason = root.locator(f'[data-reason="{name}"]')
                if not (reason.count() and reason.first.inner_text().strip()):
                    problems.append(f"the explorer's {name} is disabled without a reason shown")
                continue
            else:   # arrow keys, as a reader would: JupyterLab must not take them for moving between cells
                control.focus()
                at_max = control.evaluate("r => r.value === r.max")
                page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
            _wait_changed(page, root, before, f"the explorer's {name}", problems)
            moved += 1
    return moved


# --------------------------------------------------------------------------------------------- the test


def _has_panel(notebook: Path) -> bool:
    """A calculator (a `.widget` displayed) or a kernel-free explorer (`explorer.display`) in a code cell."""
    cells = json.loads(notebook.read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return ".widget" in code or "explorer.display(" in code or "W.VBox(" in code


def _case(notebook: Path):
    """Chapters still quoting with glue roles cannot show their numbers in JupyterLab yet: strict xfails."""
    name = notebook.relative_to(REPO).as_posix()
    marks = [pytest.mark.xfail(reason=GLUE_PENDING[name], strict=True)] if name in GLUE_PENDING else []
    return pytest.param(notebook, id=page_name(notebook), marks=marks)


@pytest.mark.parametrize("notebook", [_case(n) for n in NOTEBOOKS])
def test_chapter_runs_live_with_its_numbers(notebook, lab, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page_errors = []
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    problems: list[str] = []
    moved = 0
    try:
        _open_and_run(page, lab, notebook)
        errors = page.evaluate(ERRORS_JS)
        broken_widgets = page.locator("text=Error displaying widget").count()
        try:   # jupyterlab-myst re-renders a cell once its expressions' reply arrives, shortly after the kernel
            page.wait_for_function(f"() => ({MARKDOWN_JS})().length === 0", timeout=CHANGE_TIMEOUT_MS)
        except PlaywrightTimeout:
            pass
        markdown = page.evaluate(MARKDOWN_JS)
        explorer = page.locator(".tn-explorer").first
        panel = page.locator(".jp-OutputArea-output .jupyter-widgets.widget-vbox").first
        if explorer.count():
            explorer.scroll_into_view_if_needed()
            if explorer.locator("mjx-container").count():
                problems.append("the explorer's text was typeset as math")
            moved = _move_explorer_controls(page, explorer, problems)
        elif panel.count():
            panel.scroll_into_view_if_needed()
            moved = _move_widget_controls(page, panel, problems)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{notebook.stem}.png"))
        _shutdown(page)
    finally:
        context.close()

    assert not errors, f"cells raised: {errors}"
    assert not broken_widgets, f"{broken_widgets} widget(s) show 'Error displaying widget'"
    assert not markdown, "markdown the reader cannot read:\n  " + "\n  ".join(markdown)
    assert not problems, "\n".join(problems)
    if _has_panel(notebook):
        assert moved >= 2, f"the chapter has a panel, but only {moved} control(s) could be moved"
    assert not page_errors, f"JavaScript errors: {page_errors}"
