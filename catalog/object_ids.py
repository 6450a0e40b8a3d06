"""Which columns of a catalog hold an object's id, so that a result's ids can lead to the object's view.

An object id is, from the catalog's model alone:

1. the key column of the object table (``OBJECT_TABLE``) that refers to no other table (``oid``; multisurvey's
   ``sid`` refers to ``sid_lut`` and is the survey, not the object);
2. a column whose foreign key refers to that key column (``detection.oid``...);
3. a column of the same name and type as that key column, an identifier by its UCD (tables whose foreign key the
   model does not declare, such as ``forced_photometry`` or ``lsst_dia_object``);
4. a column the catalog file lists under ``object_ids`` (ssObjectId and diaObjectId on multisurvey).

Example:
    >>> sorted({c.name for c in object_id_columns("multisurvey")})
    ['diaobjectid', 'oid', 'ssobjectid']
"""

from __future__ import annotations

import functools

from catalog.load import load_catalog
from catalog.model import Column, Table

__all__ = ["OBJECT_TABLE", "object_id_columns"]

OBJECT_TABLE = "object"
"""The table with one row per object in every catalog of the project."""


@functools.cache
def object_id_columns(catalog_name: str) -> frozenset[Column]:
    """Every column of the catalog that holds an object's id (cached per catalog; see the module's rules)."""
    catalog = load_catalog(catalog_name)
    objects = catalog.table(OBJECT_TABLE)
    if objects is None:
        return frozenset()
    referring = {name for key in objects.foreign_keys for name in key.columns}
    key = next(objects.column(name) for name in objects.primary_key if name not in referring)
    found = {key}
    for table in catalog.tables:
        found.update(_referring_columns(table, key.name))
        same = table.column(key.name)
        if same is not None and same.data_type == key.data_type and (same.ucd or "").startswith("meta.id"):
            found.add(same)
    for qualified in catalog.object_ids:
        table_name, _, column_name = qualified.partition(".")
        table = catalog.table(table_name)
        column = table.column(column_name) if table else None
        if column is None:
            raise ValueError(f"catalog {catalog_name!r}: object_ids names {qualified!r}, which it has no column of")
        found.add(column)
    return frozenset(found)


def _referring_columns(table: Table, key: str) -> list[Column]:
    columns = []
    for foreign in table.foreign_keys:
        if foreign.ref_table == OBJECT_TABLE and key in foreign.ref_columns:
            column = table.column(foreign.columns[foreign.ref_columns.index(key)])
            if column is not None:
                columns.append(column)
    return columns
