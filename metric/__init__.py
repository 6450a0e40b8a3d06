"""The paper's Perfect-Match metric on result frames, the DSPy metric around it, and the gold-result cache."""

from metric.aggregate import ScoredItem, aggregate
from metric.perfect_match import (
    IDS,
    ColumnScore,
    Comparison,
    RowScore,
    Scores,
    column_match_formatted,
    column_match_raw,
    identifier_columns,
    identifier_strings,
    row_match,
    score_frames,
)
from metric.select_list import has_top_level_order_by, parse_select_list
from metric.value_match import ValueComparison, ValueScore, value_match

__all__ = [
    "IDS",
    "ColumnScore",
    "Comparison",
    "RowScore",
    "ScoredItem",
    "Scores",
    "ValueComparison",
    "ValueScore",
    "aggregate",
    "column_match_formatted",
    "column_match_raw",
    "has_top_level_order_by",
    "identifier_columns",
    "identifier_strings",
    "parse_select_list",
    "row_match",
    "score_frames",
    "value_match",
]
