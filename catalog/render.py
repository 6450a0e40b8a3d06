"""Render a catalog as PostgreSQL DDL, as a table list, and as compact schema text for LLM prompts."""

import re
from typing import Literal

from catalog.model import Catalog, Table

__all__ = ["Detail", "linked_names", "render_ddl", "render_schema_text", "render_table_catalog"]

# Shorter spellings of DDL types for prompts (one token instead of two).
_PROMPT_TYPES = {"double precision": "double"}
# "brief" detail drops parentheses and examples, then keeps a description up to its first ';'.
_BRIEF_DROP = re.compile(r" ?\([^)]*\)|,? e\.g\. [^;]*")

Detail = Literal["names", "brief", "full"]


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
            f" FOR VALUES IN ({_quoted(table.partition_values)});"
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
    wanted = {catalog.normalize(table): {catalog.normalize(c) for c in cols} for table, cols in (columns or {}).items()}
    blocks = []
    for table in selected:
        if table.partition_of in names:
            key = catalog.table(table.partition_of).partition_by
            values = table.partition_values
            condition = f"= '{values[0]}'" if len(values) == 1 else f"IN ({_quoted(values)})"
            blocks.append(f"table {table.name}: {table.partition_of} rows with {key} {condition}")
            continue
        blocks.append(_table_text(catalog, table, wanted.get(table.name), detail))
    return "\n".join(blocks)


def linked_names(schema_text: str) -> tuple[set[str], set[str]]:
    """Read back the tables and ``table.column`` names a `render_schema_text` text shows.

    Examples:
        >>> tables, columns = linked_names("table object (key oid): objects\\n  oid varchar\\n  meanra double: deg")
        >>> tables, sorted(columns)
        ({'object'}, ['object.meanra', 'object.oid'])
    """
    tables: set[str] = set()
    columns: set[str] = set()
    table = None
    for line in schema_text.splitlines():
        if line.startswith("table "):
            table = line[len("table ") :].split(" ", 1)[0].rstrip(":")
            tables.add(table)
        elif table and line.startswith("  ") and line.strip():
            columns.add(f"{table}.{line.split()[0]}")
    return tables, columns


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


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{value}'" for value in values)


def _describe(description: str, detail: Detail) -> str:
    if detail == "names":
        return ""
    if detail == "brief":
        return _BRIEF_DROP.sub("", description).split(";")[0].strip()
    return description
