"""Typed records of stage failures: a run never crashes on bad LM output, it records what went wrong."""

from dataclasses import asdict, dataclass
from enum import StrEnum

__all__ = ["FailureKind", "StageFailure"]


class FailureKind(StrEnum):
    """Why a stage produced no usable output."""

    PARSE = "parse"
    """The LM answer could not be parsed into the signature's fields."""
    EMPTY = "empty"
    """The answer parsed but held nothing usable (no valid table, no SQL, no steps)."""
    LM_ERROR = "lm_error"
    """The LM call itself failed (transport, context overflow, engine error)."""


@dataclass(frozen=True)
class StageFailure:
    """One failure of one stage; the run continued with the stage's fallback."""

    stage: str
    kind: FailureKind
    message: str

    def as_dict(self) -> dict[str, str]:
        """Return a JSON-ready dict {stage, kind, message}."""
        record = asdict(self)
        record["kind"] = self.kind.value
        return record
