"""The workbench's state in PostgreSQL: migrations once and versioned, answers and histories that outlive a
workbench, the shared session key, per-client usage."""

from __future__ import annotations

import os
import stat
import threading

import psycopg
import pytest

from serve.gate import CLIENT
from serve.state import keys
from serve.state.migrations import LATEST_VERSION, MIGRATIONS, migrate
from tests.serve.conftest import client_of
from tests.serve.state_benches import open_shared, working
from tests.serve.test_pages import ask
from tests.serve.test_sessions import history_links

pytestmark = pytest.mark.usefixtures("_no_key_env")


@pytest.fixture
def _no_key_env(monkeypatch):
    monkeypatch.delenv(keys.KEY_ENV, raising=False)
    monkeypatch.delenv(keys.KEY_FILE_ENV, raising=False)


@pytest.fixture
def key_file(tmp_path):
    return tmp_path / "keys" / "session.key"


def versions(dsn: str) -> list[tuple[int, str]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT version, name FROM public.workbench_migrations ORDER BY version").fetchall()


def test_migrations_apply_once_in_order_even_when_processes_start_together(scratch_database):
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(migrate(scratch_database))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results == [LATEST_VERSION] * 3
    assert versions(scratch_database) == [(version, name) for version, name, _ in MIGRATIONS]
    assert migrate(scratch_database) == LATEST_VERSION
    assert len(versions(scratch_database)) == len(MIGRATIONS)


def test_a_database_newer_than_the_code_is_refused(scratch_database):
    migrate(scratch_database)
    with psycopg.connect(scratch_database, autocommit=True) as conn:
        conn.execute("INSERT INTO public.workbench_migrations (version, name) VALUES (%s, 'future')", (999,))
    with pytest.raises(RuntimeError, match="version 999, newer than this code"):
        migrate(scratch_database)


def test_answers_histories_and_questions_outlive_the_workbench(tiny_dsn, scratch_database, key_file):
    first = open_shared(tiny_dsn, scratch_database, key_file)
    try:
        history = first.store.rotate(None, "page-session-1")
        with working(first):
            asked = first.ask("which objects have positions?", session=history)
        by_hand = first.run_sql("SELECT oid FROM object ORDER BY oid LIMIT 3", session=history)
        follow_up = first.start_ask("and the brightest?", follows=asked.id, session=history)
    finally:
        first.close()
    second = open_shared(tiny_dsn, scratch_database, key_file)
    try:
        assert second.session_key == first.session_key
        assert second.store.history_of("page-session-1") == history
        assert [record.id for record in second.history(history)] == [by_hand.id, asked.id]
        again = second.record(asked.id)
        assert again.answer.sql == asked.answer.sql and len(again.answer.frame) == 120
        assert second.record(by_hand.id).answer.frame["oid"].tolist() == by_hand.answer.frame["oid"].tolist()
        queued = second.find_job(follow_up.id)
        assert queued is not None and not queued.is_finished
        with working(second):
            assert queued.wait(60)
        assert queued.error is None
        followed = second.record(queued.answer_id)
        assert followed.conversation == second.record(asked.id).conversation or followed.follows == asked.id
        assert followed.follows == asked.id
    finally:
        second.close()


def test_a_page_session_opened_before_a_restart_lists_its_history_after_it(tiny_dsn, scratch_database, key_file):
    first = open_shared(tiny_dsn, scratch_database, key_file)
    try:
        with client_of(first) as page, working(first):
            events = ask(page, "Where are the bright objects?")
            cookies = dict(page.cookies)
    finally:
        first.close()
    assert events[-1]["type"] == "done" and events[-1]["error"] is None
    second = open_shared(tiny_dsn, scratch_database, key_file)
    try:
        with client_of(second) as page:
            page.cookies.update(cookies)
            shown = page.get("/").text
    finally:
        second.close()
    assert history_links(shown) == 1 and f"/answers/{events[-1]['answer_id']}" in shown


def test_the_session_key_file_is_made_once_with_mode_0600_and_shared(key_file):
    made = keys.session_key(key_file)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert keys.session_key(key_file) == made and len(made) == 32


def test_a_session_key_file_others_can_read_is_refused(key_file):
    keys.session_key(key_file)
    os.chmod(key_file, 0o644)
    with pytest.raises(ValueError, match="readable by others"):
        keys.session_key(key_file)


def test_the_session_key_from_the_environment_must_be_long_hex(monkeypatch, key_file):
    monkeypatch.setenv(keys.KEY_ENV, "ab" * 32)
    assert keys.session_key(key_file) == bytes.fromhex("ab" * 32) and not key_file.exists()
    monkeypatch.setenv(keys.KEY_ENV, "not-hex-at-all-but-long-enough-to-pass-a-length-check")
    with pytest.raises(ValueError, match="hexadecimal"):
        keys.session_key(key_file)


def test_usage_is_counted_per_client(tiny_dsn, scratch_database, key_file):
    bench = open_shared(tiny_dsn, scratch_database, key_file)
    try:
        for client, runs in (("10.0.0.1", 2), ("10.0.0.2", 1)):
            CLIENT.set(client)
            for _ in range(runs):
                bench.run_sql("SELECT 1 AS n")
        CLIENT.set("10.0.0.2")
        with working(bench):
            bench.ask("how many objects?")
        with bench.pool.connection() as conn:
            usage = conn.execute("SELECT client, questions, sql_runs FROM workbench.usage ORDER BY client").fetchall()
    finally:
        bench.close()
    assert usage == [("10.0.0.1", 0, 2), ("10.0.0.2", 1, 1)]
