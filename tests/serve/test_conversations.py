"""Follow-ups and alternatives in the workbench and its page routes (fake LMs, tiny database)."""

import json

import pytest

from serve import WorkbenchError
from tests.serve.conftest import OTHER_READING_SQL, POSITIONS_SQL, client_of, make_bench, make_disagreeing_bench


def ask_on_the_page(client, question, follows=""):
    started = client.post("/jobs", data={"question": question, "follows": follows}).json()
    with client.stream("GET", f"/jobs/{started['job_id']}/events") as stream:
        return [json.loads(line[6:]) for line in stream.iter_lines() if line.startswith("data: ")][-1]["answer_id"]


def test_follow_ups_join_the_conversation_of_the_answer_they_follow(bench):
    first = bench.ask("Where were the objects first seen in September 2023?")
    second = bench.ask("now only those with more than 50 detections", follows=first.id)
    third = bench.ask("same for 2024", follows=second.id)
    assert first.conversation != first.id and first.follows is None
    assert (second.conversation, second.follows) == (first.conversation, first.id)
    assert (third.conversation, third.follows) == (first.conversation, second.id)
    assert bench.latest_in(first.conversation) == third
    assert third.answer.follows == "now only those with more than 50 detections"
    assert [item["text"] for item in third.answer.dates] == ["2024"]


def test_a_page_link_alone_cannot_add_turns_to_the_owners_conversation(bench):
    owned = bench.ask("Where are the objects?")
    with client_of(bench) as stranger:  # has the page link, not the conversation
        forked = bench.record(ask_on_the_page(stranger, "now the first ten", owned.id))
    assert forked.follows == owned.id and forked.conversation != owned.conversation
    assert bench.latest_in(owned.conversation) == owned  # the owner's next follow-up builds on its own answer


def test_a_conversation_id_of_60_kb_is_refused_in_one_short_line(bench):
    with pytest.raises(WorkbenchError) as info:
        bench.latest_in("c" * 60_000)
    assert str(info.value) == "a conversation id has at most 64 characters"


def test_an_unknown_conversation_is_one_line(bench):
    with pytest.raises(WorkbenchError) as info:
        bench.latest_in("nope")
    assert str(info.value) == "no conversation 'nope' here; it may have been dropped for newer ones"


def test_the_page_asks_a_follow_up_and_shows_the_history_as_conversations(client):
    first = ask_on_the_page(client, "Where are the objects?")
    page = client.get(f"/answers/{first}").text
    assert 'id="follow-up-form"' in page and f'name="follows" value="{first}"' in page
    assert 'id="explanation"' in page and "The rows the query returns." in page
    follow_up = client.get(f"/answers/{ask_on_the_page(client, 'now the first ten', first)}").text
    assert 'id="answer-follows">follow-up of: Where are the objects?' in follow_up
    history = client.get("/history").text
    assert history.count('<li class="thread">') == 1 and history.count("follow-up</span>") == 1


def test_the_page_shows_the_dates_of_the_question(client):
    answer_id = ask_on_the_page(client, "Where were the objects first seen in September 2023?")
    page = client.get(f"/answers/{answer_id}").text
    assert "September 2023: 60188 ≤ mjd &lt; 60218 (2023-09-01 to 2023-10-01 UTC)" in page  # HTML-escaped


def test_the_page_refuses_to_follow_up_an_unknown_answer(client):
    refused = client.post("/jobs", data={"question": "same for 2024", "follows": "nope"})
    assert refused.status_code == 400
    assert refused.json()["error"] == "no answer 'nope' here; it may have been dropped for newer ones"


def test_a_follow_up_on_an_answer_that_failed_is_one_line(tiny_dsn):
    bench = make_bench(tiny_dsn, sql="SELECT oid FROM objekt")
    try:
        with client_of(bench) as client:
            failed = ask_on_the_page(client, "Where are the objects?")
            refused = client.post("/jobs", data={"question": "now the bright ones", "follows": failed})
            page = client.get(f"/answers/{failed}").text
    finally:
        bench.close()
    assert refused.status_code == 400 and 'id="follow-up-form"' not in page
    assert refused.json()["error"] == (
        "cannot follow up an answer that failed (missing_structure); ask the question on its own, or "
        "rephrase the earlier one"
    )


def test_disagreeing_candidates_give_alternatives_that_run_on_request(tiny_dsn):
    bench = make_disagreeing_bench(tiny_dsn)
    try:
        with client_of(bench) as client, client_of(bench) as stranger:
            record = bench.record(ask_on_the_page(client, "Where are the objects?"))
            page = client.get(f"/answers/{record.id}").text
            ran = client.post(f"/answers/{record.id}/alternatives/1", follow_redirects=False)
            chosen = bench.record(ran.headers["location"].rsplit("/", 1)[1])
            missing = client.post(f"/answers/{record.id}/alternatives/2")
            by_link = stranger.post(f"/answers/{record.id}/alternatives/1", follow_redirects=False)
            forked = bench.record(by_link.headers["location"].rsplit("/", 1)[1])
    finally:
        bench.close()
    assert record.answer.sql == POSITIONS_SQL
    assert record.answer.alternatives == [
        {"sql": OTHER_READING_SQL, "rows": 60, "difference": "limit 60 instead of 120", "candidates": [2]}
    ]
    assert 'id="alternatives"' in page and "limit 60 instead of 120 · 60 rows" in page
    assert ran.status_code == 303 and chosen.answer.sql == OTHER_READING_SQL and len(chosen.answer.frame) == 60
    assert chosen.conversation == record.conversation and chosen.answer.question == "Where are the objects?"
    assert missing.status_code == 400 and "has no alternative 2; it has 1" in missing.text
    assert forked.conversation != record.conversation  # the page link alone does not join the owner's thread


def test_the_workbench_refuses_an_alternative_of_an_unknown_answer(bench):
    with pytest.raises(WorkbenchError, match="no answer 'nope' here"):
        bench.run_alternative("nope", 1)
