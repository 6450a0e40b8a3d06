"""An engine that runs at most as many statements at once as the engine below it can."""

import threading

from engines.engine import Engine, Result
from engines.forwarding import ForwardingEngine

__all__ = ["BoundedEngine"]


class BoundedEngine(ForwardingEngine):
    """Runs at most `inner.concurrency` statements at once (unbounded when it is None).

    Candidates run concurrently, and evaluation threads share one program: without the bound, statements would
    wait for a pooled connection longer than the connect timeout, and a busy pool would look like an outage.
    """

    def __init__(self, inner: Engine) -> None:
        super().__init__(inner)
        limit = inner.concurrency
        self._slots = threading.BoundedSemaphore(limit) if limit else None

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run `sql` on the wrapped engine once one of its connections is free."""
        if self._slots is None:
            return self.inner.execute(sql, timeout_s=timeout_s, max_rows=max_rows)
        with self._slots:
            return self.inner.execute(sql, timeout_s=timeout_s, max_rows=max_rows)
