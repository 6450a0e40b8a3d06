"""A real local TAP service: GAVO DaCHS (Debian's gavodachs2-server) publishing the embedded databases.

`tap_up` copies the published tables of each catalog's embedded database into DaCHS's own database, under the
catalog's TAP schema (``ztf``, ``alerce_tap``: plain tables with oid and q3c indexes), writes the resource descriptor
rendered from the catalog, imports its metadata and starts the server on 127.0.0.1. It is idempotent: a copy of a
database's current build is not made again (`db.tap.copy` tells, per catalog), a stale one is replaced, and a
server that was killed is started anew. DaCHS is GPL and not a Python dependency; without it only this server is
missing.
"""

import contextlib
import dataclasses
import fcntl
import functools
import logging
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

import psycopg

from catalog import CATALOG_NAMES, Catalog, load_catalog
from catalog.dachs_rd import copy_expression, rd_id, render_index_ddl, render_rd, render_tables_ddl
from db.errors import ServerError
from db.provision import database_build_info
from db.server import ServerInfo, ServerSettings, up
from db.tap.copy import GAVO_DIR, Freshness, PublishedCopy, check_copy, forget_copy, read_copy, write_copy
from defaults.time_limits import DACHS_START_S

__all__ = [
    "SYNC_LIMIT_S",
    "TapServerStatus",
    "is_local_url",
    "tap_down",
    "tap_session",
    "tap_status",
    "tap_up",
    "tap_url",
]

logger = logging.getLogger(__name__)
TAP_SCHEMA = load_catalog().tap_schema
"""The ztf catalog's TAP schema, as ALeRCE's service names it; its input folder holds the DaCHS lock."""

SYNC_LIMIT_S = 60.0
"""The local service's own time limit of sync queries (DaCHS's default ``[async]defaultExecTimeSync``, kept)."""
_LOCK_WAIT_S = 1800.0
_depth = 0  # how many nested `_exclusive` blocks of this process hold the DaCHS lock
_NOT_INSTALLED = (
    "GAVO DaCHS is not installed (no `dachs` command); on Debian run `sudo bash scripts/install_system_packages.sh` "
    "(gavodachs2-server). The TAP engine still works against any --tap-url."
)


@dataclass(frozen=True, kw_only=True)
class TapServerStatus:
    """Whether the local DaCHS answers, its TAP URL, and per catalog the copy it publishes and if it is current."""

    running: bool
    url: str
    freshness: dict[str, Freshness]


def tap_up(settings: ServerSettings | None = None, catalogs: tuple[str, ...] = CATALOG_NAMES) -> str:
    """Publish each catalog's embedded database (started and built if needed) through DaCHS; return its URL.

    Args:
        settings: The embedded server and scale; each catalog's database of that scale is published (the
            grounding applies to the settings' catalog; the others are published as they are).
        catalogs: The catalogs to publish (the others stay as they are).

    Raises:
        ServerError: DaCHS is missing, cannot be set up or started, or another run holds it too long.
    """
    _dachs()  # a missing DaCHS is reported at once, not after waiting for the lock
    with _exclusive():
        return _up(settings, catalogs)


@contextlib.contextmanager
def tap_session(
    settings: ServerSettings | None = None, *, fresh: bool = False, catalogs: tuple[str, ...] = CATALOG_NAMES
) -> Iterator[str]:
    """Publish like `tap_up` and keep the local DaCHS for this run until the block ends; yield its URL.

    Other runs (tests, benchmarks, `tap up`) wait meanwhile, so none republishes another database under it. A
    server this session had to start is stopped at the end.

    Args:
        settings: The embedded server and scale to publish (see `tap_up`).
        fresh: Stop the server and copy the databases again, as on a new machine (for timing the set-up).
        catalogs: The catalogs to publish.
    """
    _dachs()
    with _exclusive():
        was_running = _answers()
        if fresh:
            tap_down()
            for name in catalogs:
                forget_copy(name)
        url = _up(settings, catalogs)
        try:
            yield url
        finally:
            if not was_running:
                tap_down()


def _up(settings: ServerSettings | None, catalogs: tuple[str, ...]) -> str:
    dachs = _dachs()
    started = time.perf_counter()
    settings = settings or ServerSettings()
    _ensure_postgres()
    for name in catalogs:
        grounded = settings.ground if name == settings.catalog else None  # gold queries belong to one catalog
        _publish_current(dachs, up(dataclasses.replace(settings, catalog=name, ground=grounded)), load_catalog(name))
    _start(dachs)
    logger.info("local TAP service ready in %.1f s", time.perf_counter() - started)
    return tap_url()


def _publish_current(dachs: str, source: ServerInfo, catalog: Catalog) -> None:
    """Copy the catalog's database `source` into DaCHS unless the copy there is of its current build."""
    build = database_build_info(source.admin_dsn)
    if build is None:
        raise ServerError(f"{source.reader_dsn} is being rebuilt by another run; try again when it is done.")
    copy, recorded = PublishedCopy.of(source, build), read_copy(catalog.name)
    if not copy.same_data(recorded):
        logger.info("publishing %s (%s)", copy.database, copy.describe())
        forget_copy(catalog.name)
        try:
            _publish(dachs, source.admin_dsn, catalog)
        except psycopg.Error as err:  # e.g. the database was dropped by a rebuild meanwhile
            raise ServerError(f"Copying {copy.database} into DaCHS failed: {' '.join(str(err).split())}") from err
    if copy != recorded:
        write_copy(copy, catalog.name)


@contextlib.contextmanager
def _exclusive() -> Iterator[None]:
    """Hold the local DaCHS alone: two runs publishing at once would drop each other's tables.

    Re-entrant within this process (a test session publishes again inside its own session).
    """
    global _depth
    lock = _acquire() if _depth == 0 else None
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if lock is not None:
            lock.close()  # closing the file releases the lock


def _acquire() -> TextIO:
    """Open and lock the DaCHS lock file, waiting up to _LOCK_WAIT_S for another run to let go."""
    folder = GAVO_DIR / "inputs" / TAP_SCHEMA
    folder.mkdir(parents=True, exist_ok=True)
    lock = (folder / ".lock").open("w")
    deadline = time.monotonic() + _LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return lock
        except BlockingIOError:
            if time.monotonic() > deadline:
                lock.close()
                raise ServerError(
                    f"The local DaCHS has been in use by another run for {_LOCK_WAIT_S:g} s; try again later."
                ) from None
            time.sleep(1.0)


def tap_down() -> bool:
    """Stop the local DaCHS; return True if it was running."""
    if shutil.which("dachs") is None:
        return False
    was_running = _answers()
    _run([_dachs(), "serve", "stop"], check=False)
    return was_running


def tap_status() -> TapServerStatus:
    """Report whether the local DaCHS answers and, per catalog, the copy it publishes and whether it is current."""
    running = shutil.which("dachs") is not None and _answers()
    freshness = {name: check_copy(name) for name in CATALOG_NAMES}
    return TapServerStatus(running=running, url=tap_url(), freshness=freshness)


def tap_url() -> str:
    """Return the TAP URL of the local DaCHS (``[web]serverPort`` of its configuration, default 8080)."""
    return f"http://127.0.0.1:{_server_port()}/tap"


def is_local_url(url: str) -> bool:
    """Tell whether `url` is the TAP URL of the local DaCHS (any loopback name for 127.0.0.1)."""
    if shutil.which("dachs") is None:
        return False
    parts = urllib.parse.urlsplit(url)
    loopback = parts.hostname in {"127.0.0.1", "localhost", "::1"}
    return loopback and str(parts.port or 80) == _server_port() and parts.path.rstrip("/") == "/tap"


@functools.cache
def _server_port() -> str:
    """Read the configured port once: each `dachs` command costs a second or two of start-up."""
    if shutil.which("dachs") is None:
        return "8080"
    return _run([_dachs(), "config", "web", "serverPort"]).strip() or "8080"


def _dachs() -> str:
    path = shutil.which("dachs")
    if path is None:
        raise ServerError(_NOT_INSTALLED)
    return path


def _ensure_postgres() -> None:
    """Start the machine's PostgreSQL cluster that holds DaCHS's database if it is down."""
    if shutil.which("pg_ctlcluster") is None:
        return
    for line in _run(["pg_lsclusters", "--no-header"]).splitlines():
        version, name, _port, state, *_ = line.split()
        if state != "online":
            _run(["pg_ctlcluster", version, name, "start"])


def _profile(name: str) -> dict[str, str]:
    """Read a DaCHS database profile (``/var/gavo/etc/<name>``, after the ``dsn`` profile it includes)."""
    settings: dict[str, str] = {}
    for file in ("dsn", name):
        for line in (GAVO_DIR / "etc" / file).read_text().splitlines():
            key, _, value = line.partition("=")
            if value and key.strip() != "include":
                settings[key.strip()] = value.strip()
    return settings


def _feed_dsn() -> str:
    """Return the conninfo of DaCHS's admin profile ``feed``."""
    keys = {"database": "dbname", "host": "host", "port": "port", "user": "user", "password": "password"}
    return " ".join(f"{keys[key]}='{value}'" for key, value in _profile("feed").items() if key in keys)


def _publish(dachs: str, source_dsn: str, catalog: Catalog) -> None:
    """Copy the catalog's published tables into DaCHS's database and import the resource descriptor's metadata."""
    schema = catalog.tap_schema
    logger.info("copying the embedded %s database into DaCHS schema %s", catalog.name, schema)
    _run(["runuser", "-u", "postgres", "--", "psql", "-q", "-d", "gavo", "-c", "CREATE EXTENSION IF NOT EXISTS q3c"])
    with psycopg.connect(_feed_dsn()) as target, psycopg.connect(source_dsn) as source:
        target.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        target.execute(render_tables_ddl(catalog))
        for table in catalog.tap_tables:
            columns = ", ".join(table.column_names)
            read = ", ".join(copy_expression(column) for column in table.columns)
            with (
                source.cursor().copy(f"COPY (SELECT {read} FROM {catalog.schema}.{table.name}) TO STDOUT") as out,
                target.cursor().copy(f"COPY {schema}.{table.name} ({columns}) FROM STDIN") as into,
            ):
                for chunk in out:
                    into.write(chunk)
        target.execute(render_index_ddl(catalog))
        # Queries run as DaCHS's query roles (uploads as the untrusted one); `dachs imp -m` grants nothing.
        for role in {_profile(name)["user"] for name in ("trustedquery", "untrustedquery")}:
            target.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
            target.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
        target.commit()
        target.autocommit = True
        target.execute(f"ANALYZE {', '.join(f'{schema}.{table.name}' for table in catalog.tap_tables)}")
    rd_path = GAVO_DIR / "inputs" / schema / "q.rd"
    rd_path.parent.mkdir(parents=True, exist_ok=True)
    rd_path.write_text(render_rd(catalog))
    _run([dachs, "imp", "-m", rd_id(catalog)])
    _run([dachs, "limits", "-t", rd_id(catalog)])  # fills tap_schema.tables.nrows, which TAP engines fingerprint
    _run([dachs, "pub", rd_id(catalog)], check=False)


def _start(dachs: str) -> None:
    """Start the server unless it answers; a killed server's stale pid file is removed first."""
    if _answers():
        return
    with contextlib.suppress(FileNotFoundError):
        (GAVO_DIR / "state" / "web.pid").unlink()
    _run([dachs, "serve", "start"])
    deadline = time.monotonic() + DACHS_START_S
    while time.monotonic() < deadline:
        if _answers():
            return
        time.sleep(0.5)
    raise ServerError(f"DaCHS did not answer at {tap_url()} within {DACHS_START_S:g} s; see {GAVO_DIR}/logs.")


def _answers() -> bool:
    try:
        with _urlopen(f"{tap_url()}/capabilities") as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def _urlopen(url: str) -> Iterator:
    with urllib.request.urlopen(url, timeout=5) as response:
        yield response


def _run(command: list[str], *, check: bool = True) -> str:
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    if check and completed.returncode != 0:
        detail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
        raise ServerError(f"`{' '.join(command[:4])}` failed: {' '.join(detail)}")
    return completed.stdout
