"""Target lists: a table of positions or object ids the user uploads, queried by name beside the catalog's tables.

A target list is one named table (``mylist`` by default, the name ALeRCE's notebooks join as ``tap_upload.mylist``).
While `uploaded` holds it, every engine in the same context sends it with each statement: PostgreSQL gets it as a
``WITH mylist (...) AS (VALUES ...)`` put before the guarded statement (built here from checked values, so it lives
for that statement only and the transaction stays read-only), a TAP service as ``TAP_UPLOAD.mylist``. SQL may name
it ``mylist`` or ``tap_upload.mylist`` on either engine. Object ids go in a column named ``objectid``: DaCHS cannot
join an uploaded column named ``oid`` (PostgreSQL's system column), so an ``oid`` column is renamed.

Example:
    >>> targets = read_targets(b"ra,dec\\n10.5,-3.2\\n350.0,45.0\\n")
    >>> targets.columns, len(targets.rows)
    (('ra', 'dec'), 2)
    >>> from engines.guard import check_sql
    >>> with uploaded(targets):
    ...     attach_targets(check_sql(local_names("SELECT count(*) FROM tap_upload.mylist")))[:60]
    'WITH mylist ("ra", "dec") AS (VALUES (10.5::double precision'
"""

from __future__ import annotations

import contextlib
import contextvars
import csv
import io
import math
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_NAME",
    "MAX_TARGET_BYTES",
    "MAX_TARGET_ROWS",
    "BadTargets",
    "TargetList",
    "attach_targets",
    "current_targets",
    "local_names",
    "read_targets",
    "uploaded",
]

DEFAULT_NAME = "mylist"
MAX_TARGET_ROWS = 5_000
"""Most rows a target list may hold (a cone per row: more belongs in a batch job, not an interactive query)."""
MAX_TARGET_BYTES = 2_000_000
"""Largest target list file taken, in bytes."""
RA_NAMES = ("ra", "ra_deg", "raj2000", "ra_icrs", "meanra", "alpha")
DEC_NAMES = ("dec", "dec_deg", "dej2000", "decj2000", "de_icrs", "meandec", "delta")
ID_NAMES = ("objectid", "oid", "object_id", "id")
_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_LEADING_WITH = re.compile(r"with(?:\s+recursive)?\b", re.IGNORECASE)
_VOTABLE_START = (b"<?xml", b"<VOTABLE", b"\xef\xbb\xbf<?xml")
_TARGETS: contextvars.ContextVar[TargetList | None] = contextvars.ContextVar("alerce_targets", default=None)


class BadTargets(ValueError):
    """The target list cannot be used: its format, its size, its columns or a value."""


@dataclass(frozen=True)
class TargetList:
    """A checked target list.

    Attributes:
        name: The table's name in SQL (``mylist``).
        columns: Column names: lower case, ``oid`` renamed ``objectid``.
        types: PostgreSQL type per column: ``double precision``, ``bigint`` or ``text``.
        rows: The values, None for an empty cell.
        ra, dec: The position columns, or None when the list has object ids only.
        objectid: The object id column, or None.
    """

    name: str
    columns: tuple[str, ...]
    types: tuple[str, ...]
    rows: tuple[tuple[str | int | float | None, ...], ...]
    ra: str | None = None
    dec: str | None = None
    objectid: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The list as JSON values (a queued question carries it to the worker that answers it)."""
        return asdict(self)

    @classmethod
    def of_json(cls, data: dict[str, Any]) -> TargetList:
        """The list `to_json` gave, as it was.

        Examples:
            >>> targets = read_targets(b"objectid,ra,dec\\nZTF1,10.5,-3.2\\n")
            >>> TargetList.of_json(targets.to_json()) == targets
            True
        """
        fields = {**data, "columns": tuple(data["columns"]), "types": tuple(data["types"])}
        return cls(**fields | {"rows": tuple(tuple(row) for row in data["rows"])})

    def size_bytes(self) -> int:
        """Estimate the memory the rows hold (Python objects: a tuple per row, an object per cell)."""
        return sum(64 + sum(8 + (len(value) if isinstance(value, str) else 24) for value in row) for row in self.rows)

    def describe(self) -> str:
        """One line for the schema text: what the table holds and how to join or cross-match it."""
        uses = []
        if self.objectid:
            uses.append(f"join object ids with {self.name}.{self.objectid} = object.oid")
        if self.ra and self.dec:
            uses.append(
                f"cross-match positions with q3c_join({self.name}.{self.ra}, {self.name}.{self.dec}, object.meanra, "
                "object.meandec, radius_arcsec / 3600.0)"
            )
        count = len(self.rows)
        return f"The user's uploaded target list ({count:,} row{'' if count == 1 else 's'}); " + "; ".join(uses)


def read_targets(source: Any, *, name: str = DEFAULT_NAME) -> TargetList:
    """Read and check a target list: CSV or VOTable bytes, a path to one, an astropy Table or a pandas DataFrame.

    Raises:
        BadTargets: Not CSV or VOTable, over MAX_TARGET_BYTES or MAX_TARGET_ROWS, no position (ra and dec) or
            object id column, a bad column name, or an RA/Dec that is not a number in range.
    """
    if not _NAME.match(name):
        raise BadTargets(f"a target list name is a lower-case SQL name (letters, digits, _), not {name!r}")
    frame = _frame_of(source)
    if len(frame) > MAX_TARGET_ROWS:
        raise BadTargets(f"the target list has {len(frame)} rows; at most {MAX_TARGET_ROWS} are taken")
    if len(frame) == 0:
        raise BadTargets("the target list has no rows")
    columns = [_column_name(str(column)) for column in frame.columns]
    if len(set(columns)) != len(columns):
        raise BadTargets(f"the target list repeats a column name: {', '.join(columns)}")
    frame.columns = columns
    ra, dec = _first(columns, RA_NAMES), _first(columns, DEC_NAMES)
    objectid = _first(columns, ID_NAMES)
    if (ra is None or dec is None) and objectid is None:
        raise BadTargets(
            f"the target list has no position columns (ra, dec) and no object id column (objectid); "
            f"its columns are: {', '.join(columns)}"
        )
    if ra is None or dec is None:
        ra = dec = None
    types, values = [], []
    for column in columns:
        kind, cells = _typed(frame[column], column, position=column in (ra, dec))
        types.append(kind)
        values.append(cells)
    _check_range(ra, values[columns.index(ra)] if ra else [], 0.0, 360.0)
    _check_range(dec, values[columns.index(dec)] if dec else [], -90.0, 90.0)
    return TargetList(
        name=name,
        columns=tuple(columns),
        types=tuple(types),
        rows=tuple(zip(*values, strict=True)),
        ra=ra,
        dec=dec,
        objectid=objectid,
    )


@contextlib.contextmanager
def uploaded(targets: TargetList | None) -> Iterator[None]:
    """Send `targets` with every statement run in this context (and threads copying it); None sends nothing."""
    token = _TARGETS.set(targets)
    try:
        yield
    finally:
        _TARGETS.reset(token)


def current_targets() -> TargetList | None:
    """The target list `uploaded` holds in this context, or None."""
    return _TARGETS.get()


def local_names(sql: str) -> str:
    """Write ``tap_upload.<name>`` of the current target list as ``<name>``, so SQL written for TAP runs on
    PostgreSQL too (before the guard, which then checks the text that runs; unchanged without a list)."""
    targets = _TARGETS.get()
    if targets is None:
        return sql
    return re.sub(rf"(?i)\btap_upload\s*\.\s*({targets.name})\b", r"\1", sql)


def attach_targets(statement: str) -> str:
    """Put the current target list before a statement the guard accepted, as a literal table built from the
    checked values (unchanged without a list)."""
    targets = _TARGETS.get()
    if targets is None:
        return statement
    columns = ", ".join(f'"{column}"' for column in targets.columns)  # quoted: a column may be named like a keyword
    table = f"{targets.name} ({columns}) AS (VALUES {_values(targets)})"
    first = _leading_with(statement)
    if first is None:
        return f"WITH {table} {statement}"
    return f"{statement[:first]} {table},{statement[first:]}"


def _leading_with(statement: str) -> int | None:
    """End of the statement's leading ``WITH`` (or ``WITH RECURSIVE``), or None when it has none.

    The guard returns the statement from its first token on, so a leading WITH is at position 0.
    """
    found = _LEADING_WITH.match(statement)
    return found.end() if found else None


def _values(targets: TargetList) -> str:
    rows = []
    for number, row in enumerate(targets.rows):
        cells = [_literal(value) for value in row]
        if number == 0:  # the first row's casts type the columns of every row
            cells = [f"{cell}::{kind}" for cell, kind in zip(cells, targets.types, strict=True)]
        rows.append(f"({', '.join(cells)})")
    return ", ".join(rows)


def _literal(value: str | int | float | None) -> str:
    """A PostgreSQL literal; text as an escape string, read the same whatever standard_conforming_strings says."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
    return repr(value)


def _frame_of(source: Any) -> Any:
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        return source.reset_index(drop=True).copy()
    if hasattr(source, "to_pandas") and hasattr(source, "colnames"):  # an astropy Table
        return _frame_of(source.to_pandas(index=False))
    if isinstance(source, str | Path):
        path = Path(source)
        try:
            size = path.stat().st_size
            if size > MAX_TARGET_BYTES:
                raise BadTargets(f"{path.name} has {size} bytes; a target list has at most {MAX_TARGET_BYTES}")
            source = path.read_bytes()
        except OSError as err:
            raise BadTargets(f"cannot read the target list {path}: {err.strerror or err}") from err
    if not isinstance(source, bytes):
        raise BadTargets(f"a target list is a CSV or VOTable file, bytes, a Table or a DataFrame, not {type(source)}")
    if len(source) > MAX_TARGET_BYTES:
        raise BadTargets(f"the target list has {len(source)} bytes; at most {MAX_TARGET_BYTES} are taken")
    if source.lstrip().startswith(_VOTABLE_START):
        return _votable_frame(source)
    return _csv_frame(source)


def _votable_frame(data: bytes) -> Any:
    import warnings

    from astropy.io.votable import parse_single_table

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = parse_single_table(io.BytesIO(data)).to_table()
    except Exception as err:  # astropy raises many kinds for a broken file; all mean the same to the user
        raise BadTargets(f"the target list is not a readable VOTable: {str(err).splitlines()[0][:200]}") from err
    return table.to_pandas(index=False)


def _csv_frame(data: bytes) -> Any:
    import pandas as pd

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise BadTargets("the target list is neither CSV nor VOTable (it is not text)") from err
    if "\x00" in text or not text.strip():
        raise BadTargets("the target list is neither CSV nor VOTable (it is empty or binary)")
    header = text.lstrip().splitlines()[0]
    separator = next((mark for mark in (",", "\t", ";", "|") if mark in header), ",")
    try:
        return pd.read_csv(io.StringIO(text), sep=separator, dtype=str, keep_default_na=False, skipinitialspace=True)
    except (pd.errors.ParserError, csv.Error) as err:
        raise BadTargets(f"the target list is not a readable CSV: {str(err).splitlines()[0][:200]}") from err


def _column_name(name: str) -> str:
    cleaned = name.strip().strip('"').lower()
    if cleaned == "oid":
        return "objectid"
    if not _NAME.match(cleaned):
        raise BadTargets(f"column {name!r} of the target list is not an SQL name (letters, digits, _)")
    return cleaned


def _first(columns: list[str], names: tuple[str, ...]) -> str | None:
    return next((name for name in names if name in columns), None)


def _typed(series: Any, column: str, *, position: bool) -> tuple[str, list[str | int | float | None]]:
    """PostgreSQL type and values of one column: numbers when every filled cell is one, else text."""
    cells = [None if _is_empty(value) else value for value in series.tolist()]
    filled = [value for value in cells if value is not None]
    numbers = [_number(value) for value in filled]
    if position and (not filled or any(number is None for number in numbers)):
        bad = next((value for value, number in zip(filled, numbers, strict=True) if number is None), "an empty cell")
        raise BadTargets(f"column {column} of the target list holds {str(bad)[:40]!r}, not a number in degrees")
    if filled and all(number is not None for number in numbers):
        if not position and all(isinstance(number, int) for number in numbers):
            return "bigint", [None if value is None else _number(value) for value in cells]
        return "double precision", [None if value is None else float(_number(value)) for value in cells]
    return "text", [None if value is None else str(value) for value in cells]


def _is_empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return isinstance(value, str) and not value.strip()


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    text = str(value).strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _check_range(column: str | None, values: list, low: float, high: float) -> None:
    for value in values:
        if value is None:
            raise BadTargets(f"column {column} of the target list has an empty cell; every row needs a position")
        if not low <= value <= high:
            raise BadTargets(f"column {column} of the target list holds {value:g}, outside [{low:g}, {high:g}] degrees")
