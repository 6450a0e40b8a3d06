"""Our stricter value match: the predicted result holds the gold rows, compared on every gold column."""

import datetime as dt
import decimal
import math
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from metric.select_list import has_top_level_order_by

__all__ = ["ValueComparison", "ValueScore", "normalized_rows", "value_match"]

_GREEDY_MAX_ROWS = 500


class ValueComparison(StrEnum):
    """Outcome of a value match; every value except OK means no match."""

    OK = "ok"
    """All gold columns found and every row matched."""
    GOLD_ERROR = "gold_error"
    """The gold query failed (its frame is None)."""
    PRED_ERROR = "pred_error"
    """The predicted query failed (its frame is None)."""
    MISSING_COLUMNS = "missing_columns"
    """Some gold column label has no counterpart in the prediction."""
    ROW_COUNT = "row_count"
    """The two results have different numbers of rows."""
    VALUES = "values"
    """Same shape, but some row differs (or is out of order when the gold has a top-level ORDER BY)."""


@dataclass(frozen=True)
class ValueScore:
    """Value match of one item."""

    pm: bool
    comparison: ValueComparison


def _normalize(value: object) -> object:
    """Map a cell to a comparable Python value: NULLs to None, numbers to int or float, the rest hashable."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if isinstance(value, bool | int | float | str | bytes | dt.date | dt.time | dt.timedelta):
        return value
    if isinstance(value, list | tuple | np.ndarray):
        return tuple(_normalize(v) for v in value)
    return str(value)


def _sort_key(row: tuple) -> tuple:
    """Order rows consistently on both sides; numbers are rounded so near-equal values sort together."""
    key = []
    for value in row:
        if value is None:
            key.append((0, 0, 0))
        elif isinstance(value, bool):
            key.append((1, int(value), 0))
        elif isinstance(value, int | float):
            rounded = float(f"{value:.6g}")
            key.append((2, rounded, value if isinstance(value, int) else rounded))
        else:
            key.append((3, type(value).__name__, str(value)))
    return tuple(key)


def _cells_equal(gold: object, pred: object, rel_tol: float) -> bool:
    if gold is None or pred is None or isinstance(gold, bool) or isinstance(pred, bool):
        return type(gold) is type(pred) and gold == pred
    if isinstance(gold, int) and isinstance(pred, int):
        return gold == pred
    if isinstance(gold, int | float) and isinstance(pred, int | float):
        return math.isclose(gold, pred, rel_tol=rel_tol)
    if isinstance(gold, tuple) and isinstance(pred, tuple):
        return _rows_equal(gold, pred, rel_tol)
    return gold == pred


def _rows_equal(gold: tuple, pred: tuple, rel_tol: float) -> bool:
    return len(gold) == len(pred) and all(_cells_equal(g, p, rel_tol) for g, p in zip(gold, pred, strict=True))


class _BoolTag:
    """Stands for a boolean in an exact-match key: equal only to itself, so True never equals 1 (nor False 0)."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value


_BOOL_TAGS = {True: _BoolTag(True), False: _BoolTag(False)}


def _exact_key(row: tuple) -> tuple:
    """Key a row for exact matching; booleans are tagged so that True does not equal 1.

    The row's other values are kept as they are (no tuple per cell), which keeps large results small in memory.
    """
    return tuple(_BOOL_TAGS[value] if isinstance(value, bool) else value for value in row)


def _unkey(key: tuple) -> tuple:
    return tuple(value.value if isinstance(value, _BoolTag) else value for value in key)


def _multisets_match(gold: list[tuple], pred: list[tuple], rel_tol: float) -> bool:
    """Match two equally long row lists as multisets: exact pairs first, then sorted, then greedily if small."""
    left_gold, left_pred = Counter(map(_exact_key, gold)), Counter(map(_exact_key, pred))
    common = left_gold & left_pred
    gold_rest = sorted((_unkey(key) for key in (left_gold - common).elements()), key=_sort_key)
    pred_rest = sorted((_unkey(key) for key in (left_pred - common).elements()), key=_sort_key)
    if all(_rows_equal(g, p, rel_tol) for g, p in zip(gold_rest, pred_rest, strict=True)):
        return True
    if len(gold_rest) > _GREEDY_MAX_ROWS:
        return False
    for row in gold_rest:
        match = next((i for i, other in enumerate(pred_rest) if _rows_equal(row, other, rel_tol)), None)
        if match is None:
            return False
        pred_rest.pop(match)
    return True


def _matched_positions(gold_columns: pd.Index, pred_columns: pd.Index) -> list[int] | None:
    """Map each gold column to a predicted column position by label; the k-th repeat maps to the k-th repeat."""
    positions: dict[object, list[int]] = {}
    for position, label in enumerate(pred_columns):
        positions.setdefault(label, []).append(position)
    seen: Counter = Counter()
    matched = []
    for label in gold_columns:
        candidates = positions.get(label, [])
        if seen[label] >= len(candidates):
            return None
        matched.append(candidates[seen[label]])
        seen[label] += 1
    return matched


def normalized_rows(frame: pd.DataFrame) -> list[tuple]:
    """Return the rows of `frame` as tuples of comparable Python values (see `value_match`).

    Examples:
        >>> normalized_rows(pd.DataFrame({"oid": ["ZTF1"], "ndet": [3], "ra": [float("nan")]}))
        [('ZTF1', 3, None)]
    """
    return [tuple(_normalize(v) for v in row) for row in frame.itertuples(index=False, name=None)]


def value_match(
    gold_df: pd.DataFrame | None,
    pred_df: pd.DataFrame | None,
    gold_sql: str,
    rel_tol: float = 1e-6,
    *,
    gold_rows: list[tuple] | None = None,
) -> ValueScore:
    """Tell whether the prediction returns the gold rows, on every gold column.

    Gold columns are found in the prediction by label (the k-th repeat of a label matches the k-th repeat);
    extra predicted columns are ignored. Rows are compared as a multiset, in order only when the gold query has a
    top-level ORDER BY. Numbers match within ``rel_tol`` (integers against integers exactly), NULL matches NULL,
    and an empty gold result matches an empty prediction with the gold columns.

    Args:
        gold_df: The gold result, or None if the gold query failed.
        pred_df: The predicted result, or None if the predicted query failed.
        gold_sql: The gold SQL, read for a top-level ORDER BY.
        rel_tol: Relative tolerance for numbers.
        gold_rows: ``normalized_rows(gold_df)`` when the caller keeps it for several predictions; None computes it.

    Returns:
        The score and the first reason for a mismatch.

    Examples:
        >>> gold = pd.DataFrame({"oid": ["ZTF1", "ZTF2"], "ndet": [3, 4]})
        >>> pred = pd.DataFrame({"ra": [1.5, 2.5], "oid": ["ZTF2", "ZTF1"], "ndet": [4.0, 3.0]})
        >>> value_match(gold, pred, "SELECT oid, ndet FROM object").pm
        True
        >>> value_match(gold, pred, "SELECT oid, ndet FROM object ORDER BY ndet").comparison
        <ValueComparison.VALUES: 'values'>
    """
    if gold_df is None:
        return ValueScore(False, ValueComparison.GOLD_ERROR)
    if pred_df is None:
        return ValueScore(False, ValueComparison.PRED_ERROR)
    positions = _matched_positions(gold_df.columns, pred_df.columns)
    if positions is None:
        return ValueScore(False, ValueComparison.MISSING_COLUMNS)
    if len(gold_df) != len(pred_df):
        return ValueScore(False, ValueComparison.ROW_COUNT)
    gold_rows = normalized_rows(gold_df) if gold_rows is None else gold_rows
    pred_rows = normalized_rows(pred_df.iloc[:, positions])
    if has_top_level_order_by(gold_sql):
        matched = all(_rows_equal(g, p, rel_tol) for g, p in zip(gold_rows, pred_rows, strict=True))
    else:
        matched = _multisets_match(gold_rows, pred_rows, rel_tol)
    return ValueScore(matched, ValueComparison.OK if matched else ValueComparison.VALUES)
