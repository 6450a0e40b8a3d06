"""Pooled connections after a rebuild: a database dropped and made again, or one whose search_path misses the
catalog's schema, is queried by bare table names on the next query, not after a restart."""

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from engines.errors import DatabaseUnavailable, ExecutionError
from engines.postgres import PostgresEngine, PostgresSettings

CATALOG_SQL = (
    "CREATE SCHEMA alerce",
    "CREATE TABLE alerce.object (oid text PRIMARY KEY, meanra float8, meandec float8, ndet integer)",
    "INSERT INTO alerce.object SELECT 'ZTF' || g, g, -g, g FROM generate_series(1, %d) g",
)


def build(dsn: str, objects: int) -> None:
    """Make the catalog's schema the way a rebuild does, before the database's search_path is set (never here)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for statement in CATALOG_SQL:
            conn.execute(statement.replace("%d", str(objects)))


def recreate(database_dsn: str) -> None:
    """Drop the database under its users (as ``db up`` rebuilds one) and make it again, empty."""
    name = conninfo_to_dict(database_dsn)["dbname"]
    with psycopg.connect(make_conninfo(database_dsn, dbname="postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def count(engine: PostgresEngine) -> int:
    return int(engine.execute("SELECT count(*) AS n FROM object").frame["n"][0])


def test_bare_names_resolve_where_no_role_puts_the_schema_in_its_search_path(scratch_database):
    build(scratch_database, 3)
    with PostgresEngine(PostgresSettings(dsn=scratch_database, timeout_s=5, connect_timeout_s=5)) as engine:
        assert count(engine) == 3
        assert engine.fingerprint().startswith("postgres-")  # never waits on a connection the check refused


def test_the_next_query_after_a_rebuild_succeeds_on_the_new_database(scratch_database):
    build(scratch_database, 3)
    settings = PostgresSettings(dsn=scratch_database, timeout_s=5, connect_timeout_s=5, pool_size=2)
    with PostgresEngine(settings) as engine:
        assert count(engine) == 3
        recreate(scratch_database)
        with pytest.raises(ExecutionError, match="object"):  # the database is empty: said so, not a stale answer
            count(engine)
        build(scratch_database, 5)
        assert count(engine) == 5
        assert engine.pool_stats()["pool_size"] <= 2  # dead connections were replaced, not added to


def test_a_dropped_database_is_unavailable_until_it_is_back(scratch_database):
    build(scratch_database, 2)
    with PostgresEngine(PostgresSettings(dsn=scratch_database, timeout_s=5, connect_timeout_s=2)) as engine:
        assert count(engine) == 2
        name = conninfo_to_dict(scratch_database)["dbname"]
        with psycopg.connect(make_conninfo(scratch_database, dbname="postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
            with pytest.raises(DatabaseUnavailable):
                count(engine)
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        build(scratch_database, 4)
        assert count(engine) == 4
