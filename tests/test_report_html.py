"""Issue 22, item 2 and the report anyone can open: strings from a log (a folder name, a model path read from verl's
config dump) never reach a report as markup, and `report.html` opens in a browser with no network and runs nothing.

The probe: `validate 'run<img src=x onerror=alert(1)>' --report R` put the name unescaped into the chapter's Markdown
output, and `jupyter nbconvert --to html` of that notebook carried the live `onerror` attribute. Here the hostile
names set a global and change the page's title if they ever run. The slow tests render the real chapter (papermill)
and open both report.html and the chapter's nbconvert HTML in headless Chromium (tests/conftest.py's `browser`)."""
from __future__ import annotations

import html.parser
import json
from pathlib import Path

import pytest

import hosted_shapes as hs
import run_shapes as shapes
from test_reliability import cli
from test_reliability_round3 import _config, write_console
from tinker_nomics import fmt

RUNS = "window.pwned = 1; document.title = 'pwned'"
HOSTILE_FOLDER = f"run<img src=x onerror=\"{RUNS}\">"
HOSTILE_MODEL = f"<img src=x onerror=\"{RUNS}\">/a-private-model"   # not in the registries: shown as given


def hostile_verl_run(tmp_path) -> Path:
    folder = tmp_path / HOSTILE_FOLDER
    folder.mkdir()
    write_console(folder / "train.log", 6, (1, _config(**{"actor_rollout_ref.model.path": HOSTILE_MODEL})))
    return folder


def hostile_tinker_run(tmp_path) -> Path:
    return shapes.write_cookbook_dir(tmp_path / HOSTILE_FOLDER, shapes.sync_records(), shapes.NESTED_CONFIG)


class Tags(html.parser.HTMLParser):
    """Every start tag of an HTML document with its attributes."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(text: str) -> list[tuple[str, dict]]:
    parser = Tags()
    parser.feed(text)
    return parser.tags


def assert_inert(text: str) -> None:
    """No tag of the document carries an event handler or is the hostile image."""
    for tag, attrs in tags(text):
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not (tag == "img" and attrs.get("src") == "x"), (tag, attrs)


# ------------------------------------------------------------------------------------------ fast

def test_markdown_literal_shows_a_hostile_name_as_text():
    text = fmt.markdown_literal(HOSTILE_FOLDER + " [link](javascript:x) *em* $x$ `code`\n# heading")
    assert "<" not in text and ">" not in text and "\n" not in text
    assert "\\[link\\]\\(javascript\\:x\\)" in text and "\\*em\\*" in text and "\\$x\\$" in text
    assert_inert(text)


@pytest.fixture
def stand_in_chapter(monkeypatch):
    """The chapter's execution replaced by a copy (tests/test_reliability.py does the same): report.html,
    summary.txt and validation.json are written for real."""
    from tinker_nomics.runs import report

    def execute(source, output, parameters, workdir, timeout):
        Path(output).write_text(Path(source).read_text())
    monkeypatch.setattr(report, "execute_chapter", execute)


@pytest.mark.parametrize("make_run, options", [(hostile_verl_run, ("--gpu", "H100 SXM")),
                                                (hostile_tinker_run, ())])
def test_report_html_escapes_every_string_from_the_log(tmp_path, stand_in_chapter, make_run, options):
    run = make_run(tmp_path)
    out = tmp_path / "report"
    code, _, err = cli("validate", run, *options, "--report", out)
    assert code == 0, err
    page = (out / "report.html").read_text()
    assert_inert(page)
    assert [t for t, _ in tags(page) if t == "script"] == []   # no script at all
    assert "&lt;img src=x onerror=" in page   # the name is there, as text
    if make_run is hostile_verl_run:
        assert fmt.markdown_literal(HOSTILE_MODEL) not in page and html_text(HOSTILE_MODEL) in page


def html_text(text: str) -> str:
    import html
    return html.escape(text, quote=True)


def test_report_html_has_a_policy_that_forbids_scripts_and_requests(tmp_path, stand_in_chapter):
    out = tmp_path / "report"
    assert cli("validate", hostile_tinker_run(tmp_path), "--report", out)[0] == 0
    csp = next(attrs["content"] for tag, attrs in tags((out / "report.html").read_text())
               if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp and "script-src" not in csp   # nothing may load or run


# ------------------------------------------------------------------------------------------ slow: the real chapter

def _markdown_and_html_outputs(notebook: Path) -> list[str]:
    nb = json.loads(notebook.read_text())
    found = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error", output
            for kind in ("text/markdown", "text/html"):
                data = output.get("data", {}).get(kind)
                if data is not None:
                    found.append("".join(data) if isinstance(data, list) else data)
    return found


def _nbconvert(notebook: Path) -> str:
    from nbconvert import HTMLExporter
    body, _ = HTMLExporter().from_filename(str(notebook))
    return body


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The real chapter rendered for a hostile verl run and a hostile Tinker run (papermill, a minute or so)."""
    root = tmp_path_factory.mktemp("hostile")
    reports = {}
    for name, make_run, options in (("verl", hostile_verl_run, ("--gpu", "H100 SXM")),
                                    ("tinker", hostile_tinker_run, ())):
        base = root / name
        base.mkdir()
        out = base / "report"
        code, _, err = cli("validate", make_run(base), *options, "--report", out)
        assert code == 0, err
        reports[name] = out
    return reports


@pytest.mark.slow
@pytest.mark.parametrize("name", ["verl", "tinker"])
def test_the_chapter_shows_hostile_names_as_text(rendered, name):
    notebook = rendered[name] / "run_validation.ipynb"
    outputs = _markdown_and_html_outputs(notebook)
    assert any("run&lt;img" in text for text in outputs)   # the folder's name is shown, escaped
    for text in outputs:
        assert "<img src=x" not in text
        assert_inert(text)
    assert_inert(_nbconvert(notebook).split("</head>", 1)[1])   # the probe's nbconvert HTML: no live handler


def _open_offline(browser, url: str):
    """A page at `url` with every request but the file itself refused and recorded; returns (page, requests)."""
    context = browser.new_context()
    requests: list[str] = []

    def route(r):
        if r.request.url == url:
            r.continue_()
        else:
            requests.append(r.request.url)
            r.abort()
    context.route("**/*", route)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_load_state("load")
    return context, page, requests, errors


@pytest.mark.slow
@pytest.mark.parametrize("name", ["verl", "tinker"])
def test_report_html_opens_offline_and_runs_nothing_from_the_log(rendered, browser, name):
    url = (rendered[name] / "report.html").resolve().as_uri()
    context, page, requests, errors = _open_offline(browser, url)
    try:
        assert page.evaluate("() => window.pwned") is None
        assert page.title().startswith("Run validation: run<img")   # the name, as text, in the title
        assert page.evaluate("() => document.scripts.length") == 0
        assert page.evaluate("() => document.querySelectorAll('img').length") == 0
        assert page.evaluate("() => document.querySelectorAll('svg polyline, svg circle').length") > 0   # figures
        assert "run<img src=x onerror=" in page.inner_text("body")
        assert requests == [] and errors == []
    finally:
        context.close()


@pytest.mark.slow
def test_the_chapter_exported_by_nbconvert_runs_nothing_from_the_log(rendered, browser, tmp_path):
    """The probe's own route: nbconvert's HTML of the executed chapter, opened with the network refused."""
    exported = tmp_path / "chapter.html"
    exported.write_text(_nbconvert(rendered["verl"] / "run_validation.ipynb"))
    context, page, _, _ = _open_offline(browser, exported.resolve().as_uri())
    try:
        assert page.evaluate("() => window.pwned") is None and page.title() != "pwned"
    finally:
        context.close()
