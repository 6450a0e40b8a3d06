"""The database fingerprint keys the gold cache: it must change whenever the data it identifies changes."""

import psycopg

from engines.postgres import PostgresEngine, PostgresSettings


def run(dsn: str, *statements: str) -> None:
    """Run statements as the superuser and flush this session's table statistics at once."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.execute("SELECT pg_stat_force_next_flush()")


def test_fingerprint_changes_with_the_build_info_row(scratch_database):
    run(
        scratch_database,
        "CREATE SCHEMA meta",
        "CREATE TABLE meta.build_info (scale text, seed integer)",
        "INSERT INTO meta.build_info VALUES ('tiny', 0)",
    )
    settings = PostgresSettings(dsn=scratch_database)
    with PostgresEngine(settings) as executor, PostgresEngine(settings) as engine:
        first, first_other = executor.fingerprint(), engine.fingerprint()
        run(scratch_database, "UPDATE meta.build_info SET seed = 1")
        second, second_other = executor.fingerprint(), engine.fingerprint()
        run(scratch_database, "UPDATE meta.build_info SET seed = 0")
        again = executor.fingerprint()
    assert second != first
    assert again == first
    assert first.startswith("postgres-") and first_other == first
    assert second_other == second


def test_fingerprint_without_build_info_changes_with_the_row_counts(scratch_database):
    run(
        scratch_database,
        "CREATE SCHEMA alerce",
        "CREATE TABLE alerce.object (oid text PRIMARY KEY)",
        "INSERT INTO alerce.object SELECT 'ZTF' || g FROM generate_series(1, 3) g",
    )
    with PostgresEngine(PostgresSettings(dsn=scratch_database)) as executor:
        first = executor.fingerprint()
        run(scratch_database, "INSERT INTO alerce.object SELECT 'ZTF' || g FROM generate_series(4, 5) g")
        grown = executor.fingerprint()
        run(scratch_database, "CREATE TABLE alerce.magstat (oid text)")
        with_table = executor.fingerprint()
    assert len({first, grown, with_table}) == 3


def test_fingerprint_tells_databases_apart(scratch_database, admin_dsn_tiny):
    with (
        PostgresEngine(PostgresSettings(dsn=scratch_database)) as scratch,
        PostgresEngine(PostgresSettings(dsn=admin_dsn_tiny)) as tiny,
    ):
        assert scratch.fingerprint() != tiny.fingerprint()
