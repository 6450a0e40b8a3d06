"""Open the executor's connection pool: one fast direct probe first, read-only connections, clear failures."""

import math

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.numeric import FloatLoader
from psycopg_pool import ConnectionPool

from engines.errors import DatabaseBusy, DatabaseUnavailable

__all__ = ["open_pool", "pool_timeout_error", "probe", "unavailable_message"]


def open_pool(dsn: str, *, connect_timeout_s: float, pool_size: int) -> ConnectionPool:
    """Probe the server once (failing fast with libpq's reason), then open a pool of read-only connections.

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
        check=ConnectionPool.check_connection,
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
