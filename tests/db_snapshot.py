"""A comparable snapshot of a database's contents, shared by tests/db and tests/security."""

import psycopg

__all__ = ["snapshot"]

SNAPSHOT_SQL = """
SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%'
ORDER BY 1, 2
"""


def snapshot(admin_dsn: str) -> dict[str, object]:
    """Row count and an order-independent checksum of every alerce table, plus relations, roles, large objects."""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'alerce' AND c.relkind = 'r' ORDER BY 1"
            )
        ]
        state: dict[str, object] = {
            name: conn.execute(
                f"SELECT count(*), coalesce(sum(hashtext(t::text)::bigint), 0) FROM alerce.{name} t"
            ).fetchone()
            for name in tables
        }
        state["relations"] = conn.execute(SNAPSHOT_SQL).fetchall()
        state["roles"] = conn.execute("SELECT rolname, rolsuper FROM pg_roles ORDER BY 1").fetchall()
        state["large_objects"] = conn.execute("SELECT count(*) FROM pg_largeobject_metadata").fetchone()
    return state
