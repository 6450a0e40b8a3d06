"""Write an astropy Table as a VOTable document that every XML parser reads, whatever its cells and labels hold."""

from __future__ import annotations

import warnings
from typing import IO, TYPE_CHECKING

import numpy as np

from answering.cells import unique_names, xml_safe

if TYPE_CHECKING:
    from pathlib import Path

    from astropy.io.votable.tree import Resource
    from astropy.table import Table

__all__ = ["write_votable"]


def write_votable(table: Table, target: str | Path | IO[bytes]) -> None:
    """Write `table` as a VOTable to `target` (a path is replaced) in time linear in its number of columns.

    Text XML 1.0 cannot hold (control characters) becomes U+FFFD: astropy writes it as it is, and then no XML
    parser, astropy's own included, reads the file. The FIELDs are added at once: astropy's ``Table.write`` adds
    them one by one and re-syncs its list of all fields each time (15 s for 1,600 columns).
    """
    from astropy.io.votable.exceptions import W03
    from astropy.io.votable.tree import Field, Resource, TableElement, VOTableFile

    safe = _xml_safe_table(table)
    votable = VOTableFile()
    attributes = {key: safe.meta[key] for key in ("ID", "name", "ref", "ucd", "utype") if safe.meta.get(key)}
    element = TableElement(votable, **attributes)
    if safe.meta.get("description"):
        element.description = safe.meta["description"]
    with warnings.catch_warnings():
        # W03: a label that is not an XML ID gets a derived one, which is what a download wants; the warning would
        # only reach the user's log (and breaks pytest-xdist, which cannot rebuild it).
        warnings.simplefilter("ignore", W03)
        element.fields.extend(Field.from_table_column(votable, safe[name]) for name in safe.colnames)
    mask = None if safe.mask is None else np.asarray(safe.mask)
    element.array = np.ma.array(np.asarray(safe), mask=mask)
    resource = Resource()
    resource.tables.append(element)
    votable.resources.append(resource)
    _point_at_frames(resource)
    votable.to_xml(target if hasattr(target, "write") else str(target))


def _point_at_frames(resource: Resource) -> None:
    """Refer ``pos.eq`` fields to an ICRS COOSYS and ``time.epoch`` fields (MJDs) to a TIMESYS (TAI for ``...tai``).

    So TOPCAT and Aladin see them as sky positions and times. TIMESYS is VOTable 1.4, the version astropy writes.
    """
    from astropy.io.votable.tree import CooSys, TimeSys

    config = {"version_1_4_or_later": True}
    frames = {
        "icrs": lambda: CooSys(ID="icrs", system="ICRS"),
        "mjd_utc": lambda: TimeSys(
            ID="mjd_utc", timeorigin="MJD-origin", timescale="UTC", refposition="TOPOCENTER", config=config
        ),
        "mjd_tai": lambda: TimeSys(
            ID="mjd_tai", timeorigin="MJD-origin", timescale="TAI", refposition="TOPOCENTER", config=config
        ),
    }
    used = []
    for field in resource.tables[0].fields:
        ucd = field.ucd or ""
        ref = None
        if ucd.startswith(("pos.eq.ra", "pos.eq.dec")):
            ref = "icrs"
        elif ucd.startswith("time.epoch"):
            ref = "mjd_tai" if field.name.lower().endswith("tai") else "mjd_utc"
        if ref:
            field.ref = ref
            if ref not in used:
                used.append(ref)
    for ref in used:
        (resource.coordinate_systems if ref == "icrs" else resource.time_systems).append(frames[ref]())


def _xml_safe_table(table: Table) -> Table:
    from astropy.table import Table

    safe = table.copy(copy_data=False)
    for name in safe.colnames:
        column = safe[name]
        if column.dtype.kind not in "OU":
            continue
        values = np.asarray(column).tolist()  # masked cells keep their filler; the mask stays as it is
        cleaned = [xml_safe(value) if isinstance(value, str) else value for value in values]
        if cleaned != values:
            replacement = column.copy()
            np.asarray(replacement)[:] = cleaned
            safe[name] = replacement
    for key in ("name", "description"):
        if isinstance(safe.meta.get(key), str):
            safe.meta[key] = xml_safe(safe.meta[key])
    for name in safe.colnames:
        if isinstance(safe[name].description, str):
            safe[name].description = xml_safe(safe[name].description)
    names = unique_names(xml_safe(name) for name in safe.colnames)
    return Table(list(safe.columns.values()), names=names, meta=safe.meta, copy=False)
