"""The DaCHS resource descriptor (and the plain DDL behind it) that publishes a catalog's TAP tables.

An array column (``ztf.taxonomy.classes``, ``varchar[]``) is published as text holding a JSON array
(``["SNIa","SNIbc"]``): DaCHS declares a ``text[]`` column as ``char`` with arraysize ``*x*``, which no astropy or
pyvo parser reads (the table set, ``for t in svc.tables``, stops at it, and so does every VOTable result holding
it), while a text column is a plain ``char`` ``*`` that TOPCAT, pyvo and the CSV output all carry.
"""

from xml.sax.saxutils import escape, quoteattr

from catalog.model import Catalog, Column, Table

__all__ = [
    "JSON_ARRAY_NOTE",
    "array_columns",
    "copy_expression",
    "is_array",
    "rd_id",
    "render_index_ddl",
    "render_rd",
    "render_tables_ddl",
]

_DACHS_TYPES = {"varchar": "text", "": "text"}  # DaCHS takes varchar for one string (char, arraysize *)
JSON_ARRAY_NOTE = "(a JSON array of strings on this TAP service)"
"""Said after an array column's description in the resource descriptor (TAP_SCHEMA and the VOTable FIELDs)."""


def rd_id(catalog: Catalog) -> str:
    """Return the DaCHS id of the catalog's resource descriptor, ``<tap schema>/q``."""
    return f"{catalog.tap_schema}/q"


def render_tables_ddl(catalog: Catalog) -> str:
    """Render plain tables (no partitions, no foreign keys) in the catalog's TAP schema."""
    schema = catalog.tap_schema
    statements = [f"CREATE SCHEMA IF NOT EXISTS {schema};"]
    for table in catalog.tap_tables:
        columns = ",\n".join(f"    {column.name} {_dachs_type(column)}" for column in table.columns)
        statements.append(f"CREATE TABLE {schema}.{table.name} (\n{columns}\n);")
    return "\n".join(statements) + "\n"


def render_index_ddl(catalog: Catalog) -> str:
    """Render the oid and q3c indexes, created after the rows are copied."""
    statements = []
    for table in catalog.tap_tables:
        if "oid" in table.column_names:
            statements.append(f"CREATE INDEX ON {catalog.tap_schema}.{table.name} (oid);")
        if table.name in catalog.positions:
            ra, dec = catalog.positions[table.name]
            statements.append(f"CREATE INDEX ON {catalog.tap_schema}.{table.name} (q3c_ang2ipix({ra}, {dec}));")
    return "\n".join(statements) + "\n"


def render_rd(catalog: Catalog) -> str:
    """Render the resource descriptor: one ADQL table per published table, columns described from the catalog."""
    tables = "\n".join(_table_xml(table, catalog.positions.get(table.name)) for table in catalog.tap_tables)
    makes = "\n".join(f'    <make table="{table.name}"/>' for table in catalog.tap_tables)
    return f"""<resource schema="{catalog.tap_schema}">
  <meta name="title">{escape(catalog.title)}</meta>
  <meta name="description">{escape(catalog.description)}</meta>
  <meta name="creationDate">2026-01-01T00:00:00Z</meta>
  <meta name="subject">transients</meta>
  <meta name="creator.name">alerce-t2s</meta>
{tables}
  <data id="import" updating="True">
{makes}
  </data>
</resource>
"""


def _table_xml(table: Table, position: tuple[str, str] | None) -> str:
    lines = [f'  <table id="{table.name}" onDisk="True" adql="True">']
    lines.append(f'    <meta name="description">{escape(table.description)}</meta>')
    if position is not None:  # declared so that DaCHS turns CONTAINS into q3c_join, as on the service
        ra, dec = position
        lines.append(f'    <index columns="{ra},{dec}" kind="q3c" metaOnly="True">q3c_ang2ipix({ra}, {dec})</index>')
    for column in table.columns:
        text = column.description or column.name
        description = quoteattr(f"{text} {JSON_ARRAY_NOTE}" if is_array(column) else text)
        unit = f" unit={quoteattr(column.unit)}" if column.unit else ""
        ucd = f" ucd={quoteattr(column.ucd)}" if column.ucd else ""
        kind = _dachs_type(column)
        lines.append(f'    <column name="{column.name}" type="{kind}"{unit}{ucd} description={description}/>')
    lines.append("  </table>")
    return "\n".join(lines)


def is_array(column: Column) -> bool:
    """Tell whether the column holds an array (published as JSON text)."""
    return column.sql_type.endswith("[]")


def array_columns(catalog: Catalog) -> frozenset[str]:
    """The names of the catalog's array columns, in any of its tables."""
    return frozenset(column.name for table in catalog.tables for column in table.columns if is_array(column))


def copy_expression(column: Column) -> str:
    """The expression that reads the column from the catalog's own database as the TAP table stores it.

    Examples:
        >>> copy_expression(Column("classes", "ARRAY", "varchar[]", nullable=False, description=""))
        'to_json(classes)::text'
    """
    return f"to_json({column.name})::text" if is_array(column) else column.name


def _dachs_type(column: Column) -> str:
    return "text" if is_array(column) else _DACHS_TYPES.get(column.sql_type, column.sql_type)
