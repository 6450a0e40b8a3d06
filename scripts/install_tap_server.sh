#!/usr/bin/env bash
# Install GAVO DaCHS (Debian's gavodachs2-server) as a local TAP server for tests and offline use, as root.
# DaCHS is GPL and not a Python dependency. Where it cannot be installed (not Debian, no root) only the local TAP
# server is missing: the TAP engine still works against any --tap-url.
set -euo pipefail
if command -v dachs >/dev/null 2>&1 && dpkg -s gavodachs2-server 2>/dev/null | grep -q "^Status: install ok installed"; then
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "warning: GAVO DaCHS cannot be installed here (needs root and apt); the local TAP server is unavailable" >&2
    exit 0
fi
echo "installing GAVO DaCHS and pgsphere with apt-get" >&2
apt-get update -qq
# The package's set-up (dachs init) needs the machine's PostgreSQL running; containers block service starts.
for cluster in $(pg_lsclusters --no-header 2>/dev/null | awk '$4 != "online" {print $1 "/" $2}'); do
    pg_ctlcluster "${cluster%/*}" "${cluster#*/}" start
done
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15-pgsphere >/dev/null
# pgsphere 1.2.0's DaCHS compatibility operators declare commutators that PostgreSQL 15.8+ rejects
# ("commutator operator @> is already the commutator of operator <@"): drop those two clauses.
for script in /usr/share/postgresql/*/extension/pg_sphere--1.2.0.sql; do
    perl -0pi -e 's{(-- a minimal set of backwards-compatible operators.*?-- debugging)}{ my $b=$1; $b =~ s/\n\s*(?:COMMUTATOR|NEGATOR)\s*=\s*\x27[^\x27]*\x27,//g; $b }se' "$script"
done
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gavodachs2-server >/dev/null \
    || DEBIAN_FRONTEND=noninteractive dpkg --configure -a >/dev/null
command -v dachs >/dev/null 2>&1 || { echo "error: GAVO DaCHS did not install" >&2; exit 1; }
