"""Execute generated SQL, and repair it after execution errors within a budget."""

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from db.errors import ExecutionError
from modules.sql_executor import QueryResult, SQLExecutor

__all__ = [
    "BoundedExecutor",
    "Outcome",
    "connection_limit",
    "describe_outcome",
    "execute_with_corrections",
    "result_frame",
]


@dataclass
class Outcome:
    """The final SQL, every executed attempt, and the result or the last error."""

    sql: str
    attempts: list[dict[str, str | None]] = field(default_factory=list)
    result: QueryResult | None = None
    error: ExecutionError | None = None


def connection_limit(executor: object) -> int | None:
    """Return the size of the connection pool behind `executor` (through wrapping executors), or None if it has none."""
    for _ in range(4):
        size = getattr(getattr(executor, "settings", None), "pool_size", None)
        if isinstance(size, int):
            return size
        executor = getattr(executor, "executor", None)
        if executor is None:
            return None
    return None


class BoundedExecutor:
    """Runs at most as many statements at once as the executor's pool has connections (unbounded without a pool).

    Candidates run concurrently, and evaluation threads share one program: without the bound, statements would
    wait for a pooled connection longer than the connect timeout, and a busy pool would look like an outage.
    """

    def __init__(self, executor: SQLExecutor) -> None:
        self.executor = executor
        limit = connection_limit(executor)
        self._slots = threading.BoundedSemaphore(limit) if limit else None

    def execute(self, sql: str, **options: object) -> QueryResult:
        """Execute `sql` on the wrapped executor once a connection is free (`options`: timeout_s, max_rows)."""
        if self._slots is None:
            return self.executor.execute(sql, **options)
        with self._slots:
            return self.executor.execute(sql, **options)

    def __deepcopy__(self, memo: dict) -> "BoundedExecutor":
        return self  # copies of the program share the executor, so they share its bound


def result_frame(outcome: Outcome) -> pd.DataFrame | None:
    """The rows of a successful execution, or None (an error, nothing executed, or a result without a frame)."""
    return getattr(outcome.result, "frame", None) if outcome.error is None else None


def describe_outcome(path: str, outcome: Outcome) -> dict[str, object]:
    """Describe one candidate for the prediction: its path, SQL, error kind and row count (None if it did not run)."""
    frame = result_frame(outcome)
    return {
        "path": path,
        "sql": outcome.sql,
        "error_kind": outcome.error.kind.value if outcome.error else None,
        "rows": None if frame is None else len(frame),
    }


def execute_with_corrections(
    executor: SQLExecutor | None,
    sql: str,
    correct: Callable[[str, ExecutionError], str],
    *,
    max_corrections: int,
    timeout_s: float | None = None,
) -> Outcome:
    """Run `sql`; after each execution error call `correct(sql, error)` and retry, at most `max_corrections` times.

    Nothing runs without an executor or without SQL. A correction that yields no SQL ends the loop with the
    last error.

    Args:
        executor: Runs the statements; None skips execution.
        sql: The generated statement (may be empty).
        correct: Returns a repaired statement for a failed one (may be empty).
        max_corrections: Correction budget (0: a single attempt).
        timeout_s: Statement timeout passed to the executor.

    Returns:
        The outcome; `attempts` holds {"sql", "error_kind", "message"} per execution.
    """
    outcome = Outcome(sql=sql)
    if executor is None or not sql:
        return outcome
    for round_index in range(max_corrections + 1):
        try:
            outcome.result = executor.execute(outcome.sql, timeout_s=timeout_s)
        except ExecutionError as err:
            outcome.error = err
            outcome.attempts.append({"sql": outcome.sql, "error_kind": err.kind.value, "message": err.message})
        else:
            outcome.error = None
            outcome.attempts.append({"sql": outcome.sql, "error_kind": None, "message": None})
            return outcome
        if round_index == max_corrections:
            break
        repaired = correct(outcome.sql, outcome.error)
        if not repaired:
            break
        outcome.sql = repaired
    return outcome
