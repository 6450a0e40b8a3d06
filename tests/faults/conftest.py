"""Fault-injection helpers: a killable database, fake engines that fail on cue, and in-process CLI runners.

Questions are the project's synthetic ones (tests/fixtures/synthetic_questions.csv), never benchmark data.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path

import dspy
import pandas as pd
import pytest
from dspy.lm15 import Response

from db.cluster import Cluster
from db.server import ServerInfo, ServerSettings, up
from lms.fake import Call, OracleAnswers, parse_call, text_response
from lms.retries import RetryingLM
from tests.optimizers.compile_helpers import SYNTHETIC_CSV, catalog_columns


def kill_postmaster(settings: ServerSettings) -> None:
    """SIGKILL the server's postmaster, as a crash or an OOM kill would."""
    pid = Cluster(settings.data_dir).running_pid()
    if pid is not None:
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def scratch(scratch_server: ServerSettings) -> ServerInfo:
    """The scratch server, (re)started for this test; tests may kill it."""
    return up(scratch_server)


def oracle() -> OracleAnswers:
    """Answers every stage of the synthetic questions from their labels."""
    return OracleAnswers(pd.read_csv(SYNTHETIC_CSV), catalog_columns)


class ScriptedEngine:
    """A DSPy engine answering with ``answer(call)``; records each request and runs ``before(n)`` before call n.

    ``before`` may raise (a transient LM error) or act on the world (kill the database).
    """

    def __init__(self, answer: Callable[[Call], str], before: Callable[[int], None] | None = None) -> None:
        self.answer = answer
        self.before = before
        self.requests: list[tuple[str, tuple]] = []
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    def complete(self, request) -> Response:
        """Answer one ``dspy.lm15.Request``."""
        system = request.system if isinstance(request.system, str) else ""
        messages = tuple((m.role, m.text or "") for m in request.messages)
        with self._lock:
            number = len(self.requests) + 1
            self.requests.append((system, messages))
        if self.before is not None:
            self.before(number)
        call = parse_call(system, list(messages))
        with self._lock:
            self.calls.append(call)
        text = self.answer(call)
        return text_response(text)

    def __deepcopy__(self, memo: dict) -> ScriptedEngine:
        return self


def scripted_lm(engine: ScriptedEngine, *, cache: bool = False, model: str = "fake/oracle") -> dspy.LM:
    """Wrap an engine in a ``RetryingLM``, as ``lms.resolve_lm`` does (cacheable on request, for resume tests)."""
    return RetryingLM(model, engine=engine, cache=cache)


def questions_asked(engine: ScriptedEngine) -> set[str]:
    """The questions the engine was asked about."""
    return {call.inputs["question"].strip() for call in engine.calls if "question" in call.inputs}


def synthetic_csv() -> Path:
    """The synthetic question file."""
    return SYNTHETIC_CSV
