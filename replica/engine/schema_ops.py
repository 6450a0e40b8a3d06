"""Schema-wide steps around a bulk load: empty the tables and drop secondary indexes; then index, analyze, count.

Both replicas (the ZTF one in schema alerce, the multi-survey one in alerce_tap) load through them.
"""

import logging

import psycopg
from psycopg import sql

__all__ = ["analyze", "create_indexes", "prepare", "row_counts"]

log = logging.getLogger(__name__)

_SECONDARY_INDEXES = """
SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = %s
WHERE c.relkind IN ('i', 'I')
  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)
  AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = c.oid)
ORDER BY 1
"""
_UNPARTITIONED_TABLES = """
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1
"""


def _tables(conn: psycopg.Connection, schema: str) -> list[str]:
    rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY 1", (schema,)).fetchall()
    return [row[0] for row in rows]


def prepare(conn: psycopg.Connection, schema: str) -> list[tuple[str, str]]:
    """Empty the schema's tables, drop its secondary indexes and switch foreign-key triggers off if allowed.

    Returns:
        (name, definition) of the dropped indexes, to create again after the load.
    """
    tables = _tables(conn, schema)
    if tables:
        names = sql.SQL(", ").join(sql.Identifier(schema, table) for table in tables)
        conn.execute(sql.SQL("TRUNCATE {} CASCADE").format(names))
    indexes = conn.execute(_SECONDARY_INDEXES, (schema,)).fetchall()
    for name, _ in indexes:
        conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(schema, name)))
    try:
        with conn.transaction():
            conn.execute("SET session_replication_role = replica")
    except psycopg.Error:
        log.info("cannot disable foreign-key triggers (not a superuser); loading with checks")
    return [(name, definition) for name, definition in indexes]


def create_indexes(conn: psycopg.Connection, indexes: list[tuple[str, str]]) -> None:
    """Create again the indexes `prepare` dropped, from their (name, definition) pairs."""
    for _, definition in indexes:
        conn.execute(definition)


def analyze(conn: psycopg.Connection) -> None:
    """ANALYZE the database (outside a transaction)."""
    was_autocommit = conn.autocommit
    conn.autocommit = True
    try:
        conn.execute("ANALYZE")
    finally:
        conn.autocommit = was_autocommit


def row_counts(conn: psycopg.Connection, schema: str) -> dict[str, int]:
    """Return the number of rows of each table of the schema (a partitioned table counts its partitions' rows)."""
    query = sql.SQL("SELECT count(*) FROM {}")
    tables = [row[0] for row in conn.execute(_UNPARTITIONED_TABLES, (schema,)).fetchall()]
    return {table: conn.execute(query.format(sql.Identifier(schema, table))).fetchone()[0] for table in tables}
