"""Turn a result frame into an astropy Table whose columns carry the catalog's units, UCDs and descriptions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from answering.cells import plain_value, unique_labels
from answering.columns import result_columns
from defaults.catalog import DEFAULT_CATALOG

if TYPE_CHECKING:
    import pandas as pd
    from astropy.table import Table

__all__ = ["astropy_table"]


def astropy_table(
    frame: pd.DataFrame, sql: str, service_table: Table | None = None, *, catalog: str = DEFAULT_CATALOG
) -> Table:
    """Build the result as an astropy Table: NULLs masked, catalog unit, description and ``meta["ucd"]`` on plain
    columns (``answering.columns``); computed columns carry none.

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
    infos = result_columns(sql, [str(label) for label in frame.columns], catalog=catalog)
    for name, info in zip(table.colnames, infos, strict=False):
        if info.unit and table[name].unit is None:
            table[name].unit = info.unit
        if info.description and not table[name].description:
            table[name].description = info.description
        if info.ucd and not table[name].meta.get("ucd"):
            table[name].meta["ucd"] = info.ucd
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
