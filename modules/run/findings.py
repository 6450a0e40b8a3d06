"""What a check found: a kind from a closed set and a message the self-correction prompt can quote."""

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Finding", "FindingKind", "finding_record"]


class FindingKind(StrEnum):
    """The problems the checks report."""

    UNKNOWN_VALUE = "unknown_value"
    """A literal compared with a categorical column is not one of the column's values."""
    EMPTY_RESULT = "empty_result"
    """The query returned no rows."""
    ROW_COUNT = "row_count"
    """The result has more rows than the number the question states."""
    MISSING_COLUMNS = "missing_columns"
    """Columns the question names explicitly are not in the result."""
    REPEATED_OBJECTS = "repeated_objects"
    """The question asks for objects and the same object appears in several rows."""
    COUNT_AS_ROWS = "count_as_rows"
    """The question asks for a count and the result has several rows."""


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One problem found by a check.

    Attributes:
        kind: What kind of problem.
        message: What is wrong and what to do, quoting the values.
        column: For ``unknown_value``: the column as ``table.column``.
        value: For ``unknown_value``: the literal as written.
        closest: For ``unknown_value``: the closest valid values, best first (may be empty).
    """

    kind: FindingKind
    message: str
    column: str | None = None
    value: str | None = None
    closest: tuple[str, ...] = ()


def finding_record(stage: str, finding: Finding, **extra: object) -> dict[str, object]:
    """Describe a finding for the prediction's ``findings``: its stage, kind and message, and `extra` fields."""
    return {"stage": stage, "kind": finding.kind.value, "message": finding.message, **extra}
