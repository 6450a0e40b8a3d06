"""Turn a result frame into an astropy Table whose columns carry the catalog's units and descriptions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from answering.cells import plain_value, unique_labels
from catalog import Column, load_catalog

if TYPE_CHECKING:
    import pandas as pd
    from astropy.table import Table

__all__ = ["astropy_table", "source_columns"]


def source_columns(sql: str, labels: list[str], *, catalog: str = "ztf") -> list[Column | None]:
    """Find the catalog column behind each result label of `sql`: a plain (possibly aliased) column of a table.

    Labels of computed expressions (``count(*)``, ``avg(magpsf)``) and of unparsable SQL get None, as do names
    that no table of the query has.

    Examples:
        >>> [c.unit if c else None for c in source_columns(
        ...     "SELECT o.oid, o.meanra AS ra, d.magpsf, count(*) AS n FROM object o JOIN detection d USING (oid)",
        ...     ["oid", "ra", "magpsf", "n"])]
        [None, 'deg', 'mag', None]
    """
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.SqlglotError:
        return [None] * len(labels)
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return [None] * len(labels)
    tables = {}
    for table in select.find_all(exp.Table):
        found = load_catalog(catalog).table(table.name)
        if found is not None:
            tables[table.alias_or_name.lower()] = found
    by_label: dict[str, Column | None] = {}
    for projection in select.expressions:
        column = projection.this if isinstance(projection, exp.Alias) else projection
        if not isinstance(column, exp.Column) or isinstance(column.this, exp.Star):
            continue
        owners = [tables[column.table.lower()]] if column.table.lower() in tables else list(tables.values())
        found = next((t.column(column.name) for t in owners if t.column(column.name) is not None), None)
        by_label.setdefault(projection.alias_or_name.lower(), found)
    return [by_label.get(str(label).lower()) for label in labels]


def astropy_table(frame: pd.DataFrame, sql: str, service_table: Table | None = None, *, catalog: str = "ztf") -> Table:
    """Build the result as an astropy Table: NULLs masked, catalog units and descriptions on plain columns.

    Args:
        frame: The result rows (labels may repeat; repeats get a ``_`` suffix, as DaCHS names them).
        sql: The PostgreSQL that produced them (read for the columns' sources).
        service_table: The Table a TAP service returned for them; kept, with units and descriptions added
            where the service gave none.
        catalog: The catalog whose tables the SQL names (units as TAP_SCHEMA lists them).

    Returns:
        A new Table.
    """
    from astropy.table import Table  # astropy loads only when a table is asked for

    table = service_table.copy() if service_table is not None else _table_from_frame(frame)
    sources = source_columns(sql, [str(label) for label in frame.columns], catalog=catalog)
    for name, column in zip(table.colnames, sources, strict=False):
        if column is None:
            continue
        if column.unit and table[name].unit is None:
            table[name].unit = column.unit
        if not table[name].description:
            table[name].description = column.description
    return Table(table, copy=False)


def _table_from_frame(frame: pd.DataFrame) -> Table:
    from astropy.table import MaskedColumn, Table

    table = Table()
    for label, (_, values) in zip(unique_labels(frame), frame.items(), strict=True):
        data, mask = _masked(values)
        table[label] = MaskedColumn(data, mask=mask)
    return table


def _masked(values: pd.Series) -> tuple[list[Any], list[bool]]:
    cells = [plain_value(value) for value in values]
    mask = [value is None for value in cells]
    kinds = {type(value) for value in cells if value is not None}
    filler = 0 if kinds and kinds <= {int, float, bool} else ""
    data = [filler if value is None else value for value in cells]
    if len(kinds) > 1 and not kinds <= {int, float}:
        data = [str(value) for value in data]
    return data, mask
