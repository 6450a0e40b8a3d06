#!/usr/bin/env bash
# Vendor Aladin Lite (the npm package aladin-lite, LGPL-3) into serve/static/vendor/aladin-lite/: the workbench's sky
# view loads it from there, so the page works offline and its content security policy stays 'self'. The built file is
# committed (2.3 MB, unmodified): a clean clone, CI and machines without Node need nothing more. Run this only to
# change the version (then check the sky view's browser tests: tests/serve/test_sky_browser.py).
# Usage: bash scripts/vendor_aladin_lite.sh [VERSION]   (needs npm; default: the version in the folder's README.md)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
target="$here/serve/static/vendor/aladin-lite"
version="${1:-$(sed -n 's/^version: //p' "$target/README.md")}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "aladin-lite@$version" >/dev/null && tar xzf "aladin-lite-$version.tgz")
mkdir -p "$target"
cp "$work/package/dist/aladin.js" "$work/package/LICENSE" "$work/package/COPYING" "$work/package/COPYING.LESSER" "$target/"
integrity="$(cd "$work" && npm view "aladin-lite@$version" dist.integrity)"
cat > "$target/README.md" <<TEXT
# Aladin Lite, vendored

name: aladin-lite (npm)
version: $version
npm integrity of the package: $integrity
licence: LGPL-3.0 (LICENSE; GPL-3.0 in COPYING, which it supplements); source: https://github.com/cds-astro/aladin-lite
files: dist/aladin.js of the package, unmodified; the licence files.

Written by scripts/vendor_aladin_lite.sh; run it with another version to update.
TEXT
echo "vendored aladin-lite $version into $target"
