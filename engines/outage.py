"""Tell a lost database from a failing query, and stop a run cleanly when the database goes away.

A query whose connection dies (server killed, shut down, network gone) is not the query's fault: scoring it as a
wrong answer, or caching it as a gold error, would corrupt results. Such errors become ``DatabaseUnavailable``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import psycopg

from engines.engine import Engine, Result
from engines.errors import DatabaseUnavailable, ErrorKind, ExecutionError
from engines.forwarding import ForwardingEngine

__all__ = ["OutageGuard", "is_connection_lost", "raise_if_connection_lost"]

_SHUTDOWN_SQLSTATES = frozenset({"57P01", "57P02", "57P03"})
"""admin_shutdown, crash_shutdown, cannot_connect_now."""


def is_connection_lost(err: ExecutionError) -> bool:
    """Tell whether an execution error means the database went away rather than the query failed.

    True for SQLSTATE class 08 (connection exception), 57P01-57P03 (server shutting down or starting), and for
    psycopg's own connection errors, which carry no SQLSTATE ("server closed the connection unexpectedly").
    """
    if err.kind is ErrorKind.TIMEOUT:
        return False
    if err.sqlstate is not None:
        return err.sqlstate.startswith("08") or err.sqlstate in _SHUTDOWN_SQLSTATES
    return isinstance(err.__cause__, psycopg.OperationalError | psycopg.InterfaceError)


def raise_if_connection_lost(err: ExecutionError) -> None:
    """Raise ``DatabaseUnavailable`` when ``err`` means the connection was lost; otherwise return.

    Raises:
        DatabaseUnavailable: The database went away during the query.
    """
    if is_connection_lost(err):
        raise DatabaseUnavailable(
            f"Lost the connection to PostgreSQL during a query ({err.message.strip()}). "
            "Start the database again (`python -m db up`) or check --dsn / ALERCE_DSN."
        ) from err


class OutageGuard(ForwardingEngine):
    """Wrap an engine so that the first database outage is remembered and every later query fails at once.

    DSPy's ``Evaluate`` and the optimisers score a failing program or metric as 0 and carry on, so an outage
    would silently zero a compile; wrap each phase in ``phase()`` to raise the outage instead.
    """

    def __init__(self, inner: Engine) -> None:
        super().__init__(inner)
        self.outage: DatabaseUnavailable | None = None
        self._lock = threading.Lock()

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run ``sql`` on the wrapped engine; raise ``DatabaseUnavailable`` once the database was lost."""
        with self.watching():
            try:
                return self.inner.execute(sql, timeout_s=timeout_s, max_rows=max_rows)
            except ExecutionError as err:
                raise_if_connection_lost(err)
                raise

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """Fail at once after an outage; remember a ``DatabaseUnavailable`` raised inside the block."""
        if self.outage is not None:
            raise DatabaseUnavailable(str(self.outage))
        try:
            yield
        except DatabaseUnavailable as err:
            with self._lock:
                self.outage = self.outage or err
            raise

    @contextlib.contextmanager
    def phase(self) -> Iterator[None]:
        """Run one phase (an evaluation, an optimiser); raise the outage if one happened during it.

        Raises:
            DatabaseUnavailable: The database went away during the phase (its scores are meaningless).
        """
        try:
            yield
        except Exception as err:
            if self.outage is not None:
                raise DatabaseUnavailable(str(self.outage)) from err
            raise
        if self.outage is not None:
            raise DatabaseUnavailable(str(self.outage))
