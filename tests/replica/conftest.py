"""Two tiny multi-survey databases (seed 0) and one with seed 1, built in the test server, dropped at the end."""

import time
from collections.abc import Iterator

import psycopg
import pytest

from catalog import load_catalog, render_ddl
from db.q3c import install_q3c
from replica.multisurvey import SCHEMA, build

DATABASES = {"ms_test_a": 0, "ms_test_b": 0, "ms_test_seed1": 1}


def _fresh_database(admin_dsn: str, name: str) -> str:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    dsn = psycopg.conninfo.make_conninfo(admin_dsn, dbname=name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        install_q3c(conn)
        conn.execute(render_ddl(load_catalog("multisurvey")))
    return dsn


@pytest.fixture(scope="session")
def multisurvey_builds(admin_dsn_tiny: str) -> Iterator[dict[str, dict]]:
    """Per database: its admin DSN, row counts and build time (tiny scale)."""
    out = {}
    for name, seed in DATABASES.items():
        dsn = _fresh_database(admin_dsn_tiny, name)
        with psycopg.connect(dsn) as conn:
            started = time.monotonic()
            counts = build(conn, scale="tiny", seed=seed)
            out[name] = {"dsn": dsn, "counts": counts, "seconds": time.monotonic() - started}
    yield out
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        for name in DATABASES:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def ms_conn(multisurvey_builds: dict) -> Iterator[psycopg.Connection]:
    """A connection to the first tiny database, search_path on the multi-survey schema."""
    with psycopg.connect(multisurvey_builds["ms_test_a"]["dsn"], autocommit=True) as conn:
        conn.execute(f"SET search_path TO {SCHEMA}, public")
        yield conn
