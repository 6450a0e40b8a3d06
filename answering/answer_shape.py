"""The public shape of an answer, declared once: ``ask --format json`` writes ``AnswerJson``; the HTTP API's
``AnswerOut`` and the MCP tools' replies add their own keys to ``AnswerFields``."""

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["AnswerFields", "AnswerJson"]


class AnswerFields(BaseModel):
    """What every JSON form of an answer holds: the SQL, the rows and how they were written."""

    question: str
    follows: str | None = Field(description="the earlier question this one followed up, else null")
    sql: str
    adql: str = Field(description="the ADQL sent to a TAP service, else empty")
    catalog: str = Field(description="the catalog the SQL was written for")
    as_of: str | None = Field(description="reference date of the date stage (YYYY-MM-DD), null when it is off")
    dates: list[dict[str, Any]] = Field(
        description="the question's dates as MJD ranges start_mjd <= mjd < end_mjd (null: open), with their text"
    )
    explanation: dict[str, Any] | None = Field(
        description="what the SQL returns: summary, conditions, ordering, assumptions; null when there is none"
    )
    alternatives: list[dict[str, Any]] = Field(
        description="other readings when the candidates disagreed: sql, rows, difference (one line), candidates"
    )
    difficulty: str | None
    plan: list[str]
    attempts: list[dict[str, Any]]
    columns: list[str]
    fields: list[dict[str, Any]] = Field(
        description="per column: name, datatype, unit, ucd (IVOA UCD1+), description; null for a computed column"
    )
    rows: list[list[Any]]
    row_count: int = Field(description="rows fetched (the response may carry fewer)")
    truncated: bool = Field(description="rows were left out: by the engine's cap, or by the response's rows or bytes")
    error: str | None
    error_kind: str | None
    notice: str | None = Field(description="one line about who wrote the SQL when it was a small demo model")


class AnswerJson(AnswerFields):
    """An answer as ``ask --format json`` writes it: with its LM usage and its candidates' trail (``Answer``)."""

    usage: dict[str, dict[str, int]]
    candidates: list[dict[str, Any]]
    selection: dict[str, Any] | None
    findings: list[dict[str, Any]]
