"""Every command the README shows runs as written.

The commands are read from the README itself: each line of a ```bash block, and each inline code span that
starts with a program (tinker-nomics, make, papermill, pip, python, .venv/bin/python, sudo). Each one is run
here, or checked with `make -n` (the test and benchmark targets, which are the suite itself or take minutes),
or named with the test that covers it elsewhere. A command the README gains without being sorted into one of
these fails test_every_readme_command_is_covered. The ```console block (command and output) is
tests/test_cli.py::test_readme_example_is_what_the_cli_prints; the ```python block runs here.

Commands run from the repository (as the README assumes), with .venv/bin first on PATH (an activated venv);
those that write a file run in a scratch folder, or have what they would overwrite moved aside and back.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

README = (REPO / "README.md").read_text()
PROGRAMS = ("tinker-nomics", "make", "papermill", "pip", "python", ".venv/bin/python", "sudo")
VENV_BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"}
ENV.pop("TINKER_NOMICS_DATA", None)

# Checked with `make -n` only: they run the suite (or the benchmarks) themselves. `make book` and `make test`
# (and make test-slow) are what .ci/run runs (tools/build_book.sh is make book's recipe), on the platforms the README names.
DRY_RUN = {"make book", "make test", "make test-slow", "make test-live", "make test-deep", "make test-resolve", "make bench",
           "make book PYTHON=python3.11", "make test-slow CHROMIUM=/path/to/chrome",
           'make validate RUN=path/to/verl_console.log GPU="H100 SXM" OUT=reports/my_run'}
ELSEWHERE = {
    'tinker-nomics validate path/to/verl_console.log --gpu "H100 SXM"': "a placeholder path (no verl log with a "
        "licence can be bundled); tests/test_hosted_runs.py reads synthetic verl console logs of every version and "
        "the three real ones in ../shared/realdata in place, tests/test_ledger.py runs the command on them",
    "tinker-nomics validate path/to/trl_output/ --prompts-per-step 64 --group-size 8 --num-gpus 8 --gpu H200":
        "a placeholder path; tests/test_hosted_runs.py and tests/test_ledger.py read TRL output folders",
    "pip install .": "tests/test_wheel.py builds the wheel and installs it into a fresh venv, offline",
    "make calibrate": "tests/test_calibration.py runs tools/calibrate.py --check: the committed table is what the fit gives",
    "make offers": "tests/test_offers.py: the committed data/hardware/gpu_offers.csv is what tools/import_gpu_offers.py "
                   "writes from the snapshot",
    "make tinker-wallclock": "tests/test_services.py runs tools/fit_tinker_wallclock.py --check",
    ".venv/bin/python -m playwright install chromium": "downloads a browser (network); tests/test_find_browser.py "
                                                       "finds a Playwright-installed one",
    ".venv/bin/python -m playwright install chromium --with-deps": "as above, with system libraries (root)",
    "sudo apt-get install -y chromium fonts-dejavu-core": "installs system packages; tests/test_find_browser.py "
                                                          "checks it is the command printed on Debian",
    "sudo dnf install -y chromium": "Fedora's; tests/test_find_browser.py checks it is the command printed there",
    "sudo apt-get install python3.11 python3.11-venv": "installs a Python (Ubuntu 22.04)",
    "sudo apt-get install python3.11-venv": "tests/test_python_support.py checks `make` names this package",
}


def fenced_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.S | re.M)


def readme_commands() -> list[str]:
    commands = []
    for block in fenced_blocks("bash"):
        for line in block.splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command:
                commands.append(command)
    prose = re.sub(r"^```.*?^```", "", README, flags=re.S | re.M)
    for span in re.findall(r"`([^`\n]+)`", prose):
        if span.split()[0] in PROGRAMS and len(span.split()) > 1:
            commands.append(span)
    return list(dict.fromkeys(commands))


def command(prefix: str) -> str:
    """The one README command that starts with `prefix`."""
    (found,) = [c for c in readme_commands() if c.startswith(prefix)]
    return found


def run(line: str, cwd: Path = REPO, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(shlex.split(line), cwd=cwd, env=ENV, capture_output=True, text=True)
    if check and done.returncode != 0:
        pytest.fail(f"README command failed ({done.returncode}): {line}\n{done.stdout[-2000:]}{done.stderr[-3000:]}",
                    pytrace=False)
    return done


def run_here() -> set[str]:
    """The README commands this module runs."""
    return {c for c in readme_commands() if c.split()[0] in ("tinker-nomics", "papermill")
            or c.startswith(("make validate", "make help"))}


def test_every_readme_command_is_covered():
    commands = readme_commands()
    assert "make book" in commands and "make test" in commands   # the reader finds them
    uncovered = [c for c in commands if c not in run_here() and c not in DRY_RUN and c not in ELSEWHERE]
    assert uncovered == [], "sort these README commands into run_here, DRY_RUN or ELSEWHERE in tests/test_readme.py"
    stale = sorted((DRY_RUN | set(ELSEWHERE)) - set(commands))
    assert stale == [], "no longer in the README"


def test_make_commands_exist_as_written():
    for line in sorted(DRY_RUN):
        done = run(line.replace("make ", "make -n --no-print-directory ", 1), check=False)
        assert done.returncode == 0, f"{line}: {done.stderr}"
    assert "make validate" in readme_commands()
    done = run("make validate", check=False)   # without RUN: says what to set, status 2
    assert done.returncode == 2
    assert done.stderr.startswith("make validate: set RUN=<log folder, log file or W&B export>\n")


def test_inline_cli_commands_run():
    import tinker_nomics
    assert run("tinker-nomics --version").stdout == f"tinker-nomics {tinker_nomics.__version__}\n"
    assert "math_rl" in run("tinker-nomics workloads").stdout
    assert "test-resolve" in run(command("make help")).stdout


def test_validate_as_written():
    line = command("tinker-nomics validate data/")
    shown = run(line).stdout
    # the bundled run billed at the October list: the same total the JSON gives
    from tinker_nomics import fmt
    total = json.loads(run(line + " --format json").stdout)["tinker"]["total_usd"]
    assert fmt.usd(total) in shown


@pytest.mark.slow
def test_make_validate_renders_the_report(tmp_path):
    line = command("make validate RUN=data/")
    out = REPO / dict(a.split("=", 1) for a in shlex.split(line)[2:] if "=" in a)["OUT"]
    aside = tmp_path / "existing-report"
    if out.exists():   # a report someone made: keep it
        shutil.move(out, aside)
    try:
        done = run(line)
        assert f"Report: {out.resolve() / 'run_validation.ipynb'}" in done.stdout
        assert sorted(p.name for p in out.iterdir()) == ["report.html", "run_validation.ipynb", "summary.txt",
                                                         "validation.json"]
        executed = json.loads((out / "run_validation.ipynb").read_text())
        assert [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"] == []
    finally:
        shutil.rmtree(out, ignore_errors=True)
        if aside.exists():
            shutil.move(aside, out)


@pytest.mark.slow
def test_papermill_example_as_written(tmp_path):
    """Runs in a scratch folder that links notebooks/, so out.ipynb lands there and not in the checkout."""
    (tmp_path / "notebooks").symlink_to(REPO / "notebooks")
    done = run(command("papermill "), cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    executed = json.loads((tmp_path / "out.ipynb").read_text())
    assert executed["cells"] and not [o for c in executed["cells"] for o in c.get("outputs", [])
                                      if o.get("output_type") == "error"]


def test_python_example_as_written(tmp_path):
    (block,) = fenced_blocks("python")
    (tmp_path / "data").symlink_to(REPO / "data")   # the example reads a bundled config.json by its repository path
    checks = """
import json, subprocess, sys
assert est.cheaper in ("tinker", "self_hosted") and est.tinker.total_usd > 0
assert sweep.tinker.total_usd.shape == (64,)
cli = json.loads(subprocess.run([sys.executable, "-m", "tinker_nomics", "estimate", "--model", "Qwen3-8B",
    "--prompts-per-step", "64", "--group-size", "16", "--completion-tokens", "512", "--prompt-tokens", "200",
    "--steps", "180", "--format", "json"], capture_output=True, text=True, check=True).stdout)
assert set(cli) - set(est.to_dict()) == {"produced_by", "other_services", "uncertainty"}, "the README says what the JSON adds"
assert cli["tinker"]["total_usd"] == est.to_dict()["tinker"]["total_usd"]
"""
    done = subprocess.run([sys.executable, "-c", block + checks], cwd=tmp_path, env=ENV, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-3000:]
