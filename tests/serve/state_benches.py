"""Shared workbenches on a state database of the test server, as ``python -m serve`` opens them, with a fake LM."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import dspy

from engines import EngineSettings
from modules.settings import ProgramSettings
from serve.settings import ServeSettings
from serve.state.keys import session_key
from serve.state.shared import SharedWorkbench, open_shared_workbench
from serve.state.worker import WorkerSettings, WorkerThread
from tests.answering.scripts import scripted_lm
from tests.serve.conftest import POSITIONS_SQL


def open_shared(
    dsn: str, store_dsn: str, key_file: Path, lm: dspy.LM | None = None, **settings: object
) -> SharedWorkbench:
    """A shared workbench on the catalog's `dsn` and the state database `store_dsn`, answering with `lm`."""
    engine = EngineSettings(dsn=dsn, timeout_s=30, catalog="ztf")
    return open_shared_workbench(
        "fake/scripted",
        ServeSettings(**settings),
        program=ProgramSettings(uncompiled=True),
        engine=engine,
        store_dsn=store_dsn,
        session_key=session_key(key_file),
        lm=lm or scripted_lm(POSITIONS_SQL),
    )


@contextlib.contextmanager
def working(bench: SharedWorkbench, **settings: object) -> Iterator[WorkerThread]:
    """Run a worker thread of `bench` for the block (as ``python -m serve`` runs one beside the web server)."""
    worker = WorkerThread(bench, WorkerSettings(**settings))
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()
