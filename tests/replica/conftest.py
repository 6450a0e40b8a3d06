"""Tiny multi-survey databases built in the test server, dropped at the end.

Two with seed 0 and one with seed 1, not grounded; one (seed 0) grounded on the project's multi-survey examples and
two copies of them with every literal redrawn (``GROUNDED_SEEDS``).
"""

import csv
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from benchmarks.perturbed_golds import perturb
from catalog import load_catalog, render_ddl
from db.q3c import install_q3c
from replica.replicas import build_replica

SCHEMA = load_catalog("multisurvey").schema

DATABASES = {"ms_test_a": 0, "ms_test_b": 0, "ms_test_seed1": 1}
GROUNDED = "ms_test_grounded"
GROUNDED_SEEDS = (1, 2)
"""Seeds of the two perturbed copies of the examples the grounded database is also grounded on."""
EXAMPLES_CSV = Path(__file__).resolve().parents[2] / "data" / "examples" / "multisurvey_examples.csv"


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
            counts = build_replica(conn, catalog="multisurvey", scale="tiny", seed=seed)
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


def example_golds() -> list[str]:
    """The gold SQL of the project's multi-survey examples, in file order."""
    with EXAMPLES_CSV.open(encoding="utf-8", newline="") as handle:
        return [row["gold_query"].strip().rstrip(";") for row in csv.DictReader(handle)]


@pytest.fixture(scope="session")
def grounded_queries() -> list[str]:
    """The examples' golds, then each perturbed copy (``GROUNDED_SEEDS``)."""
    golds = example_golds()
    return golds + [perturb(sql, seed, "multisurvey") for seed in GROUNDED_SEEDS for sql in golds]


@pytest.fixture(scope="session")
def ms_grounded(admin_dsn_tiny: str, grounded_queries: list[str]) -> Iterator[dict]:
    """A tiny multi-survey database (seed 0) grounded on ``grounded_queries``: its admin DSN and build time."""
    dsn = _fresh_database(admin_dsn_tiny, GROUNDED)
    with psycopg.connect(dsn) as conn:
        started = time.monotonic()
        build_replica(conn, catalog="multisurvey", scale="tiny", seed=0, ground=grounded_queries)
        seconds = time.monotonic() - started
    yield {"dsn": dsn, "seconds": seconds}
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {GROUNDED} WITH (FORCE)")


@pytest.fixture(scope="session")
def grounded_conn(ms_grounded: dict) -> Iterator[psycopg.Connection]:
    """A connection to the grounded database, search_path on the multi-survey schema."""
    with psycopg.connect(ms_grounded["dsn"], autocommit=True) as conn:
        conn.execute(f"SET search_path TO {SCHEMA}, public")
        yield conn
