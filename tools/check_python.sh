#!/usr/bin/env bash
# Is PYTHON one the project supports, with a working venv module? The Makefile runs this before it creates .venv.
#
#   tools/check_python.sh PYTHON [GOAL...]
#
# Prints nothing and exits 0 when PYTHON is fine. Otherwise prints one line (the Makefile stops with it):
# what is wrong, the supported Pythons found on this machine (on PATH, in pyenv, in uv) and the command to use
# one. The supported minor versions are the "Programming Language :: Python :: 3.X" classifiers of
# pyproject.toml, the same list tests/test_resolve.py resolves the pinned requirements for.
# Written for bash 3.2 too (macOS's /bin/bash).
set -u
py=${1:-python3}
shift || true
goals=${*:-book}
here=$(cd "$(dirname "$0")/.." && pwd)
# Folders searched besides PATH, pyenv and uv (system, Homebrew); tests/test_python_support.py narrows them.
search_dirs=${PYTHON_SEARCH_DIRS-/usr/bin /usr/local/bin /opt/homebrew/bin}

supported=$(sed -n 's/.*"Programming Language :: Python :: \(3\.[0-9][0-9]*\)".*/\1/p' "$here/pyproject.toml")
if [ -z "$supported" ]; then
  echo "tools/check_python.sh: no 'Programming Language :: Python :: 3.X' classifier in pyproject.toml"
  exit 1
fi
first=$(echo "$supported" | head -n 1)
last=$(echo "$supported" | tail -n 1)
wanted="Python $first-$last"
[ "$first" = "$last" ] && wanted="Python $first"

version_of() {  # "3.11.2", or nothing when $1 does not run
  "$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null
}

interpreter_of() {  # the real file behind $1 (pyenv shims and symlinks resolved by Python itself)
  "$1" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null
}

is_supported() {  # is_supported 3.11.2
  local minor
  minor=$(echo "$1" | cut -d. -f1,2)
  echo "$supported" | grep -qx "$minor"
}

found_here() {  # the supported Pythons on this machine, "name (version)" joined by ", "
  local list="" seen=" " candidate version real minor
  for minor in $supported; do
    for candidate in "python$minor" $(for dir in $search_dirs; do echo "$dir/python$minor"; done) \
        "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$minor".*/bin/python3 \
        "$HOME"/.local/share/uv/python/cpython-"$minor".*/bin/python3; do
      case "$candidate" in
        */*) [ -x "$candidate" ] || continue ;;
        *) command -v "$candidate" >/dev/null 2>&1 || continue ;;
      esac
      version=$(version_of "$candidate") || continue   # a pyenv shim for an inactive version does not run
      [ -n "$version" ] && is_supported "$version" || continue
      real=$(interpreter_of "$candidate")
      case "$seen" in *" $real "*) continue ;; esac
      seen="$seen$real "
      list="${list:+$list, }$candidate ($version)"
    done
  done
  echo "$list"
}

version=$(version_of "$py")
if [ -n "$version" ] && is_supported "$version"; then
  if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
    minor=$(echo "$version" | cut -d. -f1,2)
    echo "$py (Python $version) has no venv/ensurepip module, so make cannot create .venv; on Debian or Ubuntu run (as root): apt-get install python$minor-venv"
    exit 1
  fi
  exit 0
fi

if [ -z "$version" ]; then
  problem="$py does not run"
else
  problem="$py is Python $version"
fi
found=$(found_here)
if [ -n "$found" ]; then
  pick=${found%% (*}
  echo "tinker-nomics needs $wanted (what its pinned packages are tested with), but $problem; found here: $found; run: make $goals PYTHON=$pick"
else
  echo "tinker-nomics needs $wanted (what its pinned packages are tested with), but $problem; none found on PATH, in pyenv or in uv: install one (your package manager, pyenv or python.org) and run: make $goals PYTHON=/path/to/python$last"
fi
exit 1
