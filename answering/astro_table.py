"""Turn a result frame into an astropy Table whose columns carry the catalog's units, UCDs and descriptions."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from answering.cells import plain_value, unique_labels
from answering.columns import result_columns

if TYPE_CHECKING:
    import pandas as pd
    from astropy.table import Table

__all__ = ["astropy_table", "votable_bytes"]


def astropy_table(frame: pd.DataFrame, sql: str, service_table: Table | None = None, *, catalog: str = "ztf") -> Table:
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


def votable_bytes(table: Table) -> bytes:
    """Write `table` as a VOTable 1.4 document whose positions and epochs point at their frames.

    Columns with a ``pos.eq`` UCD refer to a COOSYS (ICRS); ``time.epoch`` columns (MJDs) to a TIMESYS (MJD origin,
    UTC, or TAI for a column named ``...tai``), so TOPCAT and Aladin see them as sky positions and times.
    """
    from astropy.io.votable import tree
    from astropy.io.votable.table import from_table

    document = from_table(table)
    resource = document.resources[0]
    config = {"version_1_4_or_later": True}  # TIMESYS is VOTable 1.4; the document is 1.4
    frames = {
        "icrs": tree.CooSys(ID="icrs", system="ICRS"),
        "mjd_utc": tree.TimeSys(
            ID="mjd_utc", timeorigin="MJD-origin", timescale="UTC", refposition="TOPOCENTER", config=config
        ),
        "mjd_tai": tree.TimeSys(
            ID="mjd_tai", timeorigin="MJD-origin", timescale="TAI", refposition="TOPOCENTER", config=config
        ),
    }
    used = set()
    for field in resource.tables[0].fields:
        ucd = field.ucd or ""
        ref = None
        if ucd.startswith(("pos.eq.ra", "pos.eq.dec")):
            ref = "icrs"
        elif ucd.startswith("time.epoch"):
            ref = "mjd_tai" if field.name.lower().endswith("tai") else "mjd_utc"
        if ref:
            field.ref = ref
            used.add(ref)
    for name, frame in frames.items():
        if name in used:
            (resource.coordinate_systems if name == "icrs" else resource.time_systems).append(frame)
    buffer = io.BytesIO()
    document.to_xml(buffer)
    return buffer.getvalue()
