"""The executor's time limit while rows are fetched, and what becomes of a connection before the pool lends it again."""

import time

import psycopg
import pytest

import engines.postgres
from engines.errors import ErrorKind, ExecutionError
from engines.postgres import PostgresEngine, PostgresSettings

BATCH_DELAY_S = 0.3


def test_a_slow_fetch_times_out_between_batches_and_keeps_the_connection(tiny_dsn, monkeypatch):
    # The server answers each FETCH at once and the client is slow on every batch, so no statement outlives its server
    # timeout; the watchdog's cancel (which would find no running statement anyway) is switched off, so the query
    # ends by the fetch deadline or, later, by the watchdog abandoning the connection.
    row_sizes = engines.postgres._row_sizes

    def slow_row_sizes(pgresult):
        time.sleep(BATCH_DELAY_S)
        return row_sizes(pgresult)

    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, pool_size=1)) as executor:
        pid = executor.execute("SELECT pg_backend_pid() AS pid").frame["pid"][0]
        monkeypatch.setattr(engines.postgres, "_row_sizes", slow_row_sizes)
        monkeypatch.setattr(engines.postgres.psycopg.Connection, "cancel_safe", lambda self, timeout=None: None)
        started = time.monotonic()
        with pytest.raises(ExecutionError) as caught:
            executor.execute("SELECT g FROM generate_series(1, 1000000) g", timeout_s=0.5)
        elapsed_s = time.monotonic() - started
        monkeypatch.undo()
        after = executor.execute("SELECT pg_backend_pid() AS pid").frame["pid"][0]
    assert caught.value.kind is ErrorKind.TIMEOUT
    assert caught.value.message == (
        "fetching rows: the query ran longer than its 0.5 s timeout; make it cheaper or narrow it down"
    )
    assert elapsed_s < 0.5 + engines.postgres._ABANDON_AFTER_S
    assert after == pid  # stopped by the deadline, not abandoned by the watchdog


def advisory_lock_holders(admin_dsn: str, key: int) -> list[int]:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = %s", (key,))
        return [row[0] for row in rows]


def test_a_connection_left_in_a_transaction_is_closed_not_lent_again(admin_dsn_tiny, monkeypatch):
    # A rollback that did not happen leaves the transaction open; the pool would roll it back and lend the session
    # again with what the query left behind (here a session-level advisory lock, which a rollback keeps).
    monkeypatch.setattr(engines.postgres, "check_sql", lambda sql: sql)
    monkeypatch.setattr(engines.postgres, "_rollback", lambda conn: None)
    with PostgresEngine(PostgresSettings(dsn=admin_dsn_tiny, pool_size=1)) as executor:
        pid = executor.execute("SELECT pg_backend_pid() AS pid, pg_advisory_lock(4253) AS locked").frame["pid"][0]
        after = executor.execute("SELECT pg_backend_pid() AS pid").frame["pid"][0]
    assert after != pid
    deadline = time.monotonic() + 5
    while pid in advisory_lock_holders(admin_dsn_tiny, 4253) and time.monotonic() < deadline:
        time.sleep(0.05)  # the closed session's backend exits, and releases its lock, shortly after
    assert pid not in advisory_lock_holders(admin_dsn_tiny, 4253)
