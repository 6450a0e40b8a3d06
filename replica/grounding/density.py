"""Tell a gold query with many answers in the base population from one with few.

The builder runs gold queries with its own rights, so every query passes the SQL guard first and runs in a
savepoint with a statement timeout.
"""

from __future__ import annotations

import logging

import psycopg
import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engines.errors import GuardError
from engines.guard import check_sql

__all__ = ["DENSE_ROWS", "answers_many", "guarded"]

logger = logging.getLogger(__name__)

DENSE_ROWS = 50
"""Answer rows from which a query's population counts as dense (a real database has objects on its thresholds)."""
_TIMEOUT_MS = 10_000


def guarded(sql: str) -> str | None:
    """The statement if the SQL guard admits it, else None (logged)."""
    try:
        return check_sql(sql)
    except GuardError as err:
        logger.info("not grounding on a query the guard refuses (%s): %.70s", err.message, " ".join(sql.split()))
        return None


def answers_many(conn: psycopg.Connection, sql: str) -> bool:
    """Whether ``sql`` returns at least DENSE_ROWS rows on the data loaded so far (False if it fails)."""
    statement = guarded(sql)
    if statement is None:
        return False
    statement = _unordered(statement)
    try:
        with conn.transaction():
            conn.execute(f"SET LOCAL statement_timeout = {_TIMEOUT_MS}")
            row = conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM ({statement}) AS g LIMIT {DENSE_ROWS}) AS s")
            return row.fetchone()[0] >= DENSE_ROWS
    except psycopg.Error as err:
        logger.debug("cannot count the answers of a gold query (%s): %.70s", str(err).strip(), sql)
        return False


def _unordered(statement: str) -> str:
    """The statement without its outermost ORDER BY, which never changes how many rows it returns.

    Without the sort, the counting LIMIT stops the scan early instead of waiting for every row to be sorted (on the
    unindexed base a sort over a join with detection takes seconds).
    """
    try:
        tree = sqlglot.parse_one(statement, read="postgres")
    except SqlglotError:
        return statement
    if not isinstance(tree, exp.Query) or tree.args.get("order") is None:
        return statement
    tree.set("order", None)
    return tree.sql(dialect="postgres")
