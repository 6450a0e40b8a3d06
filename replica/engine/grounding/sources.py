"""Read gold queries to ground on: benchmark CSVs, any CSV with a query column, or plain SQL files.

Example:
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "mine.sql"
    >>> _ = path.write_text("SELECT oid FROM object WHERE ndet > 5;\\nSELECT 1;")
    >>> read_queries([path])
    ['SELECT oid FROM object WHERE ndet > 5', 'SELECT 1']
"""

import csv
import hashlib
from pathlib import Path

import sqlglot
from sqlglot.errors import SqlglotError

from engines.errors import EngineError

__all__ = ["GroundingError", "grounding_digest", "read_queries"]

QUERY_COLUMNS = ("gold_query", "sql", "query", "gold_sql")
"""CSV columns holding the SQL, in the order they are looked for."""


class GroundingError(EngineError):
    """A file to ground on cannot be read."""


def read_queries(paths: list[Path]) -> list[str]:
    """Return the SQL statements of the files, in file order.

    A ``.csv`` file must have one of the QUERY_COLUMNS; any other file is SQL text with statements separated by ``;``.

    Raises:
        GroundingError: A file is missing, unreadable, or a CSV without a query column.
    """
    out: list[str] = []
    for path in paths:
        path = Path(path).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise GroundingError(f"Cannot read queries to ground on from '{path}': {err}.") from err
        out.extend(_csv_queries(path, text) if path.suffix.lower() == ".csv" else _sql_queries(text))
    return [q for q in out if q]


def _csv_queries(path: Path, text: str) -> list[str]:
    reader = csv.DictReader(text.splitlines(keepends=True))
    column = next((c for c in QUERY_COLUMNS if c in (reader.fieldnames or [])), None)
    if column is None:
        raise GroundingError(
            f"'{path}' has no query column; name one of: {', '.join(QUERY_COLUMNS)} (found: "
            f"{', '.join(reader.fieldnames or []) or 'no header'})."
        )
    return [(row.get(column) or "").strip().rstrip(";").strip() for row in reader]


def _sql_queries(text: str) -> list[str]:
    try:
        statements = sqlglot.parse(text, read="postgres")
    except SqlglotError:
        return [part.strip() for part in text.split(";") if part.strip()]
    return [s.sql(dialect="postgres", comments=False) for s in statements if s is not None]


def grounding_digest(queries: list[str]) -> str:
    """Fingerprint of a grounded set (order and duplicates ignored), stored with the build."""
    joined = "".join(f"{query}\x00" for query in sorted(set(queries)))
    return hashlib.sha256(joined.encode()).hexdigest()[:16]
