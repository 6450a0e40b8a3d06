"""Shared fixtures: one throwaway embedded PostgreSQL per run, DSNs to its databases, dataset paths, DSPy reset.

Environment:
    ALERCE_DOCS_DIR: folder with the shared ALeRCE docs and q3c_vectors.csv (default: <repo>/../shared/alerce).
    ALERCE_T2S_DATA: dev.csv, or a folder holding it (default: <repo>/../shared/alerce-t2s/dev.csv).
    ALERCE_T2S_TEST_DATA_DIR: reuse this data folder between runs (keeps built databases; the server is still
        stopped at the end of each run).
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from data.loader import grounding_files
from db.server import ServerInfo, ServerSettings, down, up

if TYPE_CHECKING:
    from db.executor import Executor

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

REPO_DIR = Path(__file__).resolve().parent.parent


def shared_dir(env: str, default: Path) -> Path:
    """Return the path named by an environment variable, else the CI layout default beside the repository."""
    return Path(os.environ[env]).expanduser() if os.environ.get(env) else default


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(autouse=True)
def _reset_dspy() -> Iterator[None]:
    """Run each test with no LM, no adapter, an empty trace and DSPy's caches off (DSPY_GUIDE.md §9)."""
    import dspy

    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    with dspy.context(lm=None, adapter=None, trace=[]):
        yield


@pytest.fixture(scope="session")
def alerce_docs_dir() -> Path:
    """Folder with the shared ALeRCE docs (Q3C.md, q3c_vectors.csv, schema.sql)."""
    return shared_dir("ALERCE_DOCS_DIR", REPO_DIR.parent / "shared" / "alerce")


@pytest.fixture(scope="session")
def dev_csv_path() -> Path:
    """Path of the benchmark's dev.csv."""
    path = shared_dir("ALERCE_T2S_DATA", REPO_DIR.parent / "shared" / "alerce-t2s" / "dev.csv")
    return path / "dev.csv" if path.is_dir() else path


@pytest.fixture(scope="session")
def pg_server(dev_csv_path: Path) -> Iterator[ServerSettings]:
    """Start one embedded server for the test run on a free port; stop it (and delete its data) at the end.

    Yields:
        ServerSettings for the tiny scale, seed 0, grounded on the dev split (as evaluate grounds it);
        ``dataclasses.replace`` it for other scales.
    """
    persistent = os.environ.get("ALERCE_T2S_TEST_DATA_DIR")
    data_dir = Path(persistent) if persistent else Path(tempfile.mkdtemp(prefix="alerce-t2s-test-"))
    settings = ServerSettings(
        data_dir=data_dir, port=free_port(), scale="tiny", seed=0, ground=grounding_files(dev_csv_path)
    )
    try:
        yield settings
    finally:
        down(data_dir)
        if not persistent:
            shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def scratch_server() -> Iterator[ServerSettings]:
    """A second throwaway server (tiny scale, seed 0) for tests that stop or kill it; not started until used.

    Tests call ``up(scratch_server)`` first, since an earlier test may have stopped it.
    """
    data_dir = Path(tempfile.mkdtemp(prefix="alerce-t2s-scratch-"))
    try:
        yield ServerSettings(data_dir=data_dir, port=free_port(), scale="tiny", seed=0)
    finally:
        down(data_dir)
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def tiny_server(pg_server: ServerSettings) -> ServerInfo:
    """The running test server with the tiny database (seed 0) built by the same code path as `db up`."""
    return up(pg_server)


@pytest.fixture(scope="session")
def tiny_dsn(tiny_server: ServerInfo) -> str:
    """Read-only reader DSN of the tiny database."""
    return tiny_server.reader_dsn


@pytest.fixture(scope="session")
def admin_dsn_tiny(tiny_server: ServerInfo) -> str:
    """Superuser DSN of the tiny database (for tests that need to set things up; never for model SQL)."""
    return tiny_server.admin_dsn


@pytest.fixture(scope="session")
def default_dsn(pg_server: ServerSettings) -> str:
    """Reader DSN of the default-scale database, built on first use in the same test server (slow the first time)."""
    return up(replace(pg_server, scale="default", seed=0)).reader_dsn


@pytest.fixture
def executor(tiny_dsn: str) -> Iterator[Executor]:
    """An Executor on the tiny database with a 5 s timeout, closed after the test."""
    from db.executor import Executor, ExecutorSettings

    with Executor(ExecutorSettings(dsn=tiny_dsn, timeout_s=5)) as ex:
        yield ex
