"""Finding the browser the browser tests drive (tools/find_browser.py, shared by tests/conftest.py and
`make browser-deps`): CHROMIUM=, the PATH and usual install paths, Playwright's own download, snap browsers
skipped, and one line with the install command of the detected system when there is none.

The slow tests launch the real browser both through CHROMIUM= and through a Playwright browsers folder whose
`chrome` is a symlink to it.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CHROMIUM_ARGS, REPO, find_browser as fb

NOWHERE = {"PATH": "", "HOME": "/nonexistent"}   # an environment in which nothing is found


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def playwright_folder(root: Path, target: Path, revisions=(1100, 1200)) -> Path:
    """A Playwright browsers folder (as `playwright install chromium` leaves it) whose chromes link to target."""
    for revision in revisions:
        chrome = root / f"chromium-{revision}" / "chrome-linux64" / "chrome"
        chrome.parent.mkdir(parents=True)
        chrome.symlink_to(target)
    return root


@pytest.fixture(scope="module")
def real_browser() -> Path:
    """The browser this machine has (make browser-deps installs one on Debian)."""
    try:
        return fb.find_browser().path
    except fb.BrowserNotFound as exc:
        pytest.fail(str(exc), pytrace=False)


def test_chromium_variable_wins(tmp_path):
    chosen = executable(tmp_path / "my-chrome")
    found = fb.find_browser(env={**NOWHERE, "CHROMIUM": str(chosen)})
    assert (found.path, found.how) == (chosen, "CHROMIUM")


def test_a_chromium_variable_that_does_not_run_is_an_error_not_a_hint(tmp_path):
    with pytest.raises(fb.BrowserNotFound, match="CHROMIUM=/no/such/chrome is not an executable file"):
        fb.find_browser(env={**NOWHERE, "PATH": os.environ["PATH"], "CHROMIUM": "/no/such/chrome"})


def test_path_then_usual_paths(tmp_path):
    on_path = executable(tmp_path / "bin" / "google-chrome")
    usual = executable(tmp_path / "opt" / "chromium")
    env = {**NOWHERE, "PATH": str(on_path.parent)}
    assert fb.find_browser(env=env, usual_paths=[str(usual)]).path == on_path
    found = fb.find_browser(env=NOWHERE, usual_paths=[str(tmp_path / "missing"), str(usual)])
    assert (found.path, found.how) == (usual, "usual path")


def test_playwright_download_newest_revision_first(tmp_path):
    target = executable(tmp_path / "real-chrome")
    folder = playwright_folder(tmp_path / "browsers", target)
    found = fb.find_browser(env={**NOWHERE, "PLAYWRIGHT_BROWSERS_PATH": str(folder)}, usual_paths=(), system="debian")
    assert found.how == "Playwright" and found.path == folder / "chromium-1200" / "chrome-linux64" / "chrome"
    # without PLAYWRIGHT_BROWSERS_PATH: Playwright's default cache under the home folder, per system
    playwright_folder(tmp_path / "home" / ".cache" / "ms-playwright", target, revisions=(1300,))
    found = fb.find_browser(env={"PATH": "", "HOME": str(tmp_path / "home")}, usual_paths=(), system="ubuntu")
    assert found.path.parent.parent.name == "chromium-1300"


def test_snap_wrapper_is_skipped_and_named(tmp_path):
    """Ubuntu's apt `chromium-browser` only starts the snap, which cannot open Playwright's /tmp profile."""
    wrapper = executable(tmp_path / "bin" / "chromium-browser",
                         '#!/bin/sh\n# transitional package\nexec /snap/bin/chromium "$@"\n')
    with pytest.raises(fb.BrowserNotFound) as caught:
        fb.find_browser(env={**NOWHERE, "PATH": str(wrapper.parent)}, usual_paths=(), system="ubuntu")
    message = str(caught.value)
    assert f"skipped the snap {wrapper}" in message
    assert "install one: .venv/bin/python -m playwright install chromium --with-deps" in message
    assert "\n" not in message


@pytest.mark.parametrize("system, root, command", [
    ("debian", True, "apt-get install -y chromium fonts-dejavu-core"),
    ("debian", False, "sudo apt-get install -y chromium fonts-dejavu-core"),
    ("ubuntu", False, ".venv/bin/python -m playwright install chromium --with-deps"),
    ("fedora", False, "sudo dnf install -y chromium"),
    ("macos", False, ".venv/bin/python -m playwright install chromium"),
    ("other", True, ".venv/bin/python -m playwright install chromium --with-deps"),
])
def test_one_install_command_per_system(system, root, command):
    assert fb.install_command(system, root) == command


def test_nothing_found_is_one_line_with_the_command(tmp_path):
    with pytest.raises(fb.BrowserNotFound) as caught:
        fb.find_browser(env=NOWHERE, usual_paths=(), system="fedora")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("no Chromium or Chrome found; install one: ")
    assert "dnf install -y chromium" in message and "CHROMIUM=/path/to/chrome" in message


@pytest.mark.parametrize("release, system", [
    ('ID=debian\nVERSION_ID="12"\n', "debian"),
    ('ID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n', "ubuntu"),
    ('ID=fedora\nVERSION_ID=41\n', "fedora"),
    ('ID="rocky"\nID_LIKE="rhel centos fedora"\n', "fedora"),
    ('ID=linuxmint\nID_LIKE="ubuntu debian"\n', "ubuntu"),
    ('ID=arch\n', "other"),
])
def test_detect_system_from_os_release(tmp_path, release, system):
    if sys.platform == "darwin":
        pytest.skip("macOS is detected by platform.system(), not /etc/os-release")
    (tmp_path / "os-release").write_text(release)
    assert fb.detect_system(str(tmp_path / "os-release")) == system


def test_make_browser_deps_reports_the_browser_and_fails_in_one_line_without_one(tmp_path, real_browser):
    env = {**os.environ, "CHROMIUM": str(real_browser)}
    done = subprocess.run(["make", "--no-print-directory", "browser-deps"], cwd=REPO, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"browser-deps: {real_browser} (CHROMIUM)"
    env["CHROMIUM"] = str(tmp_path / "absent")
    done = subprocess.run([sys.executable, "tools/find_browser.py"], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"browser-deps: CHROMIUM={tmp_path / 'absent'} is not an executable file; point it at a " \
                          f"Chromium or Chrome binary, or unset it to search\n"


@pytest.mark.slow
@pytest.mark.parametrize("way", ["CHROMIUM", "Playwright"])
def test_the_found_browser_runs_a_page(tmp_path, real_browser, browser, way):
    """Launch through each way of finding it (the session's Playwright launches it; one sync API at a time)."""
    if way == "CHROMIUM":
        env = {**NOWHERE, "CHROMIUM": str(real_browser)}
    else:
        env = {**NOWHERE, "PLAYWRIGHT_BROWSERS_PATH": str(playwright_folder(tmp_path / "ms-playwright", real_browser))}
    found = fb.find_browser(env=env, usual_paths=())
    assert found.how == way and found.path.resolve() == real_browser.resolve()
    launched = browser.browser_type.launch(executable_path=str(found.path), args=CHROMIUM_ARGS)
    try:
        page = launched.new_page()
        page.set_content("<p id=x>found</p><script>document.getElementById('x').textContent += ' and ran'</script>")
        assert page.text_content("#x") == "found and ran"
    finally:
        launched.close()
