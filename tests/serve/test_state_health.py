"""``/api/health`` tells the truth: a query on the catalog, the store and the queue (depth, workers alive) apart;
a database rebuilt under a running workbench is unavailable until it is back, then the next query succeeds."""

from __future__ import annotations

import asyncio
import time
import uuid

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from serve.health import EngineHealth
from serve.state import keys
from tests.engines.test_postgres_rebuild import build, recreate
from tests.serve.conftest import client_of
from tests.serve.state_benches import open_shared, working


@pytest.fixture
def store_database(admin_dsn_tiny):
    name = f"state_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_conninfo(admin_dsn_tiny, dbname=name)
    finally:
        with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def bench(scratch_database, store_database, tmp_path, monkeypatch):
    monkeypatch.delenv(keys.KEY_ENV, raising=False)
    build(scratch_database, 3)
    with psycopg.connect(scratch_database, autocommit=True) as conn:
        conn.execute("CREATE TABLE alerce.step (step_id text)")  # the table the health query reads
    shared = open_shared(scratch_database, store_database, tmp_path / "session.key")
    try:
        yield shared
    finally:
        shared.close()


def test_health_reports_the_store_the_queue_and_the_engine_apart(bench):
    with client_of(bench) as client:
        without_worker = client.get("/api/health").json()
        with working(bench):
            deadline = time.monotonic() + 20
            while (with_worker := client.get("/api/health").json())["workers_alive"] == 0:
                assert time.monotonic() < deadline, "the worker never said it was alive"
                time.sleep(0.2)
    assert without_worker["status"] == "unavailable" and without_worker["workers_alive"] == 0
    assert without_worker["engine_error"] is None and without_worker["store"] == "ok"
    assert with_worker["status"] == "ok" and with_worker["workers_alive"] == 1
    assert with_worker["queue_depth"] == 0 and with_worker["store_error"] is None


def test_a_rebuild_under_a_running_workbench_is_unavailable_until_back_then_answers(bench, scratch_database):
    health = EngineHealth(bench.engine.inner, every_s=0)
    with client_of(bench) as client:
        assert client.post("/api/run-sql", json={"sql": "SELECT count(*) AS n FROM object"}).status_code == 200
        assert asyncio.run(health.problem()) is None
        recreate(scratch_database)  # dropped under the workbench's connections, made again empty
        problem = asyncio.run(health.problem())
        assert problem is not None and "step" in problem
        with psycopg.connect(scratch_database, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA alerce")
            conn.execute("CREATE TABLE alerce.step (step_id text)")
            conn.execute("CREATE TABLE alerce.object (oid text, meanra float8, meandec float8, ndet integer)")
            conn.execute("INSERT INTO alerce.object VALUES ('ZTF1', 1, 1, 1), ('ZTF2', 2, 2, 2)")
        assert asyncio.run(health.problem()) is None
        again = client.post("/api/run-sql", json={"sql": "SELECT count(*) AS n FROM object"})
    assert again.status_code == 200 and again.json()["rows"] == [[2]]
