"""A kept answer as a database row and back: its texts and record as JSON, its rows as Parquet within a byte budget."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
from typing import Any

import pandas as pd

from answering import Answer
from serve.store import Record

__all__ = ["ROW_FIELDS", "record_from_row", "record_json", "rows_parquet"]

logger = logging.getLogger(__name__)

_NOT_STORED = {"frame", "service_table", "engine", "targets"}
"""Answer fields that are not JSON: the rows go to Parquet, the service's table, the engine and the target list stay
in process."""
ROW_FIELDS = "record, rows"


def record_json(record: Record) -> str:
    """The record and its answer, without rows, as JSON."""
    answer = {
        field.name: getattr(record.answer, field.name)
        for field in dataclasses.fields(record.answer)
        if field.name not in _NOT_STORED
    }
    fields = {field.name: getattr(record, field.name) for field in dataclasses.fields(record) if field.name != "answer"}
    return json.dumps({**fields, "answer": answer, "answered": record.answer.frame is not None}, default=str)


def rows_parquet(frame: pd.DataFrame | None, max_bytes: int) -> bytes | None:
    """The rows as Parquet, or None when there are none, they do not fit in `max_bytes`, or Parquet cannot hold
    them (such rows are run again when the answer is shown)."""
    if frame is None:
        return None
    buffer = io.BytesIO()
    try:
        frame.to_parquet(buffer, index=False)
    except Exception as err:  # mixed or exotic column types: the rows are re-run on demand instead
        logger.debug("rows not stored as Parquet: %s", err)
        return None
    data = buffer.getvalue()
    return data if len(data) <= max_bytes else None


def record_from_row(row: tuple[Any, bytes | None], *, rerun: Any, engine: Any) -> Record:
    """Rebuild a record from ``(record, rows)``; rows not stored are fetched again with `rerun(answer)`
    (None when they cannot be)."""
    data, rows = row
    data = dict(data)
    answer_fields = data.pop("answer")
    answered = data.pop("answered")
    frame = pd.read_parquet(io.BytesIO(rows)) if rows is not None else None
    answer = Answer(**answer_fields, frame=frame, engine=engine)
    if frame is None and answered:
        answer = rerun(answer)
    return Record(**data, answer=answer)
