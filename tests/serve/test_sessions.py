"""Sessions: ids the server issued and signed, histories of page sessions only, pruned when they grow."""

import pytest

from serve import create_app
from serve.pages import SESSION_COOKIE as BASE
from serve.sessions import SessionIds, cookie_name
from tests.serve.conftest import client_of, make_bench
from tests.serve.test_limits import client_at
from tests.serve.test_pages import ask

SESSION_COOKIE = cookie_name(BASE, 8000, secure=False)
"""The session cookie of the test client's workbench (port 8000, plain HTTP)."""
MARKED_SQL = "SELECT 'only-for-the-api-client' AS secret"


def history_links(page: str) -> int:
    history = page[page.index('<ul id="history-list">') :]
    return history[: history.index("</aside>")].count('<a href="/answers/')


@pytest.mark.parametrize("cookie", ["api:127.0.0.1", "api:testclient", "mcp", "", "made-up-by-the-client"])
def test_a_session_id_the_client_makes_up_sees_no_answers(client, cookie):
    ran = client.post("/api/run-sql", json={"sql": MARKED_SQL})
    assert ran.status_code == 200
    client.cookies.clear()
    page = client.get("/", headers={"Cookie": f"{SESSION_COOKIE}={cookie}"})
    assert "only-for-the-api-client" not in page.text and history_links(page.text) == 0
    issued = page.cookies.get(SESSION_COOKIE)
    assert issued and issued != cookie  # the server replaced the id it did not issue


def test_only_ids_the_server_issued_keep_their_history(client):
    ask(client)
    issued = client.cookies.get(SESSION_COOKIE)
    assert history_links(client.get("/").text) == 1
    assert SESSION_COOKIE not in client.get("/").cookies  # an issued id is kept as it is
    tampered = issued[:-1] + ("A" if issued[-1] != "A" else "B")
    client.cookies.clear()
    page = client.get("/", headers={"Cookie": f"{SESSION_COOKIE}={tampered}"})
    assert history_links(page.text) == 0 and page.cookies.get(SESSION_COOKIE) not in (None, tampered)


def test_histories_keep_the_newest_answers_and_the_oldest_sessions_go(tiny_dsn):
    bench = make_bench(tiny_dsn, max_history=3, max_sessions=2)
    try:
        clients = [client_of(bench) for _ in range(3)]
        for _ in range(5):
            ask(clients[0])
        assert history_links(clients[0].get("/").text) == 3
        ask(clients[1])
        ask(clients[2])  # a third session with answers: the least recently used one is forgotten
        assert [history_links(c.get("/").text) for c in clients] == [0, 1, 1]
    finally:
        bench.close()


def test_a_planted_session_id_is_not_adopted_the_first_answer_gets_a_new_one(bench):
    """Session fixation: an id the server issued to the attacker, set in the victim's browser (by a page of another
    port of the host), names nothing once the victim has asked; the attacker's id never shows the victim's answer."""
    app = create_app(bench)  # one app: its session key checks both clients' ids
    attacker, victim = client_at(app, "127.0.0.2"), client_at(app, "127.0.0.1")
    attacker.get("/")
    planted = attacker.cookies.get(SESSION_COOKIE)
    asked = victim.post("/jobs", data={"question": "What does the victim ask?"}, headers=cookie_header(planted))
    assert asked.status_code == 200 and asked.cookies.get(SESSION_COOKIE) not in (None, planted)
    with victim.stream("GET", f"/jobs/{asked.json()['job_id']}/events") as stream:
        assert any('"type": "done"' in line for line in stream.iter_lines())
    seen = attacker.get("/")
    assert history_links(seen.text) == 0 and "What does the victim ask?" not in seen.text
    assert history_links(victim.get("/").text) == 1  # the victim keeps its history under its new id
    rerun = victim.post("/answers/x/rerun", data={"sql": "SELECT 1 AS n"}, follow_redirects=False)
    assert rerun.status_code == 303 and history_links(victim.get("/").text) == 2  # and after each rotation


def cookie_header(session: str) -> dict[str, str]:
    return {"Cookie": f"{SESSION_COOKIE}={session}"}


@pytest.mark.parametrize("cut", ["empty", "prefix", "nonce only", "other nonce"])
def test_a_session_check_refuses_an_empty_or_partial_signature(cut):
    ids = SessionIds(b"k" * 32)
    nonce, _, signature = ids.issue().partition(".")
    offered = {
        "empty": f"{nonce}.",
        "prefix": f"{nonce}.{signature[:8]}",
        "nonce only": nonce,
        "other nonce": f"x{nonce}.{signature}",
    }[cut]
    assert ids.is_issued(f"{nonce}.{signature}") and not ids.is_issued(offered)
