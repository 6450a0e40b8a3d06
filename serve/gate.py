"""Share the engine's connections between clients, so that no client takes them all.

Every query the workbench runs (SQL or ADQL written by hand, and each query of an answer) takes a slot for its
client first; a client holds at most all but one of the engine's connections, so another client always finds one.
A query that finds no slot within the wait is refused as busy (``DatabaseBusy``), never left to wait for a pooled
connection until it looks like a database that is down.
"""

from __future__ import annotations

import collections
import contextvars
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from engines.engine import Engine, Result
from engines.errors import DatabaseBusy
from engines.forwarding import ForwardingEngine

__all__ = ["CLIENT", "QUERIES_WITHOUT_A_POOL", "GatedEngine", "QueryGate", "gated"]

QUERIES_WITHOUT_A_POOL = 4
"""Queries run at once on an engine without a connection pool (TAP)."""

CLIENT: contextvars.ContextVar[str] = contextvars.ContextVar("workbench_client", default="")
"""The client the current query runs for (its address); copied into the threads of an answer's candidates."""


class QueryGate:
    """At most `capacity` queries at once, at most ``capacity - 1`` (and at least 1) of one client (thread-safe)."""

    def __init__(self, capacity: int, *, wait_s: float) -> None:
        self.capacity = max(1, capacity)
        self.per_client = max(1, self.capacity - 1)
        self.wait_s = wait_s
        self._changed = threading.Condition()
        self._running: collections.Counter[str] = collections.Counter()

    @contextmanager
    def slot(self, client: str) -> Iterator[None]:
        """Hold a slot of `client` for the block, waiting up to `wait_s` for one.

        Raises:
            DatabaseBusy: No slot came free in time.
        """
        deadline = time.monotonic() + self.wait_s
        with self._changed:
            while self._running[client] >= self.per_client or self._running.total() >= self.capacity:
                left_s = deadline - time.monotonic()
                if left_s <= 0:
                    raise DatabaseBusy(self._busy_message(client))
                self._changed.wait(left_s)
            self._running[client] += 1
        try:
            yield
        finally:
            with self._changed:
                self._running[client] -= 1
                if not self._running[client]:
                    del self._running[client]
                self._changed.notify_all()

    def _busy_message(self, client: str) -> str:
        mine, everyone = self._running[client], self._running.total()
        return (
            f"The database is busy: {mine} of your queries and {everyone} in all are running (at most "
            f"{self.per_client} per client and {self.capacity} at once); try again in a few seconds."
        )


class GatedEngine(ForwardingEngine):
    """An engine whose every statement takes a slot of its client's share first (``CLIENT``); the program of a
    workbench runs on it, so an answer's queries count for whoever asked."""

    def __init__(self, inner: Engine, gate: QueryGate) -> None:
        super().__init__(inner)
        self.gate = gate

    @property
    def concurrency(self) -> int:
        """Most statements one client runs at once: its share of the gate (more would wait for a slot)."""
        return self.gate.per_client

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run `sql` on the wrapped engine once the client has a slot.

        Raises:
            DatabaseBusy: The client's share stayed taken for the gate's wait.
        """
        with self.gate.slot(CLIENT.get()):
            return self.inner.execute(sql, timeout_s=timeout_s, max_rows=max_rows)


def gated(engine: Engine, *, wait_s: float) -> GatedEngine:
    """Wrap `engine` in a gate sized by its connections (``QUERIES_WITHOUT_A_POOL`` when it has no pool)."""
    return GatedEngine(engine, QueryGate(engine.concurrency or QUERIES_WITHOUT_A_POOL, wait_s=wait_s))
