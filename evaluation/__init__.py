"""Score predicted SQL against the benchmark's gold queries and write reports."""

from evaluation.checkpoint import Checkpoint
from evaluation.errors import CheckpointMismatch, EvaluationError, PredictionsError
from evaluation.item_record import ItemRecord
from evaluation.predictions import Prediction, complete_predictions, read_predictions
from evaluation.report import build_report, render_table, write_report
from evaluation.runner import score_item, score_predictions

__all__ = [
    "Checkpoint",
    "CheckpointMismatch",
    "EvaluationError",
    "ItemRecord",
    "Prediction",
    "PredictionsError",
    "build_report",
    "complete_predictions",
    "read_predictions",
    "render_table",
    "score_item",
    "score_predictions",
    "write_report",
]
