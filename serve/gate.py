"""Share the engine's connections between clients fairly, so that no client takes them all or makes others wait.

Every query the workbench runs (SQL or ADQL written by hand, and each query of an answer) takes a slot for its
client first; a client holds at most all but one of the engine's connections, so another client always finds one,
and when the connections are all taken the next free one goes to the waiting client that runs the fewest. A query
that finds no slot within its wait is refused as busy (``DatabaseBusy``), never left to wait for a pooled connection
until it looks like a database that is down.

A client's own queries (the candidates and corrections of its questions) queue behind each other for its share, up
to ``own_wait_s``; they never queue behind another client's queries beyond that client's fair share, because no
lane is shared between clients.
"""

from __future__ import annotations

import collections
import contextvars
import itertools
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
    """At most `capacity` queries at once, at most ``capacity - 1`` (and at least 1) of one client, the next free
    slot to the waiting client with the fewest running (then the one waiting longest); thread-safe.

    It implements ``serve.policies.ExecutionShares``.
    """

    def __init__(self, capacity: int, *, wait_s: float) -> None:
        self.capacity = max(1, capacity)
        self.per_client = max(1, self.capacity - 1)
        self.wait_s = wait_s
        self._changed = threading.Condition()
        self._running: collections.Counter[str] = collections.Counter()
        self._waiting: dict[int, str] = {}  # ticket -> client, in arrival order
        self._tickets = itertools.count()

    @contextmanager
    def slot(self, client: str, *, own_wait_s: float | None = None) -> Iterator[None]:
        """Hold a slot of `client` for the block.

        It waits up to `wait_s` in all, or up to `own_wait_s` (when longer) while the client's own queries hold
        its share: a client's flood costs its own time, not the others'.

        Raises:
            DatabaseBusy: No slot came free in time.
        """
        started = time.monotonic()
        longest_s = max(self.wait_s, own_wait_s or 0.0)
        with self._changed:
            ticket = next(self._tickets)
            self._waiting[ticket] = client
            behind_others_since: float | None = None
            try:
                while (holder := self._holder(ticket, client)) is not None:
                    now = time.monotonic()
                    if holder == "others":
                        behind_others_since = behind_others_since or now
                        left_s = self.wait_s - (now - behind_others_since)
                    else:
                        behind_others_since = None
                        left_s = longest_s - (now - started)
                    if left_s <= 0:
                        raise DatabaseBusy(self._busy_message(client))
                    self._changed.wait(left_s)
            finally:
                del self._waiting[ticket]
                self._changed.notify_all()  # the next in line may be another waiter now
            self._running[client] += 1
        try:
            yield
        finally:
            with self._changed:
                self._running[client] -= 1
                if not self._running[client]:
                    del self._running[client]
                self._changed.notify_all()

    def running(self, client: str) -> int:
        """Queries of `client` running now."""
        with self._changed:
            return self._running[client]

    def _holder(self, ticket: int, client: str) -> str | None:
        """What keeps the waiter `ticket` of `client` waiting: None (nothing: it may run), "own" (the client's own
        queries, running or ahead in line) or "others"; the line is fair: fewest running first, then arrival."""
        if self._running[client] >= self.per_client:
            return "own"
        admissible = [t for t, c in self._waiting.items() if self._running[c] < self.per_client]
        first = min(admissible, key=lambda t: (self._running[self._waiting[t]], t))
        if first == ticket and self._running.total() < self.capacity:
            return None
        return "own" if first != ticket and self._waiting[first] == client else "others"

    def _busy_message(self, client: str) -> str:
        mine, everyone = self._running[client], self._running.total()
        return (
            f"The database is busy: {mine} of your queries and {everyone} in all are running (at most "
            f"{self.per_client} per client and {self.capacity} at once); try again in a few seconds."
        )


class GatedEngine(ForwardingEngine):
    """An engine whose every statement takes a slot of its client's share first (``CLIENT``); the program of a
    workbench runs on it, so an answer's queries count for whoever asked.

    Its `concurrency` is None: the gate bounds each client itself, and a bound above it (the program's
    ``BoundedEngine``) would be one lane shared by all clients, where one client's slow queries hold the others'.
    """

    def __init__(self, inner: Engine, gate: QueryGate, *, own_wait_s: float | None = None) -> None:
        super().__init__(inner)
        self.gate = gate
        self.own_wait_s = own_wait_s

    @property
    def concurrency(self) -> None:
        """None: callers need not bound the statements they run at once; the gate does, per client."""
        return None

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run `sql` on the wrapped engine once the client has a slot (waiting up to ``own_wait_s`` behind its own
        queries, and ``gate.wait_s`` behind others').

        Raises:
            DatabaseBusy: No slot came free in time.
        """
        with self.gate.slot(CLIENT.get(), own_wait_s=self.own_wait_s):
            return self.inner.execute(sql, timeout_s=timeout_s, max_rows=max_rows)


def gated(engine: Engine, *, wait_s: float, own_wait_s: float | None = None) -> GatedEngine:
    """Wrap `engine` in a gate sized by its connections (``QUERIES_WITHOUT_A_POOL`` when it has no pool)."""
    gate = QueryGate(engine.concurrency or QUERIES_WITHOUT_A_POOL, wait_s=wait_s)
    return GatedEngine(engine, gate, own_wait_s=own_wait_s)
