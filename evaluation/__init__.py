"""Score predicted SQL against the benchmark's gold queries and write reports."""

from cli.lazy_exports import lazy_exports

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

# Imported on first use: a command's --help must not wait for the program (benchmarks/startup.py).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Checkpoint": "evaluation.checkpoint",
        "CheckpointMismatch": "evaluation.errors",
        "EvaluationError": "evaluation.errors",
        "PredictionsError": "evaluation.errors",
        "ItemRecord": "evaluation.item_record",
        "Prediction": "evaluation.predictions",
        "complete_predictions": "evaluation.predictions",
        "read_predictions": "evaluation.predictions",
        "build_report": "evaluation.report",
        "render_table": "evaluation.report",
        "write_report": "evaluation.report",
        "score_item": "evaluation.runner",
        "score_predictions": "evaluation.runner",
    },
)
