"""Render an ``Answer`` for the terminal (an aligned table, CSV) or as one JSON object, of the shape declared here."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

import pandas as pd
from pydantic import BaseModel, Field

from answering.cells import csv_safe, plain_value
from answering.votable import write_votable
from modules.dates.calendar import iso_text
from modules.explanation import render_explanation

if TYPE_CHECKING:
    from answering.answer import Answer

__all__ = [
    "AnswerFields",
    "AnswerJson",
    "answer_json",
    "describe_range",
    "render_alternatives",
    "render_attempts",
    "render_csv",
    "render_dates",
    "render_explanation_of",
    "render_plan",
    "render_table",
    "render_votable",
]

NULL_TEXT = "NULL"
"""How the table shows a NULL."""


def _rows(frame: pd.DataFrame, limit: int | None) -> list[list[Any]]:
    shown = frame if limit is None else frame.head(limit)
    return [[plain_value(value) for value in row] for row in shown.itertuples(index=False, name=None)]


def _is_numeric(values: list[Any]) -> bool:
    present = [value for value in values if value is not None]
    return bool(present) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)


def _cell(value: Any) -> str:
    if value is None:
        return NULL_TEXT
    if isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    return str(value).replace("\n", " ")


def render_table(frame: pd.DataFrame, *, truncated: bool = False, limit: int | None = None) -> str:
    """Render rows as an aligned text table with a row-count footer, like psql.

    Args:
        frame: The rows (column labels may repeat).
        truncated: The executor kept only the first rows of a longer result.
        limit: Rows to show (None: all).

    Returns:
        The table text, ending with a newline.

    Examples:
        >>> print(render_table(pd.DataFrame({"oid": ["ZTF1", "ZTF22"], "ndet": [3, 12]})), end="")
         oid   | ndet
        -------+------
         ZTF1  |    3
         ZTF22 |   12
        (2 rows)
    """
    rows = _rows(frame, limit)
    labels = [str(label) for label in frame.columns]
    columns = [[row[index] for row in rows] for index in range(len(labels))]
    cells = [[_cell(value) for value in column] for column in columns]
    widths = [max([len(label), *map(len, texts)]) for label, texts in zip(labels, cells, strict=True)]
    numeric = [_is_numeric(column) for column in columns]
    header = " | ".join(label.ljust(width) for label, width in zip(labels, widths, strict=True))
    lines = [f" {header}".rstrip(), "-" + "-+-".join("-" * width for width in widths) + "-"]
    for index in range(len(rows)):
        texts = [
            cells[col][index].rjust(widths[col]) if numeric[col] else cells[col][index].ljust(widths[col])
            for col in range(len(labels))
        ]
        lines.append((" " + " | ".join(texts)).rstrip())
    lines.append(_footer(len(rows), len(frame), truncated))
    return "\n".join(lines) + "\n"


def _footer(shown: int, total: int, truncated: bool) -> str:
    total_text = f"{total:,}+" if truncated else f"{total:,}"
    if shown < total:
        return f"({shown:,} of {total_text} rows shown; raise --limit to see more)"
    if truncated:
        return f"({total_text} rows; only the first {total:,} were fetched)"
    return "(1 row)" if total == 1 else f"({total:,} rows)"


def render_csv(frame: pd.DataFrame, *, limit: int | None = None) -> str:
    """Render rows as CSV with a header line; NULL is an empty field.

    Text (labels too) that a spreadsheet would run as a formula gets a leading ``'`` (``cells.csv_safe``).
    """
    shown = frame if limit is None else frame.head(limit)
    if len(shown.columns):
        safe = [values.map(csv_safe) if _holds_text(values) else values for _, values in shown.items()]
        shown = pd.concat(safe, axis=1, ignore_index=True).set_axis([csv_safe(str(c)) for c in shown.columns], axis=1)
    # Python's csv quotes a field only for the characters of its line terminator: with "\n" alone, a "\r" in a
    # value would end the row for a spreadsheet, and what follows would be a new, unneutralised cell.
    carriage_return = any("\r" in str(label) for label in shown.columns) or any(
        values.astype(str).str.contains("\r", regex=False).any() for _, values in shown.items() if _holds_text(values)
    )
    buffer = io.StringIO()
    shown.to_csv(buffer, index=False, lineterminator="\r\n" if carriage_return else "\n")
    return buffer.getvalue()


def _holds_text(values: pd.Series) -> bool:
    return values.dtype == object or pd.api.types.is_string_dtype(values.dtype)


class AnswerFields(BaseModel):
    """What every JSON form of an answer holds (the HTTP API's ``AnswerOut`` and the MCP replies add their keys)."""

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


def render_votable(answer: Answer) -> str:
    """Render the rows as a VOTable document (``Answer.table``: catalog units and descriptions, NULLs masked)."""
    buffer = io.BytesIO()
    write_votable(answer.table, buffer)
    return buffer.getvalue().decode()


def answer_json(answer: Answer, *, limit: int | None = None) -> dict[str, Any]:
    """Return the answer as one JSON-ready ``AnswerJson`` (``truncated`` also when `limit` left rows out)."""
    frame = answer.frame
    rows = _rows(frame, limit) if frame is not None else []
    computed = {
        "columns": [str(label) for label in frame.columns] if frame is not None else [],
        "fields": [info.to_json() for info in answer.columns] if frame is not None else [],
        "rows": rows,
        "row_count": len(frame) if frame is not None else 0,
        "truncated": answer.truncated or (frame is not None and len(rows) < len(frame)),
    }
    return {name: computed[name] if name in computed else getattr(answer, name) for name in AnswerJson.model_fields}


def render_plan(answer: Answer) -> str:
    """Render the difficulty and the decomposition plan as indented text."""
    lines = [f"difficulty: {answer.difficulty or 'unknown'}", "plan:" if answer.plan else "plan: (none)"]
    lines += [f"  {number}. {step}" for number, step in enumerate(answer.plan, start=1)]
    return "\n".join(lines) + "\n"


def render_attempts(answer: Answer) -> str:
    """Render every execution attempt: its outcome, then its SQL indented."""
    lines = ["attempts:" if answer.attempts else "attempts: (none; no SQL was run)"]
    for number, attempt in enumerate(answer.attempts, start=1):
        outcome = f"{attempt['error_kind']}: {attempt['message']}" if attempt["error_kind"] else "ok"
        lines.append(f"  {number}. {outcome}")
        lines += [f"     {line}" for line in str(attempt["sql"]).splitlines()]
    return "\n".join(lines) + "\n"


def _mjd(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".")


def describe_range(date_range: dict[str, Any]) -> str:
    """Describe one of ``Answer.dates`` as its text, its MJD interval and its UTC dates.

    Examples:
        >>> describe_range({"text": "September 2023", "start_mjd": 60188.0, "end_mjd": 60218.0})
        'September 2023: 60188 ≤ mjd < 60218 (2023-09-01 to 2023-10-01 UTC)'
        >>> describe_range({"text": "since 2023", "start_mjd": 59945.0, "end_mjd": None})
        'since 2023: mjd ≥ 59945 (from 2023-01-01 UTC)'
    """
    start, end = date_range["start_mjd"], date_range["end_mjd"]
    if start is not None and start == end:
        interval = f"mjd = {_mjd(start)} ({iso_text(start)} UTC)"
    elif end is None:
        interval = f"mjd ≥ {_mjd(start)} (from {iso_text(start)} UTC)"
    elif start is None:
        interval = f"mjd < {_mjd(end)} (before {iso_text(end)} UTC)"
    else:
        interval = f"{_mjd(start)} ≤ mjd < {_mjd(end)} ({iso_text(start)} to {iso_text(end)} UTC)"
    return f"{date_range['text']}: {interval}"


def render_dates(answer: Answer) -> str:
    """Render the date stage's ranges, with the reference date, as indented text."""
    if answer.as_of is None:
        return "dates: (the date stage is off)\n"
    if not answer.dates:
        return f"dates: (none in the question; as of {answer.as_of})\n"
    lines = [f"dates (as of {answer.as_of}):", *(f"  {describe_range(item)}" for item in answer.dates)]
    return "\n".join(lines) + "\n"


def render_explanation_of(answer: Answer) -> str:
    """Render what the final SQL returns and its assumptions, as indented text."""
    if answer.explanation is None:
        return "explanation: (none; the stage is off, failed, or the SQL did not run)\n"
    lines = ["explanation:", *(f"  {line}" for line in render_explanation(answer.explanation).splitlines())]
    return "\n".join(lines) + "\n"


def render_alternatives(answer: Answer) -> str:
    """Render the runner-up interpretations: how each differs, its row count, then its SQL indented."""
    if not answer.alternatives:
        return "alternatives: (none; the candidates agreed, or there was one)\n"
    lines = ["alternatives (the candidates disagreed):"]
    for number, alternative in enumerate(answer.alternatives, start=1):
        lines.append(f"  {number}. {alternative['difference']} ({alternative['rows']:,} rows)")
        lines += [f"     {line}" for line in str(alternative["sql"]).splitlines()]
    return "\n".join(lines) + "\n"
