"""DSPy metrics over execution: row Perfect-Match for optimisers and Evaluate, and a feedback metric for GEPA.

Gold results come from a ``GoldCache``; the prediction's own result (the program already ran its SQL) is reused,
and the SQL is executed here only when the program ran without an executor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import dspy
import pandas as pd

from engines.errors import ExecutionError
from metric.perfect_match import (
    Comparison,
    RowScore,
    column_match_raw,
    identifier_columns,
    identifier_strings,
    row_match,
)

if TYPE_CHECKING:
    from engines import Engine
    from metric.gold_cache import GoldCache

__all__ = ["Judgement", "judge", "make_feedback_metric", "make_pm_metric"]

_SHOWN = 3
"""Identifiers or columns quoted per feedback line."""


@dataclass(frozen=True)
class Judgement:
    """One prediction compared with its gold.

    Attributes:
        score: Row PM as 0.0 or 1.0.
        row: The row comparison, or None when the prediction has no SQL or failed.
        gold_frame: The gold rows, or None when the gold query failed.
        pred_frame: The predicted rows, or None when there are none to compare.
        error: The prediction's execution error, or None.
    """

    score: float
    row: RowScore | None
    gold_frame: pd.DataFrame | None
    pred_frame: pd.DataFrame | None
    error: ExecutionError | None


def _pred_frame(pred: Any, executor: Engine | None) -> tuple[pd.DataFrame | None, ExecutionError | None]:
    error = getattr(pred, "error", None)
    if error is not None:
        return None, error
    result = getattr(pred, "result", None)
    if result is not None:
        return result.frame, None
    if executor is None:
        return None, None
    try:
        return executor.execute(pred.sql).frame, None
    except ExecutionError as err:
        return None, err


def judge(example: dspy.Example, pred: Any, executor: Engine | None, gold_cache: GoldCache) -> Judgement:
    """Compare a prediction's rows with the gold rows (row PM).

    Args:
        example: Holds ``gold_sql``.
        pred: The program's prediction (``sql``, and ``result``/``error`` when the program executed it).
        executor: Runs the predicted SQL when the prediction carries no result.
        gold_cache: Gold results.

    Returns:
        The judgement; no SQL or a failed prediction scores 0.
    """
    gold = gold_cache.result(example.gold_sql)
    sql = getattr(pred, "sql", "") or ""
    if not sql:
        return Judgement(0.0, None, gold.frame, None, None)
    frame, error = _pred_frame(pred, executor)
    if error is not None:
        return Judgement(0.0, None, gold.frame, None, error)
    row = row_match(gold.frame, frame, sql, ids=identifier_columns(gold_cache.executor.catalog))
    return Judgement(float(row.pm), row, gold.frame, frame, None)


def make_pm_metric(executor: Engine | None, gold_cache: GoldCache) -> Callable[..., float | bool]:
    """Build ``pm_metric(example, pred, trace=None)``: row PM as a float, or a bool when bootstrapping (``trace``).

    The bool keeps bootstrapping from accepting failed traces (DSPY_GUIDE.md §6).
    """

    def pm_metric(example: dspy.Example, pred: Any, trace: object = None) -> float | bool:
        score = judge(example, pred, executor, gold_cache).score
        return score >= 1.0 if trace is not None else score

    return pm_metric


def make_feedback_metric(executor: Engine | None, gold_cache: GoldCache) -> Callable[..., dspy.Prediction]:
    """Build GEPA's five-argument metric returning ``dspy.Prediction(score=row PM, feedback=text)``."""

    def pm_feedback(
        gold: dspy.Example, pred: Any, trace: object = None, pred_name: str | None = None, pred_trace: object = None
    ) -> dspy.Prediction:
        judgement = judge(gold, pred, executor, gold_cache)
        lines = [*_stage_feedback(gold, pred, pred_name), describe(gold, pred, judgement)]
        return dspy.Prediction(score=judgement.score, feedback="\n".join(line for line in lines if line))

    return pm_feedback


def _stage_feedback(gold: dspy.Example, pred: Any, pred_name: str | None) -> list[str]:
    """Say what the optimised predictor's own output should have been, when the labels tell."""
    if not pred_name:
        return []
    if pred_name.startswith("schema_linking") and gold.get("tables"):
        chosen = ", ".join(getattr(pred, "tables", None) or []) or "none"
        return [f"Tables needed: {', '.join(gold.tables)}; chosen: {chosen}."]
    if pred_name.startswith("classification") and gold.get("difficulty"):
        return [f"Difficulty should be {gold.difficulty}; classified as {getattr(pred, 'difficulty', None)}."]
    return []


def _some(values: set[str]) -> str:
    shown = sorted(values)[:_SHOWN]
    more = f" and {len(values) - len(shown)} more" if len(values) > len(shown) else ""
    return ", ".join(shown) + more


def describe(gold: dspy.Example, pred: Any, judgement: Judgement) -> str:
    """Explain a judgement in a few sentences for a reflection LM, ending with the expected SQL."""
    expected = f"The expected query was: {gold.gold_sql}"
    if judgement.gold_frame is None:
        return "The expected query itself failed on this database, so the example cannot be scored."
    if not (getattr(pred, "sql", "") or ""):
        failures = "; ".join(f"{f['stage']}: {f['message']}" for f in getattr(pred, "failures", None) or [])
        return f"No SQL was produced ({failures or 'empty answer'}). {expected}"
    if judgement.error is not None:
        error = judgement.error
        return f"The query failed ({error.kind.value}): {error.message.strip()} {expected}"
    return f"{_row_feedback(judgement)} {_column_feedback(judgement)} {expected}".replace("  ", " ")


def _row_feedback(judgement: Judgement) -> str:
    row, gold_frame, pred_frame = judgement.row, judgement.gold_frame, judgement.pred_frame
    if pred_frame is None:
        return "The query was not executed."
    counts = f"It returned {len(pred_frame)} rows; the expected result has {len(gold_frame)}."
    if row is None or row.comparison is Comparison.EMPTY_GOLD:
        return "The expected result is empty, so row matching cannot score this example."
    if row.comparison is not Comparison.OK:
        return f"{counts} The result could not be matched by identifier ({row.comparison.value})."
    if row.pm:
        return f"Correct: the {row.gold_id} values match the expected result."
    gold_ids = identifier_strings(gold_frame.loc[:, ~gold_frame.columns.duplicated()][row.gold_id])
    pred_ids = identifier_strings(pred_frame.loc[:, ~pred_frame.columns.duplicated()][row.pred_id])
    parts = [counts]
    if gold_ids - pred_ids:
        parts.append(f"Missing {row.gold_id} values: {_some(gold_ids - pred_ids)}.")
    if pred_ids - gold_ids:
        parts.append(f"Unexpected {row.pred_id} values: {_some(pred_ids - gold_ids)}.")
    return " ".join(parts)


def _column_feedback(judgement: Judgement) -> str:
    if column_match_raw(judgement.gold_frame, judgement.pred_frame).pm or judgement.pred_frame is None:
        return ""
    missing = {str(c) for c in judgement.gold_frame.columns} - {str(c) for c in judgement.pred_frame.columns}
    return f"Expected columns not returned: {_some(missing)}." if missing else ""
