"""A workbench over the tiny embedded database with a scripted fake LM, and its app."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import dspy
import pytest
from fastapi.testclient import TestClient

from answering import load
from engines import EngineSettings
from lms.fake import EXPLANATION, fake_lm, render_answer
from modules.settings import ProgramSettings
from serve import ServeSettings, Workbench, create_app
from tests.answering.scripts import scripted_lm

POSITIONS_SQL = "SELECT oid, meanra, meandec, ndet FROM object ORDER BY oid LIMIT 120"
"""What the fake LM writes: 120 objects with positions, so the table has pages and the sky plot has points."""
OTHER_READING_SQL = "SELECT oid, meanra, meandec, ndet FROM object ORDER BY oid LIMIT 60"
"""What the step-by-step candidate of `make_disagreeing_bench` writes instead."""


def make_bench(
    dsn: str, sql: str = POSITIONS_SQL, lm: dspy.LM | None = None, *, catalog: str = "ztf", **settings: object
) -> Workbench:
    """Build a workbench whose program answers every question with `sql` (or with `lm`), on the catalog's `dsn`."""
    lm = lm or scripted_lm(sql)
    engine = EngineSettings(dsn=dsn, catalog=catalog)
    t2s = load("fake/scripted", program=ProgramSettings(uncompiled=True), engine=engine, lm=lm)
    return Workbench(t2s, ServeSettings(**settings), model="fake/scripted")


def disagreeing_answer(call) -> str:
    """Two of three candidates write POSITIONS_SQL, the step-by-step one OTHER_READING_SQL; the selector keeps the
    first; the other stages answer as `scripted_lm` does."""
    if "choice" in call.output_fields:
        return render_answer(
            {"choice": "first" if call.inputs["first_sql"] == POSITIONS_SQL else "second", "reason": "r"}
        )
    if "reasoning" in call.output_fields:
        return render_answer({"reasoning": "r", "sql": OTHER_READING_SQL})
    fields = {
        "tables": {"tables": ["object"]},
        "columns": {"columns": {"object": ["oid"]}},
        "difficulty": {"difficulty": "simple"},
        "explanation": EXPLANATION,
    }
    return render_answer(fields.get(call.stage, {"sql": POSITIONS_SQL}))


def make_disagreeing_bench(dsn: str) -> Workbench:
    """Build a workbench whose three candidates disagree (2 to 1, below the 0.9 agreement asked for)."""
    bench = make_bench(dsn, lm=fake_lm(disagreeing_answer))
    program = bench.t2s.program
    program.settings = dataclasses.replace(program.settings, candidates=3, min_agreement=0.9)
    return bench


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
