"""The HTTP API: ask and run SQL as JSON, capped rows, health, and a generated OpenAPI document."""

import json
from pathlib import Path

import pytest

from engines import TapSettings
from engines.errors import DatabaseUnavailable
from engines.tap.engine import TapEngine
from tests.answering.scripts import BROKEN_SQL, demo_model_lm
from tests.conftest import free_port
from tests.serve.conftest import (
    OTHER_READING_SQL,
    POSITIONS_SQL,
    SLOW_SQL,
    client_of,
    make_bench,
    make_disagreeing_bench,
    open_bench,
)


def test_ask_returns_sql_rows_and_usage(client):
    body = client.post("/api/ask", json={"question": "Where are the objects?"}).json()
    assert body["sql"] == POSITIONS_SQL and body["error"] is None
    assert body["columns"] == ["oid", "meanra", "meandec", "ndet"] and len(body["rows"]) == 120
    assert body["row_count"] == 120 and body["truncated"] is False
    assert body["model"] == "fake/scripted" and body["engine"] == "postgres"
    # five LM calls (tables, columns, difficulty, sql, explanation) of 10 input and 5 output tokens each; no price
    assert body["input_tokens"] == 50 and body["output_tokens"] == 25 and body["cost_usd"] is None
    assert body["notice"] is None  # not a demo model
    assert client.get(body["downloads"]["csv"]).text.count("\n") == 121


def test_rows_per_response_are_capped(tiny_dsn):
    bench = make_bench(tiny_dsn, max_rows_per_response=25)
    try:
        with client_of(bench) as client:
            body = client.post("/api/ask", json={"question": "Where?"}).json()
    finally:
        bench.close()
    assert len(body["rows"]) == 25 and body["row_count"] == 120 and body["truncated"] is True


def test_run_sql_goes_through_the_guard(client):
    ran = client.post("/api/run-sql", json={"sql": "SELECT count(*) AS n FROM object"}).json()
    assert ran["columns"] == ["n"] and ran["rows"][0][0] > 0 and ran["model"] == ""
    refused = client.post("/api/run-sql", json={"sql": "SELECT pg_sleep(1)"})
    assert refused.status_code == 400 and refused.json() == {
        "error": "Function pg_sleep is not allowed in queries. [refused]",
        "kind": "refused",
        "sql": "SELECT pg_sleep(1)",
    }
    written = client.post("/api/run-sql", json={"sql": "INSERT INTO object (oid) VALUES ('x')"}).json()
    assert written["error"].startswith("Only one SELECT or WITH statement is allowed, got INSERT.")


@pytest.mark.parametrize(
    ("sql", "status", "kind"),
    [
        ("DROP TABLE object", 400, "refused"),
        ("SELECT nosuch FROM object", 422, "missing_structure"),
        ("SELECT 1 / 0 AS n", 422, "general"),
        (SLOW_SQL, 504, "timeout"),
    ],
    ids=["refused", "missing-column", "division-by-zero", "time-limit"],
)
def test_a_failed_query_is_an_http_error_with_its_kind(tiny_dsn, sql, status, kind):
    bench = make_bench(tiny_dsn, timeout_s=1)
    try:
        with client_of(bench) as client:
            failed = client.post("/api/run-sql", json={"sql": sql})
    finally:
        bench.close()
    assert failed.status_code == status and failed.json()["kind"] == kind and failed.json()["sql"] == sql
    assert "\n" not in failed.json()["error"]


def test_an_engine_that_is_down_is_503(bench, client, monkeypatch):
    def down(*args, **kwargs):
        raise DatabaseUnavailable("Cannot connect to PostgreSQL at 127.0.0.1:1/alerce: Connection refused.")

    monkeypatch.setattr(bench.t2s.executor.inner, "execute", down)
    failed = client.post("/api/run-sql", json={"sql": "SELECT 1"})
    assert failed.status_code == 503 and failed.json()["kind"] == "unavailable"
    asked = client.post("/api/ask", json={"question": "How many?"})
    assert asked.status_code == 503 and asked.json()["error"].startswith("Cannot connect to PostgreSQL")


def test_an_answer_that_failed_is_an_http_error_with_the_sql(tiny_dsn):
    bench = make_bench(tiny_dsn, BROKEN_SQL)
    try:
        with client_of(bench) as client:
            failed = client.post("/api/ask", json={"question": "Which objects?"})
    finally:
        bench.close()
    assert failed.status_code == 422 and failed.json()["kind"] == "missing_structure"
    assert failed.json()["sql"] == BROKEN_SQL and failed.json()["error"].startswith("could not answer")


def test_a_bare_carriage_return_ends_a_comment_as_in_postgresql(client):
    ran = client.post("/api/run-sql", json={"sql": "SELECT 1 AS a -- note\r, 2 AS b"}).json()
    assert ran["columns"] == ["a", "b"] and ran["sql"] == "SELECT 1 AS a -- note\n, 2 AS b"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "bad request: question: Field required"),
        ({"question": ""}, 'the question is empty; ask something like "How many objects have more than 50'),
    ],
)
def test_bad_requests_are_one_line_messages(client, body, message):
    refused = client.post("/api/ask", json=body)
    assert refused.status_code == 400 and refused.json()["kind"] == "bad_request"
    assert refused.json()["error"].startswith(message)


def test_health_says_what_serves(client):
    assert client.get("/api/health").json() == {
        "status": "ok",
        "engine_error": None,
        "model": "fake/scripted",
        "engine": "postgres",
        "catalog": "ztf",
        "queue_length": 0,
        "one_at_a_time": False,
        "store": "memory",
        "store_error": None,
        "queue_depth": 0,
        "workers_alive": 1,
    }


def test_health_says_when_the_tap_service_is_down(tiny_dsn):
    bench = make_bench(tiny_dsn)
    bench.engine.inner.close()  # the workbench's engine, under its gate, becomes a TAP service that is down
    bench.engine.inner = TapEngine(TapSettings(url=f"http://127.0.0.1:{free_port()}/tap", connect_timeout_s=1))
    try:
        with client_of(bench) as client:
            health = client.get("/api/health").json()
    finally:
        bench.close()
    assert health["status"] == "unavailable"
    assert health["engine_error"].startswith("Cannot use the TAP service at http://127.0.0.1:")


def test_openapi_describes_the_api_and_its_errors(client):
    document = client.get("/openapi.json").json()
    assert {"/api/ask", "/api/run-sql", "/api/health"} <= set(document["paths"])
    assert "/jobs" not in document["paths"]
    answer = document["components"]["schemas"]["AnswerOut"]["properties"]
    assert {"sql", "rows", "truncated", "cost_usd", "downloads", "notice"} <= set(answer)
    assert {"conversation_id", "follows", "dates", "explanation", "alternatives", "as_of"} <= set(answer)
    assert "conversation_id" in document["components"]["schemas"]["AskIn"]["properties"]
    for path in ("/api/ask", "/api/run-sql"):
        responses = document["paths"][path]["post"]["responses"]
        assert {"200", "400", "413", "422", "429", "502", "503", "504"} <= set(responses)
        error = responses["504"]["content"]["application/json"]["schema"]["$ref"]
        assert error == "#/components/schemas/ErrorOut"
    assert set(document["components"]["schemas"]["ErrorOut"]["properties"]) == {"error", "kind", "sql"}


def test_the_answer_keeps_its_published_schema_and_its_json_follows_it(client):
    # Clients read AnswerOut's fields, types and descriptions: a change is made on purpose, with this file.
    published = json.loads((Path(__file__).parents[1] / "fixtures" / "answer_out_schema.json").read_text())
    schema = client.get("/openapi.json").json()["components"]["schemas"]["AnswerOut"]
    assert schema == published and list(schema["properties"]) == list(published["properties"])
    body = client.post("/api/ask", json={"question": "Where are the objects?"}).json()
    assert list(body) == list(published["properties"])


def test_an_answer_of_the_demo_model_says_so_in_the_api_and_the_page(tiny_dsn):
    bench = open_bench(tiny_dsn, demo_model_lm(POSITIONS_SQL))
    try:
        with client_of(bench) as client:
            body = client.post("/api/ask", json={"question": "Where are the objects?"}).json()
            page = client.get(f"/answers/{body['id']}").text
    finally:
        bench.close()
    assert body["notice"].startswith("A small demo model wrote this SQL (local/gemma3-270m")
    assert '<p class="notice" id="answer-notice">A small demo model wrote this SQL' in page


def test_the_answer_carries_dates_explanation_alternatives_and_its_conversation(client):
    body = client.post("/api/ask", json={"question": "Where were the objects first seen in September 2023?"}).json()
    assert len(body["conversation_id"]) == 22 and body["conversation_id"] != body["id"] and body["follows"] is None
    assert body["dates"] == [{"text": "September 2023", "start_mjd": 60188.0, "end_mjd": 60218.0, "kind": "absolute"}]
    assert body["explanation"]["summary"] == "The rows the query returns." and body["alternatives"] == []
    assert body["catalog"] == "ztf" and len(body["as_of"]) == 10


def test_a_conversation_id_makes_the_question_a_follow_up_of_its_latest_answer(client):
    first = client.post("/api/ask", json={"question": "Where are the objects?"}).json()
    follow = {"conversation_id": first["conversation_id"]}
    second = client.post("/api/ask", json={"question": "now only those with many detections", **follow}).json()
    third = client.post("/api/ask", json={"question": "same for 2024", **follow}).json()
    assert second["conversation_id"] == third["conversation_id"] == first["conversation_id"]
    assert second["follows"] == "Where are the objects?" and third["follows"] == second["question"]
    assert third["dates"][0]["text"] == "2024"


def test_an_answer_id_is_not_its_conversation_id(client):
    first = client.post("/api/ask", json={"question": "Where are the objects?"}).json()
    refused = client.post("/api/ask", json={"question": "now the first ten", "conversation_id": first["id"]})
    assert refused.status_code == 400 and refused.json()["error"].startswith("no conversation")


def test_a_long_conversation_id_is_refused_and_not_echoed(client):
    long_id = "c" * 60_000
    refused = client.post("/api/ask", json={"question": "same for 2024", "conversation_id": long_id})
    assert refused.status_code == 400 and long_id[:100] not in refused.text and len(refused.text) < 300


def test_an_unknown_conversation_is_a_one_line_refusal(client):
    refused = client.post("/api/ask", json={"question": "same for 2024", "conversation_id": "nope"})
    assert refused.status_code == 400 and refused.json() == {
        "error": "no conversation 'nope' here; it may have been dropped for newer ones",
        "kind": "bad_request",
        "sql": "",
    }


def test_the_alternatives_of_disagreeing_candidates_are_in_the_answer(tiny_dsn):
    bench = make_disagreeing_bench(tiny_dsn)
    try:
        with client_of(bench) as client:
            body = client.post("/api/ask", json={"question": "Where are the objects?"}).json()
    finally:
        bench.close()
    assert body["sql"] == POSITIONS_SQL
    assert body["alternatives"] == [
        {"sql": OTHER_READING_SQL, "rows": 60, "difference": "limit 60 instead of 120", "candidates": [2]}
    ]
