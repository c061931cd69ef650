#!/usr/bin/env bash
# Vendor the browser JavaScript the book needs, from npm, into book/_vendor/ so the built site
# renders with no network: the ipywidgets HTML manager (+ its FontAwesome fonts), RequireJS and MathJax,
# plus tools/widgets-setup.js (glue between them).
# Pitfall: never put these under _static/, Jupyter Book 1 injects every .js there into every page.
# _config.yml points Sphinx at book/_vendor (html_static_path, mathjax_path, nb_ipywidgets_js).
# Idempotent: does nothing (and needs no network) when book/_vendor/VERSIONS already matches.
set -euo pipefail

PACKAGES=(
  "@jupyter-widgets/html-manager@1.0.15"
  "requirejs@2.3.8"
  "mathjax@3.2.2"
)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dest="$(dirname "$here")/book/_vendor"
stamp="$dest/VERSIONS"
# The stamp names the packages and hashes the local files, so editing them re-vendors too.
wanted=$(printf '%s\n' "${PACKAGES[@]}"; cd "$here" && sha256sum vendor_js.sh widgets-setup.js | cut -c1-16,66-)

required_files=(
  widgets/require.js
  widgets/embed-amd.js
  widgets/widgets-setup.js
  mathjax/tex-mml-chtml.js
)
all_present() {
  local f
  for f in "${required_files[@]}"; do [ -s "$dest/$f" ] || return 1; done
  compgen -G "$dest/mathjax/output/chtml/fonts/woff-v2/*.woff" >/dev/null
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && all_present; then
  echo "vendor_js: book/_vendor is up to date"
  exit 0
fi

command -v npm >/dev/null || { echo "vendor_js: npm not found; install Node.js/npm (apt-get install -y npm)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "${PACKAGES[@]}" >/dev/null)
for t in "$tmp"/*.tgz; do
  mkdir -p "${t%.tgz}"
  tar xzf "$t" -C "${t%.tgz}"
done
hm="$tmp/jupyter-widgets-html-manager-1.0.15/package/dist"
rq="$tmp/requirejs-2.3.8/package"
mj="$tmp/mathjax-3.2.2/package/es5"

# Build into a fresh directory, then swap, so an interrupted run never leaves a half-filled _vendor.
new="$dest.new"
rm -rf "$new"
mkdir -p "$new/widgets" "$new/mathjax/output/chtml/fonts"
cp "$rq/require.js" "$new/widgets/"
cp "$hm/embed-amd.js" "$new/widgets/"            # bundles base, controls and output widgets
# FontAwesome files that embed-amd.js references by hashed name (icons on buttons, etc.).
cp "$hm"/*.woff2 "$hm"/*.woff "$hm"/*.ttf "$new/widgets/"   # browsers skip the .eot/.svg fallbacks
cp "$here/widgets-setup.js" "$new/widgets/"   # font path + MathJax 2 shim, see the file
cp "$mj/tex-mml-chtml.js" "$new/mathjax/"
cp -r "$mj/output/chtml/fonts/woff-v2" "$new/mathjax/output/chtml/fonts/"
printf '%s\n' "$wanted" > "$new/VERSIONS"

rm -rf "$dest"
mv "$new" "$dest"
echo "vendor_js: vendored ${PACKAGES[*]} into book/_vendor ($(du -sh "$dest" | cut -f1))"
