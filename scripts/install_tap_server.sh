#!/usr/bin/env bash
# Install GAVO DaCHS (Debian's gavodachs2-server) as a local TAP server for tests and offline use, as root.
# DaCHS is GPL and not a Python dependency. Where it cannot be installed (not Debian, no root) only the local TAP
# server is missing: the TAP engine still works against any --tap-url. With --check it only tells (exit 0) whether
# DaCHS is installed. ALERCE_T2S_APT_UPDATED=1 (set by install_system_packages.sh) skips a second `apt-get update`.
set -euo pipefail
if command -v dachs >/dev/null 2>&1 && dpkg -s gavodachs2-server 2>/dev/null | grep -q "^Status: install ok installed"; then
    exit 0
fi
if [ "${1:-}" = --check ]; then exit 1; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "warning: GAVO DaCHS cannot be installed here (needs root and apt); the local TAP server is unavailable" >&2
    exit 0
fi
# Unsafe I/O: dpkg skips its fsync per file (a crash mid-install means reinstalling, as after any failed install).
apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Options::=--force-unsafe-io "$@" >/dev/null
}
echo "installing GAVO DaCHS and pgsphere with apt-get" >&2
[ "${ALERCE_T2S_APT_UPDATED:-}" = 1 ] || apt-get update -qq
# The package's set-up (dachs init) needs the machine's PostgreSQL running; containers block service starts.
for cluster in $(pg_lsclusters --no-header 2>/dev/null | awk '$4 != "online" {print $1 "/" $2}'); do
    pg_ctlcluster "${cluster%/*}" "${cluster#*/}" start
done
apt_install postgresql-15-pgsphere
# pgsphere 1.2.0's DaCHS compatibility operators declare commutators that PostgreSQL 15.8+ rejects
# ("commutator operator @> is already the commutator of operator <@"): drop those two clauses.
for script in /usr/share/postgresql/*/extension/pg_sphere--1.2.0.sql; do
    perl -0pi -e 's{(-- a minimal set of backwards-compatible operators.*?-- debugging)}{ my $b=$1; $b =~ s/\n\s*(?:COMMUTATOR|NEGATOR)\s*=\s*\x27[^\x27]*\x27,//g; $b }se' "$script"
done
# With its recommends (healpy, requests, the PostgreSQL client): DaCHS as Debian ships it.
apt_install gavodachs2-server || DEBIAN_FRONTEND=noninteractive dpkg --configure -a >/dev/null
command -v dachs >/dev/null 2>&1 || { echo "error: GAVO DaCHS did not install" >&2; exit 1; }
