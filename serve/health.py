"""Whether the engine answers, for ``GET /api/health``: asked at most every few seconds, in a worker thread."""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

import anyio.to_thread

from engines.errors import EngineError

__all__ = ["EngineHealth"]

CHECK_EVERY_S = 10.0
"""Seconds a finding about the engine stands before the engine is asked again."""


class EngineHealth:
    """Ask the engine's ``check_available()`` (PostgreSQL: one connection of its own; TAP: its capabilities).

    Health requests never queue behind each other or behind queries: one asks, the others meanwhile get the last
    finding. An engine without the check counts as available.
    """

    def __init__(self, engine: Any, *, every_s: float = CHECK_EVERY_S) -> None:
        self._check = getattr(engine, "check_available", None)
        self.every_s = every_s
        self._problem: str | None = None
        self._checked = -math.inf
        self._asking: asyncio.Lock | None = None

    async def problem(self) -> str | None:
        """Return why the engine cannot be used, in one line, or None when it answers."""
        if self._check is None:
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
            self._check()
        except EngineError as err:
            return str(err)
        return None
