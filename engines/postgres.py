"""PostgreSQL as an engine: guarded, read-only, time-limited queries that return pandas DataFrames.

Every query passes the SQL guard (a target list uploaded in the context goes before it as a literal table,
``engines.targets``), then runs in a READ ONLY transaction with a server-side `statement_timeout` and
a client-side watchdog. Past its timeout the watchdog cancels the query; a backend that ignores the cancel (work
that does not check for interrupts) is terminated through the admin DSN when one is configured, and the connection
is then abandoned (its socket shut down), so every query ends within its timeout plus about 2 s. Rows come from a
server-side cursor in batches sized by bytes, so a huge result costs only `max_rows` rows and about `max_bytes`
bytes of memory. The transaction is always rolled back and the session reset (DISCARD ALL) before the connection
returns to the pool. Every failure is an ExecutionError (or DatabaseUnavailable); nothing else escapes.
"""

import contextlib
import dataclasses
import hashlib
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pandas as pd
import psycopg
from psycopg import pq, sql
from psycopg_pool import ConnectionPool, PoolTimeout

from catalog import load_catalog
from defaults.catalog import DEFAULT_CATALOG
from defaults.time_limits import POSTGRES_CONNECT_S, POSTGRES_QUERY_S
from engines.engine import EngineLifecycle, Result
from engines.errors import EngineError, ErrorKind, ExecutionError, error_kind_for
from engines.guard import check_sql
from engines.postgres_pool import open_pool, pool_timeout_error, probe
from engines.settings import MAX_ROWS
from engines.targets import attach_targets, local_names

__all__ = ["PostgresEngine", "PostgresSettings"]

logger = logging.getLogger(__name__)

_FETCH_BATCH_ROWS = 2_000
_FIRST_BATCH_ROWS = 1
_CELL_OVERHEAD_BYTES = 64
"""Client memory counted per cell beside its bytes (a NULL or empty cell still costs Python objects)."""
_WATCHDOG_GRACE_S = 0.5
"""After the timeout: cancel the query (PostgreSQL's cancel request)."""
_TERMINATE_AFTER_S = 1.0
"""After the timeout: end the backend through the admin DSN (pg_terminate_backend), when one is configured."""
_ABANDON_AFTER_S = 1.5
"""After the timeout: shut the connection's socket down and report the timeout, whatever the server does."""
_MAX_MESSAGE_CHARS = 500
_CURSOR_NAME = "alerce_t2s_query"
_FETCH_SQL = sql.SQL("FETCH FORWARD {} FROM {}")
_SET_TIMEOUT_SQL = "SELECT set_config('statement_timeout', %s, true)"
_BUILD_INFO_SQL = """
SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = 'meta' AND tablename = 'build_info')
       AND has_table_privilege('meta.build_info', 'SELECT')
"""
_TABLE_ROWS_SQL = """
SELECT coalesce(string_agg(relname || '=' || n_live_tup, ',' ORDER BY relname), '')
FROM pg_catalog.pg_stat_user_tables WHERE schemaname = %s
"""


@dataclasses.dataclass(frozen=True, kw_only=True)
class PostgresSettings:
    """How to reach the database and how much a query may cost.

    Attributes:
        dsn: libpq connection string or URI of a read-only role.
        timeout_s: default time limit of one query, in seconds.
        max_rows: default number of rows kept; longer results are truncated.
        max_bytes: most bytes of row data kept per query, as PostgreSQL sends them (text format); rows past the cap
            are dropped and the result is marked truncated.
        pool_size: most connections open at once (concurrent queries).
        connect_timeout_s: time allowed to open a connection before DatabaseUnavailable is raised.
        admin_dsn: superuser DSN of the same server (the embedded server's ``ServerInfo.admin_dsn``), used only to
            terminate a backend that ignores its cancel; None relies on the cancel and on abandoning the connection.
        catalog: the catalog whose data the database holds (``catalog.CATALOG_NAMES``); its tables are found by
            their bare names: the catalog's schema goes first in each connection's search_path when the database has
            it (``engines.postgres_pool.open_pool``).
    """

    dsn: str
    timeout_s: float = POSTGRES_QUERY_S
    max_rows: int = MAX_ROWS
    max_bytes: int = 64 * 1024 * 1024
    pool_size: int = 2
    connect_timeout_s: float = POSTGRES_CONNECT_S
    admin_dsn: str | None = dataclasses.field(default=None, repr=False)
    catalog: str = DEFAULT_CATALOG


class PostgresEngine(EngineLifecycle):
    """Thread-safe runner of guarded read-only queries on PostgreSQL over a lazily opened connection pool.

    Use as a context manager, or call close(): ``with PostgresEngine(settings) as engine: engine.execute(sql).frame``.
    """

    name = "postgres"

    def __init__(self, settings: PostgresSettings) -> None:
        self.settings = settings
        self.catalog = settings.catalog
        self._pool: ConnectionPool | None = None
        self._lock = threading.Lock()

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run one SELECT statement.

        Args:
            sql: SQL text holding one SELECT or WITH statement.
            timeout_s: time limit in seconds (default: settings.timeout_s).
            max_rows: rows to keep (default: settings.max_rows).

        Returns:
            The rows, the elapsed time and whether rows were cut off.

        Raises:
            GuardError: the guard refused the statement.
            ExecutionError: the server reported an error, the query timed out (kind TIMEOUT), or its result could
                not be read (a value Python cannot represent, nesting too deep, out of memory).
            DatabaseUnavailable: no connection could be opened.
        """
        statement = attach_targets(check_sql(local_names(sql)))
        timeout_s = self.settings.timeout_s if timeout_s is None else timeout_s
        max_rows = self.settings.max_rows if max_rows is None else max_rows
        started = time.perf_counter()
        with self._connection() as conn:
            names, rows, truncated = _run_query(
                conn,
                statement,
                timeout_s=timeout_s,
                max_rows=max_rows,
                max_bytes=self.settings.max_bytes,
                admin_dsn=self.settings.admin_dsn,
            )
        try:
            frame = _to_frame(names, rows)
        except Exception as err:  # pandas could not build the frame: a failure of this query, typed like the others
            raise _client_error(err) from err
        return Result(frame=frame, elapsed_s=time.perf_counter() - started, truncated=truncated)

    @property
    def concurrency(self) -> int:
        """Most statements that run at once: the pool's size."""
        return self.settings.pool_size

    def fingerprint(self) -> str:
        """Identify the database contents cheaply, for result caches.

        Hashes the server version, the database name and, when the table meta.build_info exists (written by the
        data builder), its rows; otherwise the live row count of each table in the catalog's schema from
        pg_stat_user_tables. Stable while the data does not change.

        Returns:
            ``postgres-`` and 16 hexadecimal characters.
        """
        with self._connection() as conn:
            try:
                parts = list(conn.execute("SELECT current_setting('server_version'), current_database()").fetchone())
                if conn.execute(_BUILD_INFO_SQL).fetchone()[0]:
                    query = "SELECT coalesce(json_agg(b ORDER BY b::text)::text, '') FROM meta.build_info b"
                    parts.append(conn.execute(query).fetchone()[0])
                else:
                    parts.append(conn.execute(_TABLE_ROWS_SQL, (load_catalog(self.catalog).schema,)).fetchone()[0])
            except psycopg.Error as err:
                raise _execution_error(err, timeout_s=None, is_cancelled=False) from err
            finally:
                _rollback(conn)
        digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:16]
        return f"{self.name}-{digest}"

    def check_available(self) -> None:
        """Open and close one connection of its own (the pool's may all be busy), within the connect timeout.

        Raises:
            DatabaseUnavailable: The database cannot be reached.
        """
        probe(self.settings.dsn, self.settings.connect_timeout_s)

    def pool_stats(self) -> dict[str, int]:
        """The pool's size, idle connections and waiting requests ({} before the first query)."""
        pool = self._pool
        return {} if pool is None else pool.get_stats()

    def tables(self) -> None:
        """Serve every catalog table."""
        return None

    def close(self) -> None:
        """Close every pooled connection; the next query opens a new pool."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """Borrow a pooled connection; DatabaseUnavailable (DatabaseBusy: all lent out) when none comes in time."""
        pool = self._open_pool()
        try:
            conn = pool.getconn(timeout=self.settings.connect_timeout_s)
        except PoolTimeout as err:
            raise pool_timeout_error(pool, self.settings.dsn) from err
        try:
            yield conn
        finally:
            _reset(conn)
            pool.putconn(conn)

    def _open_pool(self) -> ConnectionPool:
        """Create the pool on first use, after one direct connection attempt that fails fast with its reason."""
        with self._lock:
            if self._pool is None:
                self._pool = open_pool(
                    self.settings.dsn,
                    connect_timeout_s=self.settings.connect_timeout_s,
                    pool_size=self.settings.pool_size,
                    schema=load_catalog(self.catalog).schema,
                )
            return self._pool


def _run_query(
    conn: psycopg.Connection,
    statement: str,
    *,
    timeout_s: float,
    max_rows: int,
    max_bytes: int,
    admin_dsn: str | None = None,
) -> tuple[list[str], list[tuple], bool]:
    """Run the statement in a read-only transaction; return column names, the rows kept and whether rows were cut."""
    deadline = time.monotonic() + timeout_s + _WATCHDOG_GRACE_S
    watchdog = _Watchdog(conn, timeout_s=timeout_s, admin_dsn=admin_dsn)
    try:
        conn.execute(_SET_TIMEOUT_SQL, [f"{max(1, round(timeout_s * 1000))}ms"])
        watchdog.start()
        with conn.cursor(name=_CURSOR_NAME) as cursor:
            cursor.execute(statement)
            names = [column.name for column in cursor.description or []]
            rows, truncated = _fetch_rows(
                conn, max_rows=max_rows, max_bytes=max_bytes, timeout_s=timeout_s, deadline=deadline
            )
    except psycopg.Error as err:
        watchdog.stop()
        if watchdog.abandoned:
            raise ExecutionError(
                ErrorKind.TIMEOUT, None, _timeout_message("the server did not stop the query", timeout_s)
            ) from err
        raise _execution_error(err, timeout_s=timeout_s, is_cancelled=watchdog.fired) from err
    except EngineError:
        raise
    except Exception as err:  # a value the loaders cannot convert must fail this query, not crash the caller
        raise _client_error(err) from err
    finally:
        watchdog.stop()
        _rollback(conn)
    return names, rows, truncated


class _Watchdog(threading.Thread):
    """Stop a query that outlives its timeout: cancel it, then terminate its backend, then abandon the connection.

    Each step runs only if the query is still running; `stop()` ends the watchdog and waits for it, so no step
    touches the connection once it is back in the pool.
    """

    def __init__(self, conn: psycopg.Connection, *, timeout_s: float, admin_dsn: str | None) -> None:
        super().__init__(name="alerce-t2s-watchdog", daemon=True)
        self._conn = conn
        self._timeout_s = timeout_s
        self._admin_dsn = admin_dsn
        self._stopped = threading.Event()
        self.fired = False
        self.abandoned = False

    def run(self) -> None:
        started = time.monotonic()
        steps = (
            (_WATCHDOG_GRACE_S, self._cancel),
            (_TERMINATE_AFTER_S, self._terminate),
            (_ABANDON_AFTER_S, self._abandon),
        )
        for after_s, step in steps:
            if self._stopped.wait(max(0.0, started + self._timeout_s + after_s - time.monotonic())):
                return
            self.fired = True
            step()

    def stop(self) -> None:
        """End the watchdog and wait until no step is running."""
        self._stopped.set()
        if self.is_alive():
            self.join()

    def _cancel(self) -> None:
        self._conn.cancel_safe(timeout=_TERMINATE_AFTER_S - _WATCHDOG_GRACE_S)

    def _terminate(self) -> None:
        if self._admin_dsn is None:
            return
        pid = self._conn.info.backend_pid
        threading.Thread(target=_terminate_backend, args=(self._admin_dsn, pid), daemon=True).start()

    def _abandon(self) -> None:
        """Shut the socket down: the blocked client call fails at once and the pool discards the connection."""
        self.abandoned = True
        try:
            duplicate = os.dup(self._conn.pgconn.socket)
        except (OSError, psycopg.Error) as err:
            logger.debug("cannot abandon the connection: %s", err)
            return
        with socket.socket(fileno=duplicate) as sock:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError as err:
                logger.debug("cannot shut the connection down: %s", err)


def _terminate_backend(admin_dsn: str, pid: int) -> None:
    """End backend `pid` from a supervising admin connection (logged, never raised: this is a last resort)."""
    try:
        with psycopg.connect(admin_dsn, autocommit=True, connect_timeout=2) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    except psycopg.Error as err:
        logger.warning("could not terminate backend %d through the admin DSN: %s", pid, err)


def _fetch_rows(
    conn: psycopg.Connection, *, max_rows: int, max_bytes: int, timeout_s: float, deadline: float
) -> tuple[list[tuple], bool]:
    """Fetch batches until max_rows rows or max_bytes bytes are passed; return the rows kept and whether some were cut.

    Batches are sized by bytes: one row first, then as many rows of the mean size so far as fit in the bytes left.
    Each batch is measured as PostgreSQL sent it before any of its values is converted, and only the rows within
    the cap are converted to Python objects. A cell counts its bytes plus _CELL_OVERHEAD_BYTES, NULLs included.

    Raises:
        ExecutionError: kind TIMEOUT when the monotonic clock passes `deadline` between batches.
    """
    rows: list[tuple] = []
    size_bytes = 0
    with conn.cursor() as fetcher:
        while len(rows) <= max_rows:
            if rows:
                fitting = (max_bytes - size_bytes) * len(rows) // max(1, size_bytes)
                size = max(1, min(_FETCH_BATCH_ROWS, fitting))
            else:
                size = _FIRST_BATCH_ROWS
            fetcher.execute(_FETCH_SQL.format(min(size, max_rows + 1 - len(rows)), sql.Identifier(_CURSOR_NAME)))
            sizes = _row_sizes(fetcher.pgresult)
            if not sizes:
                break
            kept = 0
            for row_bytes in sizes:
                if size_bytes + row_bytes > max_bytes:
                    break
                size_bytes += row_bytes
                kept += 1
            rows.extend(fetcher.fetchmany(kept) if kept else [])
            if kept < len(sizes):
                return rows[:max_rows], True
            if time.monotonic() > deadline:
                raise ExecutionError(ErrorKind.TIMEOUT, None, _timeout_message("fetching rows", timeout_s))
    return rows[:max_rows], len(rows) > max_rows


def _row_sizes(pgresult: pq.abc.PGresult | None) -> list[int]:
    """Bytes of each row of the last fetched batch, as PostgreSQL sent them, plus the per-cell overhead."""
    if pgresult is None:
        return []
    fields = range(pgresult.nfields)
    overhead = _CELL_OVERHEAD_BYTES * pgresult.nfields
    return [
        overhead + sum(len(pgresult.get_value(row, field) or b"") for field in fields)
        for row in range(pgresult.ntuples)
    ]


def _to_frame(names: Sequence[str], rows: Sequence[tuple]) -> pd.DataFrame:
    """Build a DataFrame column by column so labels may repeat and NULLs stay None."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    series = {position: _to_series(values) for position, values in enumerate(columns)}
    frame = pd.DataFrame(series, index=pd.RangeIndex(len(rows)))
    frame.columns = list(names)
    return frame


def _to_series(values: Sequence[Any]) -> pd.Series:
    """Keep object dtype when a value is None (exact ints, None not NaN); infer the dtype otherwise."""
    series = pd.Series(values, dtype=object)
    if any(value is None for value in values):
        return series
    return series.infer_objects()


def _reset(conn: psycopg.Connection) -> None:
    """Reset the session before the pool lends it again: DISCARD ALL drops every session-level setting, prepared
    statement, advisory lock, LISTEN and cached plan a query could leave (psycopg forgets its prepared statements).

    A connection that cannot be reset is closed, so the pool discards it.
    """
    if conn.closed or conn.info.transaction_status != pq.TransactionStatus.IDLE:
        if not conn.closed:
            conn.close()
        return
    try:
        conn.autocommit = True
        conn.execute("DISCARD ALL")
        conn.autocommit = False
    except psycopg.Error as err:
        logger.debug("session reset failed, the connection will be discarded: %s", err)
        conn.close()


def _rollback(conn: psycopg.Connection) -> None:
    """End the transaction; a broken connection is left to the pool, which discards it.

    The failure is logged at debug level only: the caller already reports the error that broke the connection.
    """
    if conn.closed:
        return
    try:
        conn.rollback()
    except psycopg.Error as err:
        logger.debug("rollback failed, the connection will be discarded: %s", err)


def _execution_error(err: psycopg.Error, *, timeout_s: float | None, is_cancelled: bool) -> ExecutionError:
    """Translate a psycopg error into an ExecutionError with kind, SQLSTATE and server message."""
    kind = ErrorKind.TIMEOUT if is_cancelled else error_kind_for(err.sqlstate)
    message = err.diag.message_primary or (str(err).strip().splitlines() or [type(err).__name__])[0]
    if err.diag.message_hint:
        message = f"{message}. Hint: {err.diag.message_hint}"
    if kind is ErrorKind.TIMEOUT and timeout_s is not None:
        message = _timeout_message(message, timeout_s)
    return ExecutionError(kind, err.sqlstate, message)


def _client_error(err: BaseException) -> ExecutionError:
    """Type a failure on the client side (encoding the query, converting the result) as a GENERAL ExecutionError."""
    detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    if len(detail) > _MAX_MESSAGE_CHARS:
        detail = detail[:_MAX_MESSAGE_CHARS] + "..."
    return ExecutionError(
        ErrorKind.GENERAL,
        None,
        f"the client could not send the query or read its result ({type(err).__name__}: {detail}); "
        "select simpler values",
    )


def _timeout_message(what: str, timeout_s: float) -> str:
    return f"{what}: the query ran longer than its {timeout_s:g} s timeout; make it cheaper or narrow it down"
