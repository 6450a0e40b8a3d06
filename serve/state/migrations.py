"""Versioned migrations of the state database, applied in order at start by whichever process comes first.

Each migration runs once, in its own transaction, under an advisory lock: processes that start together wait for
each other instead of racing. A database whose version is newer than this code knows is refused.
"""

from __future__ import annotations

from collections.abc import Callable

import psycopg

__all__ = ["LATEST_VERSION", "MIGRATIONS", "migrate"]

_CONNECT_TIMEOUT_S = 10
_LOCK_KEY = 7_310_031
"""Advisory lock of the migrations (any number, the same in every process)."""

_TABLES = """
CREATE SCHEMA IF NOT EXISTS workbench;
CREATE TABLE workbench.sessions (
    id text PRIMARY KEY,
    history text NOT NULL,
    created timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE workbench.answers (
    id text PRIMARY KEY,
    session text,
    conversation text NOT NULL,
    follows text,
    source text NOT NULL,
    client text NOT NULL DEFAULT '',
    created double precision NOT NULL,
    record jsonb NOT NULL,
    rows bytea,
    rows_bytes bigint NOT NULL DEFAULT 0,
    rows_dropped boolean NOT NULL DEFAULT false
);
CREATE INDEX answers_by_session ON workbench.answers (session, created DESC);
CREATE INDEX answers_by_conversation ON workbench.answers (conversation, created DESC);
CREATE INDEX answers_with_rows ON workbench.answers (created) WHERE rows IS NOT NULL;
CREATE TABLE workbench.jobs (
    id text PRIMARY KEY,
    client text NOT NULL,
    session text,
    question text NOT NULL,
    knowledge text NOT NULL DEFAULT '',
    follows text,
    status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    worker text,
    answer_id text,
    error text,
    queued_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    finished_at timestamptz
);
CREATE INDEX jobs_open ON workbench.jobs (client) WHERE status IN ('queued', 'running');
CREATE TABLE workbench.job_events (
    seq bigserial PRIMARY KEY,
    job_id text NOT NULL REFERENCES workbench.jobs (id) ON DELETE CASCADE,
    event jsonb NOT NULL
);
CREATE INDEX job_events_by_job ON workbench.job_events (job_id, seq);
CREATE TABLE workbench.usage (
    client text NOT NULL,
    day date NOT NULL DEFAULT current_date,
    questions integer NOT NULL DEFAULT 0,
    sql_runs integer NOT NULL DEFAULT 0,
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cost_usd double precision NOT NULL DEFAULT 0,
    PRIMARY KEY (client, day)
);
CREATE TABLE workbench.lm_usage (
    model text PRIMARY KEY,
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cost_usd double precision NOT NULL DEFAULT 0
);
CREATE TABLE workbench.stage_seconds (
    stage text NOT NULL,
    bucket double precision NOT NULL,
    count bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (stage, bucket)
);
CREATE TABLE workbench.stage_totals (
    stage text PRIMARY KEY,
    count bigint NOT NULL DEFAULT 0,
    seconds double precision NOT NULL DEFAULT 0
);
"""


def _queue_schema(conn: psycopg.Connection) -> None:
    """Install procrastinate's tables and functions (its schema of this version) in the same database."""
    from procrastinate.schema import SchemaManager

    conn.execute(SchemaManager.get_schema())


MIGRATIONS: list[tuple[int, str, str | Callable[[psycopg.Connection], None]]] = [
    (1, "sessions, answers, jobs, events, usage and stage timings", _TABLES),
    (2, "procrastinate's job queue", _queue_schema),
    (3, "questions take turns (fair order)", "ALTER TABLE workbench.jobs ADD COLUMN turn bigint NOT NULL DEFAULT 0"),
    (4, "questions about a target list carry it", "ALTER TABLE workbench.jobs ADD COLUMN targets jsonb"),
]
LATEST_VERSION = MIGRATIONS[-1][0]


def migrate(dsn: str) -> int:
    """Apply the migrations this database lacks; return its version afterwards.

    Raises:
        psycopg.Error: The database cannot be reached or a migration failed (nothing of that migration stays).
        RuntimeError: The database is of a newer version than this code.
    """
    with psycopg.connect(dsn, autocommit=True, connect_timeout=_CONNECT_TIMEOUT_S) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS public.workbench_migrations (version integer PRIMARY KEY, "
                "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            current = conn.execute("SELECT coalesce(max(version), 0) FROM public.workbench_migrations").fetchone()[0]
            if current > LATEST_VERSION:
                raise RuntimeError(
                    f"the workbench's database is at version {current}, newer than this code ({LATEST_VERSION}); "
                    "upgrade the workbench"
                )
            for version, name, step in MIGRATIONS:
                if version <= current:
                    continue
                with conn.transaction():
                    if callable(step):
                        step(conn)
                    else:
                        conn.execute(step)
                    conn.execute(
                        "INSERT INTO public.workbench_migrations (version, name) VALUES (%s, %s)", (version, name)
                    )
                current = version
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
    return current
