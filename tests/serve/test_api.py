"""The HTTP API: ask and run SQL as JSON, capped rows, health, and a generated OpenAPI document."""

import pytest

from tests.serve.conftest import OTHER_READING_SQL, POSITIONS_SQL, client_of, make_bench, make_disagreeing_bench


def test_ask_returns_sql_rows_and_usage(client):
    body = client.post("/api/ask", json={"question": "Where are the objects?"}).json()
    assert body["sql"] == POSITIONS_SQL and body["error"] is None
    assert body["columns"] == ["oid", "meanra", "meandec", "ndet"] and len(body["rows"]) == 120
    assert body["row_count"] == 120 and body["truncated"] is False
    assert body["model"] == "fake/scripted" and body["engine"] == "postgres"
    # five LM calls (tables, columns, difficulty, sql, explanation) of 10 input and 5 output tokens each; no price
    assert body["input_tokens"] == 50 and body["output_tokens"] == 25 and body["cost_usd"] is None
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
    refused = client.post("/api/run-sql", json={"sql": "SELECT pg_sleep(1)"}).json()
    assert refused["rows"] == [] and refused["error_kind"] == "general"
    assert refused["error"] == "Function pg_sleep is not allowed in queries. [general]"
    written = client.post("/api/run-sql", json={"sql": "INSERT INTO object (oid) VALUES ('x')"}).json()
    assert written["error"].startswith("Only one SELECT or WITH statement is allowed, got INSERT.")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "bad request: question: Field required"),
        ({"question": ""}, 'the question is empty; ask something like "How many objects have more than 50'),
    ],
)
def test_bad_requests_are_one_line_messages(client, body, message):
    refused = client.post("/api/ask", json=body)
    assert refused.status_code in (400, 422) and refused.json()["error"].startswith(message)


def test_health_says_what_serves(client):
    assert client.get("/api/health").json() == {
        "status": "ok",
        "model": "fake/scripted",
        "engine": "postgres",
        "catalog": "ztf",
        "queue_length": 0,
        "one_at_a_time": False,
    }


def test_openapi_describes_the_api(client):
    document = client.get("/openapi.json").json()
    assert {"/api/ask", "/api/run-sql", "/api/health"} <= set(document["paths"])
    assert "/jobs" not in document["paths"]
    answer = document["components"]["schemas"]["AnswerOut"]["properties"]
    assert {"sql", "rows", "truncated", "cost_usd", "downloads"} <= set(answer)
    assert {"conversation_id", "follows", "dates", "explanation", "alternatives", "as_of"} <= set(answer)
    assert "conversation_id" in document["components"]["schemas"]["AskIn"]["properties"]


def test_the_answer_carries_dates_explanation_alternatives_and_its_conversation(client):
    body = client.post("/api/ask", json={"question": "Where were the objects first seen in September 2023?"}).json()
    assert body["conversation_id"] == body["id"] and body["follows"] is None
    assert body["dates"] == [{"text": "September 2023", "start_mjd": 60188.0, "end_mjd": 60218.0, "kind": "absolute"}]
    assert body["explanation"]["summary"] == "The rows the query returns." and body["alternatives"] == []
    assert body["catalog"] == "ztf" and len(body["as_of"]) == 10


def test_a_conversation_id_makes_the_question_a_follow_up_of_its_latest_answer(client):
    first = client.post("/api/ask", json={"question": "Where are the objects?"}).json()
    follow = {"conversation_id": first["conversation_id"]}
    second = client.post("/api/ask", json={"question": "now only those with many detections", **follow}).json()
    third = client.post("/api/ask", json={"question": "same for 2024", **follow}).json()
    assert second["conversation_id"] == third["conversation_id"] == first["id"]
    assert second["follows"] == "Where are the objects?" and third["follows"] == second["question"]
    assert third["dates"][0]["text"] == "2024"


def test_an_unknown_conversation_is_a_one_line_refusal(client):
    refused = client.post("/api/ask", json={"question": "same for 2024", "conversation_id": "nope"})
    assert refused.status_code == 400
    assert refused.json() == {"error": "no conversation 'nope' here; it may have been dropped for newer ones"}


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
