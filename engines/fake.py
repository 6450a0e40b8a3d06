"""A stand-in engine for tests and benchmarks: subclasses say how `execute` answers; it serves no real database.

It has every part of `engines.Engine` except `fingerprint`: it stands for no data, so nothing is cached for it and
the value check reads no vocabulary from it.
"""

from defaults.catalog import DEFAULT_CATALOG
from engines.engine import EngineLifecycle, Result

__all__ = ["FakeEngine"]


class FakeEngine(EngineLifecycle):
    """An engine whose `execute` a subclass writes; unbounded, serving every table of `catalog` (set it to change)."""

    name = "fake"
    catalog = DEFAULT_CATALOG
    concurrency: int | None = None

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Answer `sql` (subclasses decide how)."""
        raise NotImplementedError

    def tables(self) -> None:
        """Serve every catalog table."""
        return None

    def close(self) -> None:
        """Nothing to release."""
