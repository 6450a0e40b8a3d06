"""The names a report uses: its files and the gold-error conventions (a leaf, read by the command line too)."""

__all__ = ["CONVENTIONS", "PLOT_FILE", "PREDICTIONS_FILE"]

CONVENTIONS = {"paper": True, "excluded": False}
"""Gold-error conventions: ``paper`` counts gold failures as zeros, ``excluded`` drops them (take_error_gold)."""
PLOT_FILE = "pm_by_difficulty.png"
PREDICTIONS_FILE = "predictions.jsonl"
"""Per-question program answers, in the report folder (a checkpoint: header line, then one answer per line)."""
