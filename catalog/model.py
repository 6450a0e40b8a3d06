"""A catalog's tables, columns, keys and indexes, loaded from its data file ``catalog/<name>.yaml``.

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
from dataclasses import dataclass, field
from pathlib import Path

import yaml

__all__ = [
    "CATALOG_NAMES",
    "Catalog",
    "Column",
    "ForeignKey",
    "Index",
    "Table",
    "load_catalog",
    "normalize_name",
]

CATALOG_NAMES = ("ztf",)
"""Catalogs the project knows, each described by ``catalog/<name>.yaml``."""
_CATALOG_DIR = Path(__file__).parent
_CUTOFF = 0.6


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
        wanted = normalize_name(name)
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
        wanted = normalize_name(name)
        scored = [(_ratio(wanted, table), table) for table in self.table_names]
        for table in self.tables:
            if table.partition_of:
                continue
            for column in table.column_names:
                qualified = f"{table.name}.{column}"
                scored.append((_ratio(wanted, qualified if "." in wanted else column), qualified))
        scored.sort(key=lambda pair: -pair[0])
        return [candidate for score, candidate in scored if score >= _CUTOFF][:n]


def normalize_name(name: str) -> str:
    """Lower-case a table or column name and drop quotes, spaces and an 'alerce.' prefix."""
    cleaned = name.strip().replace('"', "").lower()
    return cleaned.removeprefix("alerce.")


def _ratio(left: str, right: str) -> float:
    return difflib.SequenceMatcher(None, left, right).ratio()


@functools.cache
def load_catalog(name: str = "ztf") -> Catalog:
    """Load a catalog's data file (cached per name; treat the result as read-only).

    Args:
        name: One of `CATALOG_NAMES`.

    Returns:
        The catalog with partitions expanded to their parent's columns and keys.

    Raises:
        ValueError: The name is not a catalog, or a partition names an unknown parent.
    """
    if name not in CATALOG_NAMES:
        raise ValueError(f"Unknown catalog {name!r}; choose one of {', '.join(CATALOG_NAMES)}.")
    raw = yaml.safe_load((_CATALOG_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
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
