"""One truth about Python: pyproject.toml's classifiers list the supported minor versions, and
requires-python, the Binder pin (runtime.txt where repo2docker reads it), the README and `make` agree with them.

`make` checks $(PYTHON) before it creates .venv (tools/check_python.sh) and stops in one line that names the
supported Pythons it found. Those tests use stand-in interpreters (shell scripts answering the checker's three
questions) so they do not depend on which Pythons this machine has. Whether the pinned requirements install on
each supported version is tests/test_resolve.py (needs the package index).
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHECK = REPO / "tools" / "check_python.sh"


@functools.lru_cache(maxsize=None)
def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def supported_minors() -> list[str]:
    """'3.11', '3.12', ... from the "Programming Language :: Python :: 3.X" classifiers."""
    found = [m.group(1) for c in pyproject()["project"]["classifiers"]
             if (m := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c))]
    return sorted(found, key=lambda v: tuple(map(int, v.split("."))))


def binder_config_dir() -> Path:
    """Where repo2docker reads its configuration files: binder/ or .binder/ when one exists (and then nothing at
    the top level), else the top level (repo2docker/buildpacks/base.py, `binder_dir` and `binder_path`)."""
    for name in ("binder", ".binder"):
        if (REPO / name).is_dir():
            return REPO / name
    return REPO


def binder_python() -> str:
    """The Python Binder builds with: `python-X.Y` in runtime.txt (repo2docker docs, configuration/system.md)."""
    runtime = binder_config_dir() / "runtime.txt"
    assert runtime.is_file(), f"no {runtime.relative_to(REPO)}: repo2docker would pick its default Python"
    match = re.fullmatch(r"python-(3\.\d+)", runtime.read_text().strip())
    assert match, f"{runtime.relative_to(REPO)} must read python-3.X, got {runtime.read_text().strip()!r}"
    return match.group(1)


def test_requires_python_is_the_oldest_supported_version():
    minors = supported_minors()
    assert minors, "pyproject.toml lists no Programming Language :: Python :: 3.X classifier"
    assert pyproject()["project"]["requires-python"] == f">={minors[0]}"
    # the listed versions are consecutive: the range `make` and the README state has no holes
    numbers = [int(v.split(".")[1]) for v in minors]
    assert numbers == list(range(numbers[0], numbers[-1] + 1))


def test_binder_is_pinned_to_a_supported_python():
    assert binder_python() in supported_minors()


def test_readme_states_the_supported_range():
    minors = supported_minors()
    readme = (REPO / "README.md").read_text()
    assert f"Python {minors[0]}–{minors[-1]}" in readme
    assert "3.10+" not in readme


# ------------------------------------------------------------------ make's interpreter check (tools/check_python.sh)

def stand_in(folder: Path, name: str, version: str, has_venv: bool = True) -> Path:
    """A script that answers check_python.sh's questions like a Python of `version` would."""
    path = folder / name
    path.write_text("#!/bin/sh\n"
                    'case "$2" in\n'
                    f'  *version_info*) echo {version} ;;\n'
                    f'  *realpath*) echo "{path}" ;;\n'
                    f'  *ensurepip*) exit {0 if has_venv else 1} ;;\n'
                    "  *) exit 3 ;;\n"
                    "esac\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def machine(tmp_path):
    """An environment whose only Pythons are the stand-ins put in tmp_path/bin (plus the shell tools)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path / "home"), "PYENV_ROOT": str(tmp_path / "pyenv"),
           "PYTHON_SEARCH_DIRS": ""}
    for tool in ("python3", *(f"python{v}" for v in ("3.9", "3.10", *supported_minors(), "3.14"))):
        if any(Path(d, tool).exists() for d in ("/usr/bin", "/bin")):
            stand_in(bin_dir, tool, "0.0.0")   # shadow the machine's own: a stand-in 0.0.0 is never supported
    return bin_dir, env


def check(python: str, env: dict, *goals: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(CHECK), python, *goals], env=env, capture_output=True, text=True)


def test_a_supported_python_passes_silently(machine):
    bin_dir, env = machine
    for minor in supported_minors():
        done = check(str(stand_in(bin_dir, f"py{minor}", f"{minor}.4")), env)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_an_old_python_stops_in_one_line_naming_the_ones_found(machine, tmp_path):
    bin_dir, env = machine
    minors = supported_minors()
    old = stand_in(bin_dir, "python3", "3.10.12")
    stand_in(bin_dir, f"python{minors[-1]}", f"{minors[-1]}.1")
    pyenv_python = tmp_path / "pyenv" / "versions" / f"{minors[0]}.7" / "bin"
    pyenv_python.mkdir(parents=True)
    stand_in(pyenv_python, "python3", f"{minors[0]}.7")
    done = check("python3", env, "book")
    assert done.returncode == 1 and done.stdout.count("\n") == 1
    line = done.stdout.strip()
    assert line.startswith(f"tinker-nomics needs Python {minors[0]}-{minors[-1]} ")
    assert "but python3 is Python 3.10.12" in line
    # oldest supported first (the one CI and Binder use), each with the path to give PYTHON=
    assert f"found here: {pyenv_python / 'python3'} ({minors[0]}.7), python{minors[-1]} ({minors[-1]}.1);" in line
    assert line.endswith(f"run: make book PYTHON={pyenv_python / 'python3'}")
    assert str(old) not in line


def test_a_too_new_python_and_no_supported_one(machine):
    bin_dir, env = machine
    newer = f"3.{int(supported_minors()[-1].split('.')[1]) + 1}"
    stand_in(bin_dir, "python3", f"{newer}.0")
    line = check("python3", env, "test").stdout
    assert f"but python3 is Python {newer}.0; none found on PATH, in pyenv or in uv" in line
    assert line.strip().endswith(f"make test PYTHON=/path/to/python{supported_minors()[-1]}")


def test_a_python_that_does_not_run(machine):
    _, env = machine
    line = check("/no/such/python", env, "install").stdout
    assert "but /no/such/python does not run" in line and line.count("\n") == 1


def test_a_python_without_venv_names_the_debian_package(machine):
    bin_dir, env = machine
    minor = supported_minors()[0]
    done = check(str(stand_in(bin_dir, "bare", f"{minor}.2", has_venv=False)), env)
    assert done.returncode == 1
    assert done.stdout.strip().endswith(f"on Debian or Ubuntu run (as root): apt-get install python{minor}-venv")


def test_make_stops_before_creating_the_venv(machine, tmp_path):
    bin_dir, env = machine
    old = stand_in(bin_dir, "python3", "3.10.12")
    venv = tmp_path / "venv"
    done = subprocess.run(["make", "--no-print-directory", "book", f"VENV={venv}", f"PYTHON={old}"], cwd=REPO,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert re.fullmatch(r"Makefile:\d+: \*\*\* tinker-nomics needs Python .*is Python 3\.10\.12.*\.  Stop\.\n",
                        done.stderr)
    assert not venv.exists()


def test_make_help_and_an_installed_venv_skip_the_check(machine, tmp_path):
    bin_dir, env = machine
    old = stand_in(bin_dir, "python3", "3.10.12")
    done = subprocess.run(["make", "--no-print-directory", "help", f"PYTHON={old}"], cwd=REPO, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0 and "test-resolve" in done.stdout
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / ".installed").touch()
    done = subprocess.run(["make", "-n", "--no-print-directory", "test-fast", f"VENV={venv}", f"PYTHON={old}"],
                          cwd=REPO, env={**env, "PATH": os.environ["PATH"]}, capture_output=True, text=True)
    assert done.returncode == 0 and "pytest" in done.stdout, done.stderr
