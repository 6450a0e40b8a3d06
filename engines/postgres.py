"""PostgreSQL as an engine: the guarded, read-only `db.executor.Executor`, unchanged."""

from typing import Any, Self

from db.connection import probe
from db.executor import Executor, ExecutorSettings, Result

__all__ = ["PostgresEngine"]


class PostgresEngine:
    """Run statements on a PostgreSQL database through `db.executor.Executor` (guard, read-only role, timeouts).

    Example: ``with PostgresEngine(ExecutorSettings(dsn=dsn)) as engine: engine.execute("SELECT 1").frame``.
    """

    name = "postgres"

    def __init__(self, settings: ExecutorSettings) -> None:
        self.settings = settings
        self.executor = Executor(settings)

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run one SELECT statement; see `db.executor.Executor.execute`."""
        return self.executor.execute(sql, timeout_s=timeout_s, max_rows=max_rows)

    def fingerprint(self) -> str:
        """Return ``postgres-`` and the database contents' fingerprint."""
        return f"{self.name}-{self.executor.fingerprint()}"

    def check_available(self) -> None:
        """Open and close one connection of its own (the pool's may all be busy), within the connect timeout.

        Raises:
            DatabaseUnavailable: The database cannot be reached.
        """
        probe(self.settings.dsn, self.settings.connect_timeout_s)

    def tables(self) -> None:
        """Serve every catalog table."""
        return None

    def close(self) -> None:
        """Close the pooled connections."""
        self.executor.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """Share the engine: DSPy deep-copies programs, and a pool must not be copied."""
        return self
