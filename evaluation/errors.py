"""Errors raised by the evaluation package: one root, EvaluationError."""

__all__ = ["CheckpointMismatch", "EvaluationError", "PredictionsError", "ReportNotWritten"]


class EvaluationError(Exception):
    """Root of the evaluation package's errors."""


class PredictionsError(EvaluationError):
    """A predictions file is missing, malformed, or does not fit the dataset.

    Attributes:
        path: The predictions file.
    """

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


class CheckpointMismatch(EvaluationError):
    """A report folder holds a checkpoint made with other settings (database, dataset or timeouts).

    Attributes:
        path: The checkpoint file.
        differences: Names of the settings that differ.
    """

    def __init__(self, message: str, path: str, differences: tuple[str, ...]) -> None:
        super().__init__(message)
        self.path = path
        self.differences = differences


class ReportNotWritten(EvaluationError):
    """A report, checkpoint or predictions file could not be written (disk full, read-only, not a folder).

    Attributes:
        path: The file or folder that could not be written.
    """

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path
