"""What each result column is: its name, data type, unit, UCD and description, found from the SQL that made it.

One shape (``ColumnInfo``) for every output: VOTable FIELDs, Parquet schema metadata, astropy columns, the API's
JSON, MCP replies and the page's table headers. A result column that is a plain column of a catalog table (named,
aliased, or part of ``SELECT *`` / ``alias.*``) carries that column's metadata; a computed one (``count(*)``,
``avg(magpsf)``, ``ra + 1``) carries none.

Example:
    >>> [c.ucd for c in result_columns("SELECT * FROM object o", ["oid", "ndethist"])]
    ['meta.id;meta.main', 'meta.number']
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sqlglot
from sqlglot import exp

from catalog import Column, load_catalog
from catalog.model import Table
from defaults.catalog import DEFAULT_CATALOG
from engines.sql_tree import UNREADABLE_SQL

__all__ = ["ColumnInfo", "result_columns", "source_columns"]


@dataclasses.dataclass(frozen=True)
class ColumnInfo:
    """One result column's metadata; all but `name` are None for a computed column.

    Attributes:
        name: The result label.
        datatype: The catalog column's type as information_schema reports it ("double precision", "ARRAY"...).
        unit: An astropy unit string ("deg", "mag", "d"...).
        ucd: Its IVOA UCD1+ ("pos.eq.ra;meta.main").
        description: One line on what it holds.
    """

    name: str
    datatype: str | None = None
    unit: str | None = None
    ucd: str | None = None
    description: str | None = None

    @classmethod
    def of(cls, name: str, column: Column | None) -> ColumnInfo:
        """The metadata of result column `name` whose catalog source is `column` (None: computed)."""
        if column is None:
            return cls(name)
        return cls(name, column.data_type, column.unit, column.ucd, column.description or None)

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the API and MCP replies: name, datatype, unit, ucd, description (null when none)."""
        return dataclasses.asdict(self)


def result_columns(sql: str, labels: list[str], *, catalog: str = DEFAULT_CATALOG) -> list[ColumnInfo]:
    """Describe each result column of `sql`, labelled `labels` in result order."""
    return [
        ColumnInfo.of(str(label), column)
        for label, column in zip(labels, source_columns(sql, labels, catalog=catalog), strict=True)
    ]


def source_columns(sql: str, labels: list[str], *, catalog: str = DEFAULT_CATALOG) -> list[Column | None]:
    """Find the catalog column behind each result label of `sql`: a plain (possibly aliased or starred) column.

    When the select list expands to as many columns as there are labels, they pair up in order (so repeated labels
    of ``SELECT *`` over a join keep their own sources); otherwise a label takes the first projection of its name.
    Labels of computed expressions, of unparsable SQL and names no table of the query has get None.

    Examples:
        >>> [c.unit if c else None for c in source_columns(
        ...     "SELECT o.oid, o.meanra AS ra, d.magpsf, count(*) AS n FROM object o JOIN detection d USING (oid)",
        ...     ["oid", "ra", "magpsf", "n"])]
        [None, 'deg', 'mag', None]
        >>> [c.name if c else None for c in source_columns("SELECT m.*, 1 AS one FROM magstat m",
        ...     ["oid", "fid", "stellar", "one"])][:3]
        ['oid', 'fid', 'stellar']
    """
    try:
        return _source_columns(sql, labels, catalog)
    except UNREADABLE_SQL:  # sqlglot recurses per nesting level: SQL the guard let through may still be too deep here
        return [None] * len(labels)


def _source_columns(sql: str, labels: list[str], catalog: str) -> list[Column | None]:
    tree = sqlglot.parse_one(sql, read="postgres")
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return [None] * len(labels)
    expanded = _expand(select, _query_tables(select, catalog))
    if len(expanded) == len(labels):
        return [column for _, column in expanded]
    by_label: dict[str, Column | None] = {}
    for label, column in expanded:
        by_label.setdefault(label.lower(), column)
    return [by_label.get(str(label).lower()) for label in labels]


def _query_tables(select: exp.Select, catalog: str) -> dict[str, Table]:
    """The catalog tables the query reads, by alias (or name), in FROM/JOIN order."""
    tables: dict[str, Table] = {}
    for table in select.find_all(exp.Table):
        found = load_catalog(catalog).table(table.name)
        if found is not None:
            tables.setdefault(table.alias_or_name.lower(), found)
    return tables


def _expand(select: exp.Select, tables: dict[str, Table]) -> list[tuple[str, Column | None]]:
    """One (label, source) per output column of the select list, stars expanded to their tables' columns."""
    using = [name for join in select.args.get("joins") or () for name in _using_names(join)]
    expanded: list[tuple[str, Column | None]] = []
    for projection in select.expressions:
        if isinstance(projection, exp.Star):
            expanded += _star(list(tables.values()), using)
            continue
        column = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(column, exp.Column) and isinstance(column.this, exp.Star):
            owner = tables.get(column.table.lower())
            expanded += [(c.name, c) for c in owner.columns] if owner else [("*", None)]
            continue
        source = _plain_source(column, tables) if isinstance(column, exp.Column) else None
        expanded.append((projection.alias_or_name, source))
    return expanded


def _star(tables: list[Table], using: list[str]) -> list[tuple[str, Column | None]]:
    """``*`` over the joined tables: PostgreSQL lists the USING columns once, first, then every other column."""
    first = [(name, next((t.column(name) for t in tables if t.column(name)), None)) for name in using]
    rest = [(c.name, c) for table in tables for c in table.columns if c.name not in using]
    return first + rest


def _using_names(join: exp.Join) -> list[str]:
    return [identifier.name.lower() for identifier in join.args.get("using") or ()]


def _plain_source(column: exp.Column, tables: dict[str, Table]) -> Column | None:
    owners = [tables[column.table.lower()]] if column.table.lower() in tables else list(tables.values())
    return next((t.column(column.name) for t in owners if t.column(column.name) is not None), None)
