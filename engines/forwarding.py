"""A base for engines that wrap another engine: everything they do not change is forwarded to it."""

from engines.engine import Engine, EngineLifecycle, Result

__all__ = ["ForwardingEngine"]


class ForwardingEngine(EngineLifecycle):
    """An `Engine` that runs everything on `inner`; subclasses override what they add (a bound, a watch, a report).

    Wrappers nest: each is a full engine, so nothing has to look inside another to find the pool or the tables.
    """

    def __init__(self, inner: Engine) -> None:
        self.inner = inner
        self.name = inner.name
        self.catalog = inner.catalog

    @property
    def concurrency(self) -> int | None:
        """The wrapped engine's concurrency."""
        return self.inner.concurrency

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run `sql` on the wrapped engine."""
        return self.inner.execute(sql, timeout_s=timeout_s, max_rows=max_rows)

    def fingerprint(self) -> str:
        """Return the wrapped engine's fingerprint."""
        return self.inner.fingerprint()

    def tables(self) -> frozenset[str] | None:
        """Return the tables the wrapped engine serves."""
        return self.inner.tables()

    def close(self) -> None:
        """Close the wrapped engine."""
        self.inner.close()
