"""Safety: loopback unless a token, capped requests, questions that do not block each other, one-line errors."""

import threading

import pytest

from serve import ServeSettings
from tests.serve.conftest import client_of, make_bench, waiting_bench

TOKEN = "s3cret-s3cret-s3cret"


def test_another_address_needs_a_token():
    with pytest.raises(ValueError) as caught:
        ServeSettings(host="0.0.0.0")
    assert str(caught.value) == (
        "binding 0.0.0.0 exposes the database beyond this machine; set a token with --token-file or "
        "$ALERCE_SERVE_TOKEN, or bind 127.0.0.1"
    )
    assert ServeSettings(host="0.0.0.0", token=TOKEN).token == TOKEN


@pytest.mark.parametrize("token", ["t", "x" * 15])
def test_a_short_token_is_refused(token):
    with pytest.raises(ValueError) as caught:
        ServeSettings(host="0.0.0.0", token=token)
    assert str(caught.value) == (
        f"the access token has {len(token)} characters; use at least 16 (e.g. openssl rand -hex 16 > token, "
        "then --token-file token)"
    )
    assert TOKEN not in repr(ServeSettings(token=TOKEN))


def test_a_token_guards_every_request(tiny_dsn):
    bench = make_bench(tiny_dsn, host="0.0.0.0", token=TOKEN)
    try:
        with client_of(bench) as client:
            refused = client.get("/api/health")
            assert refused.status_code == 401 and "needs its access token" in refused.json()["error"]
            assert client.get("/api/health", headers={"Authorization": "Bearer wrong"}).status_code == 401
            assert client.get("/api/health", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
            assert client.get(f"/?token={TOKEN}").status_code == 200
            assert client.get("/api/health").status_code == 200  # the page's cookie carries it now
    finally:
        bench.close()


def test_request_bodies_are_capped(tiny_dsn):
    bench = make_bench(tiny_dsn, max_request_bytes=1_000)
    try:
        with client_of(bench) as client:
            refused = client.post("/api/ask", json={"question": "x" * 2_000})
    finally:
        bench.close()
    assert refused.status_code == 413
    assert refused.json() == {"error": "the request is over the limit of 1,000 bytes", "kind": "too_large", "sql": ""}


def test_questions_run_at_the_same_time(tiny_dsn):
    both_in = threading.Barrier(2, timeout=20)  # breaks unless two generation calls are in flight together
    bench = waiting_bench(tiny_dsn, both_in.wait)
    try:
        jobs = [bench.start_ask("first?"), bench.start_ask("second?")]
        for job in jobs:
            assert job.wait(60)
        assert [bench.record(job.answer_id).answer.frame["n"].tolist() for job in jobs] == [[1], [1]]
    finally:
        bench.close()


def test_a_one_at_a_time_model_queues_and_tells_the_position(tiny_dsn):
    entered, release = threading.Event(), threading.Event()

    def hold():
        entered.set()
        release.wait(20)

    bench = waiting_bench(tiny_dsn, hold, one_at_a_time=True)
    try:
        with client_of(bench) as client:
            first = bench.start_ask("first?")
            assert entered.wait(20)
            second, third = bench.start_ask("second?"), bench.start_ask("third?")
            assert second.events == [{"type": "queue", "position": 1}]
            assert third.events == [{"type": "queue", "position": 2}]
            health = client.get("/api/health").json()  # the page still answers while the model is busy
            assert health["queue_length"] == 3 and health["one_at_a_time"] is True
            release.set()
            assert all(job.wait(30) for job in (first, second, third))
        assert second.events[1] == {"type": "started"} and second.error is None
        assert third.events[:2] == [{"type": "queue", "position": 2}, {"type": "queue", "position": 1}]
        assert third.events[2] == {"type": "started"} and third.error is None
    finally:
        release.set()
        bench.close()


def test_an_unexpected_failure_is_a_message_without_traceback(bench, monkeypatch):
    def broken(session):
        raise RuntimeError("boom\n  File x.py, line 1")

    monkeypatch.setattr(bench, "history", broken)
    with client_of(bench, raise_server_exceptions=False) as client:
        page = client.get("/")
    assert page.status_code == 500
    assert "internal error (RuntimeError); the server log has the details" in page.text
    assert "Traceback" not in page.text and "boom" not in page.text


def test_requests_for_another_host_or_from_another_site_are_refused(bench):
    with client_of(bench) as client:
        rebound = client.get("/api/health", headers={"Host": "evil.example"})
        assert rebound.status_code == 403
        assert rebound.json()["error"] == "this workbench answers only requests for 127.0.0.1 or localhost"
        forged = client.post("/jobs", data={"question": "Spend tokens?"}, headers={"Origin": "https://evil.example"})
        assert forged.status_code == 403
        assert forged.json()["error"] == "requests from another site (https://evil.example) are refused"
        same = client.post("/jobs", data={"question": "Mine?"}, headers={"Origin": "http://127.0.0.1:8000"})
        assert same.status_code == 200
