"""Seconds per stage of the questions answered, as Prometheus histograms summed over every worker in the database."""

from __future__ import annotations

import math
import time
from typing import Any

__all__ = ["BUCKETS_S", "StageClock", "record_seconds"]

BUCKETS_S = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, math.inf)
"""Upper bounds of the histogram buckets (seconds)."""


class StageClock:
    """Time the stages a question's events report (``running`` to ``done``/``failed``)."""

    def __init__(self) -> None:
        self._started: dict[str, float] = {}
        self.seconds: list[tuple[str, float]] = []

    def see(self, event: dict[str, Any]) -> None:
        """Note one event of the question."""
        if event.get("type") != "stage":
            return
        stage, status = str(event.get("stage")), event.get("status")
        if status == "running":
            self._started[stage] = time.monotonic()
        elif stage in self._started:
            self.seconds.append((stage, time.monotonic() - self._started.pop(stage)))


def record_seconds(conn: Any, seconds: list[tuple[str, float]]) -> None:
    """Add durations to the stage histograms (cumulative buckets, as Prometheus reads them)."""
    for stage, spent in seconds:
        bound = next(bound for bound in BUCKETS_S if spent <= bound)
        conn.execute(
            "INSERT INTO workbench.stage_seconds AS s (stage, bucket, count) VALUES (%s, %s, 1) "
            "ON CONFLICT (stage, bucket) DO UPDATE SET count = s.count + 1",
            (stage, bound),
        )
        conn.execute(
            "INSERT INTO workbench.stage_totals AS t (stage, count, seconds) VALUES (%s, 1, %s) "
            "ON CONFLICT (stage) DO UPDATE SET count = t.count + 1, seconds = t.seconds + EXCLUDED.seconds",
            (stage, spent),
        )
