"""Exceptions raised by the modules package, under one root `PipelineError`."""

__all__ = [
    "RECOMPILE_HINT",
    "ArtifactMismatch",
    "ArtifactNotFound",
    "ArtifactRefused",
    "CatalogMismatch",
    "PipelineError",
    "UnknownStageError",
]

RECOMPILE_HINT = "recompile with python -m compile --model {model}"


class PipelineError(Exception):
    """Root of every exception raised by the modules package."""


class UnknownStageError(PipelineError, ValueError):
    """A stage switch names a stage that does not exist."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(f"Unknown stage {name!r}; choose from {', '.join(known)}.")
        self.name = name


class ArtifactNotFound(PipelineError):
    """No artifact at the given path.

    Attributes:
        path: The path that was looked at.
    """

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


class ArtifactMismatch(PipelineError):
    """A saved artifact does not fit the program it should load into.

    Attributes:
        path: The artifact's program.json.
        differences: One "what: saved vs. current" phrase per mismatch.
    """

    def __init__(self, message: str, path: str, differences: list[str]) -> None:
        super().__init__(message)
        self.path = path
        self.differences = differences


class ArtifactRefused(PipelineError):
    """A saved artifact holds a field loading may not take (an LM, its options, an unknown key, a wrong shape).

    Attributes:
        path: The artifact's program.json.
        field: The refused field, as a dotted path.
    """

    def __init__(self, message: str, path: str, field: str) -> None:
        super().__init__(message)
        self.path = path
        self.field = field


class CatalogMismatch(PipelineError, ValueError):
    """A program written for one catalog was given an engine, or an artifact, of another.

    Attributes:
        program: The catalog the program writes SQL for.
        other: The catalog of the engine or artifact it was given.
    """

    def __init__(self, message: str, program: str, other: str) -> None:
        super().__init__(message)
        self.program = program
        self.other = other
