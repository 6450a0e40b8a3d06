"""The one execution interface every part of the project runs SQL through."""

from typing import Any, Protocol, Self, runtime_checkable

import pandas as pd

from db.executor import Result

__all__ = ["ENGINE_NAMES", "Engine", "Result"]

ENGINE_NAMES = ("postgres", "tap")
"""Names accepted by `--engine` and `engines.open_engine`."""


@runtime_checkable
class Engine(Protocol):
    """Runs one read-only PostgreSQL statement somewhere and returns its rows.

    The statement is the PostgreSQL the program writes; an engine that speaks another language (TAP: ADQL)
    translates it after the SQL guard has accepted it. Failures raise `db.errors.ExecutionError` with a typed
    `kind`; a construct the engine cannot run raises kind `unsupported`.
    """

    name: str
    """Short name of the engine kind ("postgres", "tap"), for logs and reports."""

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run `sql` and return its rows, the elapsed time and whether rows were cut at `max_rows`."""
        ...

    def fingerprint(self) -> str:
        """Identify the engine and the data it serves (starts with the engine name), for result caches."""
        ...

    def tables(self) -> frozenset[str] | None:
        """Return the catalog tables the engine serves, or None when it serves all of them."""
        ...

    def close(self) -> None:
        """Release connections; the next `execute` opens new ones."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc_info: object) -> None: ...

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """Return self: DSPy deep-copies programs, and connections must not be copied."""
        ...


def empty_frame(names: list[str]) -> pd.DataFrame:
    """Return a frame with the given column labels (duplicates kept) and no rows."""
    frame = pd.DataFrame({position: pd.Series([], dtype=object) for position in range(len(names))})
    frame.columns = list(names)
    return frame
