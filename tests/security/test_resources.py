"""Resource ceilings of issue 15: the server's per-process memory limit and the client's memory per query.

Each test runs real hostile SQL against the tiny embedded database; client memory is measured in a fresh Python
process (its peak resident set), so nothing else of the test run counts.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from db.cluster import BACKEND_MEMORY_LIMIT_BYTES, Cluster
from db.pg_binaries import server_user
from db.server import up
from engines.errors import ExecutionError
from engines.postgres import PostgresEngine, PostgresSettings

REPO_DIR = Path(__file__).resolve().parents[2]
CLIENT_GROWTH_LIMIT_MB = 200
"""Most the client's peak resident set may grow over a trivial query, for results the byte cap must bound."""
RSS_PROBE = """
import json, resource, sys
from engines.postgres import PostgresEngine, PostgresSettings
with PostgresEngine(PostgresSettings(dsn=sys.argv[1], timeout_s=20, max_rows=1_000_000, pool_size=1)) as executor:
    executor.execute("SELECT 1")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        result = executor.execute(sys.argv[2])
        outcome = {"rows": len(result.frame), "truncated": result.truncated}
    except Exception as err:
        outcome = {"error": type(err).__name__, "sqlstate": getattr(err, "sqlstate", None)}
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({**outcome, "growth_mb": grown / 1024}))
"""


def soft_data_limit(pid: int) -> int | None:
    """The soft RLIMIT_DATA of a process from /proc/<pid>/limits (None = unlimited)."""
    for line in Path(f"/proc/{pid}/limits").read_text(encoding="utf-8").splitlines():
        if line.startswith("Max data size"):
            soft = line.split()[3]
            return None if soft == "unlimited" else int(soft)
    raise AssertionError(f"no data size limit in /proc/{pid}/limits")


def probe_client_memory(dsn: str, sql: str) -> dict:
    """Run `sql` through the executor in a fresh process; return its outcome and peak RSS growth in MB."""
    proc = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, dsn, sql], cwd=REPO_DIR, capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_every_server_process_has_the_memory_ceiling(tiny_server, tiny_dsn):
    with psycopg.connect(tiny_dsn) as conn:
        backend = conn.info.backend_pid
        assert soft_data_limit(backend) == BACKEND_MEMORY_LIMIT_BYTES
    assert soft_data_limit(Cluster(tiny_server.data_dir).running_pid()) == BACKEND_MEMORY_LIMIT_BYTES


def test_up_reapplies_the_memory_ceiling_to_a_running_server(scratch_server):
    info = up(scratch_server)
    user = ["runuser", "-u", server_user(), "--"] if server_user() else []
    subprocess.run([*user, "prlimit", f"--pid={info.pid}", "--data=unlimited:"], check=True)
    assert soft_data_limit(info.pid) is None
    up(scratch_server)
    assert soft_data_limit(info.pid) == BACKEND_MEMORY_LIMIT_BYTES
    with psycopg.connect(info.reader_dsn) as conn:
        assert soft_data_limit(conn.info.backend_pid) == BACKEND_MEMORY_LIMIT_BYTES


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT array_length(array_agg(repeat('x', 1000000)), 1) FROM generate_series(1, 100000)",
        "SELECT length(string_agg(repeat('x', 1000000), '')) FROM generate_series(1, 100000)",
        "SELECT jsonb_array_length(jsonb_agg(repeat('x', 1000000))) FROM generate_series(1, 100000)",
    ],
)
def test_server_memory_attack_fails_at_the_ceiling_long_before_its_timeout(tiny_dsn, sql):
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, timeout_s=60, pool_size=1)) as executor:
        started = time.monotonic()
        with pytest.raises(ExecutionError) as caught:
            executor.execute(sql)
        elapsed_s = time.monotonic() - started
        assert executor.execute("SELECT 1 AS one").frame["one"].tolist() == [1]
    assert caught.value.sqlstate == "53200"
    assert elapsed_s < 30


def test_gigabyte_value_costs_the_client_almost_nothing(tiny_dsn):
    outcome = probe_client_memory(tiny_dsn, "SELECT repeat('x', 1000000000) AS s")
    assert outcome["error"] == "ExecutionError"
    assert outcome["sqlstate"] == "53200"
    assert outcome["growth_mb"] < CLIENT_GROWTH_LIMIT_MB


@pytest.mark.parametrize("cell", ["''", "NULL"])
def test_thousand_empty_columns_stay_within_the_byte_cap(tiny_dsn, cell):
    columns = ", ".join([cell] * 1000)
    outcome = probe_client_memory(tiny_dsn, f"SELECT {columns} FROM generate_series(1, 100000)")
    assert outcome["truncated"] is True
    assert outcome["rows"] == 64 * 1024 * 1024 // (1000 * 64)
    assert outcome["growth_mb"] < CLIENT_GROWTH_LIMIT_MB
