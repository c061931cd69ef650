"""Find the Chromium (or Chrome) the browser tests drive, on the machines people have.

    python tools/find_browser.py                  # print the browser's path, or one line saying how to get one
    python tools/find_browser.py --install-as-root  # `make browser-deps`: also install it, when root on Debian

Where it looks, in order:
1. CHROMIUM=/path, if set (and nothing else: a CHROMIUM that does not run is an error, not a hint to look further);
2. chromium, chromium-browser, google-chrome, google-chrome-stable on PATH, then the usual install paths of
   Debian (/usr/bin/chromium), Ubuntu without snap (Google's .deb: /opt/google/chrome), Fedora
   (/usr/bin/chromium-browser) and macOS (/Applications/*.app);
3. the Chromium that `python -m playwright install chromium` downloaded (PLAYWRIGHT_BROWSERS_PATH, else
   ~/.cache/ms-playwright on Linux, ~/Library/Caches/ms-playwright on macOS), newest revision first.

Ubuntu's apt `chromium-browser` is a wrapper around a snap, and snap confinement keeps it from opening the
profile folder Playwright makes under /tmp, so snap browsers are skipped (and named in the message).
When nothing is found, the message gives the one command that installs a browser on the detected system.
Tests (tests/conftest.py) call `find_browser()`; it never needs root. Standard library only, Python 3.8+.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
USUAL_PATHS = (
    "/usr/bin/chromium",                                             # Debian
    "/usr/bin/chromium-browser",                                     # Fedora (and Ubuntu's snap wrapper, skipped)
    "/usr/lib64/chromium-browser/chromium-browser",                  # Fedora, the binary itself
    "/usr/bin/google-chrome", "/opt/google/chrome/chrome",           # Google's .deb / .rpm (Ubuntu without snap)
    "/Applications/Chromium.app/Contents/MacOS/Chromium",            # macOS
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "~/Applications/Chromium.app/Contents/MacOS/Chromium",
    "~/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)
# Inside a Playwright browsers folder: chromium-<revision>/<platform folder>/<executable>, across Playwright versions.
PLAYWRIGHT_EXECUTABLES = (
    "chrome-linux64/chrome", "chrome-linux/chrome",
    "chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium", "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
    "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
    "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
)
PLAYWRIGHT_INSTALL = ".venv/bin/python -m playwright install chromium"
INSTALL = {   # the one command per system; Debian's apt package is a real browser, Ubuntu's is a snap
    "debian": "apt-get install -y chromium fonts-dejavu-core",
    "ubuntu": PLAYWRIGHT_INSTALL + " --with-deps",
    "fedora": "dnf install -y chromium",
    "macos": PLAYWRIGHT_INSTALL,
    "other": PLAYWRIGHT_INSTALL + " --with-deps",
}
AS_ROOT = {"debian", "fedora"}   # these commands need root (prefixed with sudo when not root)


class BrowserNotFound(Exception):
    """No usable browser; the message is one line with the command that installs one."""


@dataclass
class Found:
    path: Path
    how: str                      # "CHROMIUM", "PATH", "usual path", "Playwright"
    skipped: list = field(default_factory=list)


def detect_system(os_release: str = "/etc/os-release") -> str:
    """debian, ubuntu, fedora, macos or other (os-release ID, then ID_LIKE)."""
    if platform.system() == "Darwin":
        return "macos"
    try:
        fields = dict(line.split("=", 1) for line in Path(os_release).read_text().splitlines() if "=" in line)
    except OSError:
        return "other"
    ids = [fields.get("ID", "").strip('"')] + fields.get("ID_LIKE", "").strip('"').split()
    for name in ids:   # Ubuntu says ID_LIKE=debian: its own ID comes first
        if name in ("debian", "ubuntu", "fedora"):
            return name
        if name in ("rhel", "centos"):
            return "fedora"
    return "other"


def install_command(system: str, root: bool) -> str:
    command = INSTALL[system]
    return command if root or system not in AS_ROOT else "sudo " + command


def is_snap(path: Path) -> bool:
    """A snap browser, or Ubuntu's /usr/bin/chromium-browser script that only starts one."""
    if str(path.resolve()).startswith("/snap/"):
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return head.startswith(b"#!") and b"/snap/" in head


def _usable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def playwright_folders(env: dict, home: Path, system: str) -> list:
    configured = env.get("PLAYWRIGHT_BROWSERS_PATH")
    if configured and configured != "0":
        return [Path(configured).expanduser()]
    cache = "Library/Caches/ms-playwright" if system == "macos" else ".cache/ms-playwright"
    return [home / cache]


def playwright_browsers(folder: Path) -> list:
    """Chromium executables in a Playwright browsers folder, newest revision first."""
    if not folder.is_dir():
        return []

    def revision(path: Path) -> int:
        suffix = path.name.rsplit("-", 1)[-1]
        return int(suffix) if suffix.isdigit() else -1

    found = []
    for build in sorted(folder.glob("chromium-*"), key=revision, reverse=True):
        found += [build / exe for exe in PLAYWRIGHT_EXECUTABLES if _usable(build / exe)]
    return found


def find_browser(env: dict | None = None, usual_paths=USUAL_PATHS, home: Path | None = None,
                 system: str | None = None) -> Found:
    """The browser to drive, or BrowserNotFound with the install command for this system."""
    env = dict(os.environ if env is None else env)
    home = Path(env.get("HOME", "~")).expanduser() if home is None else home
    system = detect_system() if system is None else system
    chosen = env.get("CHROMIUM")
    if chosen:
        path = Path(chosen).expanduser()
        if not _usable(path):
            raise BrowserNotFound(f"CHROMIUM={chosen} is not an executable file; point it at a Chromium or Chrome "
                                  f"binary, or unset it to search")
        return Found(path, "CHROMIUM")
    skipped = []
    candidates = [(shutil.which(name, path=env.get("PATH", "")), "PATH") for name in PATH_NAMES]
    candidates += [(str(Path(p).expanduser()), "usual path") for p in usual_paths]
    for folder in playwright_folders(env, home, system):
        candidates += [(str(p), "Playwright") for p in playwright_browsers(folder)]
    for text, how in candidates:
        if not text:
            continue
        path = Path(text)
        if not _usable(path):
            continue
        if is_snap(path):
            if str(path) not in skipped:
                skipped.append(str(path))
            continue
        return Found(path, how, skipped)
    snaps = f" (skipped the snap {', '.join(skipped)}: snap confinement keeps it from running tests)" if skipped else ""
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    raise BrowserNotFound(f"no Chromium or Chrome found{snaps}; install one: {install_command(system, root)} "
                          f"(or set CHROMIUM=/path/to/chrome)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--install-as-root", action="store_true",
                        help="when none is found and this is root on Debian, install Chromium with apt-get")
    args = parser.parse_args(argv)
    try:
        found = find_browser()
    except BrowserNotFound as exc:
        system = detect_system()
        root = hasattr(os, "geteuid") and os.geteuid() == 0
        if not (args.install_as_root and root and system == "debian"):
            print(f"browser-deps: {exc}", file=sys.stderr)
            return 1
        print(f"browser-deps: no browser found; installing: {INSTALL[system]}")
        apt = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        if subprocess.run(["apt-get", "update", "-q"], env=apt).returncode != 0 or \
                subprocess.run(INSTALL[system].split() + ["-q"], env=apt).returncode != 0:
            print("browser-deps: apt-get failed", file=sys.stderr)
            return 1
        try:
            found = find_browser()
        except BrowserNotFound as exc:
            print(f"browser-deps: {exc}", file=sys.stderr)
            return 1
    print(f"browser-deps: {found.path} ({found.how})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
