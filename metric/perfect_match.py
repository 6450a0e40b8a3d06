"""The reference Perfect-Match (PM) metric on result frames, plus our stricter value match.

Pure functions on ``pandas.DataFrame`` results: ``None`` stands for a failed execution (gold or prediction), a frame
with zero rows for an empty result. Row PM and the two column PMs reproduce REFERENCE_SYSTEM.md section (a), newer
version, including its artefacts; ``value_match`` is ours. ``score_frames`` computes all four for one item.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from catalog import load_catalog
from defaults.catalog import DEFAULT_CATALOG
from metric.select_list import parse_select_list
from metric.value_match import ValueScore, value_match

__all__ = [
    "IDS",
    "ColumnScore",
    "Comparison",
    "RowScore",
    "Scores",
    "column_match_formatted",
    "column_match_raw",
    "identifier_columns",
    "identifier_strings",
    "prediction_identifier",
    "row_match",
    "score_frames",
]

IDS = load_catalog("ztf").identifiers
"""Identifier columns compared by row PM on the ztf catalog, in priority order (the paper's list)."""


def identifier_columns(catalog: str = DEFAULT_CATALOG) -> tuple[str, ...]:
    """Return the identifier columns row PM compares on a catalog's results, in priority order.

    Examples:
        >>> identifier_columns("multisurvey")[:3]
        ('measurement_id', 'oid', 'ssobjectid')
    """
    return load_catalog(catalog).identifiers


class Comparison(StrEnum):
    """How an item was compared; every value except OK means PM 0 (or not comparable)."""

    OK = "ok"
    """Both results were compared."""
    GOLD_ERROR = "gold_error"
    """The gold query failed (its frame is None)."""
    EMPTY_GOLD = "empty_gold"
    """The gold query returned no rows; the reference raises, so the item scores 0."""
    PRED_ERROR = "pred_error"
    """The predicted query failed (its frame is None)."""
    EMPTY_PREDICTION = "empty_prediction"
    """The predicted query returned no rows."""
    ALIAS_CRASH = "alias_crash"
    """The reference's alias mapping crashed (no alias at all, or a ``*`` in the SELECT list)."""
    NO_IDENTIFIERS = "no_identifiers"
    """Gold or prediction has no identifier-like column."""


@dataclass(frozen=True)
class RowScore:
    """Row PM of one item: the identifier-set comparison."""

    pm: bool
    precision: float
    recall: float
    f1: float
    gold_id: str | None
    pred_id: str | None
    comparison: Comparison


@dataclass(frozen=True)
class ColumnScore:
    """Column PM of one item: gold column labels included in the predicted ones."""

    pm: bool
    comparison: Comparison


@dataclass(frozen=True)
class Scores:
    """All metrics of one item."""

    row: RowScore
    column_raw: ColumnScore
    column_formatted: ColumnScore
    value: ValueScore


def _zero(comparison: Comparison, gold_id: str | None = None, pred_id: str | None = None) -> RowScore:
    return RowScore(False, 0.0, 0.0, 0.0, gold_id, pred_id, comparison)


def _first_id(columns: pd.Index, ids: Sequence[str]) -> str | None:
    return next((name for name in ids if name in columns), None)


def _first_id_like(columns: pd.Index) -> str | None:
    return next((c for c in columns if "oid" in str(c).lower() or "id" in str(c).lower()), None)


def _is_unaliased(pairs: list[tuple[str, str]]) -> bool:
    """Tell whether a parsed SELECT list has no alias at all (the multiset of names equals that of sources)."""
    return Counter(name for name, _ in pairs) == Counter(source for _, source in pairs)


def _alias_id(pred_sql: str, columns: pd.Index, ids: Sequence[str]) -> str | None:
    """Find the predicted identifier through the SELECT list's aliases; raise ValueError where the reference crashes.

    The match is positional: the index of the first `ids` source in the SELECT list indexes the result's columns
    (after repeated labels were dropped, as in the reference).
    """
    pairs = parse_select_list(pred_sql)
    if _is_unaliased(pairs) or any(source == "*" for _, source in pairs):
        raise ValueError("alias mapping needs an aliased SELECT list without '*'")
    sources = [source.lower() for _, source in pairs]
    for name in ids:
        if name in sources:
            position = sources.index(name)
            if position >= len(columns):
                raise ValueError("SELECT list longer than the result")
            return columns[position]
    return None


def prediction_identifier(pred_df: pd.DataFrame, pred_sql: str, *, ids: Sequence[str] = IDS) -> str | None:
    """Return the column row PM would compare in a predicted result, without a gold: `ids`, aliases, then id-like.

    A SELECT list where the reference's alias mapping crashes falls through to the id-like rule here.

    Examples:
        >>> prediction_identifier(pd.DataFrame({"ztf_id": ["ZTF1"]}), "SELECT oid AS ztf_id FROM object")
        'ztf_id'
        >>> prediction_identifier(pd.DataFrame({"ndet": [3]}), "SELECT ndet FROM object") is None
        True
    """
    columns = pred_df.loc[:, ~pred_df.columns.duplicated()].columns
    found = _first_id(columns, ids)
    if found is None:
        try:
            found = _alias_id(pred_sql, columns, ids)
        except ValueError:
            found = None
    return found if found is not None else _first_id_like(columns)


def identifier_strings(values: pd.Series) -> set[str]:
    """Return the set of ``str(v)`` the reference compares, for values as its pandas frames held them.

    The reference built frames from driver tuples with older pandas: integers with NULLs became floats
    (``'2.434e+18'``, ``'nan'``), while text or other object columns kept ``None`` (``'None'``). Frames built by
    newer pandas store missing text as NaN and may use nullable integers; both are mapped back to those strings.
    Floats print as numpy does (``'0.1'`` for a ``float32`` 0.1, like the driver's text round trip).

    Examples:
        >>> sorted(identifier_strings(pd.Series([2434000000000000001, 7])))
        ['2434000000000000001', '7']
        >>> sorted(identifier_strings(pd.Series([2434000000000000001, None], dtype="Int64")))
        ['2.434e+18', 'nan']
        >>> sorted(identifier_strings(pd.Series(["ZTF1", None])))
        ['None', 'ZTF1']
        >>> sorted(identifier_strings(pd.Series([1.0, float("nan")])))
        ['1.0', 'nan']
    """
    if pd.api.types.is_integer_dtype(values.dtype) and values.isna().any():
        values = values.astype("float64")
    if pd.api.types.is_float_dtype(values.dtype):
        numpy_dtype = getattr(values.dtype, "numpy_dtype", values.dtype)
        return {str(v) for v in values.to_numpy(dtype=numpy_dtype, na_value=np.nan)}
    return {"None" if _is_missing(v) else str(v) for v in values}


def _is_missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _set_scores(gold: set[str], pred: set[str]) -> tuple[float, float, float]:
    tp, fp, fn = len(gold & pred), len(pred - gold), len(gold - pred)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def row_match(
    gold_df: pd.DataFrame | None, pred_df: pd.DataFrame | None, pred_sql: str, *, ids: Sequence[str] = IDS
) -> RowScore:
    """Compute the reference row PM: compare the sets of one identifier column.

    Args:
        gold_df: The gold result, or None if the gold query failed.
        pred_df: The predicted result, or None if the predicted query failed.
        pred_sql: The predicted SQL, read for alias mapping when the result has no `ids` column.
        ids: The identifier columns, in priority order (`identifier_columns` of the catalog; default ztf's).

    Returns:
        The score; ``pm`` is True iff both identifier sets are equal.

    Examples:
        >>> gold = pd.DataFrame({"oid": ["ZTF1", "ZTF2"], "ndet": [3, 4]})
        >>> row_match(gold, pd.DataFrame({"ztf_id": ["ZTF2", "ZTF1"]}), "SELECT oid AS ztf_id FROM object").pm
        True
        >>> row_match(gold, pd.DataFrame({"ndet": [3, 4]}), "SELECT ndet FROM object").comparison
        <Comparison.ALIAS_CRASH: 'alias_crash'>
    """
    if gold_df is None:
        return _zero(Comparison.GOLD_ERROR)
    if len(gold_df) == 0:
        return _zero(Comparison.EMPTY_GOLD)
    if pred_df is None:
        return _zero(Comparison.PRED_ERROR)
    if len(pred_df) == 0:
        return _zero(Comparison.EMPTY_PREDICTION)
    gold_df = gold_df.loc[:, ~gold_df.columns.duplicated()]
    pred_df = pred_df.loc[:, ~pred_df.columns.duplicated()]
    gold_id, pred_id = _first_id(gold_df.columns, ids), _first_id(pred_df.columns, ids)
    if pred_id is None:
        try:
            pred_id = _alias_id(pred_sql, pred_df.columns, ids)
        except ValueError:
            return _zero(Comparison.ALIAS_CRASH, gold_id)
    gold_id = gold_id if gold_id is not None else _first_id_like(gold_df.columns)
    pred_id = pred_id if pred_id is not None else _first_id_like(pred_df.columns)
    if gold_id is None or pred_id is None:
        return _zero(Comparison.NO_IDENTIFIERS, gold_id, pred_id)
    precision, recall, f1 = _set_scores(identifier_strings(gold_df[gold_id]), identifier_strings(pred_df[pred_id]))
    pm = precision == 1.0 and recall == 1.0
    return RowScore(pm, precision, recall, f1, gold_id, pred_id, Comparison.OK)


def column_match_raw(gold_df: pd.DataFrame | None, pred_df: pd.DataFrame | None) -> ColumnScore:
    """Compute the reference raw column PM: every gold column label is a predicted label.

    Examples:
        >>> gold = pd.DataFrame({"oid": ["ZTF1"], "ndet": [3]})
        >>> column_match_raw(gold, pd.DataFrame({"ndet": [], "oid": [], "ra": []})).pm
        True
    """
    if gold_df is None:
        return ColumnScore(False, Comparison.GOLD_ERROR)
    if len(gold_df) == 0:
        return ColumnScore(False, Comparison.EMPTY_GOLD)
    if pred_df is None:
        return ColumnScore(False, Comparison.PRED_ERROR)
    return ColumnScore(set(gold_df.columns) <= set(pred_df.columns), Comparison.OK)


def column_match_formatted(pred_sql: str, gold_df: pd.DataFrame | None, pred_df: pd.DataFrame | None) -> ColumnScore:
    """Compute the reference "formatted" column PM, which undoes the prediction's aliases (the paper's variant).

    A gold result with zero rows is compared normally here. When the SELECT list has no alias, a ``*``, or does not
    parse, the raw predicted labels are used; otherwise its source names, not lower-cased.

    Examples:
        >>> gold = pd.DataFrame({"oid": ["ZTF1"], "count": [3]})
        >>> pred = pd.DataFrame({"oid": ["ZTF1"], "n": [3]})
        >>> column_match_formatted("SELECT oid, COUNT(*) AS n FROM detection GROUP BY oid", gold, pred).pm
        False
        >>> column_match_formatted("SELECT oid, ndet AS count FROM object", gold, pred.rename(columns={"n": "count"}))
        ColumnScore(pm=False, comparison=<Comparison.OK: 'ok'>)
    """
    if gold_df is None:
        return ColumnScore(False, Comparison.GOLD_ERROR)
    if pred_df is None:
        return ColumnScore(False, Comparison.PRED_ERROR)
    pairs = parse_select_list(pred_sql)
    if _is_unaliased(pairs) or any(source == "*" for _, source in pairs):
        labels = set(pred_df.columns)
    else:
        labels = {source for _, source in pairs}
    return ColumnScore(set(gold_df.columns) <= labels, Comparison.OK)


def score_frames(
    gold_df: pd.DataFrame | None,
    gold_sql: str,
    pred_df: pd.DataFrame | None,
    pred_sql: str,
    *,
    gold_rows: list[tuple] | None = None,
    ids: Sequence[str] = IDS,
) -> Scores:
    """Score one prediction against its gold with every metric.

    Args:
        gold_df: The gold result, or None if the gold query failed.
        gold_sql: The gold SQL (its top-level ORDER BY makes the value match order-sensitive).
        pred_df: The predicted result, or None if the predicted query failed.
        pred_sql: The predicted SQL as executed.
        gold_rows: ``normalized_rows(gold_df)`` when the caller keeps it for several predictions; None computes it.
        ids: The identifier columns row PM compares (`identifier_columns` of the catalog; default ztf's).

    Returns:
        Row PM, raw and formatted column PM, and the value match.
    """
    return Scores(
        row=row_match(gold_df, pred_df, pred_sql, ids=ids),
        column_raw=column_match_raw(gold_df, pred_df),
        column_formatted=column_match_formatted(pred_sql, gold_df, pred_df),
        value=value_match(gold_df, pred_df, gold_sql, gold_rows=gold_rows),
    )
