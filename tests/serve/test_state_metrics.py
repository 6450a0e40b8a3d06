"""``/metrics``: requests by route and status, stage latency, LM tokens and cost by model, queue, pools and engine
errors by kind, counted over every process by the state database; off on a public host unless a token is given."""

from __future__ import annotations

import dataclasses

import pytest

from lms.fake import fake_lm
from serve.app import create_app
from serve.state import keys
from tests.answering.scripts import scripted_lm
from tests.serve.conftest import POSITIONS_SQL, client_of
from tests.serve.state_benches import open_shared, working

METRICS_TOKEN = "m" * 32
ACCESS_TOKEN = "a" * 32


@pytest.fixture
def bench(tiny_dsn, scratch_database, tmp_path, monkeypatch):
    monkeypatch.delenv(keys.KEY_ENV, raising=False)
    counted = fake_lm(scripted_lm(POSITIONS_SQL).engine_obj.fn, count_tokens=lambda text: len(text.split()))
    shared = open_shared(tiny_dsn, scratch_database, tmp_path / "session.key", counted)
    try:
        yield shared
    finally:
        shared.close()


def test_metrics_count_requests_stages_tokens_queue_pools_and_engine_errors(bench):
    with client_of(bench) as client, working(bench):
        assert client.post("/api/run-sql", json={"sql": "SELECT 1 AS n"}).status_code == 200
        assert client.post("/api/run-sql", json={"sql": "SELECT nope FROM object"}).status_code == 422
        assert client.post("/api/ask", json={"question": "Where are the objects?"}).status_code == 200
        text = client.get("/metrics").text
    lines = set(text.splitlines())
    assert {
        'workbench_http_requests_total{route="/api/run-sql",status="200"} 1.0',
        'workbench_http_requests_total{route="/api/run-sql",status="422"} 1.0',
        'workbench_http_requests_total{route="/api/ask",status="200"} 1.0',
        'workbench_stage_seconds_count{stage="queue_wait"} 1.0',
        'workbench_stage_seconds_count{stage="generation"} 1.0',
        'workbench_stage_seconds_bucket{le="+Inf",stage="schema_linking"} 1.0',
        'workbench_lm_cost_usd_total{model="fake/scripted"} 0.0',
        'workbench_queue_jobs{state="queued"} 0.0',
        "workbench_workers_alive 1.0",
        'workbench_pool_connections{pool="engine",state="in_use"} 0.0',
        'workbench_engine_errors_total{kind="missing_structure"} 1.0',
    } <= lines
    tokens = {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in lines
        if line.startswith("workbench_lm_tokens_total{")
    }
    assert tokens['workbench_lm_tokens_total{direction="input",model="fake/scripted"}'] > 0
    assert tokens['workbench_lm_tokens_total{direction="output",model="fake/scripted"}'] > 0
    assert any(line.startswith('workbench_pool_connections{pool="store",state="open"}') for line in lines)


@pytest.mark.parametrize(
    ("host", "token", "metrics_token", "offered", "status"),
    [
        ("127.0.0.1", None, None, None, 200),
        ("127.0.0.1", ACCESS_TOKEN, None, ACCESS_TOKEN, 404),
        ("0.0.0.0", ACCESS_TOKEN, None, None, 404),
        ("0.0.0.0", ACCESS_TOKEN, METRICS_TOKEN, None, 401),
        ("0.0.0.0", ACCESS_TOKEN, METRICS_TOKEN, ACCESS_TOKEN, 401),
        ("0.0.0.0", ACCESS_TOKEN, METRICS_TOKEN, METRICS_TOKEN, 200),
    ],
    ids=["loopback-open", "loopback-with-token", "public-off", "public-no-token", "public-access-token", "public-ok"],
)
def test_metrics_are_off_on_a_public_host_unless_their_token_is_given(
    bench, host, token, metrics_token, offered, status
):
    bench.settings = dataclasses.replace(bench.settings, host=host, token=token, metrics_token=metrics_token)
    from fastapi.testclient import TestClient

    headers = {"Authorization": f"Bearer {offered}"} if offered else {}
    with TestClient(create_app(bench), base_url="http://127.0.0.1:8000") as client:
        answered = client.get("/metrics", headers=headers)
    assert answered.status_code == status
    assert ("workbench_http_requests" in answered.text) == (status == 200)
