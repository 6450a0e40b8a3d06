"""The DaCHS resource descriptor (and the plain DDL behind it) that publishes a catalog's TAP tables."""

from xml.sax.saxutils import escape, quoteattr

from catalog.model import Catalog, Table

__all__ = ["rd_id", "render_index_ddl", "render_rd", "render_tables_ddl"]

# DaCHS takes varchar[] for one string (char, arraysize *); text[] is published as the array of strings it is.
_DACHS_TYPES = {"varchar": "text", "": "text", "varchar[]": "text[]"}


def rd_id(catalog: Catalog) -> str:
    """Return the DaCHS id of the catalog's resource descriptor, ``<tap schema>/q``."""
    return f"{catalog.tap_schema}/q"


def render_tables_ddl(catalog: Catalog) -> str:
    """Render plain tables (no partitions, no foreign keys) in the catalog's TAP schema."""
    schema = catalog.tap_schema
    statements = [f"CREATE SCHEMA IF NOT EXISTS {schema};"]
    for table in catalog.tap_tables:
        columns = ",\n".join(f"    {column.name} {_sql_type(column.sql_type)}" for column in table.columns)
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
        description = quoteattr(column.description or column.name)
        unit = f" unit={quoteattr(column.unit)}" if column.unit else ""
        ucd = f" ucd={quoteattr(column.ucd)}" if column.ucd else ""
        kind = _sql_type(column.sql_type)
        lines.append(f'    <column name="{column.name}" type="{kind}"{unit}{ucd} description={description}/>')
    lines.append("  </table>")
    return "\n".join(lines)


def _sql_type(sql_type: str) -> str:
    return _DACHS_TYPES.get(sql_type, sql_type)
