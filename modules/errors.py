"""Exceptions raised by the modules package, under one root `PipelineError`."""

__all__ = ["PipelineError", "UnknownStageError"]


class PipelineError(Exception):
    """Root of every exception raised by the modules package."""


class UnknownStageError(PipelineError, ValueError):
    """A stage switch names a stage that does not exist."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(f"Unknown stage {name!r}; choose from {', '.join(known)}.")
        self.name = name
