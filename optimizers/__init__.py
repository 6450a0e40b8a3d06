"""The metric, the compile strategies (optimizers) and the artifacts of the ALeRCE text-to-SQL program."""

from optimizers.aggregate import ScoredItem, aggregate
from optimizers.metric import (
    IDS,
    ColumnScore,
    Comparison,
    RowScore,
    Scores,
    column_match_formatted,
    column_match_raw,
    identifier_strings,
    row_match,
    score_frames,
)
from optimizers.select_list import has_top_level_order_by, parse_select_list
from optimizers.value_match import ValueComparison, ValueScore, value_match

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
    "identifier_strings",
    "parse_select_list",
    "row_match",
    "score_frames",
    "value_match",
]
