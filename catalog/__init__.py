"""Every schema fact of every catalog, from one data file per catalog, and the texts rendered from them."""

from catalog.load import load_catalog
from catalog.model import CATALOG_NAMES, Catalog, Classifier, Code, Column, ForeignKey, Index, ScopedRule, Table
from catalog.render import Detail, linked_names, render_ddl, render_schema_text, render_table_catalog

__all__ = [
    "CATALOG_NAMES",
    "Catalog",
    "Classifier",
    "Code",
    "Column",
    "Detail",
    "ForeignKey",
    "Index",
    "ScopedRule",
    "Table",
    "linked_names",
    "load_catalog",
    "render_ddl",
    "render_schema_text",
    "render_table_catalog",
]
