"""Write the values grounding chose into generated rows: one entity's rows at a time, keeping keys whole.

A patch writes only values its column can hold; a value for a key column names one row, and the rows whose foreign
key names that row follow it. The rows of all entities together then keep every key (``constraints.conform``).
"""

import logging
from collections.abc import Callable

import numpy as np
import pandas as pd

from replica.engine.grounding.constraints import fitting, foreign_keys, primary_key, referencing
from replica.engine.grounding.entity import Entity

__all__ = ["apply_patches", "fitted"]

logger = logging.getLogger(__name__)

SpecialPatch = Callable[[dict[str, pd.DataFrame], object, dict], None]
"""Writes a patch that names no table of the catalog (tables, the entity's oid, the patch's columns)."""


class _RowIndex:
    """Row positions of each oid in each table and the columns filters read, computed once per table.

    Patching then scans no table twice and converts no column twice (a pandas column of Arrow strings costs
    milliseconds per conversion, and there are hundreds of patches).
    """

    def __init__(self, tables: dict[str, pd.DataFrame], catalog: str):
        self.tables = tables
        self.catalog = catalog
        self._by_oid: dict[str, dict[object, np.ndarray]] = {}
        self._columns: dict[tuple[str, str], np.ndarray] = {}
        self._keyed: set[tuple[str, int]] = set()

    def rows(self, table: str, oid, filt: dict) -> np.ndarray:
        if table not in self._by_oid:
            frame = self.tables[table].reset_index(drop=True)
            self.tables[table] = frame
            self._by_oid[table] = frame.groupby("oid").indices if "oid" in frame.columns else {}
        rows = self._by_oid[table].get(oid, np.empty(0, dtype=np.int64))
        for column, value in filt.items():
            if column in self.tables[table].columns and len(rows):
                rows = rows[self._column(table, column)[rows] == value]
        return rows

    def set(self, table: str, rows: np.ndarray, columns: dict) -> None:
        """Write the columns' values into the rows; a key column's value names one row, so only one row gets it.

        A value its column cannot hold is dropped with a log line: the entity then misses that one condition.
        """
        if not len(rows):
            return
        key = primary_key(table, self.catalog)
        for column, value in columns.items():
            fitted_value = fitting(table, column, value, self.catalog)
            if fitted_value is ...:
                logger.debug("%s.%s cannot hold %r; patch dropped", table, column, value)
                continue
            if column not in self.tables[table].columns:  # a column the database fills (dataquality's noise)
                self.tables[table][column] = None
            if column not in key:
                self._write(table, rows, column, fitted_value)
            elif not (self._column(table, column)[rows] == fitted_value).any():  # else a row holds it already
                self._set_key(table, self._unkeyed(table, rows), column, fitted_value)

    def _unkeyed(self, table: str, rows: np.ndarray) -> int:
        """The first of the rows whose key no patch has set yet (two references name two rows), else the first."""
        row = next((int(row) for row in rows if (table, int(row)) not in self._keyed), int(rows[0]))
        self._keyed.add((table, row))
        return row

    def _set_key(self, table: str, row: int, column: str, value) -> None:
        """Change a key column of one row, keeping foreign keys whole.

        A column that names a parent row (dataquality's candid names a detection) changes in the parent, and every
        row naming the changed row follows it. Grounded rows are found by oid, which every such key includes.
        """
        frame = self.tables[table]
        for fk in foreign_keys(table, self.catalog):
            if column in fk.columns and fk.ref_table in self.tables:
                wanted = {theirs: frame.at[row, mine] for mine, theirs in zip(fk.columns, fk.ref_columns, strict=True)}
                parents = self.rows(fk.ref_table, wanted.pop("oid"), wanted)
                if len(parents):
                    self._set_key(fk.ref_table, parents[0], fk.ref_columns[fk.columns.index(column)], value)
                    return
        for child, fk in referencing(table, self.catalog):
            if child in self.tables and column in fk.ref_columns:
                named = {mine: frame.at[row, theirs] for mine, theirs in zip(fk.columns, fk.ref_columns, strict=True)}
                rows = self.rows(child, named.pop("oid"), named)
                self._write(child, rows, fk.columns[fk.ref_columns.index(column)], value)
        self._write(table, np.array([row]), column, value)

    def _write(self, table: str, rows: np.ndarray, column: str, value) -> None:
        frame = self.tables[table]
        frame.loc[frame.index[rows], column] = value
        self._columns.pop((table, column), None)

    def _column(self, table: str, column: str) -> np.ndarray:
        if (table, column) not in self._columns:
            self._columns[(table, column)] = self.tables[table][column].to_numpy()
        return self._columns[(table, column)]


def apply_patches(
    tables: dict[str, pd.DataFrame],
    objects: list[Entity],
    catalog: str,
    special: dict[str, SpecialPatch] | None = None,
) -> None:
    """Write every entity's patches and alternating values into its rows (found by the tables' oid column).

    The entities are named (``oid`` set) by the generator; a table without an oid column gets no patch. The values
    respect the catalog's keys and column types. ``special`` writes the patches that name no table (keyed by the
    name they use instead).
    """
    index = _RowIndex(tables, catalog)
    for entity in objects:
        for table, filt, columns in entity.patches:
            if special and table in special:
                special[table](tables, entity.oid, columns)
            elif table in tables:
                index.set(table, index.rows(table, entity.oid, filt), columns)
        for table, filt, satisfy, violate in entity.alternating:
            if table not in tables:
                continue
            rows = index.rows(table, entity.oid, filt)
            index.set(table, rows[::2] if violate else rows, satisfy)
            if violate:
                index.set(table, rows[1::2], violate)


def fitted(table: str, values: dict, catalog: str) -> dict:
    """The values that the table's columns can hold, as the columns hold them."""
    return {name: fit for name, value in values.items() if (fit := fitting(table, name, value, catalog)) is not ...}
