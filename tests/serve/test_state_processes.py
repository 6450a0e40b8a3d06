"""``python -m serve web`` and ``python -m serve worker`` as real processes on one store: a question is answered
over HTTP, the worker is killed with SIGKILL, a new ``python -m serve worker`` starts, and the next question is
answered too (issue 31).

The processes run the commands' own entry code; only the model is a fake one, set before the command starts (a
real model would need a key or the embedded weights).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest

from tests.conftest import REPO_DIR, free_port

LAUNCHER = """
import runpy, sys
import lms
from lms.fake import fake_lm, render_answer

FIELDS = {
    "tables": {"tables": ["object"]},
    "columns": {"columns": {"object": ["oid"]}},
    "difficulty": {"difficulty": "simple"},
    "explanation": {"summary": "One row.", "conditions": [], "ordering": "not ordered", "assumptions": []},
}
lms.resolve_lm = lambda model=None, **settings: fake_lm(
    lambda call: render_answer(FIELDS.get(call.stage, {"sql": "SELECT 42 AS answer"}))
)
sys.argv = ["serve", *sys.argv[1:]]
runpy.run_module("serve", run_name="__main__", alter_sys=True)
"""


def _start(launcher, env, *argv: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(launcher), *argv],
        cwd=REPO_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop(process: subprocess.Popen) -> str:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
    return process.stderr.read() if process.stderr else ""


def _healthy(url: str, processes: list[subprocess.Popen], timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for process in processes:
            assert process.poll() is None, _stop(process)[-3000:]
        try:
            health = httpx.get(f"{url}/api/health", timeout=5).json()
            if health.get("workers_alive", 0) >= 1:
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.5)
    pytest.fail("the workbench did not become healthy with a worker")


def _asked(url: str, question: str) -> dict:
    done = httpx.post(f"{url}/api/ask", json={"question": question}, timeout=120)
    assert done.status_code == 200, done.text
    return done.json()


def test_a_question_is_answered_before_and_after_the_worker_is_killed(tmp_path, tiny_dsn, scratch_database):
    launcher = tmp_path / "fake_model_serve.py"
    launcher.write_text(LAUNCHER)
    env = os.environ | {
        "PYTHONPATH": str(REPO_DIR),
        "ALERCE_SERVE_STORE_DSN": scratch_database,
        "ALERCE_SERVE_SESSION_KEY_FILE": str(tmp_path / "session.key"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    env.pop("ALERCE_SERVE_SESSION_KEY", None)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    common = ["--model", "fake/scripted", "--dsn", tiny_dsn, "-q"]
    web = _start(launcher, env, "web", *common, "--port", str(port))
    worker = _start(launcher, env, "worker", *common)
    second_worker = None
    try:
        _healthy(url, [web, worker])
        first = _asked(url, "How many objects are there?")
        assert first["sql"] == "SELECT 42 AS answer" and first["rows"] == [[42]], first
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
        second_worker = _start(launcher, env, "worker", *common)
        second = _asked(url, "And how many detections?")
        assert second["sql"] == "SELECT 42 AS answer" and second["rows"] == [[42]], second
        assert second["id"] != first["id"]
        assert second_worker.poll() is None and web.poll() is None
    finally:
        for process in (web, worker, second_worker):
            if process is not None:
                _stop(process)
