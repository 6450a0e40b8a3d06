"""The answers, page histories, sessions and per-client usage in PostgreSQL, behind ``serve.store.AnswerStore``'s
interface, so every web process and worker shares them and a restart loses none.

Rows are kept as Parquet while all kept rows fit in `max_bytes`; the oldest answers' rows are dropped first and run
again (same SQL, same guard) when such an answer is shown.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from collections.abc import Callable
from typing import Any

from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from answering import Answer
from engines.errors import EngineError
from serve.gate import CLIENT
from serve.state.records import ROW_FIELDS, record_from_row, record_json, rows_parquet
from serve.store import Record

__all__ = ["PgAnswerStore", "open_store_pool"]

logger = logging.getLogger(__name__)


def open_store_pool(dsn: str, *, max_size: int = 4) -> ConnectionPool:
    """A pool of connections to the state database; each is checked before it is lent (a restarted server's dead
    connections are replaced, not reused)."""
    pool = ConnectionPool(
        dsn,
        min_size=1,
        max_size=max_size,
        check=ConnectionPool.check_connection,
        kwargs={"autocommit": True},
        name="workbench-store",
        open=False,
    )
    pool.open(wait=True, timeout=30)
    return pool


class PgAnswerStore:
    """Kept answers and page histories in the state database (thread-safe: each call borrows a connection)."""

    def __init__(
        self, pool: ConnectionPool, *, max_bytes: int, max_rows_bytes: int, max_history: int, engine: Any = None
    ) -> None:
        self.pool = pool
        self.max_bytes = max_bytes
        self.max_rows_bytes = max_rows_bytes
        self.max_history = max_history
        self.engine = engine
        self.rerun: Callable[[Answer], Answer] = _rows_of_engine(self)

    @property
    def size_bytes(self) -> int:
        """Bytes of the rows kept (Parquet)."""
        with self.pool.connection() as conn:
            return conn.execute("SELECT coalesce(sum(rows_bytes), 0) FROM workbench.answers").fetchone()[0]

    def history_of(self, session: str | None) -> str:
        """Return the history the page session id names now ("" when it names none)."""
        with self.pool.connection() as conn:
            found = conn.execute(
                "UPDATE workbench.sessions SET last_seen = now() WHERE id = %s RETURNING history", (session or "",)
            ).fetchone()
        return found[0] if found else ""

    def rotate(self, session: str | None, new_session: str, *, client: str = "") -> str:
        """Give `session`'s history (a new, empty one when it has none) to `new_session`; `session` names nothing
        after. Return the history."""
        with self.pool.connection() as conn, conn.transaction():
            found = conn.execute(
                "DELETE FROM workbench.sessions WHERE id = %s RETURNING history", (session or "",)
            ).fetchone()
            history = found[0] if found else secrets.token_urlsafe(16)
            conn.execute("INSERT INTO workbench.sessions (id, history) VALUES (%s, %s)", (new_session, history))
        return history

    def keep(self, record: Record, session: str | None, *, client: str | None = None) -> None:
        """Keep `record` (in history `session` when one is given), count it for its client, and drop the oldest
        rows past the byte budget."""
        rows = rows_parquet(record.answer.frame, self.max_rows_bytes)
        client = CLIENT.get() if client is None else client
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(
                "INSERT INTO workbench.answers (id, session, conversation, follows, source, client, created, record, "
                "rows, rows_bytes, rows_dropped) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    record.id,
                    session or None,
                    record.conversation,
                    record.follows,
                    record.source,
                    client,
                    record.created,
                    _jsonb(record_json(record)),
                    rows,
                    len(rows or b""),
                    rows is None and record.answer.frame is not None,
                ),
            )
            asked = record.source == "ask"
            conn.execute(
                "INSERT INTO workbench.usage AS u (client, questions, sql_runs, input_tokens, output_tokens, "
                "cost_usd) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (client, day) DO UPDATE SET "
                "questions = u.questions + EXCLUDED.questions, sql_runs = u.sql_runs + EXCLUDED.sql_runs, "
                "input_tokens = u.input_tokens + EXCLUDED.input_tokens, "
                "output_tokens = u.output_tokens + EXCLUDED.output_tokens, cost_usd = u.cost_usd + EXCLUDED.cost_usd",
                (client, int(asked), int(not asked), record.input_tokens, record.output_tokens, record.cost_usd or 0),
            )
            if asked:
                conn.execute(
                    "INSERT INTO workbench.lm_usage AS u (model, input_tokens, output_tokens, cost_usd) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT (model) DO UPDATE SET "
                    "input_tokens = u.input_tokens + EXCLUDED.input_tokens, "
                    "output_tokens = u.output_tokens + EXCLUDED.output_tokens, "
                    "cost_usd = u.cost_usd + EXCLUDED.cost_usd",
                    (record.model, record.input_tokens, record.output_tokens, record.cost_usd or 0),
                )
            if rows:
                self._drop_oldest_rows(conn, record.id)

    def get(self, answer_id: str) -> Record | None:
        """Return a kept answer (its rows run again if they were dropped), or None."""
        with self.pool.connection() as conn:
            row = conn.execute(f"SELECT {ROW_FIELDS} FROM workbench.answers WHERE id = %s", (answer_id,)).fetchone()
        return None if row is None else self._record(row)

    def latest_in(self, conversation: str) -> Record | None:
        """Return the newest answer of a conversation, or None."""
        with self.pool.connection() as conn:
            row = conn.execute(
                f"SELECT {ROW_FIELDS} FROM workbench.answers WHERE conversation = %s ORDER BY created DESC LIMIT 1",
                (conversation,),
            ).fetchone()
        return None if row is None else self._record(row)

    def history(self, session: str) -> list[Record]:
        """Return the session's newest answers, newest first (rows not loaded: a history lists questions)."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT record, NULL FROM workbench.answers WHERE session = %s ORDER BY created DESC LIMIT %s",
                (session, self.max_history),
            ).fetchall()
        return [record_from_row(row, rerun=lambda answer: answer, engine=self.engine) for row in rows]

    def _record(self, row: tuple) -> Record:
        return record_from_row(row, rerun=self.rerun, engine=self.engine)

    def _drop_oldest_rows(self, conn: Any, newest: str) -> None:
        """Forget the rows of the oldest answers until the rest fit in `max_bytes` (the newest keeps its rows)."""
        conn.execute(
            "UPDATE workbench.answers SET rows = NULL, rows_bytes = 0, rows_dropped = true WHERE id IN ("
            "  SELECT id FROM (SELECT id, sum(rows_bytes) OVER (ORDER BY created DESC, id) AS upto"
            "                  FROM workbench.answers WHERE rows IS NOT NULL AND id <> %s) newer"
            "  WHERE upto > %s)",
            (newest, max(0, self.max_bytes - self._bytes_of(conn, newest))),
        )

    @staticmethod
    def _bytes_of(conn: Any, answer_id: str) -> int:
        return conn.execute("SELECT rows_bytes FROM workbench.answers WHERE id = %s", (answer_id,)).fetchone()[0]


def _jsonb(text: str) -> Any:
    """The JSON text as a jsonb parameter."""
    return Jsonb(text, dumps=lambda value: value)


def _rows_of_engine(store: PgAnswerStore) -> Callable[[Answer], Answer]:
    """Run an answer's SQL again on the store's engine when its rows were not kept."""

    def rerun(answer: Answer) -> Answer:
        if store.engine is None or not answer.sql:
            return answer
        try:
            result = store.engine.execute(answer.sql)
        except EngineError as err:
            note = f"the rows of this older answer were not kept and running its SQL again failed: {err}"
            return dataclasses.replace(answer, error=note, error_kind="unavailable")
        return dataclasses.replace(answer, frame=result.frame, truncated=result.truncated)

    return rerun
