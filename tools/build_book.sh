#!/usr/bin/env bash
# Build the book into _build/html: the one command behind `make book`, also run by the browser test.
# Notebooks are executed through the jupyter-cache in _build/.jupyter_cache (only changed ones re-run);
# -W turns every Sphinx warning, including a notebook cell that raises, into a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
JUPYTER_BOOK=${JUPYTER_BOOK:-.venv/bin/jupyter-book}

tools/vendor_js.sh          # no-op (and no network) when book/_vendor already holds the pinned versions
# Sphinx copies static files only when some page is rebuilt, so a re-vendored book/_vendor would not
# reach _build/html; rebuild every page then (notebooks still come from the cache).
all=()
if [ -f _build/html/.built ] && [ book/_vendor/VERSIONS -nt _build/html/.built ]; then all=(--all); fi
"$JUPYTER_BOOK" build -W -n --keep-going "${all[@]}" .
# Sphinx leaves unchanged pages (and index.html) untouched, so their mtimes cannot tell a fresh build
# from a stale one; this stamp can (tests/conftest.py compares it with the sources).
touch _build/html/.built
