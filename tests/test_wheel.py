"""The package as pip installs it: the wheel carries data/ and the report's notebook, and works outside the checkout.

The wheel is built from a copy of the sources (so the checkout gets no build/ folder) with the setuptools of
.venv (requirements.txt pins it; --no-build-isolation: no network), installed with --no-index --no-deps into a
fresh virtualenv in a temporary folder, and run from there. Its dependencies come from the project's .venv
through a .pth line, not from the network: `make test-slow` runs offline. The commands run from a folder outside the
checkout with TINKER_NOMICS_DATA unset, so they can only read what the wheel carries, and their output must be
what the checkout prints.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow
BUILD_INPUTS = ("pyproject.toml", "README.md", "tinker_nomics", "data", "notebooks")
V3B = "runs/omnimath/gptoss-20b-v3b-metrics.jsonl"   # a bundled run (data/runs/omnimath/runs.csv)


def run(*args, cwd, env=None, check=True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True)
    if check and done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, args))} failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}",
                    pytrace=False)
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    for name in BUILD_INPUTS:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps", "--no-index",
        "--wheel-dir", tmp / "dist", source, cwd=tmp)
    (built,) = (tmp / "dist").glob("tinker_nomics-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """(venv python, console script, environment, folder to run in) for the wheel in a fresh virtualenv."""
    tmp = tmp_path_factory.mktemp("installed")
    venv = tmp / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp)
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", wheel, cwd=tmp)
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp).stdout.strip())
    # numpy, pandas, papermill, ... from the project's .venv: a plain path line (its own .pth files, among them the
    # editable install of the checkout, are not processed), after the wheel's own site-packages
    (site / "project_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("TINKER_NOMICS_DATA", "PYTHONPATH", "VIRTUAL_ENV")}
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return python, venv / "bin" / "tinker-nomics", env, elsewhere, site


def checkout_cli(*args: str) -> str:
    return run(sys.executable, "-m", "tinker_nomics", *args, cwd=REPO).stdout


def test_the_wheel_carries_every_module_the_tables_and_the_notebook(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {f"tinker_nomics/{p.relative_to(REPO / 'tinker_nomics').as_posix()}"
               for p in (REPO / "tinker_nomics").rglob("*") if p.is_file() and p.suffix in (".py", ".js", ".typed")}
    tables = {f"tinker_nomics/data/{p.relative_to(REPO / 'data').as_posix()}"
              for p in (REPO / "data").rglob("*") if p.is_file()}
    assert modules - names == set(), "a package is missing from [tool.setuptools] packages in pyproject.toml"
    assert tables - names == set()
    assert "tinker_nomics/notebooks/run_validation.ipynb" in names
    assert not any(n.startswith(("data/", "notebooks/")) for n in names), "top-level data/ would clash in site-packages"


def test_it_runs_from_the_wheel_not_the_checkout(installed):
    python, _, env, elsewhere, site = installed
    where = run(python, "-c", "import tinker_nomics as t; from tinker_nomics.sources import data_dir; "
                "print(t.__file__); print(data_dir())", cwd=elsewhere, env=env).stdout.split()
    assert where == [str(site / "tinker_nomics" / "__init__.py"), str(site / "tinker_nomics" / "data")]


def test_estimate_answers_as_in_the_checkout(installed):
    _, cli, env, elsewhere, _ = installed
    import tinker_nomics
    assert run(cli, "--version", cwd=elsewhere, env=env).stdout == f"tinker-nomics {tinker_nomics.__version__}\n"
    args = ("estimate", "--workload", "math_rl", "--prices", "2026-01-05")
    assert run(cli, *args, cwd=elsewhere, env=env).stdout == checkout_cli(*args)
    installed_json = json.loads(run(cli, *args, "--format", "json", cwd=elsewhere, env=env).stdout)
    assert installed_json == json.loads(checkout_cli(*args, "--format", "json"))
    for kind in (("decode", "--concurrency", "64", "--input-len", "512", "--output-len", "512"),
                 ("rl-step", "--samples", "1024", "--prompt-len", "200", "--response-len", "1000")):
        args = ("predict", kind[0], "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "8", *kind[1:],
                "--format", "json")
        assert json.loads(run(cli, *args, cwd=elsewhere, env=env).stdout) == json.loads(checkout_cli(*args))


def test_validate_a_bundled_run_and_render_its_report(installed, tmp_path):
    _, cli, env, elsewhere, site = installed
    log = site / "tinker_nomics" / "data" / V3B   # the copy the wheel ships
    args = ("--model", "gpt-oss-20b", "--prices", "2026-01-05", "--format", "json")
    shown = json.loads(run(cli, "validate", log, *args, "--report", tmp_path / "report", cwd=elsewhere, env=env).stdout)
    expected = json.loads(checkout_cli("validate", str(REPO / "data" / V3B), *args))
    assert shown["report"] == str(tmp_path / "report" / "run_validation.ipynb")
    assert shown["tinker"] == expected["tinker"] and shown["tokens"] == expected["tokens"]
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["report.html", "run_validation.ipynb",
                                                                     "summary.txt", "validation.json"]
    executed = json.loads((tmp_path / "report" / "run_validation.ipynb").read_text())
    errors = [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    saved = json.loads((tmp_path / "report" / "validation.json").read_text())
    assert saved["produced_by"] == expected["produced_by"] and saved["tinker"] == expected["tinker"]


def test_a_missing_registry_is_one_line(installed, tmp_path):
    """What `pip install .` used to give (issue 14): no data/ where the package looks. Here on a copy of the venv."""
    python, _, env, elsewhere, site = installed
    broken = tmp_path / "site-packages"
    shutil.copytree(site / "tinker_nomics", broken / "tinker_nomics", ignore=shutil.ignore_patterns("data"))
    code = "import sys; from tinker_nomics.faces.cli import main; sys.exit(main(sys.argv[1:]))"
    no_data = {**env, "PYTHONPATH": str(broken)}
    done = run(python, "-c", code, "estimate", "--workload", "math_rl", cwd=elsewhere, env=no_data, check=False)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("tinker-nomics: error: registry folder not found: neither tinker_nomics/data")
    # TINKER_NOMICS_DATA still points it at a registry folder
    done = run(python, "-c", code, "estimate", "--workload", "math_rl", cwd=elsewhere,
               env={**no_data, "TINKER_NOMICS_DATA": str(site / "tinker_nomics" / "data")})
    assert done.stdout.startswith("math_rl · Qwen/Qwen3-8B")
