"""Every schema fact of every catalog, from one data file per catalog, and the texts rendered from them."""

from catalog.model import CATALOG_NAMES, Catalog, Column, ForeignKey, Index, Table, load_catalog, normalize_name
from catalog.render import Detail, render_ddl, render_schema_text, render_table_catalog

__all__ = [
    "CATALOG_NAMES",
    "Catalog",
    "Column",
    "Detail",
    "ForeignKey",
    "Index",
    "Table",
    "load_catalog",
    "normalize_name",
    "render_ddl",
    "render_schema_text",
    "render_table_catalog",
]
