"""The DaCHS resource descriptor that publishes the catalog's tables as schema ``ztf``, rendered from the catalog."""

from xml.sax.saxutils import escape, quoteattr

from catalog import Catalog, Table

__all__ = ["RD_ID", "TAP_SCHEMA", "render_rd", "render_tables_ddl", "tap_tables"]

TAP_SCHEMA = "ztf"
RD_ID = f"{TAP_SCHEMA}/q"
# Tables ALeRCE publishes in ztf on its TAP service (step, pipeline and the classifier partitions are not).
_PUBLISHED = (
    "object",
    "taxonomy",
    "probability",
    "feature_version",
    "feature",
    "xmatch",
    "allwise",
    "magstat",
    "non_detection",
    "detection",
    "dataquality",
    "gaia_ztf",
    "ss_ztf",
    "ps1_ztf",
    "reference",
    "forced_photometry",
)
_DACHS_TYPES = {"varchar": "text", "": "text"}
# Positions with a q3c index, as on the service, so DaCHS turns CONTAINS into q3c_join.
_POSITIONS = {"object": ("meanra", "meandec"), "allwise": ("ra", "dec")}


def tap_tables(catalog: Catalog) -> list[Table]:
    """Return the catalog's tables that the TAP service publishes, in catalog order."""
    return [table for table in catalog.tables if table.name in _PUBLISHED]


def render_tables_ddl(catalog: Catalog) -> str:
    """Render plain tables (no partitions, no foreign keys) for schema ztf, with oid and position indexes."""
    statements = [f"CREATE SCHEMA IF NOT EXISTS {TAP_SCHEMA};"]
    for table in tap_tables(catalog):
        columns = ",\n".join(f"    {column.name} {_sql_type(column.sql_type)}" for column in table.columns)
        statements.append(f"CREATE TABLE {TAP_SCHEMA}.{table.name} (\n{columns}\n);")
    return "\n".join(statements) + "\n"


def render_index_ddl(catalog: Catalog) -> str:
    """Render the oid and q3c indexes, created after the rows are copied."""
    statements = []
    for table in tap_tables(catalog):
        if "oid" in table.column_names:
            statements.append(f"CREATE INDEX ON {TAP_SCHEMA}.{table.name} (oid);")
        if table.name in _POSITIONS:
            ra, dec = _POSITIONS[table.name]
            statements.append(f"CREATE INDEX ON {TAP_SCHEMA}.{table.name} (q3c_ang2ipix({ra}, {dec}));")
    return "\n".join(statements) + "\n"


def render_rd(catalog: Catalog) -> str:
    """Render the resource descriptor: one ADQL table per published table, columns described from the catalog."""
    tables = "\n".join(_table_xml(table) for table in tap_tables(catalog))
    makes = "\n".join(f'    <make table="{table.name}"/>' for table in tap_tables(catalog))
    return f"""<resource schema="{TAP_SCHEMA}">
  <meta name="title">ALeRCE ZTF alerts (local synthetic copy)</meta>
  <meta name="description">The embedded synthetic ALeRCE database, published like ALeRCE's TAP service.</meta>
  <meta name="creationDate">2026-01-01T00:00:00Z</meta>
  <meta name="subject">transients</meta>
  <meta name="creator.name">alerce-t2s</meta>
{tables}
  <data id="import" updating="True">
{makes}
  </data>
</resource>
"""


def _table_xml(table: Table) -> str:
    lines = [f'  <table id="{table.name}" onDisk="True" adql="True">']
    lines.append(f'    <meta name="description">{escape(table.description)}</meta>')
    if table.name in _POSITIONS:
        ra, dec = _POSITIONS[table.name]
        lines.append(f'    <index columns="{ra},{dec}" kind="q3c" metaOnly="True">q3c_ang2ipix({ra}, {dec})</index>')
    for column in table.columns:
        description = quoteattr(column.description or column.name)
        unit = f" unit={quoteattr(column.unit)}" if column.unit else ""
        lines.append(
            f'    <column name="{column.name}" type="{_sql_type(column.sql_type)}"{unit} description={description}/>'
        )
    lines.append("  </table>")
    return "\n".join(lines)


def _sql_type(sql_type: str) -> str:
    return _DACHS_TYPES.get(sql_type, sql_type)
