"""Fixtures of the attack suite: a baseline of the database, a canary file, a victim session, a shared executor."""

from __future__ import annotations

import os
import pwd
import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from db.pg_binaries import server_user
from db.server import ServerInfo
from engines.postgres import PostgresEngine, PostgresSettings
from tests.db_snapshot import snapshot

ATTACK_TIMEOUT_S = 1.0
"""Statement timeout of every attack query."""
ATTACK_MAX_ROWS = 1_000
"""Rows kept per attack query."""
VICTIM_MARKER = "VICTIM-QUERY-TEXT"
"""Text of the victim session's last query: it must never appear in what an attack returns."""
MD5_TABLES = ("object", "probability", "detection", "magstat")
"""Tables whose full contents are hashed with md5 (beside the per-table counts and hashtext sums)."""


def database_state(admin_dsn: str) -> dict[str, object]:
    """Extend tests/db_snapshot.snapshot() with md5 checksums, extensions, functions and per-role/database settings."""
    state = snapshot(admin_dsn)
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        for table in MD5_TABLES:
            if conn.execute("SELECT to_regclass(%s)", (f"alerce.{table}",)).fetchone()[0] is not None:
                state[f"md5:{table}"] = conn.execute(
                    f"SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM alerce.{table} t"
                ).fetchone()[0]
        state["extensions"] = conn.execute("SELECT extname FROM pg_extension ORDER BY 1").fetchall()
        state["functions"] = conn.execute(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')"
        ).fetchone()
        state["role_settings"] = conn.execute("SELECT * FROM pg_db_role_setting ORDER BY 1, 2").fetchall()
        state["reader_role"] = conn.execute(
            "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = 'alerce_reader'"
        ).fetchone()
    return state


def reader_advisory_locks(admin_dsn: str) -> list[tuple]:
    """Return the advisory locks held by sessions of the read-only role (none may outlive a query)."""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        return conn.execute(
            "SELECT l.objid, l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND a.usename = 'alerce_reader'"
        ).fetchall()


class Victim:
    """Another read-only session, standing in for a concurrent user that attacks must not disturb or spy on: its
    last query always holds VICTIM_MARKER, which pg_stat_activity would show to any session of the same role."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.conn.execute(f"SELECT '{VICTIM_MARKER}' AS marker")

    @property
    def pid(self) -> int:
        """Backend pid of the session."""
        return self.conn.info.backend_pid

    def survived(self) -> bool:
        """Tell whether the session still works; reconnect when it does not, for the next case."""
        try:
            self.conn.execute(f"SELECT '{VICTIM_MARKER}' AS marker")
        except psycopg.OperationalError:
            self.conn.close()
            self.conn = psycopg.connect(self.dsn, autocommit=True)
            self.conn.execute(f"SELECT '{VICTIM_MARKER}' AS marker")
            return False
        return True


@pytest.fixture(scope="module")
def baseline(admin_dsn_tiny: str) -> dict[str, object]:
    """State of the tiny database before any attack of the module runs."""
    return database_state(admin_dsn_tiny)


@pytest.fixture(scope="module")
def canary(tiny_server: ServerInfo) -> Iterator[tuple[Path, str]]:
    """A file in the server's data folder that only the server user can read, holding a random token."""
    path = tiny_server.data_dir / "cluster" / "canary.txt"
    token = f"CANARY-{secrets.token_hex(16)}"
    path.write_text(f"{token}\n", encoding="utf-8")
    path.chmod(0o600)
    user = server_user()
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(path, entry.pw_uid, entry.pw_gid)
    yield path, token
    path.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def victim(tiny_dsn: str) -> Iterator[Victim]:
    """A concurrent read-only session."""
    session = Victim(tiny_dsn)
    yield session
    session.conn.close()


@pytest.fixture(scope="module")
def attack_executor(tiny_dsn: str, baseline: dict[str, object]) -> Iterator[PostgresEngine]:
    """One executor (one pooled connection, so session state would carry over) shared by every attack."""
    settings = PostgresSettings(dsn=tiny_dsn, timeout_s=ATTACK_TIMEOUT_S, max_rows=ATTACK_MAX_ROWS, pool_size=1)
    with PostgresEngine(settings) as executor:
        yield executor


@pytest.fixture(autouse=True)
def _end_sessions_holding_locks(admin_dsn_tiny: str) -> Iterator[None]:
    """After each test, end read-only sessions still holding advisory locks (should a regression leave one), so the
    next case starts clean; the test itself asserts that none is left."""
    yield
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        for (pid,) in conn.execute(
            "SELECT DISTINCT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND a.usename = 'alerce_reader'"
        ).fetchall():
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
