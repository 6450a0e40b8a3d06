"""The catalog's constraints on grounded rows: column types, NOT NULL, primary keys and foreign keys.

A value a gold query asks for is written only if its column can hold it, and the rows of all grounded entities
together are made to satisfy every key of the schema, whatever the worlds of the queries ask.

Example:
    >>> fitting("reference", "nframesref", 36.0, "ztf")
    36
    >>> fitting("reference", "rfid", None, "ztf") is ..., fitting("object", "corrected", "maybe", "ztf") is ...
    (True, True)
    >>> fitting("forced_photometry", "mag", "NaN", "ztf")
    nan
    >>> primary_key("non_detection", "ztf")
    ('oid', 'fid', 'mjd')
    >>> catalog_column("lc_classifier", "probability", "ztf").domain
    (0.0, 1.0, 0.02, 0.1)
"""

import functools
import logging
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from catalog import Column, ForeignKey, Table, load_catalog

__all__ = ["catalog_column", "conform", "fitting", "foreign_keys", "is_integer", "primary_key", "referencing"]

logger = logging.getLogger(__name__)

_WHOLE_LIMITS = {"smallint": 2**15, "integer": 2**31, "bigint": 2**63}
_REAL_TYPES = ("real", "double precision")
_TEXT_TYPES = ("varchar", "text")
_TRUTH = {"t": True, "true": True, "y": True, "yes": True, "on": True, "1": True}
_TRUTH |= {"f": False, "false": False, "n": False, "no": False, "off": False, "0": False}
"""Text PostgreSQL reads as a boolean."""


@functools.cache
def _tables(catalog: str) -> dict[str, Table]:
    """Catalog tables (and partitions) by name, parents before the tables that reference them (catalog order)."""
    return {table.name: table for table in load_catalog(catalog).tables}


def catalog_column(table: str, column: str, catalog: str) -> Column | None:
    """The catalog's description of a table's column (a partition's are its parent's), or None."""
    found = _tables(catalog).get(table)
    return found.column(column) if found is not None else None


def is_integer(table: str, column: str, catalog: str) -> bool:
    """Whether the catalog types the column as a whole number."""
    found = catalog_column(table, column, catalog)
    return found is not None and found.sql_type in _WHOLE_LIMITS


def primary_key(table: str, catalog: str) -> tuple[str, ...]:
    """The primary-key columns of ``table`` (none for a table outside the catalog)."""
    found = _tables(catalog).get(table)
    return tuple(found.primary_key) if found is not None else ()


def foreign_keys(table: str, catalog: str) -> list[ForeignKey]:
    """The foreign keys of ``table`` (none for a table outside the catalog)."""
    found = _tables(catalog).get(table)
    return list(found.foreign_keys) if found is not None else []


def referencing(table: str, catalog: str) -> list[tuple[str, ForeignKey]]:
    """(child table, foreign key) for every foreign key that points at ``table``."""
    return [
        (child.name, fk) for child in _tables(catalog).values() for fk in child.foreign_keys if fk.ref_table == table
    ]


def fitting(table: str, column: str, value, catalog: str):
    """``value`` as ``table.column`` holds it, or ``...`` when the column cannot hold it.

    A column cannot hold NULL (None, NaN) when it is NOT NULL, text that PostgreSQL does not read as its type, a
    number when it holds text, or a fraction or an out-of-range number when it holds whole numbers. Columns of
    other types (dates, arrays) take the value as it is.
    """
    found = catalog_column(table, column, catalog)
    if found is None:
        return ...
    if value is not None:
        value = _converted(found.sql_type, value)
    if value is ...:
        return ...
    is_null = value is None or (isinstance(value, float) and math.isnan(value))
    return ... if is_null and not found.nullable else value


def _converted(sql_type: str, value):
    if sql_type == "boolean":
        return value if isinstance(value, bool) else _TRUTH.get(str(value).strip().lower(), ...)
    if sql_type in _TEXT_TYPES:
        return value if isinstance(value, str) else ...
    if sql_type not in (*_REAL_TYPES, *_WHOLE_LIMITS):
        return value
    if isinstance(value, bool):
        return ...
    try:
        number = float(value)
    except (TypeError, ValueError):
        return ...
    if sql_type in _REAL_TYPES:
        return number
    if not number.is_integer() or abs(number) >= _WHOLE_LIMITS[sql_type]:
        return ...
    return int(value) if isinstance(value, int) else int(number)


def conform(tables: dict[str, pd.DataFrame], catalog: str, fixed: Mapping[str, pd.DataFrame] | None = None) -> None:
    """Drop the grounded rows the schema would refuse, in place; the first row of a repeated key stays.

    Refused are rows with NULL in a NOT NULL column, rows repeating the primary key of an earlier row, and rows
    whose foreign key names no grounded row of its parent table (every grounded row belongs to a grounded object)
    or no row of a table of fixed content (``fixed``: the lookup tables the database holds).
    """
    for name, table in _tables(catalog).items():
        frame = tables.get(name)
        if frame is None or frame.empty:
            continue
        required = [column.name for column in table.columns if not column.nullable and column.name in frame.columns]
        keep = frame[required].notna().all(axis=1).to_numpy(copy=True)  # writable: later checks clear rows in place
        key = [column for column in table.primary_key if column in frame.columns]
        keep[np.flatnonzero(keep)[frame[keep].duplicated(key).to_numpy()]] = False
        for fk in table.foreign_keys:
            parent = tables.get(fk.ref_table, (fixed or {}).get(fk.ref_table))
            if parent is not None:
                keep &= _has_parent(frame[fk.columns], parent[fk.ref_columns])
        if not keep.all():
            logger.debug("%d grounded %s rows dropped: they break a constraint of the table", (~keep).sum(), name)
            tables[name] = frame[keep]


def _has_parent(children: pd.DataFrame, parents: pd.DataFrame) -> np.ndarray:
    if children.shape[1] == 1:
        return children.iloc[:, 0].isin(parents.iloc[:, 0]).to_numpy()
    return pd.MultiIndex.from_frame(children).isin(pd.MultiIndex.from_frame(parents))
