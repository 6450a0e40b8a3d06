"""The executor interface the pipeline needs: anything with `execute` that raises `db.errors.ExecutionError`."""

from typing import Protocol

import pandas as pd

from db.catalog import Catalog, load_catalog

__all__ = ["QueryResult", "SQLExecutor", "served_catalog"]


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


def served_catalog(executor: object) -> Catalog:
    """Return the catalog of the tables `executor` serves: all, unless it has a `tables()` that says otherwise.

    A TAP engine serves only what the service publishes (``engines.Engine.tables``), so stages never offer the
    model a table the service lacks.
    """
    catalog = load_catalog()
    tables = getattr(executor, "tables", None)
    served = tables() if callable(tables) else None
    return catalog if served is None else catalog.only(served)
