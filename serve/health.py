"""Whether the engine answers, for ``GET /api/health``: asked at most every few seconds, in a worker thread.

The question is a query on the catalog's first table by its bare name, through the engine's own connections: a
pool whose connections lost their database or search path (a rebuild, a restart) fails it, where opening a fresh
connection would say "ok".
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

import anyio.to_thread

from catalog import load_catalog
from engines.errors import DatabaseBusy, EngineError

__all__ = ["EngineHealth"]

CHECK_EVERY_S = 10.0
"""Seconds a finding about the engine stands before the engine is asked again."""


class EngineHealth:
    """Run one small query on the catalog (``SELECT 1 FROM <first table> LIMIT 1``); when every connection is busy,
    ask the engine's ``check_available()`` instead (PostgreSQL: one connection of its own; TAP: its capabilities).

    Health requests never queue behind each other or behind queries: one asks, the others meanwhile get the last
    finding. An engine without a catalog or the check counts as available.
    """

    def __init__(self, engine: Any, *, every_s: float = CHECK_EVERY_S) -> None:
        self._engine = engine
        self._check = getattr(engine, "check_available", None)
        catalog = getattr(engine, "catalog", None)
        tables = load_catalog(catalog).table_names if isinstance(catalog, str) else []
        self._probe_sql = f"SELECT 1 AS ok FROM {tables[0]} LIMIT 1" if tables else None
        self.every_s = every_s
        self._problem: str | None = None
        self._checked = -math.inf
        self._asking: asyncio.Lock | None = None

    async def problem(self) -> str | None:
        """Return why the engine cannot be used, in one line, or None when it answers."""
        if self._check is None and self._probe_sql is None:
            return self._problem
        self._asking = self._asking or asyncio.Lock()
        if time.monotonic() - self._checked < self.every_s or self._asking.locked():
            return self._problem
        async with self._asking:
            self._problem = await anyio.to_thread.run_sync(self._ask)
            self._checked = time.monotonic()
        return self._problem

    def _ask(self) -> str | None:
        try:
            if self._probe_sql is None:
                self._check()
                return None
            try:
                self._engine.execute(self._probe_sql, timeout_s=self.every_s, max_rows=1)
            except DatabaseBusy:
                if self._check is not None:
                    self._check()  # the pool's connections are all answering queries; the server is up
        except EngineError as err:
            return str(err)
        return None
