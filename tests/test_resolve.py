"""Every requirements file installs, for every supported Python: pip's resolver against the package index.

Supported Pythons are pyproject.toml's "Programming Language :: Python :: 3.X" classifiers (the same list
`make` accepts, tools/check_python.sh), plus the Python Binder is pinned to (runtime.txt). For each version,
`pip install --dry-run --python-version X.Y --only-binary=:all:` resolves each requirements file in the
repository (requirements*.txt anywhere outside build, cache and virtualenv folders, so a new binder/ or
test-only file is picked up). A file installed on top of another includes it with `-r`, so resolving the file
alone resolves that environment. The line that installs this package (`-e .`, `.`, `-e ..` from binder/)
becomes the package's own dependencies: the package itself is not on the index.

Needs the network, so `make test` (offline) deselects it (marker `network`); `make test-resolve` runs it, as
its own phase of .ci/run, with REQUIRE_NETWORK=1: there an unreachable index fails instead of skipping.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from test_python_support import binder_python, pyproject, supported_minors

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.network
SKIP_DIRS = {"_build", "node_modules", "reports", "build", "dist", "_vendor", "__pycache__"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)")


def requirement_files() -> list[Path]:
    found = []
    for path in sorted(REPO.rglob("requirements*.txt")):
        parts = path.relative_to(REPO).parts[:-1]
        if any(p in SKIP_DIRS or (p.startswith(".") and p != ".binder") for p in parts):
            continue
        found.append(path)
    return found


def python_versions() -> list[str]:
    return sorted(set(supported_minors()) | {binder_python()}, key=lambda v: tuple(map(int, v.split("."))))


def this_package(line: str, folder: Path) -> list[str] | None:
    """The package's own requirements when `line` installs this repository (`-e .`, `.[book]`, `-e ..`)."""
    target = re.sub(r"^(-e|--editable)\s+", "", line.strip())
    match = re.fullmatch(r"(\.{1,2}(?:/[^\s\[]*)?)(?:\[([\w,\s-]+)\])?", target)
    if not match or (folder / match.group(1)).resolve() != REPO:
        return None
    project = pyproject()["project"]
    extras = [e.strip() for e in (match.group(2) or "").split(",") if e.strip()]
    return list(project["dependencies"]) + [r for e in extras for r in project["optional-dependencies"][e]]


def prepared_copy(tmp: Path) -> dict[Path, Path]:
    """Copies of every requirements file under tmp (same relative paths, so `-r` lines still work), the
    line that installs this package replaced by its dependencies."""
    copies = {}
    for path in requirement_files():
        lines = []
        for line in path.read_text().splitlines():
            own = this_package(line.split(" #")[0], path.parent)
            lines += own if own is not None else [line]
        copy = tmp / path.relative_to(REPO)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text("\n".join(lines) + "\n")
        copies[path] = copy
    return copies


def pins(path: Path) -> dict[str, str]:
    """name==version lines of one file (names normalised as pip reports them)."""
    out = {}
    for line in path.read_text().splitlines():
        match = PIN.match(line.strip())
        if match:
            out[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2)
    return out


def index_url() -> str:
    """The index pip resolves against: its configured index-url (any scope), else PyPI."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    urls = re.findall(r"^[\w:]*\.index-url='([^']+)'$", listed, flags=re.M)   # not extra-index-url
    return (os.environ.get("PIP_INDEX_URL") or (urls[-1] if urls else "https://pypi.org/simple")).rstrip("/")


@pytest.fixture(scope="module")
def index_reachable():
    """Skip (or, with REQUIRE_NETWORK=1, fail) when the index cannot be reached. Asked of the index itself:
    pip can also answer from a local mirror or its cache, which would hide the missing network."""
    url = f"{index_url()}/pip/"
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            response.read(1)
    except (OSError, ValueError) as exc:
        reason = f"the package index is not reachable ({url}: {exc})"
        if os.environ.get("REQUIRE_NETWORK") == "1":
            pytest.fail(reason + "; REQUIRE_NETWORK=1 (make test-resolve) needs it", pytrace=False)
        pytest.skip(reason)


def test_the_files_include_the_pinned_set():
    files = [p.relative_to(REPO).as_posix() for p in requirement_files()]
    assert "requirements.txt" in files, files
    assert {"3.11", "3.12", "3.13"} <= set(python_versions())


@pytest.mark.parametrize("version", python_versions())
def test_every_requirements_file_resolves(version, tmp_path, index_reachable):
    copies = prepared_copy(tmp_path / "files")
    for source, copy in copies.items():
        report = tmp_path / f"{source.name}.json"
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
             "--only-binary=:all:", "--python-version", version, "--target", str(tmp_path / "target"),
             "--report", str(report), "-r", str(copy)],
            capture_output=True, text=True)
        errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
        assert done.returncode == 0, f"{source.relative_to(REPO)} on Python {version}: {' | '.join(errors)}"
        resolved = {item["metadata"]["name"].lower().replace("_", "-"): item["metadata"]["version"]
                    for item in json.loads(report.read_text())["install"]}
        for name, version_pinned in pins(copy).items():
            assert resolved.get(name) == version_pinned, f"{source.name}: {name} {resolved.get(name)} != {version_pinned}"
