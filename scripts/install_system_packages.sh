#!/usr/bin/env bash
# Install the machine's PostgreSQL server and the q3c extension when missing (Debian/Ubuntu, as root).
# Without root or apt the project still runs if a PostgreSQL server is already installed; q3c then falls back
# to the project's SQL functions.
# With --tap it also installs GAVO DaCHS, the local TAP server of the TAP engine tests (scripts/install_tap_server.sh).
set -euo pipefail
if [ "${1:-}" = "--tap" ]; then
    # After the PostgreSQL part, whichever way it ends; a failed DaCHS install fails the script.
    trap 'status=$?; bash "$(dirname "$0")/install_tap_server.sh" || status=$?; exit "$status"' EXIT
fi
have_server() { command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; }
have_q3c() { ls /usr/share/postgresql/*/extension/q3c.control >/dev/null 2>&1; }
if have_server && have_q3c; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    have_server || { echo "error: no PostgreSQL server found; install PostgreSQL 15 or pass --dsn" >&2; exit 1; }
    echo "warning: q3c extension missing and cannot be installed here; using the SQL fallback" >&2
    exit 0
fi
echo "installing PostgreSQL 15 and q3c with apt-get" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-15-q3c >/dev/null \
    || { have_server || exit 1; echo "warning: q3c could not be installed; using the SQL fallback" >&2; }
