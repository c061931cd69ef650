"""Fuzzing the command line: any argument list ends with a result (exit 0) or one line on stderr (exit 2),
never a traceback or an internal error; a result is finite (no NaN or Infinity in the JSON, no 'inf×' or 'nan'
in the table: issue 11 defects 2 and 3), and `validate` never changes the log folder, with or without a report
(defects 1, 4, 6)."""
import contextlib
import hashlib
import html
import io
import json
import re
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tinker_nomics import fmt
from tinker_nomics.faces.cli import NUMERIC_FLAGS, main

VALUES = st.one_of(
    st.sampled_from(["0", "-1", "1", "0.5", "nan", "inf", "-inf", "1e309", "1e-320", "", " ", "abc", "3,5",
                     "999999999999", "1.0.0", "☃", "--", "-", "1e308", "1e200", "1e-300", "1e15"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10**12, 10**12).map(str),
)
NAMES = st.sampled_from(["Qwen3-8B", "qwen3-8b", "Kimi-K2-Thinking", "Inkling", "thinkingmachines/Inkling", "x",
                         "", "Qwen3-9B", "H100", "B200", "MI300X", "A10G", "2026-01-05", "2026-10-07", "2026-H1",
                         "latest", "seed", "exact", "modal", "none", "full", "roofline"])
TEXT_FLAGS = ["--workload", "--model", "--prices", "--gpu", "--sandbox", "--method", "--decode-model", "--fine-tune"]


@st.composite
def argument_lists(draw):
    args = ["estimate"]
    if draw(st.booleans()):
        args += ["--workload", draw(st.sampled_from(["math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl",
                                                     "exp1a_gsm8k", "nope"]))]
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            args += [draw(st.sampled_from(list(NUMERIC_FLAGS))), draw(VALUES)]
        else:
            args += [draw(st.sampled_from(TEXT_FLAGS)), draw(NAMES)]
    if draw(st.booleans()):
        args += [draw(st.sampled_from(["--tinker-cached-prefill", "--no-tinker-cached-prefill", "--format",
                                       "--bogus"]))]
        if args[-1] == "--format":
            args.append(draw(st.sampled_from(["json", "table", "yaml"])))
    return args


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "150")), deadline=None)
@given(argument_lists())
def test_cli_never_shows_a_traceback(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    assert code in (0, 2), (args, err.getvalue())
    if code == 2:
        assert err.getvalue().count("\n") == 1 and "Traceback" not in err.getvalue(), (args, err.getvalue())
    else:
        assert out.getvalue() and err.getvalue() == ""
        assert_finite_output(out.getvalue(), args)


def assert_finite_output(text: str, args) -> None:
    """JSON without NaN/Infinity (they are not JSON); a table without inf or nan."""
    if text.lstrip().startswith(("{", "[")):
        def refuse(constant):
            raise AssertionError(f"{args}: JSON output contains {constant}")
        json.loads(text, parse_constant=refuse)
    else:
        assert not re.search(r"\b(inf|nan)\b|inf×", text, re.IGNORECASE), (args, text)


LOG = [{"step": s, "env/all/total_ac_tokens": 1000 + 10 * s, "env/all/total_ob_tokens": 100,
        "env/all/total_episodes": 8, "env/all/reward/total": 0.5, "time/total": 10.0} for s in range(6)]
GROUP_SIZES = st.one_of(st.sampled_from(["-1", "nan", "inf", "0.5", "0", "2.5", "1e308", "1", "4", "8", "9", "",
                                         "x"]), st.floats(allow_nan=True, allow_infinity=True).map(repr))


@st.composite
def validate_arguments(draw):
    args = []
    for _ in range(draw(st.integers(0, 5))):
        option = draw(st.sampled_from(["--group-size", "--cached-prefill", "--report", "--force", "--run", "--prices",
                                       "--model", "--price-as", "--format"]))
        if option == "--group-size":
            args += [f"--group-size={draw(GROUP_SIZES)}"]
        elif option == "--cached-prefill":
            args += [option, draw(st.sampled_from(["auto", "none", "logged", "group", "maybe"]))]
        elif option == "--report":
            args += [option, draw(st.sampled_from(["", "FILE/sub", "FILE", "LOGS/r", "LINK", "fresh", "fresh/deeper"]))]
        elif option == "--force":
            args += [option]
        elif option == "--run":
            args += [option, draw(st.sampled_from(["", "a", "run1"]))]
        elif option == "--format":
            args += [option, draw(st.sampled_from(["json", "table"]))]
        else:
            args += [option, draw(NAMES)]
    return args


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        h.update(str(path).encode() + (path.read_bytes() if path.is_file() else b""))
    return h.hexdigest()


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "80")), deadline=None)
@given(validate_arguments())
def test_validate_options_give_a_result_or_one_line_and_never_touch_the_logs(args):
    from tinker_nomics.runs import report
    real = report.execute_chapter   # the chapter's execution (papermill in a child process) stood in for: a copy
    report.execute_chapter = lambda source, output, *rest: Path(output).write_text(Path(source).read_text())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            logs = root / "logs"
            logs.mkdir()
            (logs / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in LOG))
            (logs / "config.json").write_text(json.dumps({"model_name": "Qwen/Qwen3-8B", "group_size": 4}))
            (root / "FILE").write_text("a file")
            (root / "LINK").symlink_to(logs)
            before = _digest(logs)
            named = [str(root / a) if a in ("FILE/sub", "FILE", "LOGS/r", "LINK", "fresh", "fresh/deeper") else a
                     for a in args]
            named = [a.replace(str(root / "LOGS"), str(logs)) for a in named]
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["validate", str(logs), *named])
            assert code in (0, 2), (args, err.getvalue())
            if code == 2:
                assert err.getvalue().count("\n") == 1 and "Traceback" not in err.getvalue(), (args, err.getvalue())
            else:
                assert err.getvalue() == ""
                assert_finite_output(out.getvalue().split("\nReport: ")[0], args)
            assert _digest(logs) == before, args
            assert not [p for p in root.iterdir() if ".tmp-" in p.name], args   # no temporary folder left
    finally:
        report.execute_chapter = real


# ------------------------------------------------------------------------------------ issue 22: hostile names

HOSTILE = st.one_of(
    st.sampled_from(["run<img src=x onerror=alert(1)>", "<svg onload=window.pwned=1>", "a\"b'c", "[x](javascript:y)",
                     "$x$ *y* `z`", "&lt;not a tag&gt;", "run\u2028two", "name\twith\ttabs", "\\server\\share"]),
    st.text(alphabet=st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1,
            max_size=24).filter(lambda t: t not in (".", "..")))


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "40")), deadline=None)
@given(HOSTILE)
def test_a_hostile_folder_name_reaches_the_report_only_as_text(name):
    """Issue 22 item 2: whatever a log folder is called, `validate --report` ends with a report whose HTML holds the
    name as text (no tag, no event handler, no script) or with one line."""
    from test_report_html import assert_inert, tags
    from tinker_nomics.runs import report
    real = report.execute_chapter
    report.execute_chapter = lambda source, output, *rest: Path(output).write_text(Path(source).read_text())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            logs = Path(tmp) / "logs" / name
            try:
                logs.mkdir(parents=True)
            except OSError:   # a name the file system refuses (too long in bytes): nothing to test
                return
            (logs / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in LOG))
            (logs / "config.json").write_text(json.dumps({"model_name": "Qwen/Qwen3-8B", "group_size": 4}))
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["validate", str(logs), "--report", str(Path(tmp) / "report")])
            assert code == 0, err.getvalue()
            page = (Path(tmp) / "report" / "report.html").read_bytes().decode()   # as written (\r kept)
            assert_inert(page)
            shown = html.escape(fmt.printable(name, limit=160), quote=True)   # as text; a bidi override escaped
            assert f"<title>Run validation: {shown}</title>" in page
            assert {t for t, _ in tags(page)} <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p",
                                                  "pre", "table", "thead", "tbody", "tr", "th", "td", "ul", "li",
                                                  "svg", "text", "line", "polyline", "circle", "rect"}
    finally:
        report.execute_chapter = real
