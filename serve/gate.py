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

from db.errors import DatabaseBusy

__all__ = ["CLIENT", "QueryGate"]

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
