"""A throwaway database per test on the test server, for tests that write the data they then read."""

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo


@pytest.fixture
def scratch_database(admin_dsn_tiny: str) -> Iterator[str]:
    """Superuser DSN of an empty database on the test server, dropped after the test."""
    name = f"scratch_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_conninfo(admin_dsn_tiny, dbname=name)
    finally:
        with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
