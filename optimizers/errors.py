"""Exceptions raised while compiling, saving and loading programs, under one root ``OptimizerError``."""

__all__ = ["ArtifactMismatch", "ArtifactNotFound", "CompileError", "OptimizerError"]

RECOMPILE_HINT = "recompile with python -m compile --model {model}"


class OptimizerError(Exception):
    """Root of every exception raised by the optimizers package."""


class ArtifactNotFound(OptimizerError):  # noqa: N818 - named after the problem, like data.errors.DatasetNotFound
    """No artifact at the given path.

    Attributes:
        path: The path that was looked at.
    """

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


class ArtifactMismatch(OptimizerError):  # noqa: N818
    """A saved artifact does not fit the program it should load into.

    Attributes:
        path: The artifact's program.json.
        differences: One "what: saved vs. current" phrase per mismatch.
    """

    def __init__(self, message: str, path: str, differences: list[str]) -> None:
        super().__init__(message)
        self.path = path
        self.differences = differences


class CompileError(OptimizerError):
    """A compile could not run or could not be saved (bad settings, unwritable output, missing optional package)."""
