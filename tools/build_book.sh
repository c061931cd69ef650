#!/usr/bin/env bash
# Build the book into _build/html: the one command behind `make book`, also run by the browser test.
#   tools/build_book.sh                  vendor JS if needed, refresh the notebook cache, build
#   tools/build_book.sh --refresh-cache  only the cache step (tests/conftest.py, before it seeds the cache)
# Notebooks are executed through the jupyter-cache in _build/.jupyter_cache (only changed ones re-run);
# -W turns every Sphinx warning, including a notebook cell that raises, into a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# jupyter-book itself, through tools/book_build.py (its notebook client nudges a kernel that leaves a cell queued);
# JUPYTER_BOOK names another program to run instead (the stall tests' stand-in)
if [ -n "${JUPYTER_BOOK:-}" ]; then
  book=("$JUPYTER_BOOK")
else
  book=("${JUPYTER_BOOK_PYTHON:-.venv/bin/python}" tools/book_build.py)
fi
# One build at a time per checkout: concurrent builds (two terminals, a test run) would share _build.
mkdir -p _build
exec 9>_build/.build.lock
flock 9
CACHE=_build/.jupyter_cache               # execute.cache in _config.yml
CACHE_STAMP=_build/.jupyter_cache.package-sha256

# jupyter-cache matches a notebook on its code cells only, but the outputs also depend on the package
# and its data: drop the cache when those change, so no page shows numbers from an older model.
# The stamp is rewritten only on a change, so a build after it knows to re-read every page (--all).
refresh_cache() {
  local now
  now=$( { find tinker_nomics data -type f ! -path '*/__pycache__/*' -print0 2>/dev/null || true; } \
        | sort -z | xargs -0 -r sha256sum | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$CACHE_STAMP" 2>/dev/null)" != "$now" ]; then
    if [ -d "$CACHE" ]; then
      echo "build_book: tinker_nomics/ or data/ changed since the notebooks were cached; they will re-run"
      rm -rf "$CACHE"
    fi
    mkdir -p _build
    echo "$now" > "$CACHE_STAMP"
  fi
}

refresh_cache
[ "${1:-}" = "--refresh-cache" ] && exit 0

tools/vendor_js.sh          # no-op (and no network) when book/_vendor already holds the pinned versions
# Re-read every page (--all) when the last build predates a re-vendoring (Sphinx copies static files
# only when some page is rebuilt) or a cache drop (Sphinx re-reads a notebook only when its file changed).
all=()
if [ -f _build/html/.built ] \
   && { [ book/_vendor/VERSIONS -nt _build/html/.built ] || [ "$CACHE_STAMP" -nt _build/html/.built ]; }; then
  all=(--all)
fi
# The build has a deadline, run once more past it: nbclient can wait on a kernel with no cell running and no
# timeout covering the wait (jupyter/nbclient#312); the notebooks that finished are in the cache by then.
BUILD_DEADLINE_S=${BUILD_DEADLINE_S:-1200}   # a cold build: 56 s in make bench, 90 s in a clean-clone CI
for attempt in 1 2; do
  status=0
  timeout --kill-after=20 "$BUILD_DEADLINE_S" "${book[@]}" build -W -n --keep-going "${all[@]}" . || status=$?
  [ "$status" -ne 124 ] && [ "$status" -ne 137 ] && break
  echo "build_book: the build was still running after ${BUILD_DEADLINE_S} s (a stalled notebook client); attempt $attempt of 2 stopped" >&2
done
[ "$status" -eq 0 ] || exit "$status"
# Sphinx leaves unchanged pages (and index.html) untouched, so their mtimes cannot tell a fresh build
# from a stale one; this stamp can (tests/conftest.py compares it with the sources).
touch _build/html/.built
