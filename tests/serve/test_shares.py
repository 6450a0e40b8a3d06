"""Each client's share: of the engine's connections (a slow flood of one client does not hold another's questions),
of the kept answers and of the page histories (one client's flood evicts its own)."""

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pandas as pd

from answering import Answer
from lms.fake import fake_lm
from serve import create_app
from serve.store import AnswerStore, Record, answer_bytes
from tests.serve.conftest import flooding_answer, open_bench, serving
from tests.serve.test_limits import client_at
from tests.serve.test_pages import ask
from tests.serve.test_sessions import history_links


def record(rows: int = 10, *, tap: bool = False, text: str = "x") -> Record:
    frame = pd.DataFrame({"value": [text * 100] * rows})
    service_table = object() if tap else None
    answer = Answer(question="q", sql="SELECT 1", frame=frame, service_table=service_table)
    return Record(id=f"id-{time.perf_counter_ns()}", answer=answer, source="sql", model="", engine="postgres")


def test_the_newest_answer_stays_when_it_alone_is_over_the_budget():
    store = AnswerStore(max_answers=10, max_bytes=1_000, max_sessions=10, max_history=10)
    small, big = record(1), record(1_000)
    store.keep(small, None, client="a")
    store.keep(big, None, client="a")
    assert store.get(big.id) is big and store.get(small.id) is None  # the page about to show it finds it


def test_a_tap_answer_counts_its_service_table_too():
    postgres, tap = record(50), record(50, tap=True)
    rows = int(postgres.answer.frame.memory_usage(index=True, deep=True).sum())
    assert answer_bytes(tap.answer) == answer_bytes(postgres.answer) + rows


def test_one_clients_big_answers_evict_its_own_not_anothers():
    store = AnswerStore(max_answers=100, max_bytes=200_000, max_sessions=10, max_history=10)
    victim = record(5)
    store.keep(victim, None, client="victim")
    flood = [record(200) for _ in range(20)]  # about 40 kB each
    for answer in flood:
        store.keep(answer, None, client="flood")
    assert store.get(victim.id) is victim and store.get(flood[-1].id) is flood[-1]
    assert store.size_bytes <= 200_000 and store.get(flood[0].id) is None


def test_a_flood_of_new_sessions_forgets_its_own_histories_first():
    store = AnswerStore(max_answers=100, max_bytes=10**9, max_sessions=5, max_history=10)
    history = store.rotate(None, "victim-id", client="victim")
    store.keep(kept := record(1), history, client="victim")
    for n in range(50):
        store.keep(record(1), store.rotate(None, f"flood-{n}", client="flood"), client="flood")
    assert store.history(store.history_of("victim-id")) == [kept]
    assert store.history_of("flood-0") == "" and store.history_of("flood-49") != ""


def test_cookie_less_reruns_of_one_address_keep_anothers_history_and_answer(tiny_dsn):
    """The red team's 1,010 reruns, scaled to the caps of this workbench (20 answers, 10 sessions)."""
    bench = open_bench(tiny_dsn, fake_lm(flooding_answer), max_answers_kept=20, max_sessions=10)
    app = create_app(bench)
    try:
        with client_at(app, "127.0.0.2") as victim, client_at(app, "127.0.0.1") as flood:
            answer_id = next(e for e in ask(victim, "Where are the objects?") if e["type"] == "done")["answer_id"]
            for _ in range(60):
                flood.cookies.clear()
                rerun = flood.post(f"/answers/{answer_id}/rerun", data={"sql": "SELECT 2 AS n"}, follow_redirects=False)
                assert rerun.status_code == 303
            assert history_links(victim.get("/").text) == 1
            assert victim.get(f"/answers/{answer_id}").status_code == 200
    finally:
        bench.close()


def test_one_clients_slow_questions_do_not_hold_anothers(tiny_dsn):
    """Client A's slow questions hold A's share of the two connections; B's question runs on the other at once."""
    bench = open_bench(tiny_dsn, fake_lm(flooding_answer), timeout_s=3)
    try:
        with serving(bench) as url, ThreadPoolExecutor(4) as pool:
            slow = [
                pool.submit(httpx.post, f"{url}/api/ask", json={"question": f"slow {n}?"}, timeout=120)
                for n in range(2)
            ]
            time.sleep(1.0)  # A's first query runs, its others wait in A's own line
            other = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=60)
            began = time.monotonic()
            answered = other.post(f"{url}/api/ask", json={"question": "How many objects?"})
            other_s = time.monotonic() - began
            other.close()
            bench.close()  # A's questions end with the engine
            [future.exception() for future in slow]
    finally:
        bench.close()
    assert answered.status_code == 200 and answered.json()["rows"] == [[1]]
    assert other_s < 2.5  # behind one shared lane it waited for A's queries to time out (3 s each)
