"""The order in which workers take the questions of the state database: fair between clients, first come first
served within a client, whatever has been answered in between."""

from __future__ import annotations

import pytest
from procrastinate import App, PsycopgConnector

from serve.errors import TooManyQuestionsError
from serve.state.migrations import migrate
from serve.state.pg_store import open_store_pool
from serve.state.queue import QUEUE_NAME, QuestionQueue


@pytest.fixture
def queue(scratch_database):
    migrate(scratch_database)
    pool = open_store_pool(scratch_database)
    try:
        yield QuestionQueue(
            pool, App(connector=PsycopgConnector(conninfo=scratch_database)), max_jobs=100, max_jobs_per_client=20
        )
    finally:
        pool.close()


def ask(queue: QuestionQueue, client: str, question: str) -> str:
    return queue.submit(client=client, session=None, question=question, knowledge="", follows=None)


def take(queue: QuestionQueue) -> str:
    """Fetch the next job as a procrastinate worker does and mark its question running; return the question."""
    with queue.pool.connection() as conn:
        worker_id = conn.execute("SELECT procrastinate_register_worker_v1()").fetchone()[0]
        job_id = conn.execute(
            "SELECT args->>'job_id' FROM procrastinate_fetch_job_v2(%s, %s)", ([QUEUE_NAME], worker_id)
        ).fetchone()[0]
        assert job_id is not None, "no question is waiting"
        return conn.execute(
            "UPDATE workbench.jobs SET status = 'running' WHERE id = %s RETURNING question", (job_id,)
        ).fetchone()[0]


def finish(queue: QuestionQueue, question: str) -> None:
    with queue.pool.connection() as conn:
        conn.execute("UPDATE workbench.jobs SET status = 'done' WHERE question = %s", (question,))


def test_a_clients_questions_are_taken_in_the_order_it_asked_them_even_after_some_are_answered(queue):
    for question in ("a1", "a2", "a3", "a4"):
        ask(queue, "10.0.0.1", question)
    for _ in range(2):
        finish(queue, take(queue))
    ask(queue, "10.0.0.1", "a5")  # two open before it, as a3 and a4 had: it must not go ahead of them
    assert [take(queue) for _ in range(3)] == ["a3", "a4", "a5"]


def test_many_pages_behind_one_address_are_served_first_come_first_served(queue):
    asked, taken, running = 0, [], []
    for step in range(24):  # pages behind one proxy ask now and then; two questions are answered at once
        for _ in range((3, 0, 1, 0)[step % 4]):
            ask(queue, "10.0.0.1", f"q{asked}")
            asked += 1
        if len(running) == 2:
            finish(queue, running.pop(0))
        if len(taken) < asked:
            taken.append(take(queue))
            running.append(taken[-1])
    assert taken == [f"q{n}" for n in range(asked)]


def test_each_clients_first_question_goes_before_another_clients_later_ones(queue):
    for question in ("a1", "a2", "a3"):
        ask(queue, "10.0.0.1", question)
    ask(queue, "10.0.0.2", "b1")
    assert take(queue) == "a1"
    ask(queue, "10.0.0.3", "c1")  # a first question: with the others' first ones
    ask(queue, "10.0.0.2", "b2")
    assert [take(queue) for _ in range(5)] == ["b1", "c1", "a2", "b2", "a3"]  # every first question, then seconds


def test_a_client_that_comes_back_after_its_questions_were_answered_waits_no_longer_than_a_newcomer(queue):
    for question in ("a1", "a2", "a3", "a4", "b1"):
        ask(queue, "10.0.0.1" if question.startswith("a") else "10.0.0.2", question)
    for _ in range(2):
        finish(queue, take(queue))  # a1, b1 answered: b has nothing open
    ask(queue, "10.0.0.2", "b2")
    ask(queue, "10.0.0.3", "c1")
    assert [take(queue) for _ in range(4)] == ["a2", "b2", "c1", "a3"]


def test_the_caps_hold_per_client_and_in_all(scratch_database):
    migrate(scratch_database)
    pool = open_store_pool(scratch_database)
    try:
        app = App(connector=PsycopgConnector(conninfo=scratch_database))
        queue = QuestionQueue(pool, app, max_jobs=3, max_jobs_per_client=2)
        ask(queue, "10.0.0.1", "a1")
        ask(queue, "10.0.0.1", "a2")
        with pytest.raises(TooManyQuestionsError, match="you have 2"):
            ask(queue, "10.0.0.1", "a3")
        ask(queue, "10.0.0.2", "b1")
        with pytest.raises(TooManyQuestionsError, match="3 are"):
            ask(queue, "10.0.0.3", "c1")
    finally:
        pool.close()
