"""The one execution interface every part of the project runs SQL through, and the one result it returns."""

import dataclasses
from typing import Any, Protocol, Self, runtime_checkable

import pandas as pd

from engines.settings import ENGINE_NAMES

__all__ = ["ENGINE_NAMES", "Engine", "EngineLifecycle", "Result"]


@dataclasses.dataclass(frozen=True)
class Result:
    """Rows of one query.

    Attributes:
        frame: the rows, with column labels exactly as the engine returned them (duplicates kept). On PostgreSQL,
            columns with a NULL keep object dtype with None; numeric values are floats; bigints stay exact ints.
        elapsed_s: wall time of the query including fetching, in seconds.
        truncated: True when the query had more rows than the row cap (or, on PostgreSQL, more bytes than
            `max_bytes`), and only the first ones were kept.
        adql: the ADQL that ran, when the engine translated the statement ("" otherwise).
        table: the astropy Table a TAP service returned (with its units), None elsewhere.
    """

    frame: pd.DataFrame
    elapsed_s: float
    truncated: bool
    adql: str = ""
    table: Any = None


@runtime_checkable
class Engine(Protocol):
    """Runs one read-only PostgreSQL statement somewhere and returns its rows.

    The statement is the PostgreSQL the program writes; an engine that speaks another language (TAP: ADQL)
    translates it after the SQL guard has accepted it. Failures raise `engines.errors.ExecutionError` with a typed
    `kind`; a construct the engine cannot run raises kind `unsupported`. A wrapper (bounded, outage, progress)
    is an engine too and forwards what it does not change, so nothing needs to look inside another.
    """

    name: str
    """Short name of the engine kind ("postgres", "tap"), for logs and reports."""

    catalog: str
    """The catalog whose data it serves (``catalog.CATALOG_NAMES``)."""

    @property
    def concurrency(self) -> int | None:
        """Most statements that can run at once (the connection pool's size), or None when unbounded."""
        ...

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


class EngineLifecycle:
    """What every engine class shares: it closes when its ``with`` block ends, and DSPy's copies share it.

    DSPy deep-copies programs (optimisers, threads); an engine holds connections, which must not be copied.
    """

    def close(self) -> None:
        """Release connections (engines override it)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self
