"""One scored (question, run) item: its record, the verdict that fills it, and the record of an item that crashed."""

import dataclasses
from collections.abc import Sequence

import dspy
import pandas as pd

from engines.errors import ErrorKind, ExecutionError
from evaluation.predictions import Prediction
from fileio.text import encodable
from metric.aggregate import ScoredItem
from metric.gold_cache import GoldResult
from metric.perfect_match import IDS, score_frames

__all__ = ["ItemRecord", "failed_item", "verdict"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ItemRecord:
    """Everything known about one scored (question, run) item; one line of the checkpoint and of per_question.csv.

    Attributes:
        req_id: The question id.
        run: The run id.
        difficulty: The gold difficulty label.
        gold_rows: Rows of the gold result, or None if the gold query failed.
        pred_rows: Rows of the predicted result, or None if it failed or is missing.
        error_kind: Kind of the prediction's execution error (``timeout``, ``missing_structure``, ``general``).
        row_pm: Row PM.
        col_pm: Raw column PM.
        col_pm_formatted: Formatted column PM (the paper's column number).
        value_match: Our value match.
        error_message: The prediction's error message, or None.
        gold_error_kind: Kind of the gold query's execution error, or None.
        gold_error_message: The gold query's error message, or None.
        row_comparison: How row PM compared the results (``ok``, ``empty_gold``, ``alias_crash``, ...).
        value_comparison: How the value match ended (``ok``, ``row_count``, ``values``, ...).
        is_missing: The predictions had no SQL for this item.
        elapsed_s: Wall time of the predicted query in seconds (0 when it did not run).
        sql: The predicted SQL, or None when missing.
    """

    req_id: int
    run: int | str
    difficulty: str
    gold_rows: int | None
    pred_rows: int | None
    error_kind: str | None
    row_pm: bool
    col_pm: bool
    col_pm_formatted: bool
    value_match: bool
    error_message: str | None = None
    gold_error_kind: str | None = None
    gold_error_message: str | None = None
    row_comparison: str = ""
    value_comparison: str = ""
    is_missing: bool = False
    elapsed_s: float = 0.0
    sql: str | None = None

    def __post_init__(self) -> None:
        """Make the texts from outside (the predicted SQL, error messages) encodable, so the record can be saved."""
        for name in ("sql", "error_message", "gold_error_message"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, encodable(value))

    def to_dict(self) -> dict:
        """Return the record as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "ItemRecord":
        """Rebuild a record from ``to_dict`` output, ignoring unknown keys."""
        names = {field.name for field in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})

    def scored_item(self) -> ScoredItem:
        """Return the item as ``metric.aggregate`` counts it."""
        return ScoredItem(
            req_id=self.req_id,
            run=self.run,
            difficulty=self.difficulty,
            gold_error=self.gold_error_kind is not None,
            pred_error=self.error_kind,
            row_pm=self.row_pm,
            col_pm=self.col_pm,
            col_pm_formatted=self.col_pm_formatted,
            value_match=self.value_match,
        )


def verdict(
    prediction: Prediction,
    example: dspy.Example,
    gold: GoldResult,
    pred_df: pd.DataFrame | None,
    outcome: ExecutionError | float,
    *,
    ids: Sequence[str] = IDS,
) -> ItemRecord:
    """Score a prediction's result against its gold.

    Args:
        prediction: The item.
        example: Its question, with the gold SQL and difficulty.
        gold: The gold's result.
        pred_df: The prediction's rows, or None when it failed (or is missing).
        outcome: The prediction's `ExecutionError`, or the seconds its statement took.
        ids: The catalog's identifier columns, which row PM compares (`metric.identifier_columns`).

    Returns:
        The item's record.
    """
    error = outcome if isinstance(outcome, ExecutionError) else None
    scores = score_frames(gold.frame, example.gold_sql, pred_df, prediction.sql or "", gold_rows=gold.rows, ids=ids)
    return ItemRecord(
        req_id=prediction.req_id,
        run=prediction.run,
        difficulty=example.difficulty,
        gold_rows=None if gold.frame is None else len(gold.frame),
        pred_rows=None if pred_df is None else len(pred_df),
        error_kind=error.kind.value if error else None,
        row_pm=scores.row.pm,
        col_pm=scores.column_raw.pm,
        col_pm_formatted=scores.column_formatted.pm,
        value_match=scores.value.pm,
        error_message=error.message if error else None,
        gold_error_kind=gold.error.kind.value if gold.error else None,
        gold_error_message=gold.error.message if gold.error else None,
        row_comparison=scores.row.comparison.value,
        value_comparison=scores.value.comparison.value,
        is_missing=prediction.sql is None,
        elapsed_s=0.0 if error else float(outcome),
        sql=prediction.sql,
    )


def failed_item(prediction: Prediction, example: dspy.Example, err: Exception) -> ItemRecord:
    """Record an item whose scoring failed unexpectedly as a GENERAL error scoring 0, so the run can go on.

    Examples:
        >>> example = dspy.Example(req_id=7, difficulty="simple", gold_sql="SELECT 1")
        >>> failed_item(Prediction(7, 0, "SELECT 1"), example, RecursionError("too deep")).error_message
        'could not score this item (RecursionError: too deep)'
    """
    return ItemRecord(
        req_id=prediction.req_id,
        run=prediction.run,
        difficulty=example.difficulty,
        gold_rows=None,
        pred_rows=None,
        error_kind=ErrorKind.GENERAL.value,
        row_pm=False,
        col_pm=False,
        col_pm_formatted=False,
        value_match=False,
        error_message=f"could not score this item ({type(err).__name__}: {str(err)[:500]})",
        is_missing=prediction.sql is None,
        sql=prediction.sql,
    )
