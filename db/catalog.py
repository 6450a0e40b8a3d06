"""The one schema catalog of the ALeRCE database: tables, columns, keys, indexes and their descriptions.

The facts live in ``alerce_catalog.yaml`` next to this file; this module loads them and renders them as DDL,
as a table list and as compact schema text for LLM prompts.

Example:
    >>> catalog = load_catalog()
    >>> catalog.table("MagStat").primary_key
    ['oid', 'fid']
    >>> catalog.closest_names("magstats")[0]
    'magstat'
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

__all__ = [
    "CATALOG_PATH",
    "Catalog",
    "Column",
    "ForeignKey",
    "Index",
    "Table",
    "load_catalog",
    "render_ddl",
    "render_schema_text",
    "render_table_catalog",
]

CATALOG_PATH = Path(__file__).with_name("alerce_catalog.yaml")
_CUTOFF = 0.6
# Shorter spellings of DDL types for prompts (one token instead of two).
_PROMPT_TYPES = {"double precision": "double"}
# "brief" detail drops parentheses and examples, then keeps a description up to its first ';'.
_BRIEF_DROP = re.compile(r" ?\([^)]*\)|,? e\.g\. [^;]*")

Detail = Literal["names", "brief", "full"]


@dataclass(frozen=True)
class Column:
    """One column: `data_type` as information_schema reports it, `sql_type` as written in the DDL.

    `unit` is an astropy unit string ("deg", "mag", "d", "arcsec"...) for a physical quantity, else None.
    """

    name: str
    data_type: str
    sql_type: str
    nullable: bool
    description: str
    unit: str | None = None


@dataclass(frozen=True)
class ForeignKey:
    """A foreign key constraint from `columns` to `ref_table(ref_columns)`."""

    name: str
    columns: list[str]
    ref_table: str
    ref_columns: list[str]


@dataclass(frozen=True)
class Index:
    """A secondary index; `where` is the predicate of a partial index."""

    name: str
    method: str
    columns: list[str]
    where: str | None = None


@dataclass(frozen=True)
class Table:
    """A table; a partition (`partition_of` set) carries copies of its parent's columns and keys."""

    name: str
    description: str
    columns: list[Column]
    primary_key: list[str]
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    indexes: list[Index] = field(default_factory=list)
    partition_of: str | None = None
    partition_value: str | None = None
    partition_by: str | None = None

    @property
    def column_names(self) -> list[str]:
        """Return the column names in table order."""
        return [column.name for column in self.columns]

    def column(self, name: str) -> Column | None:
        """Return the column called `name` (case-insensitive), or None."""
        wanted = name.strip().strip('"').lower()
        return next((column for column in self.columns if column.name == wanted), None)


@dataclass(frozen=True)
class Catalog:
    """All tables of the schema, in DDL order (a parent before its partitions)."""

    schema: str
    tables: list[Table]

    @property
    def table_names(self) -> list[str]:
        """Return the table names in catalog order."""
        return [table.name for table in self.tables]

    def table(self, name: str) -> Table | None:
        """Return the table called `name` (case-insensitive, optional schema prefix or quotes), or None."""
        wanted = _normalize(name)
        return next((table for table in self.tables if table.name == wanted), None)

    def only(self, names: frozenset[str] | set[str]) -> Catalog:
        """Return the catalog restricted to the tables called `names` (those a service publishes), in order."""
        return Catalog(schema=self.schema, tables=[table for table in self.tables if table.name in names])

    def indexed_columns(self, table: str) -> list[str]:
        """Return the columns of `table` covered by a secondary index (a partition reports its parent's)."""
        found = self.table(table)
        if found is None:
            return []
        if found.partition_of:
            return self.indexed_columns(found.partition_of)
        names = {name for index in found.indexes for name in index.columns}
        return [name for name in found.column_names if name in names]

    def closest_names(self, name: str, n: int = 3) -> list[str]:
        """Return up to `n` table names or 'table.column' names that resemble a missing `name`.

        A bare name is compared with table names and bare column names (a column hit is returned qualified);
        a dotted name is compared with 'table.column' names. Partitions' columns are not offered twice.
        """
        wanted = _normalize(name)
        scored = [(_ratio(wanted, table), table) for table in self.table_names]
        for table in self.tables:
            if table.partition_of:
                continue
            for column in table.column_names:
                qualified = f"{table.name}.{column}"
                scored.append((_ratio(wanted, qualified if "." in wanted else column), qualified))
        scored.sort(key=lambda pair: -pair[0])
        return [candidate for score, candidate in scored if score >= _CUTOFF][:n]


def _normalize(name: str) -> str:
    """Lower-case a name and drop quotes, spaces and an 'alerce.' prefix."""
    cleaned = name.strip().replace('"', "").lower()
    return cleaned.removeprefix("alerce.")


def _ratio(left: str, right: str) -> float:
    return difflib.SequenceMatcher(None, left, right).ratio()


@functools.cache
def load_catalog(path: Path | None = None) -> Catalog:
    """Load the catalog YAML (cached per path; treat the result as read-only).

    Args:
        path: Catalog file; defaults to `CATALOG_PATH`.

    Returns:
        The catalog with partitions expanded to their parent's columns and keys.

    Raises:
        ValueError: A partition names an unknown parent.
    """
    raw = yaml.safe_load((path or CATALOG_PATH).read_text(encoding="utf-8"))
    tables: list[Table] = []
    by_name: dict[str, Table] = {}
    for entry in raw["tables"]:
        table = _build_table(entry, by_name)
        tables.append(table)
        by_name[table.name] = table
    return Catalog(schema=raw["schema"], tables=tables)


def _build_table(entry: dict, known: dict[str, Table]) -> Table:
    parent_name = entry.get("partition_of")
    if parent_name:
        parent = known.get(parent_name)
        if parent is None:
            raise ValueError(f"Partition {entry['name']} names unknown parent {parent_name}; list the parent first.")
        return Table(
            name=entry["name"],
            description=entry["description"],
            columns=list(parent.columns),
            primary_key=list(parent.primary_key),
            foreign_keys=list(parent.foreign_keys),
            partition_of=parent_name,
            partition_value=str(entry["partition_value"]),
        )
    return Table(
        name=entry["name"],
        description=entry["description"],
        columns=[Column(**column) for column in entry["columns"]],
        primary_key=list(entry["primary_key"]),
        foreign_keys=[ForeignKey(**fk) for fk in entry.get("foreign_keys", [])],
        indexes=[Index(**index) for index in entry.get("indexes", [])],
        partition_by=entry.get("partition_by"),
    )


def render_ddl(catalog: Catalog) -> str:
    """Render the schema as PostgreSQL DDL: schema, tables, partitions, then indexes (no q3c).

    Every name is qualified with the schema, so the script does not change the session's search_path.
    """
    statements = [f"CREATE SCHEMA IF NOT EXISTS {catalog.schema};"]
    statements += [_table_ddl(catalog.schema, table) for table in catalog.tables]
    for table in catalog.tables:
        for index in table.indexes:
            where = f" WHERE ({index.where})" if index.where else ""
            columns = ", ".join(index.columns)
            statements.append(
                f"CREATE INDEX {index.name} ON {catalog.schema}.{table.name} USING {index.method} ({columns}){where};"
            )
    return "\n".join(statements) + "\n"


def _table_ddl(schema: str, table: Table) -> str:
    if table.partition_of:
        return (
            f"CREATE TABLE {schema}.{table.name} PARTITION OF {schema}.{table.partition_of}"
            f" FOR VALUES IN ('{table.partition_value}');"
        )
    lines = [f"    {c.name} {c.sql_type.upper()}{'' if c.nullable else ' NOT NULL'}" for c in table.columns]
    lines.append(f"    CONSTRAINT {table.name}_pkey PRIMARY KEY ({', '.join(table.primary_key)})")
    for fk in table.foreign_keys:
        lines.append(
            f"    CONSTRAINT {fk.name} FOREIGN KEY ({', '.join(fk.columns)})"
            f" REFERENCES {schema}.{fk.ref_table} ({', '.join(fk.ref_columns)})"
        )
    tail = f" PARTITION BY LIST ({table.partition_by})" if table.partition_by else ""
    return f"CREATE TABLE {schema}.{table.name} (\n" + ",\n".join(lines) + f"\n){tail};"


def render_table_catalog(catalog: Catalog) -> str:
    """Render one line per table, "name: description"."""
    return "\n".join(f"{table.name}: {table.description}" for table in catalog.tables)


def render_schema_text(
    catalog: Catalog,
    tables: list[str] | None = None,
    columns: dict[str, list[str]] | None = None,
    detail: Detail = "full",
) -> str:
    """Render compact schema text for LLM prompts.

    Each table gets a header line (keys, foreign keys, description) and one line per column,
    "  name type [idx]: description", where [idx] marks an indexed column; a foreign-key column, already named in
    the header, has no description. A partition whose parent is also rendered takes one line. Unknown table or
    column names are ignored.

    Args:
        catalog: The catalog.
        tables: Tables to render, in this order; None renders all.
        columns: Per table, the columns to show (primary key columns are always shown); tables absent from it
            show every column.
        detail: "full" descriptions, "brief" ones (up to the first ';', without examples or parentheses), or
            column "names" and types only.

    Returns:
        The schema text, lines joined by newlines.
    """
    selected = [catalog.table(name) for name in (tables if tables is not None else catalog.table_names)]
    selected = list({table.name: table for table in selected if table is not None}.values())
    names = {table.name for table in selected}
    wanted = {_normalize(table): {_normalize(c) for c in cols} for table, cols in (columns or {}).items()}
    blocks = []
    for table in selected:
        if table.partition_of in names:
            key = catalog.table(table.partition_of).partition_by
            blocks.append(f"table {table.name}: {table.partition_of} rows with {key} = '{table.partition_value}'")
            continue
        blocks.append(_table_text(catalog, table, wanted.get(table.name), detail))
    return "\n".join(blocks)


def _table_text(catalog: Catalog, table: Table, keep: set[str] | None, detail: Detail) -> str:
    key = ", ".join(table.primary_key)
    notes = [f"key ({key})" if len(table.primary_key) > 1 else f"key {key}"]
    linked = set()
    for fk in table.foreign_keys:
        source = ", ".join(fk.columns)
        notes.append(f"{source} -> {fk.ref_table}")
        linked.update(fk.columns)
    lines = [f"table {table.name} ({'; '.join(notes)}): {_describe(table.description, detail)}"]
    indexed = set(catalog.indexed_columns(table.name))
    for column in table.columns:
        if keep is not None and column.name not in keep and column.name not in table.primary_key:
            continue
        mark = " [idx]" if column.name in indexed else ""
        text = "" if column.name in linked else _describe(column.description, detail)
        tail = f": {text}" if text else ""
        lines.append(f"  {column.name} {_PROMPT_TYPES.get(column.sql_type, column.sql_type)}{mark}{tail}")
    return "\n".join(lines)


def _describe(description: str, detail: Detail) -> str:
    if detail == "names":
        return ""
    if detail == "brief":
        return _BRIEF_DROP.sub("", description).split(";")[0].strip()
    return description
