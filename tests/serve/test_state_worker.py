"""A worker killed in the middle of a question: its job is answered once more, with a retry event, or failed with
one line after a second death; never lost, never answered twice silently."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from serve.state import keys
from tests.conftest import REPO_DIR
from tests.serve.state_benches import open_shared, working

STALLED_AFTER_S = 2.0


@pytest.fixture
def bench(tiny_dsn, scratch_database, tmp_path, monkeypatch):
    monkeypatch.delenv(keys.KEY_ENV, raising=False)
    shared = open_shared(tiny_dsn, scratch_database, tmp_path / "session.key")
    try:
        yield shared
    finally:
        shared.close()


def kill_a_worker_mid_question(bench, tiny_dsn, tmp_path: Path) -> None:
    """Start a worker process, wait until it is answering the queued question, and SIGKILL it."""
    marker = tmp_path / f"answering-{time.monotonic_ns()}"
    args = [tiny_dsn, bench.store_dsn, str(tmp_path / "session.key"), str(marker), str(STALLED_AFTER_S)]
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.serve.state_worker_process", *args],
        cwd=REPO_DIR,
        env=os.environ | {"LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 90
        while not marker.exists():
            assert process.poll() is None, process.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the worker process never started answering"
            time.sleep(0.1)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)


def job_row(bench, job_id: str) -> tuple:
    with bench.pool.connection() as conn:
        return conn.execute("SELECT status, attempts, error FROM workbench.jobs WHERE id = %s", (job_id,)).fetchone()


def answers_kept(bench) -> int:
    with bench.pool.connection() as conn:
        return conn.execute("SELECT count(*) FROM workbench.answers WHERE source = 'ask'").fetchone()[0]


def test_a_question_whose_worker_was_killed_is_answered_once_more_and_says_so(bench, tiny_dsn, tmp_path):
    job = bench.start_ask("Where are the objects?")
    kill_a_worker_mid_question(bench, tiny_dsn, tmp_path)
    assert job_row(bench, job.id)[:2] == ("running", 1)
    with working(bench, stalled_after_s=STALLED_AFTER_S):
        assert job.wait(60), "the killed worker's question was lost"
    assert job.error is None and job_row(bench, job.id)[:2] == ("done", 2)
    retries = [event for event in job.events if event["type"] == "retry"]
    assert len(retries) == 1 and "attempt 2 of 2" in retries[0]["detail"]
    assert [event["type"] for event in job.events].count("done") == 1
    assert answers_kept(bench) == 1
    assert bench.record(job.answer_id).answer.frame is not None


def test_a_question_whose_worker_was_killed_twice_fails_with_one_line(bench, tiny_dsn, tmp_path):
    job = bench.start_ask("Where are the objects?")
    kill_a_worker_mid_question(bench, tiny_dsn, tmp_path)
    kill_a_worker_mid_question(bench, tiny_dsn, tmp_path)  # its requeue loop handed the job back to itself
    with working(bench, stalled_after_s=STALLED_AFTER_S):
        assert job.wait(60), "the twice-killed worker's question was lost"
    status, attempts, error = job_row(bench, job.id)
    assert (status, attempts) == ("failed", 3)
    assert job.error == error and "\n" not in error and "stopped 2 times" in error
    assert answers_kept(bench) == 0


def test_a_killed_workers_question_is_answered_again_within_seconds_not_after_its_heartbeat_goes_stale(
    bench, tiny_dsn, tmp_path
):
    job = bench.start_ask("Where are the objects?")
    kill_a_worker_mid_question(bench, tiny_dsn, tmp_path)
    began = time.monotonic()
    with working(bench, stalled_after_s=120.0):  # its heartbeat would look stale only after two minutes
        assert job.wait(60), "the killed worker's question was lost"
        waited_s = time.monotonic() - began
    assert job_row(bench, job.id)[:2] == ("done", 2)
    assert waited_s < 20, f"answered again only after {waited_s:.0f} s"
    assert answers_kept(bench) == 1
