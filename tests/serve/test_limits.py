"""Limits: questions queued per client and in all, waits that hold no thread, fair and honest busy queries, bytes
kept and sent, chunked bodies."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from fastapi.testclient import TestClient

from serve import WorkbenchError, create_app
from tests.serve.conftest import SLOW_SQL, make_bench, serving, waiting_bench

BIG_SQL = "SELECT repeat('x', 100000) || g AS x FROM generate_series(1, 20) g"
"""About 2 MB of rows."""


def client_at(app, address: str) -> TestClient:
    """A test client of `app` whose requests come from `address`, for 127.0.0.1."""
    return TestClient(app, base_url="http://127.0.0.1:8000", client=(address, 50000))


@pytest.fixture
def held(tiny_dsn):
    """A one-at-a-time workbench whose model holds every question until `release` is set."""
    release = threading.Event()
    bench = waiting_bench(tiny_dsn, lambda: release.wait(60), one_at_a_time=True, max_queued=3, max_queued_per_client=2)
    yield bench, release
    release.set()
    bench.close()


def test_questions_are_capped_per_client_and_in_all(held):
    bench, release = held
    app = create_app(bench)
    with client_at(app, "127.0.0.1") as first, client_at(app, "127.0.0.2") as second:
        assert [first.post("/jobs", data={"question": f"{n}?"}).status_code for n in range(2)] == [200, 200]
        mine = first.post("/jobs", data={"question": "third?"})
        assert mine.status_code == 429 and int(mine.headers["retry-after"]) >= 1
        assert mine.json()["kind"] == "too_many_requests" and "you have 2 in the queue" in mine.json()["error"]
        assert second.post("/jobs", data={"question": "mine?"}).status_code == 200
        everyone = second.post("/api/ask", json={"question": "and this?"})
        assert everyone.status_code == 429 and "3 are in the queue" in everyone.json()["error"]
        release.set()


def test_waiting_questions_hold_no_thread(tiny_dsn):
    release = threading.Event()
    settings = {"one_at_a_time": True, "max_queued": 60, "max_queued_per_client": 60}
    bench = waiting_bench(tiny_dsn, lambda: release.wait(120), **settings)
    try:
        with serving(bench) as url, ThreadPoolExecutor(max_workers=45) as pool:
            asks = [
                pool.submit(httpx.post, f"{url}/api/ask", json={"question": f"{n}?"}, timeout=180) for n in range(45)
            ]
            deadline = time.monotonic() + 30
            while bench.queue.length < 45 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert bench.queue.length == 45
            started = time.monotonic()
            assert httpx.get(f"{url}/api/health", timeout=5).json()["queue_length"] == 45
            assert httpx.post(f"{url}/api/run-sql", json={"sql": "SELECT 1 AS n"}, timeout=5).status_code == 200
            assert time.monotonic() - started < 2
            release.set()
            assert {ask.result().status_code for ask in asks} == {200}
    finally:
        release.set()
        bench.close()


def test_a_client_never_takes_every_connection_and_busy_is_not_down(tiny_dsn):
    bench = make_bench(tiny_dsn, timeout_s=4, busy_wait_s=0.5)  # a pool of 2 connections
    app = create_app(bench)
    try:
        with client_at(app, "127.0.0.1") as hog, client_at(app, "127.0.0.2") as other, ThreadPoolExecutor(5) as pool:
            slow = [pool.submit(hog.post, "/api/run-sql", json={"sql": SLOW_SQL}) for _ in range(5)]
            time.sleep(1)
            busy = hog.post("/api/run-sql", json={"sql": "SELECT 1 AS n"})
            assert other.post("/api/run-sql", json={"sql": "SELECT 1 AS n"}).json()["rows"] == [[1]]
            statuses = sorted(query.result().status_code for query in slow)
        assert busy.status_code == 503 and busy.json()["kind"] == "busy" and int(busy.headers["retry-after"]) >= 1
        assert "busy" in busy.json()["error"] and "db up" not in busy.json()["error"]
        assert statuses == [503, 503, 503, 503, 504]  # one ran to its time limit, the others were turned away
    finally:
        bench.close()


def test_kept_answers_fit_their_byte_budget(tiny_dsn):
    bench = make_bench(tiny_dsn, max_kept_bytes=7_000_000)
    try:
        ids = [bench.run_sql(BIG_SQL).id for _ in range(5)]
        assert 4_000_000 < bench.store.size_bytes <= 7_000_000
        with pytest.raises(WorkbenchError, match="dropped for newer ones"):
            bench.record(ids[0])
        assert len(bench.record(ids[-1]).answer.frame) == 20
    finally:
        bench.close()


def test_api_responses_are_capped_in_bytes(tiny_dsn):
    bench = make_bench(tiny_dsn, max_response_bytes=500_000)
    try:
        with client_at(create_app(bench), "127.0.0.1") as client:
            body = client.post("/api/run-sql", json={"sql": BIG_SQL}).json()
    finally:
        bench.close()
    assert len(body["rows"]) == 4 and body["row_count"] == 20 and body["truncated"] is True


def test_a_chunked_body_over_the_cap_is_413_with_one_line(client):
    def chunks():
        for _ in range(70):
            yield b"x" * 1_000

    refused = client.post("/api/ask", content=chunks(), headers={"Content-Type": "application/json"})
    assert refused.status_code == 413
    assert refused.json() == {"error": "the request is over the limit of 64,000 bytes", "kind": "too_large", "sql": ""}
