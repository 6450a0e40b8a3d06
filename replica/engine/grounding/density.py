"""Count the answers of gold queries: many in the base population or few, and none at all after grounding.

The builder runs gold queries with its own rights, so every query passes the SQL guard first and runs in a
savepoint with a statement timeout.
"""

import logging

import psycopg
import sqlglot

from engines.errors import GuardError
from engines.guard import check_sql

__all__ = ["DENSE_ROWS", "answers_many", "guarded", "rows_within", "unanswered"]

logger = logging.getLogger(__name__)

DENSE_ROWS = 50
"""Answer rows from which a query's population counts as dense (a real database has objects on its thresholds)."""
_TIMEOUT_MS = 10_000


def guarded(sql: str) -> str | None:
    """The statement if the SQL guard admits it, else None (the grounding reports the refusal once, as a skip)."""
    try:
        return check_sql(sql)
    except GuardError as err:
        logger.debug("the guard refuses a gold query (%s): %.70s", err.message, " ".join(sql.split()))
        return None


def answers_many(conn: psycopg.Connection, sql: str) -> bool:
    """Whether ``sql`` returns at least DENSE_ROWS rows on the data loaded so far (False if it fails)."""
    return (_answers(conn, sql, DENSE_ROWS) or 0) >= DENSE_ROWS


def unanswered(conn: psycopg.Connection, queries: list[str]) -> list[str]:
    """The queries that return no row, each logged in one line (a query that fails to run is not counted)."""
    out = [sql for sql in queries if _answers(conn, sql, 1) == 0]
    for sql in out:
        logger.warning("grounding did not give this query any row: %.80s", " ".join(sql.split()))
    return out


def rows_within(conn: psycopg.Connection, statement: str, timeout_ms: int, query: str) -> list[tuple] | None:
    """The rows of ``statement`` (made from the gold ``query``), run in a savepoint with a timeout; None if it fails."""
    try:
        with conn.transaction():
            conn.execute(f"SET LOCAL statement_timeout = {timeout_ms}")
            return conn.execute(statement).fetchall()
    except psycopg.Error as err:
        logger.debug("cannot count the rows of a gold query (%s): %.80s", str(err).strip(), query)
        return None


def _answers(conn: psycopg.Connection, sql: str, enough: int) -> int | None:
    """Rows of ``sql``, counted up to ``enough``; None if the guard refuses it or it fails."""
    statement = guarded(sql)
    if statement is None:
        return None
    counting = f"SELECT count(*) FROM (SELECT 1 FROM ({_unordered(statement)}) AS g LIMIT {enough}) AS s"
    rows = rows_within(conn, counting, _TIMEOUT_MS, sql)
    return None if rows is None else rows[0][0]


def _unordered(statement: str) -> str:
    """The statement without its outermost ORDER BY, which never changes how many rows it returns.

    Without the sort, the counting LIMIT stops the scan early instead of waiting for every row to be sorted (on the
    unindexed base a sort over a join with detection takes seconds).
    """
    tree = sqlglot.parse_one(statement, read="postgres")  # the guard parsed it already: one query, no parse error
    if tree.args.get("order") is None:
        return statement
    tree.set("order", None)
    return tree.sql(dialect="postgres")
