"""A catalog's tables, columns, keys, indexes and vocabularies (``catalog.load`` reads them from its data file).

Example:
    >>> from catalog import load_catalog
    >>> catalog = load_catalog()
    >>> catalog.table("MagStat").primary_key
    ['oid', 'fid']
    >>> catalog.closest_names("magstats")[0]
    'magstat'
"""

from __future__ import annotations

import datetime
import difflib
from dataclasses import dataclass, field, replace
from typing import Literal

__all__ = ["CATALOG_NAMES", "Catalog", "Classifier", "Code", "Column", "ForeignKey", "Index", "ScopedRule", "Table"]

CATALOG_NAMES = ("ztf", "multisurvey")
"""Catalogs the project knows, each described by ``catalog/<name>.yaml``."""
_CUTOFF = 0.6


@dataclass(frozen=True)
class Column:
    """One column: `data_type` as information_schema reports it, `sql_type` as written in the DDL.

    `unit` is an astropy unit string ("deg", "mag", "d", "arcsec"...) for a physical quantity, else None. `ucd` is
    its IVOA UCD1+ (``catalog.ucd`` derives it when the catalog file gives none). `domain` is (lowest, highest, step,
    typical gap above a lower bound) of the values the replica grounds a numeric column on (None: its recipe's rule).
    """

    name: str
    data_type: str
    sql_type: str
    nullable: bool
    description: str
    unit: str | None = None
    ucd: str | None = None
    domain: tuple[float, float, float, float] | None = None


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
    """A table; a partition (`partition_of` set) carries copies of its parent's columns and keys.

    A partition holds the rows whose `partition_by` column takes one of its `partition_values`.
    """

    name: str
    description: str
    columns: list[Column]
    primary_key: list[str]
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    indexes: list[Index] = field(default_factory=list)
    partition_of: str | None = None
    partition_values: tuple[str, ...] = ()
    partition_by: str | None = None
    tap: bool = True
    """Whether the catalog's TAP service publishes the table."""

    @property
    def column_names(self) -> list[str]:
        """Return the column names in table order."""
        return [column.name for column in self.columns]

    def column(self, name: str) -> Column | None:
        """Return the column called `name` (case-insensitive), or None."""
        wanted = name.strip().strip('"').lower()
        return next((column for column in self.columns if column.name == wanted), None)


@dataclass(frozen=True)
class Classifier:
    """A classifier whose classes a table stores by name (``probability.class_name``).

    Attributes:
        name: As stored in ``classifier_name``.
        classes: Its class names, exact spelling, in the taxonomy's order.
        versions: The ``classifier_version`` values the service stores for it.
        taxonomy_version: The version its ``taxonomy`` row carries (it may differ from the stored ones).
        rules: How the prompt rules show it: "classes" lists its classes, "name" only names it (with the classes
            no "classes" classifier has), keeping the rules short.
    """

    name: str
    classes: tuple[str, ...]
    versions: tuple[str, ...] = ()
    taxonomy_version: str | None = None
    rules: Literal["classes", "name"] = "classes"


@dataclass(frozen=True)
class ScopedRule:
    """A prompt rule that only questions about some tables or columns need.

    Attributes:
        text: The rule as it stands in ``Catalog.sql_rules`` (its "- " line and the indented lines under it).
        tables: Tables whose presence in the linked schema makes the rule apply.
        columns: ``table.column`` names whose presence makes it apply.
    """

    text: str
    tables: frozenset[str] = frozenset()
    columns: frozenset[str] = frozenset()

    def applies(self, tables: set[str], columns: set[str]) -> bool:
        """Whether a schema linking these tables and ``table.column`` names needs the rule."""
        return bool(self.tables & tables or self.columns & columns)


@dataclass(frozen=True)
class Code:
    """An integer column whose values are ids of a lookup table's names (``probability.class_id`` -> taxonomy).

    Attributes:
        table: The table of the code column.
        column: The code column.
        lookup: The lookup table that names the codes.
        id: The lookup's id column (the code's values).
        name: The lookup's name column.
        scope: Columns of both tables that an id is unique only with (``classifier_id`` for class ids).
    """

    table: str
    column: str
    lookup: str
    id: str
    name: str
    scope: tuple[str, ...] = ()


@dataclass(frozen=True)
class Catalog:
    """One catalog: its tables in DDL order (a parent before its partitions) and the facts around them.

    Attributes:
        name: One of `CATALOG_NAMES`.
        schema: The PostgreSQL schema of its tables (the embedded replica's, and the old direct database's).
        tap_schema: The schema name under which a TAP service publishes them.
        tables: Every table, in DDL order.
        categorical: (table, column) pairs whose distinct values form a closed vocabulary, largest tables last.
        positions: Per table, the (ra, dec) columns that carry a q3c index.
        classifiers: Classifiers whose class names the data stores as text (empty when classes are ids).
        sql_rules: The conventions the SQL-writing prompts quote for this catalog.
        scoped_rules: The rules of `sql_rules` that a prompt needs only when its linked schema holds their tables.
        title: What the catalog holds, in a few words (the local TAP service's title).
        description: One sentence on the data (the local TAP service's description).
        identifiers: Columns that identify a result's rows, compared by row Perfect-Match, in priority order.
        codes: Integer columns whose values are ids of a lookup table's names.
        data_end: The day after the last epoch of the catalog's replica (None: the replica fixes its own end).
        prompt_notes: Per signature (class name, e.g. "SelectTables"), the catalog's sentences that follow its
            instructions: what the signature's own docstring cannot say without naming one catalog's tables.
        joins: Documented joins beyond the foreign keys, each a SQL condition between two tables' columns.
        object_ids: ``table.column`` names that hold an object's id although no foreign key says so
            (``catalog.object_ids`` adds the object table's key and the columns that refer to it).
        rows: The published rows of the tables of fixed content (lookups), by table, as the replica writes them.
        feature_names: The names the feature table holds, per band (fid), in the service's order (empty when a
            lookup table names the features).
    """

    name: str
    schema: str
    tap_schema: str
    tables: list[Table]
    categorical: tuple[tuple[str, str], ...] = ()
    positions: dict[str, tuple[str, str]] = field(default_factory=dict)
    classifiers: tuple[Classifier, ...] = ()
    sql_rules: str = ""
    scoped_rules: tuple[ScopedRule, ...] = ()
    title: str = ""
    description: str = ""
    identifiers: tuple[str, ...] = ()
    codes: tuple[Code, ...] = ()
    data_end: datetime.date | None = None
    prompt_notes: dict[str, str] = field(default_factory=dict)
    joins: tuple[str, ...] = ()
    object_ids: tuple[str, ...] = ()
    rows: dict[str, tuple[dict, ...]] = field(default_factory=dict)
    feature_names: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @property
    def tap_tables(self) -> list[Table]:
        """Return the tables its TAP service publishes, in catalog order."""
        return [table for table in self.tables if table.tap]

    @property
    def class_names(self) -> tuple[str, ...]:
        """Return every class name of every classifier, once each, in catalog order."""
        return tuple(dict.fromkeys(name for classifier in self.classifiers for name in classifier.classes))

    def classifier(self, name: str) -> Classifier:
        """Return the classifier called `name`.

        Raises:
            KeyError: The catalog has no such classifier.
        """
        found = next((classifier for classifier in self.classifiers if classifier.name == name), None)
        if found is None:
            raise KeyError(f"catalog {self.name!r} has no classifier {name!r}")
        return found

    @property
    def table_names(self) -> list[str]:
        """Return the table names in catalog order."""
        return [table.name for table in self.tables]

    def table(self, name: str) -> Table | None:
        """Return the table called `name` (case-insensitive, optional schema prefix or quotes), or None."""
        wanted = self.normalize(name)
        return next((table for table in self.tables if table.name == wanted), None)

    def normalize(self, name: str) -> str:
        """Lower-case a table or column name and drop quotes, spaces and a prefix naming this catalog's schema."""
        cleaned = name.strip().replace('"', "").lower()
        for schema in (self.schema, self.tap_schema):
            cleaned = cleaned.removeprefix(f"{schema}.")
        return cleaned

    def only(self, names: frozenset[str] | set[str]) -> Catalog:
        """Return the catalog restricted to the tables called `names` (those a service publishes), in order."""
        return replace(self, tables=[table for table in self.tables if table.name in names])

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
        wanted = self.normalize(name)
        scored = [(_ratio(wanted, table), table) for table in self.table_names]
        for table in self.tables:
            if table.partition_of:
                continue
            for column in table.column_names:
                qualified = f"{table.name}.{column}"
                scored.append((_ratio(wanted, qualified if "." in wanted else column), qualified))
        scored.sort(key=lambda pair: -pair[0])
        return [candidate for score, candidate in scored if score >= _CUTOFF][:n]


def _ratio(left: str, right: str) -> float:
    return difflib.SequenceMatcher(None, left, right).ratio()
