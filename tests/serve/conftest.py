"""A workbench over the tiny embedded database with a scripted fake LM, and its app."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from answering import load
from engines import EngineSettings
from modules.settings import ProgramSettings
from serve import ServeSettings, Workbench, create_app
from tests.answering.scripts import scripted_lm

POSITIONS_SQL = "SELECT oid, meanra, meandec, ndet FROM object ORDER BY oid LIMIT 120"
"""What the fake LM writes: 120 objects with positions, so the table has pages and the sky plot has points."""


def make_bench(dsn: str, sql: str = POSITIONS_SQL, **settings: object) -> Workbench:
    """Build a workbench whose program answers every question with `sql`."""
    t2s = load(
        "fake/scripted", program=ProgramSettings(uncompiled=True), engine=EngineSettings(dsn=dsn), lm=scripted_lm(sql)
    )
    return Workbench(t2s, ServeSettings(**settings), model="fake/scripted")


@pytest.fixture
def bench(tiny_dsn: str) -> Iterator[Workbench]:
    """A workbench with default limits."""
    workbench = make_bench(tiny_dsn)
    try:
        yield workbench
    finally:
        workbench.close()


def client_of(bench: Workbench, **options: object) -> TestClient:
    """A test client of the workbench's app, asking for 127.0.0.1 like a browser on this machine."""
    return TestClient(create_app(bench), base_url="http://127.0.0.1:8000", **options)


@pytest.fixture
def client(bench: Workbench) -> Iterator[TestClient]:
    """A test client of the workbench's app."""
    with client_of(bench) as test_client:
        yield test_client
