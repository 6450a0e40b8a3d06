"""Execute generated SQL, and repair it after execution errors within a budget."""

from collections.abc import Callable
from dataclasses import dataclass, field

import dspy
import pandas as pd

from engines import Engine, Result
from engines.errors import ExecutionError

__all__ = [
    "Outcome",
    "describe_outcome",
    "execute_with_corrections",
    "result_frame",
]


@dataclass
class Outcome:
    """The final SQL, every executed attempt, and the result or the last error."""

    sql: str
    attempts: list[dict[str, str | None]] = field(default_factory=list)
    result: Result | None = None
    error: ExecutionError | None = None


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


def _tell_listeners(error: ExecutionError | None, result: Result | None) -> None:
    """Tell DSPy callbacks that have ``on_execute(error, rows)`` about one execution (the workbench streams it)."""
    for listener in dspy.settings.get("callbacks", None) or []:
        if hasattr(listener, "on_execute"):
            listener.on_execute(error, None if result is None else len(result.frame))


def execute_with_corrections(
    executor: Engine | None,
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
            _tell_listeners(err, None)
        else:
            outcome.error = None
            outcome.attempts.append({"sql": outcome.sql, "error_kind": None, "message": None})
            _tell_listeners(None, outcome.result)
            return outcome
        if round_index == max_corrections:
            break
        repaired = correct(outcome.sql, outcome.error)
        if not repaired:
            break
        outcome.sql = repaired
    return outcome
