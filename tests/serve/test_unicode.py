"""Texts UTF-8 cannot encode (tests/fixtures/serve_attacks.yaml) never give a 500 or break a page."""

import json
from pathlib import Path

import pytest
import yaml

from tests.serve.conftest import client_of, make_bench
from tests.serve.test_pages import ask

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "serve_attacks.yaml").read_text())["texts"]
HTTP = [pytest.param(case, id=case["id"]) for case in CASES if case["entry"].startswith("api_")]
ROUTES = {"api_ask": ("/api/ask", {"question": "Which objects?"}), "api_run_sql": ("/api/run-sql", {"sql": "SELECT 1"})}


@pytest.mark.parametrize("case", HTTP)
def test_a_text_utf8_cannot_encode_is_no_500(client, case):
    route, body = ROUTES[case["entry"]]
    raw = json.dumps(body | {case["field"]: case["text"]}).encode()  # ensure_ascii: the surrogate as \udXXX
    response = client.post(route, content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code < 500, response.text
    assert "\\ud" not in response.text.lower() or "\ufffd" in response.json().get(case["field"], "\ufffd")
    assert client.get("/").status_code == 200


def test_sql_from_the_model_that_utf8_cannot_encode_keeps_the_page(tiny_dsn):
    (case,) = [case for case in CASES if case["entry"] == "lm_sql"]
    bench = make_bench(tiny_dsn, case["text"])
    try:
        with client_of(bench) as client:
            answer_id = ask(client)[-1]["answer_id"]
            page = client.get(f"/answers/{answer_id}")
            assert page.status_code == 200 and "SELECT &#39;a\ufffd&#39; AS oid" in page.text
            assert "not valid Unicode" in page.text and client.get("/").status_code == 200
    finally:
        bench.close()
