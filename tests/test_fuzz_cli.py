"""Fuzzing the command line: any argument list ends with a result (exit 0) or one line on stderr (exit 2),
never a traceback or an internal error."""
import contextlib
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from tinker_nomics.faces.cli import NUMERIC_FLAGS, main

VALUES = st.one_of(
    st.sampled_from(["0", "-1", "1", "0.5", "nan", "inf", "-inf", "1e309", "1e-320", "", " ", "abc", "3,5",
                     "999999999999", "1.0.0", "☃", "--", "-"]),
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
