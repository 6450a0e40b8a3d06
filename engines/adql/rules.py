"""The rewrites that turn a parsed PostgreSQL statement into one the ADQL generator can print, one rule each.

Each rule takes the tree and the `Rendering` (what the service offers, uploads collected so far), rewrites the
tree in place and returns it; a construct with no ADQL form raises `ExecutionError` of kind `unsupported`.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify_columns import qualify_columns as _sqlglot_qualify_columns

from engines.adql.forms import scalar_subqueries_as_in, unfilter_aggregates, unsupported
from engines.adql.names import name_computed_columns
from engines.adql.reserved import RESERVED_WORDS

__all__ = ["RULES", "Rendering", "TapTarget", "Upload", "unsupported"]

UPLOAD_SCHEMA = "TAP_UPLOAD"
_SERVICE_SCHEMAS = {"tap_schema", UPLOAD_SCHEMA.lower()}
_CAST_TYPES = {
    exp.DataType.Type.SMALLINT: "SMALLINT",
    exp.DataType.Type.INT: "INTEGER",
    exp.DataType.Type.BIGINT: "BIGINT",
    exp.DataType.Type.FLOAT: "REAL",
    exp.DataType.Type.DOUBLE: "DOUBLE PRECISION",
    exp.DataType.Type.DECIMAL: "DOUBLE PRECISION",
    exp.DataType.Type.VARCHAR: "VARCHAR",
    exp.DataType.Type.TEXT: "VARCHAR",
    exp.DataType.Type.CHAR: "CHAR",
}
# Constructs ADQL lacks, with what to write instead.
_REFUSED: tuple[tuple[type[exp.Expression], str], ...] = (
    (exp.Window, "window functions (OVER ...); use GROUP BY, or a subquery with MAX/MIN joined back"),
    (exp.Nullif, "NULLIF; use CASE WHEN ... THEN NULL ELSE ... END"),
    (exp.Substring, "substring(); compare whole values or use LIKE"),
    (exp.Trim, "trim(); compare whole values or use LIKE"),
    (exp.Length, "length(); filter with LIKE or compute it after fetching"),
    (exp.Replace, "replace(); compute it after fetching"),
    (exp.Lateral, "LATERAL joins; use a derived table joined on oid"),
    (exp.CurrentTimestamp, "now(); write the date as an MJD number"),
    (exp.CurrentDate, "CURRENT_DATE; write the date as an MJD number"),
    (exp.Extract, "extract(); compare MJD numbers"),
    (exp.Interval, "intervals; add days to MJD numbers"),
    (exp.PercentileCont, "percentile_cont(); compute percentiles after fetching"),
    (exp.PercentileDisc, "percentile_disc(); compute percentiles after fetching"),
    (exp.RegexpILike, "case-insensitive regexes (~*); use ILIKE"),
)


@dataclass(frozen=True, kw_only=True)
class TapTarget:
    """What the TAP service offers the translation.

    Attributes:
        schema: Schema that holds the tables on the service (ALeRCE: ``ztf`` and ``alerce_tap``).
        tables: Table names published in `schema`.
        columns: {table: {column: SQL type}} used to qualify columns inside subqueries.
        boolean_columns: Columns of boolean type, compared with ``'True'``/``'False'`` on TAP.
        schema_aliases: Schemas the PostgreSQL may name for `schema` (the catalog's PostgreSQL schema, public).
        partitions: {partition: (parent, key column, values)} of tables the service publishes only as their parent.
    """

    schema: str
    tables: frozenset[str]
    columns: dict[str, dict[str, str]]
    boolean_columns: frozenset[str]
    schema_aliases: frozenset[str] = frozenset({"public"})
    partitions: dict[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Upload:
    """A literal table (``WITH name (columns) AS (VALUES ...)``) sent along as ``TAP_UPLOAD.name``."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str | int | float | None, ...], ...]


@dataclass
class Rendering:
    """The target of one translation and the uploads its rules collect."""

    target: TapTarget
    uploads: dict[str, Upload] = field(default_factory=dict)


Rule = Callable[[exp.Expression, Rendering], exp.Expression]


def refuse_unsupported(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Raise for window functions, DISTINCT ON, NULLIF, string functions, ARRAY, dates, NULLS FIRST/LAST, ..."""
    for node_type, what in _REFUSED:
        if tree.find(node_type):
            raise unsupported(what)
    for node in tree.find_all(exp.Array):
        if not (isinstance(node.parent, exp.Anonymous) and node.parent.name.lower() == "q3c_poly_query"):
            raise unsupported("ARRAY[...]; list the values with IN (...)")
    for node in tree.find_all(exp.Distinct):
        if node.args.get("on"):
            raise unsupported("DISTINCT ON; use GROUP BY with MAX/MIN, or a subquery joined back")
    for node in tree.find_all(exp.Ordered):
        if bool(node.args.get("nulls_first")) != bool(node.args.get("desc")):
            raise unsupported("NULLS FIRST/LAST; drop it or filter the NULLs out with IS NOT NULL")
    for node in tree.find_all(exp.Is):
        if not isinstance(node.this, exp.Column) and not isinstance(node.expression, exp.Boolean):
            raise unsupported("IS NULL on an expression; test the plain column")
    for node in tree.find_all(exp.Anonymous):
        if node.name.lower() == "q3c_ellipse_query":
            raise unsupported("q3c_ellipse_query; use CONTAINS(POINT(...), CIRCLE(...)) = 1")
    literal_tables = {id(_literal_table(cte)) for cte in tree.find_all(exp.CTE)}
    for node in tree.find_all(exp.Values):
        if id(node) not in literal_tables:
            raise unsupported("VALUES outside WITH name (columns) AS (VALUES ...)")
    return tree


def qualify_columns(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Qualify every column with its table, as DaCHS asks inside subqueries; output names stay as they were.

    A column the schema does not know is left as it is, for the service to report.
    """
    selects = list(tree.find_all(exp.Select))
    aliased = [[isinstance(item, exp.Alias) for item in select.expressions] for select in selects]
    try:
        _sqlglot_qualify_columns(tree, _schema(rendering), expand_alias_refs=False, expand_stars=False)
    except SqlglotError:
        return tree
    for select, was_aliased in zip(selects, aliased, strict=True):
        for item, had_alias in zip(list(select.expressions), was_aliased, strict=False):
            if isinstance(item, exp.Alias) and not had_alias:
                item.replace(item.this)
    return tree


def upload_values(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Turn ``WITH name (columns) AS (VALUES ...)`` into a table uploaded as ``TAP_UPLOAD.name``."""
    for cte in list(tree.find_all(exp.CTE)):
        values = _literal_table(cte)
        if values is None:
            continue
        columns = tuple(column.name for column in cte.args["alias"].columns)
        if not columns:
            raise unsupported(f"VALUES in {cte.alias} without column names; write WITH {cte.alias} (names) AS ...")
        if "oid" in columns:
            raise unsupported(f"an uploaded table with a column named oid ({cte.alias}); rename that column")
        rows = tuple(tuple(_literal(value) for value in row.expressions) for row in values.expressions)
        # DaCHS refuses upload names that ADQL reserves (catalog); the alias keeps the CTE's name.
        upload_name = f"{cte.alias}_upload" if cte.alias.lower() in RESERVED_WORDS else cte.alias
        rendering.uploads[upload_name] = Upload(columns=columns, rows=rows)
        with_ = cte.parent
        cte.pop()
        if isinstance(with_, exp.With) and not with_.expressions:
            with_.pop()
        for table in tree.find_all(exp.Table):
            if not table.args.get("db") and table.name == cte.alias:
                if not table.alias:
                    table.set("alias", exp.TableAlias(this=exp.to_identifier(cte.alias)))
                table.set("this", exp.to_identifier(upload_name))
                table.set("db", exp.to_identifier(UPLOAD_SCHEMA))
    return tree


def qualify_tables(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Prefix tables with the service's schema and alias them by name; refuse tables the service does not publish."""
    target = rendering.target
    ctes = {cte.alias for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        schema, name = table.text("db").lower(), table.name.lower()
        if not schema and name in ctes:
            continue
        if schema in _SERVICE_SCHEMAS:
            continue
        if schema and schema not in target.schema_aliases and schema != target.schema:
            raise unsupported(f"schema {schema} (only {target.schema} and tap_schema are published)")
        if name not in target.tables:
            raise unsupported(_missing_table(name, target))
        table.set("db", exp.to_identifier(target.schema))
        if not table.alias:  # DaCHS resolves object.oid only when object is an alias of ztf.object
            table.set("alias", exp.TableAlias(this=exp.to_identifier(name)))
    return tree


def rewrite_q3c(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Rewrite q3c functions as ADQL geometry: CONTAINS(POINT, CIRCLE/POLYGON) = 1 and DISTANCE."""
    for node in list(tree.find_all(exp.Anonymous)):
        name, args = node.name.lower(), node.expressions
        if name == "q3c_radial_query" and len(args) == 5:
            node.replace(_contains(_point(args[0], args[1]), _circle(args[2], args[3], args[4])))
        elif name == "q3c_join" and len(args) == 5:
            # The second pair is the big table: it goes in POINT so the service can use its index.
            node.replace(exp.EQ(this=exp.Literal.number(1), expression=_contains_call(args[2:4], args[0:2], args[4])))
        elif name == "q3c_dist" and len(args) == 4:
            node.replace(exp.func("DISTANCE", _point(args[0], args[1]), _point(args[2], args[3])))
        elif name == "q3c_poly_query" and len(args) == 3:
            node.replace(_contains(_point(args[0], args[1]), _polygon(args[2])))
    return tree


def rewrite_booleans(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Compare boolean columns with ``'True'``/``'False'``, including bare ones used as conditions."""
    for node in list(tree.find_all(exp.Boolean)):
        node.replace(exp.Literal.string("True" if node.this else "False"))
    for node in list(tree.find_all(exp.Is)):
        if isinstance(node.expression, exp.Literal):
            node.replace(exp.EQ(this=node.this, expression=node.expression))
    booleans = rendering.target.boolean_columns
    for column in list(tree.find_all(exp.Column)):
        if column.name.lower() not in booleans or not _is_condition(column):
            continue
        if isinstance(column.parent, exp.Not):
            column.parent.replace(exp.EQ(this=column.copy(), expression=exp.Literal.string("False")))
        else:
            column.replace(exp.EQ(this=column.copy(), expression=exp.Literal.string("True")))
    return tree


def rewrite_casts(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Cast only to the types DaCHS takes: INTEGER, BIGINT, SMALLINT, REAL, DOUBLE PRECISION, CHAR, VARCHAR."""
    for cast in tree.find_all(exp.Cast):
        type_name = _CAST_TYPES.get(cast.to.this)
        if type_name is None:
            raise unsupported(f"CAST to {cast.to.sql('postgres')}; cast to INTEGER, DOUBLE PRECISION or VARCHAR")
        cast.set("to", exp.DataType.build(type_name))
    return tree


def rewrite_outer_joins(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Spell LEFT/RIGHT/FULL joins with OUTER, which DaCHS requires."""
    for join in tree.find_all(exp.Join):
        if join.side and not join.kind:
            join.set("kind", "OUTER")
    return tree


def unwrap_set_operands(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Drop parentheses around UNION/INTERSECT/EXCEPT operands; keep ORDER BY/LIMIT ones as derived tables."""
    operands = [
        node
        for node in tree.find_all(exp.Subquery)
        if isinstance(node.parent, exp.SetOperation) and isinstance(node.this, exp.Select)
    ]
    wrapped = 0
    for operand in operands:
        inner = operand.this
        if inner.args.get("order") or inner.args.get("limit"):
            wrapped += 1
            alias = exp.TableAlias(this=exp.to_identifier(f"set_operand_{wrapped}"))
            derived = exp.Subquery(this=inner.copy(), alias=alias)
            operand.replace(exp.select("*").from_(derived))
        else:
            operand.replace(inner.copy())
    return tree


def quote_reserved(tree: exp.Expression, rendering: Rendering) -> exp.Expression:
    """Quote identifiers that ADQL reserves, such as ``value``, ``date`` or ``size``."""
    for identifier in tree.find_all(exp.Identifier):
        if not identifier.quoted and identifier.name.lower() in RESERVED_WORDS:
            identifier.set("this", identifier.name.lower())
            identifier.set("quoted", True)
    return tree


RULES: tuple[Rule, ...] = (
    refuse_unsupported,
    name_computed_columns,
    unfilter_aggregates,
    scalar_subqueries_as_in,
    upload_values,
    qualify_tables,
    qualify_columns,
    rewrite_q3c,
    rewrite_booleans,
    rewrite_casts,
    rewrite_outer_joins,
    unwrap_set_operands,
    quote_reserved,
)
"""The rules in the order `engines.adql.translation.translate` applies them."""


def _schema(rendering: Rendering) -> dict[str, dict[str, dict[str, str]]]:
    """{schema: {table: {column: type}}} of the published tables and the uploads, for sqlglot's qualifier."""
    uploads = {
        name: {column: "double precision" for column in upload.columns} for name, upload in rendering.uploads.items()
    }
    return {rendering.target.schema: rendering.target.columns, UPLOAD_SCHEMA: uploads}


def _missing_table(name: str, target: TapTarget) -> str:
    if name in target.partitions:
        parent, key, values = target.partitions[name]
        if len(values) == 1:
            return f"table {name}; use {target.schema}.{parent} with {key} = '{values[0]}'"
        listed = ", ".join(f"'{value}'" for value in values)
        return f"table {name}; use {target.schema}.{parent} with {key} IN ({listed})"
    if name in {"information_schema", "tables", "columns"}:
        return f"table {name}; list tables with tap_schema.tables"
    return f"table {name} (published: {', '.join(sorted(target.tables))})"


def _literal_table(cte: exp.CTE) -> exp.Values | None:
    """Return the VALUES of ``WITH name AS (VALUES ...)`` (sqlglot reads it as SELECT * FROM (VALUES ...))."""
    body = cte.this
    if isinstance(body, exp.Values):
        return body
    source = body.args.get("from_") if isinstance(body, exp.Select) else None
    is_plain = isinstance(body, exp.Select) and body.is_star and not body.args.get("where")
    if is_plain and source is not None and isinstance(source.this, exp.Values):
        return source.this
    return None


def _literal(value: exp.Expression) -> str | int | float | None:
    if isinstance(value, exp.Neg) and isinstance(value.this, exp.Literal):
        number = _literal(value.this)
        return -number if isinstance(number, int | float) else None
    if isinstance(value, exp.Null):
        return None
    if not isinstance(value, exp.Literal):
        raise unsupported(f"expression {value.sql('postgres')} in VALUES; write literal values only")
    if value.is_string:
        return value.this
    text = str(value.this)
    return int(text) if text.lstrip("-").isdigit() else float(text)


def _point(ra: exp.Expression, dec: exp.Expression) -> exp.Expression:
    return exp.func("POINT", exp.Literal.string("ICRS"), ra.copy(), dec.copy())


def _circle(ra: exp.Expression, dec: exp.Expression, radius: exp.Expression) -> exp.Expression:
    return exp.func("CIRCLE", exp.Literal.string("ICRS"), ra.copy(), dec.copy(), radius.copy())


def _polygon(vertices: exp.Expression) -> exp.Expression:
    if isinstance(vertices, exp.Array):
        return exp.func("POLYGON", exp.Literal.string("ICRS"), *(value.copy() for value in vertices.expressions))
    raise unsupported("q3c_poly_query without an ARRAY[...] of vertices; list them as POLYGON('ICRS', ...)")


def _contains(point: exp.Expression, shape: exp.Expression) -> exp.Expression:
    return exp.EQ(this=exp.func("CONTAINS", point, shape), expression=exp.Literal.number(1))


def _contains_call(point_args: list, center_args: list, radius: exp.Expression) -> exp.Expression:
    return exp.func("CONTAINS", _point(*point_args), _circle(*center_args, radius))


def _is_condition(node: exp.Expression) -> bool:
    parent = node.parent
    while isinstance(parent, exp.Paren):
        node, parent = parent, parent.parent
    if isinstance(parent, exp.Where | exp.Having | exp.And | exp.Or | exp.Not):
        return True
    return (isinstance(parent, exp.Join) and node.arg_key == "on") or (
        isinstance(parent, exp.If) and node.arg_key == "this"
    )
