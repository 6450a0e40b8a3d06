"""Open the executor's connection pool: one fast direct probe first, read-only connections, clear failures."""

import math
from collections.abc import Callable

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.numeric import FloatLoader
from psycopg_pool import ConnectionPool

from engines.errors import DatabaseBusy, DatabaseUnavailable

__all__ = ["open_pool", "pool_timeout_error", "probe", "unavailable_message"]


_SCHEMA_FIRST_SQL = """
SELECT set_config('search_path', quote_ident(%(schema)s) || ', ' || current_setting('search_path'), false)
WHERE to_regnamespace(%(schema)s) IS NOT NULL AND NOT %(schema)s = ANY(current_schemas(false))
"""
"""Put the catalog's schema first in the session's search_path when the database has it and the path misses it."""


def open_pool(dsn: str, *, connect_timeout_s: float, pool_size: int, schema: str | None = None) -> ConnectionPool:
    """Probe the server once (failing fast with libpq's reason), then open a pool of read-only connections.

    Each connection is checked before it is lent, with one query: one the server dropped (a restart, a database
    dropped and made again) fails it and is replaced; one whose search_path misses the catalog's `schema` while the
    database has it (opened during a rebuild, before the database's search_path was set, or a database whose roles
    never set it) gets the schema put first, so the catalog's bare table names resolve.

    Raises:
        DatabaseUnavailable: the server cannot be reached or refuses the login.
    """
    probe(dsn, connect_timeout_s)
    pool = ConnectionPool(
        dsn,
        kwargs={"connect_timeout": _libpq_timeout(connect_timeout_s)},
        min_size=1,
        max_size=max(1, pool_size),
        configure=_configure,
        check=_checked(schema),
        name="alerce-executor",
        num_workers=1,
        open=False,
    )
    pool.open(wait=False)
    return pool


def unavailable_message(dsn: str, reason: str) -> str:
    """Name host:port/database (never the password) and say what to do."""
    return (
        f"Cannot connect to PostgreSQL at {_where(dsn)}: {reason}. "
        "Start the embedded database with `python -m db up`, or check --dsn / ALERCE_DSN."
    )


def pool_timeout_error(pool: ConnectionPool, dsn: str) -> DatabaseUnavailable:
    """Say why no pooled connection came in time: all of them lent to other queries (busy), or none could be opened."""
    stats = pool.get_stats()
    lent = stats.get("pool_size", 0) - stats.get("pool_available", 0)
    if lent >= pool.max_size:
        return DatabaseBusy(
            f"All {pool.max_size} connections to PostgreSQL at {_where(dsn)} are busy with other queries; "
            "try again in a few seconds."
        )
    return DatabaseUnavailable(unavailable_message(dsn, "no connection within the timeout"))


def _where(dsn: str) -> str:
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        params = {}
    return f"{params.get('host') or 'localhost'}:{params.get('port') or 5432}/{params.get('dbname') or '?'}"


def _checked(schema: str | None) -> Callable[[psycopg.Connection], None]:
    """The pool's check of a connection about to be lent (see ``open_pool``)."""

    def check(conn: psycopg.Connection) -> None:
        if schema is None:
            ConnectionPool.check_connection(conn)
            return
        conn.autocommit = True  # the search_path set outlives this statement (the lender's DISCARD ALL resets it)
        try:
            conn.execute(_SCHEMA_FIRST_SQL, {"schema": schema})
        finally:
            conn.autocommit = False

    return check


def _configure(conn: psycopg.Connection) -> None:
    """Make every transaction of a new pooled connection read-only and load numeric as float."""
    conn.read_only = True
    conn.adapters.register_loader("numeric", FloatLoader)


def probe(dsn: str, connect_timeout_s: float) -> None:
    """Open and close one connection, raising DatabaseUnavailable with libpq's reason."""
    try:
        psycopg.connect(dsn, connect_timeout=_libpq_timeout(connect_timeout_s)).close()
    except psycopg.Error as err:
        raise DatabaseUnavailable(unavailable_message(dsn, _reason(err))) from err


def _reason(err: psycopg.Error) -> str:
    """Keep the last clause of libpq's first line ('Connection refused', 'password authentication failed ...')."""
    first_line = (str(err).strip().splitlines() or [type(err).__name__])[0]
    return first_line.rsplit("failed: ", 1)[-1].strip()


def _libpq_timeout(seconds: float) -> int:
    """libpq takes whole seconds and treats values below 2 as 2."""
    return max(2, math.ceil(seconds))
