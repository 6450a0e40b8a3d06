"""The executor interface the pipeline needs: anything with `execute` that raises `db.errors.ExecutionError`."""

from typing import Protocol

import pandas as pd

__all__ = ["QueryResult", "SQLExecutor"]


class QueryResult(Protocol):
    """What an execution returns (`db.executor.Result` satisfies it)."""

    frame: pd.DataFrame
    elapsed_s: float
    truncated: bool


class SQLExecutor(Protocol):
    """Runs one read-only statement; raises `db.errors.ExecutionError` with a typed `kind` on failure."""

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> QueryResult:
        """Execute `sql` and return its rows."""
        ...
