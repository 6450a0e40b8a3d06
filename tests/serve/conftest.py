"""A workbench over the tiny embedded database with a scripted fake LM, its app, and the app served by uvicorn."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import dspy
import pytest
import uvicorn
from fastapi.testclient import TestClient

from defaults.catalog import DEFAULT_CATALOG
from engines import EngineSettings
from lms.fake import EXPLANATION, fake_lm, render_answer
from modules.settings import ProgramSettings
from serve import ServeSettings, Workbench, create_app
from serve.connections import uvicorn_config
from serve.workbench import open_workbench
from tests.answering.scripts import scripted_lm
from tests.conftest import free_port

POSITIONS_SQL = "SELECT oid, meanra, meandec, ndet FROM object ORDER BY oid LIMIT 120"
"""What the fake LM writes: 120 objects with positions, so the table has pages and the sky plot has points."""
SLOW_SQL = "SELECT count(*) AS n FROM detection a, detection b, detection c, detection d"
"""A query that runs for minutes on the tiny database: it holds a connection until its timeout."""
OTHER_READING_SQL = "SELECT oid, meanra, meandec, ndet FROM object ORDER BY oid LIMIT 60"
"""What the step-by-step candidate of `make_disagreeing_bench` writes instead."""
_FIELDS = {"tables": {"tables": ["object"]}, "columns": {"columns": {"object": ["oid"]}}}
_FIELDS |= {"difficulty": {"difficulty": "simple"}, "explanation": EXPLANATION}


def make_bench(
    dsn: str,
    sql: str = POSITIONS_SQL,
    lm: dspy.LM | None = None,
    *,
    timeout_s: float = 30.0,
    catalog: str = DEFAULT_CATALOG,
    **settings: object,
) -> Workbench:
    """Build a workbench whose program answers every question with `sql` (or with `lm`) on the catalog's `dsn`,
    each query limited to `timeout_s`."""
    return open_bench(dsn, lm or scripted_lm(sql), timeout_s=timeout_s, catalog=catalog, **settings)


def waiting_bench(dsn: str, wait: Callable[[], object], **settings: object) -> Workbench:
    """A workbench whose generation call runs `wait()` before answering ``SELECT 1 AS n``."""

    def answer(call):
        if call.stage == "direct":
            wait()
        return render_answer(_FIELDS.get(call.stage, {"sql": "SELECT 1 AS n"}))

    return open_bench(dsn, fake_lm(answer), **settings)


def open_bench(
    dsn: str, lm: dspy.LM, *, timeout_s: float = 30.0, catalog: str = DEFAULT_CATALOG, **settings: object
) -> Workbench:
    """Open a workbench on the catalog's `dsn` whose uncompiled program asks `lm`, as ``python -m serve`` opens
    one."""
    engine = EngineSettings(dsn=dsn, timeout_s=timeout_s, catalog=catalog)
    program = ProgramSettings(uncompiled=True)
    return open_workbench("fake/scripted", ServeSettings(**settings), program=program, engine=engine, lm=lm)


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


@contextlib.contextmanager
def serving(bench: Workbench) -> Iterator[str]:
    """Serve the workbench's app with uvicorn on a free loopback port, in a thread; yield its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn_config(create_app(bench), bench.settings, port=port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        started = time.monotonic()
        while not server.started:
            assert thread.is_alive() and time.monotonic() - started < 20, "uvicorn did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def requests_outside(urls: list[str], base_url: str) -> list[str]:
    """The URLs of `urls` that leave the workbench at `base_url` (``data:`` and the page's own ``blob:`` stay)."""
    origin = urlsplit(base_url).netloc
    inner = [url.removeprefix("blob:") for url in urls if urlsplit(url).scheme != "data"]
    return [url for url in inner if urlsplit(url).netloc != origin]


def flooding_answer(call) -> str:
    """Questions that say "slow" get SLOW_SQL (and so do their corrections), the others ``SELECT 1 AS n``."""
    slow = "slow" in call.user.lower()
    fields = {"tables": {"tables": ["object"]}, "columns": {"columns": {"object": ["oid"]}}}
    fields |= {"difficulty": {"difficulty": "simple"}, "explanation": EXPLANATION}
    return render_answer(fields.get(call.stage, {"sql": SLOW_SQL if slow else "SELECT 1 AS n"}))


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium, for a module's page tests (a module may define its own ``page``)."""
    from playwright.sync_api import sync_playwright

    from tests.serve.test_browser import chromium_path

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser):
    """A page of a fresh browser context, 1280 x 900, that waits 30 s at most for anything."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    try:
        yield context.new_page()
    finally:
        context.close()
