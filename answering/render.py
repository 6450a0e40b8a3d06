"""Render an ``Answer`` for the terminal: an aligned table, CSV, or one JSON object."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

import pandas as pd

from answering.cells import csv_safe, plain_value
from answering.votable import write_votable
from modules.dates.calendar import iso_text
from modules.explanation import render_explanation

if TYPE_CHECKING:
    from answering.answer import Answer

__all__ = [
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


def render_votable(answer: Answer) -> str:
    """Render the rows as a VOTable document (``Answer.table``: catalog units and descriptions, NULLs masked)."""
    buffer = io.BytesIO()
    write_votable(answer.table, buffer)
    return buffer.getvalue().decode()


def answer_json(answer: Answer, *, limit: int | None = None) -> dict[str, Any]:
    """Return the answer as one JSON-ready object.

    Keys: question, follows (the earlier question of a follow-up, else null), sql, adql (TAP only, else ""),
    catalog, as_of, dates, explanation, alternatives, difficulty, plan, attempts, columns, fields (one {name,
    datatype, unit, ucd, description} per column, null where a column is computed), rows (lists in column order),
    truncated (rows were left out, by the engine or by ``limit``), row_count (rows fetched), usage, candidates,
    selection, findings, error, error_kind, notice (who wrote the SQL, for a small demo model).
    """
    frame = answer.frame
    rows = _rows(frame, limit) if frame is not None else []
    return {
        "question": answer.question,
        "follows": answer.follows,
        "sql": answer.sql,
        "adql": answer.adql,
        "catalog": answer.catalog,
        "as_of": answer.as_of,
        "dates": answer.dates,
        "explanation": answer.explanation,
        "alternatives": answer.alternatives,
        "difficulty": answer.difficulty,
        "plan": answer.plan,
        "attempts": answer.attempts,
        "columns": [str(label) for label in frame.columns] if frame is not None else [],
        "fields": [info.to_json() for info in answer.columns] if frame is not None else [],
        "rows": rows,
        "truncated": answer.truncated or (frame is not None and len(rows) < len(frame)),
        "row_count": len(frame) if frame is not None else 0,
        "usage": answer.usage,
        "candidates": answer.candidates,
        "selection": answer.selection,
        "findings": answer.findings,
        "error": answer.error,
        "error_kind": answer.error_kind,
        "notice": answer.notice,
    }


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
