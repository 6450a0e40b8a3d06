"""PostgreSQL to ADQL for ALeRCE's TAP service: a sqlglot dialect `adql` derived from Postgres, and `translate`.

The program writes PostgreSQL for one catalog's schema; the TAP service (GAVO DaCHS) publishes the same tables,
with the same column names, in the catalog's TAP schema: ``ztf`` for the legacy ZTF tables, ``alerce_tap`` for the
multi-survey (Rubin/LSST and ZTF) ones. `translate` parses the statement as PostgreSQL, applies
`engines.adql.rules.RULES` and prints the result with the `ADQL` dialect.

Examples:
    >>> translate("SELECT oid FROM object WHERE ndet <> 1 LIMIT 5;").adql
    'SELECT TOP 5 object.oid FROM ztf.object AS object WHERE object.ndet != 1'
    >>> translate("SELECT oid FROM object WHERE q3c_radial_query(meanra, meandec, 10.5, -3.2, 0.01)").adql
    "SELECT object.oid FROM ztf.object AS object WHERE CONTAINS(POINT('ICRS', object.meanra, object.meandec), \
CIRCLE('ICRS', 10.5, -3.2, 0.01)) = 1"
    >>> translate("SELECT oid, sid FROM object WHERE sid = 1 LIMIT 3", default_target("multisurvey")).adql
    'SELECT TOP 3 object.oid, object.sid FROM alerce_tap.object AS object WHERE object.sid = 1'
    >>> translate("SELECT oid, row_number() OVER (ORDER BY ndet) FROM object")
    Traceback (most recent call last):
    ...
    engines.errors.ExecutionError: Not available on TAP (ADQL): window functions (OVER ...); use GROUP BY, or a \
subquery with MAX/MIN joined back. [unsupported]
"""

import functools
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.dialects.postgres import Postgres
from sqlglot.errors import SqlglotError

from catalog import Catalog, load_catalog
from defaults.catalog import DEFAULT_CATALOG
from engines.adql.rules import RULES, Rendering, TapTarget, Upload, unsupported
from engines.errors import ErrorKind, ExecutionError
from engines.sql_tree import TOO_DEEP

__all__ = ["ADQL", "TapTarget", "Translation", "Upload", "default_target", "translate"]


class ADQL(Postgres):
    """ADQL 2.0 as GAVO DaCHS 2.7 parses it, printed from the Postgres expression tree."""

    class Generator(Postgres.Generator):
        """Postgres output with TOP, !=, ADQL function names and no comments."""

        LIMIT_IS_TOP = True

        TYPE_MAPPING = {  # noqa: RUF012 - as in sqlglot's own generators
            **Postgres.Generator.TYPE_MAPPING,
            exp.DataType.Type.INT: "INTEGER",
            exp.DataType.Type.FLOAT: "REAL",
        }

        TRANSFORMS = {  # noqa: RUF012 - sqlglot's own generators declare TRANSFORMS this way
            **Postgres.Generator.TRANSFORMS,
            exp.Log: lambda self, e: _log_sql(self, e),
            exp.Ln: lambda self, e: self.func("LOG", e.this),
            exp.Ceil: lambda self, e: self.func("CEILING", e.this),
            exp.Pow: lambda self, e: self.func("POWER", e.this, e.expression),
            exp.Mod: lambda self, e: self.func("MOD", e.this, e.expression),
            exp.Rand: lambda self, e: self.func("RAND"),
            exp.Trunc: lambda self, e: self.func("TRUNCATE", e.this, e.args.get("decimals")),
            exp.GroupConcat: lambda self, e: self.func("ivo_string_agg", e.this, e.args.get("separator")),
            exp.RegexpLike: lambda self, e: f"1 = {self.func('gavo_match', e.expression, e.this)}",
        }

        def neq_sql(self, expression: exp.NEQ) -> str:
            """Write inequality as ``!=`` (DaCHS 2.7 does not parse ``<>``)."""
            return self.binary(expression, "!=")


@dataclass(frozen=True)
class Translation:
    """The ADQL of one statement and the literal tables it uploads.

    Attributes:
        adql: The ADQL query text.
        uploads: {name: table} for each ``WITH name (columns) AS (VALUES ...)``, referenced as ``TAP_UPLOAD.name``.
    """

    adql: str
    uploads: dict[str, Upload] = field(default_factory=dict)


@functools.cache
def default_target(catalog_name: str = DEFAULT_CATALOG, tables: frozenset[str] | None = None) -> TapTarget:
    """Return the target of a catalog's TAP schema: `tables` (default: those the catalog says TAP publishes).

    Column facts come from the catalog.
    """
    catalog = load_catalog(catalog_name)
    return target_from_catalog(catalog, tables=tables or frozenset(table.name for table in catalog.tap_tables))


def target_from_catalog(catalog: Catalog, *, tables: frozenset[str]) -> TapTarget:
    """Describe the published `tables` with the catalog's TAP schema, columns, boolean columns and partitions."""
    known = [table for table in catalog.tables if table.name in tables]
    parents = {table.name: table for table in catalog.tables}
    return TapTarget(
        schema=catalog.tap_schema,
        tables=frozenset(tables),
        columns={table.name: {column.name: column.sql_type for column in table.columns} for table in known},
        boolean_columns=frozenset(
            column.name for table in known for column in table.columns if column.data_type == "boolean"
        ),
        schema_aliases=frozenset({catalog.schema, "public"}),
        partitions={
            table.name: (table.partition_of, parents[table.partition_of].partition_by, table.partition_values)
            for table in catalog.tables
            if table.partition_of and table.name not in tables
        },
    )


def translate(sql: str, target: TapTarget | None = None, *, uploads: dict[str, Upload] | None = None) -> Translation:
    """Translate one PostgreSQL SELECT statement into ADQL for the TAP service.

    Args:
        sql: The statement (already accepted by the SQL guard).
        target: Schema, tables and column facts of the service (default: the ``ztf`` catalog's tables).
        uploads: Tables sent along (a target list): the statement names them bare or as ``tap_upload.name``.

    Returns:
        The ADQL text and the tables it uploads.

    Raises:
        ExecutionError: kind ``unsupported`` when the statement uses a construct or table ADQL lacks; kind
            ``general`` when it does not parse or is nested too deeply to read.
    """
    try:
        return _translate(sql, Rendering(target=target or default_target(), uploads=dict(uploads or {})))
    except RecursionError as err:  # the rules and the generator recurse per nesting level, as the parser does
        raise ExecutionError(ErrorKind.GENERAL, None, f"The SQL {TOO_DEEP}") from err


def _translate(sql: str, rendering: Rendering) -> Translation:
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except SqlglotError as err:
        raise ExecutionError(ErrorKind.GENERAL, None, f"Cannot parse the SQL: {err}") from err
    for rule in RULES:
        tree = rule(tree, rendering)
    try:
        adql = tree.sql(dialect=ADQL, comments=False)
    except SqlglotError as err:
        raise unsupported(str(err)) from err
    return Translation(adql=adql, uploads=dict(rendering.uploads))


def _log_sql(generator: ADQL.Generator, expression: exp.Log) -> str:
    """PostgreSQL log(x) is base 10, log(b, x) base b; ADQL LOG is natural."""
    if expression.expression is None:
        return generator.func("LOG10", expression.this)
    value, base = generator.func("LOG", expression.expression), generator.func("LOG", expression.this)
    return f"{value} / {base}"
