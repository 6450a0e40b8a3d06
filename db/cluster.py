"""Run one PostgreSQL cluster out of a data folder: find the binaries, initdb, start, stop.

A data folder holds, all owned by the server user:

* ``cluster/``: the PostgreSQL data directory (PGDATA);
* ``run/``: the Unix socket directory;
* ``server.log``: the server log;
* ``state.json``: the admin role and its random password (mode 0600).

initdb and postgres refuse to run as root, so as root the binaries run as the ``postgres`` system user (or
``alerce-pg``, created when missing) through ``runuser``.

Every server process gets a private-memory ceiling (``BACKEND_MEMORY_LIMIT_BYTES``, the soft RLIMIT_DATA): one query
cannot take the machine's memory, whatever PostgreSQL's own accounting misses (array_agg, libxml2). ``start`` sets it
on the postmaster, whose children inherit it, and on the processes already running, every time it is called, so a
server started by an older version gets it on the next ``up``.
"""

import contextlib
import fcntl
import functools
import json
import logging
import os
import pwd
import re
import resource
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from db.errors import ServerError
from db.pg_binaries import find_bin_dir, server_user

logger = logging.getLogger(__name__)

ADMIN_ROLE = "alerce_admin"
READER_ROLE = "alerce_reader"
LOCK_NAME = ".lock"
OWN_NAMES = (LOCK_NAME, "initdb.pw", "run", "server.log")  # may remain from an interrupted init
BACKEND_MEMORY_LIMIT_BYTES = 1024**3
"""Most private memory (heap and anonymous mappings, not shared buffers) of one server process: a query past it
fails with SQLSTATE 53200 (out of memory) and its session goes on."""

PG_HBA = f"""\
# Written by alerce-t2s: the read-only role needs no password on 127.0.0.1, everything else needs SCRAM.
# TYPE  DATABASE  USER           ADDRESS         METHOD
host    all       {READER_ROLE}  127.0.0.1/32    trust
host    all       all            127.0.0.1/32    scram-sha-256
local   all       all                            scram-sha-256
"""

# fsync and friends are off: the data is synthetic and rebuilt on demand, and loading it is much faster.
SERVER_CONF = """
# alerce-t2s settings
listen_addresses = '127.0.0.1'
unix_socket_directories = '{socket_dir}'
password_encryption = 'scram-sha-256'
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = minimal
max_wal_senders = 0
"""


class Cluster:
    """One PostgreSQL cluster living in a data folder.

    Args:
        data_dir: The data folder (created by ``init`` if missing or empty).
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir).absolute()
        self.pgdata = self.data_dir / "cluster"
        self.socket_dir = self.data_dir / "run"
        self.log_file = self.data_dir / "server.log"
        self.state_file = self.data_dir / "state.json"

    @functools.cached_property
    def _user(self) -> str | None:
        return server_user()

    def is_initialized(self) -> bool:
        """Tell whether initdb has completed in this data folder."""
        return (self.pgdata / "PG_VERSION").exists() and self.state_file.exists()

    def admin_password(self) -> str:
        """Return the admin password stored at initdb time."""
        try:
            return json.loads(self.state_file.read_text(encoding="utf-8"))["admin_password"]
        except (OSError, ValueError, KeyError) as err:
            raise ServerError(f"Cannot read the admin password from {self.state_file}: {err}.") from err

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold an exclusive lock on the data folder (serialises concurrent ``up`` calls)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with (self.data_dir / LOCK_NAME).open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield

    def init(self) -> None:
        """Create the cluster: initdb with a random admin password, pg_hba.conf and server settings.

        Raises:
            ServerError: If the folder is not usable or initdb fails.
        """
        self._prepare_data_dir()
        password = secrets.token_urlsafe(24)
        pwfile = self.data_dir / "initdb.pw"
        self._write_private(pwfile, password + "\n")
        logger.info("initialising a PostgreSQL cluster in %s", self.pgdata)
        try:
            self._run(
                "initdb",
                [
                    *("-D", str(self.pgdata), "-U", ADMIN_ROLE, f"--pwfile={pwfile}", "--auth=scram-sha-256"),
                    *("-E", "UTF8", "--locale=C", "--no-sync"),
                ],
            )
        except ServerError:
            shutil.rmtree(self.pgdata, ignore_errors=True)
            raise
        finally:
            pwfile.unlink(missing_ok=True)
        self._write_private(self.pgdata / "pg_hba.conf", PG_HBA)
        with (self.pgdata / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(SERVER_CONF.format(socket_dir=str(self.socket_dir).replace("'", "''")))
        state = {"admin_user": ADMIN_ROLE, "admin_password": password}
        tmp = self.state_file.with_suffix(".tmp")
        self._write_private(tmp, json.dumps(state, indent=2) + "\n", chown=False)
        tmp.replace(self.state_file)

    def running_pid(self) -> int | None:
        """Return the postmaster pid if the server is running (a stale postmaster.pid counts as not running)."""
        lines = self._pid_file_lines()
        if not lines or not lines[0].strip().isdigit():
            return None
        pid = int(lines[0])
        return pid if _is_alive_postgres(pid) else None

    def running_port(self) -> int | None:
        """Return the port of the running server, or None."""
        lines = self._pid_file_lines()
        if self.running_pid() is None or len(lines) < 4 or not lines[3].strip().isdigit():
            return None
        return int(lines[3])

    def start(self, port: int) -> None:
        """Start the server on 127.0.0.1:port, recovering from a stale pid file left by a killed server.

        Raises:
            ServerError: If the server does not come up; the message quotes the end of its log.
        """
        if self.running_pid() is not None:
            self.limit_memory()
            return
        self._remove_stale_files()
        logger.info("starting PostgreSQL on 127.0.0.1:%d (data in %s)", port, self.data_dir)
        for attempt in range(5):
            try:
                self._run(
                    "pg_ctl",
                    [
                        *("-D", str(self.pgdata), "-l", str(self.log_file), "-w", "-t", "60"),
                        *("-o", f"-p {int(port)}", "start"),
                    ],
                )
                self.limit_memory()
                return
            except ServerError as err:
                # Backends of a SIGKILLed postmaster may hold the old shared memory for a moment.
                tail = self._log_tail(10)
                if "shared memory block" not in tail or attempt == 4:
                    hint = (
                        f" port {port} is in use, choose another with --port or $ALERCE_T2S_PORT"
                        if "already in use" in tail
                        else ""
                    )
                    raise ServerError(
                        f"PostgreSQL did not start:{hint or ' ' + str(err)}. Server log {self.log_file}: "
                        f"{self._log_tail(3)}"
                    ) from err
                time.sleep(1.0)

    def limit_memory(self) -> None:
        """Set the soft RLIMIT_DATA of the postmaster and of its running children to BACKEND_MEMORY_LIMIT_BYTES.

        New backends inherit the postmaster's limit. The hard limit is kept, so a later version may raise the
        ceiling without root. As root, the limit is set by ``prlimit`` run as the server user (root may lack
        CAP_SYS_RESOURCE in a container). A failure is logged as a warning: the server still runs, without the
        ceiling; so does a platform that cannot set another process's limits (macOS).
        """
        pid = self.running_pid()
        if pid is None:
            return
        if self._user is None and not hasattr(resource, "prlimit"):
            logger.warning("cannot limit the memory of the PostgreSQL server on this platform (no prlimit)")
            return
        for process in (pid, *_children(pid)):
            try:
                self._set_data_limit(process)
            except (OSError, ServerError) as err:
                if process == pid:
                    logger.warning("cannot limit the memory of the PostgreSQL server (pid %d): %s", pid, err)
                    return
                logger.debug("cannot limit the memory of server process %d: %s", process, err)

    def _set_data_limit(self, pid: int) -> None:
        limit = BACKEND_MEMORY_LIMIT_BYTES
        if self._user is None:
            _, hard = resource.prlimit(pid, resource.RLIMIT_DATA)
            soft = limit if hard == resource.RLIM_INFINITY else min(hard, limit)
            resource.prlimit(pid, resource.RLIMIT_DATA, (soft, hard))
            return
        command = ["runuser", "-u", self._user, "--", "prlimit", f"--pid={pid}", f"--data={limit}:"]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise ServerError(f"prlimit failed (exit {proc.returncode}): {proc.stderr.strip()}")

    def stop(self) -> bool:
        """Stop the server (fast shutdown).

        Returns:
            True if a running server was stopped, False if none was running.
        """
        if self.running_pid() is None:
            return False
        logger.info("stopping PostgreSQL (data in %s)", self.data_dir)
        self._run("pg_ctl", ["-D", str(self.pgdata), "-m", "fast", "-w", "-t", "60", "stop"])
        return True

    def _run(self, program: str, args: list[str]) -> str:
        command = [str(find_bin_dir() / program), *args]
        if self._user is not None:
            command = ["runuser", "-u", self._user, "--", *command]
        logger.debug("running %s", " ".join(command))
        proc = subprocess.run(command, cwd=self.data_dir, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            raise ServerError(f"{program} failed (exit {proc.returncode}): {' '.join(detail[-3:])}")
        return proc.stdout

    def _prepare_data_dir(self) -> None:
        if self.data_dir.exists() and any(p.name not in OWN_NAMES for p in self.data_dir.iterdir()):
            raise ServerError(
                f"Data folder {self.data_dir} is not empty and holds no initialised cluster; "
                "delete it or choose another --data-dir."
            )
        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.data_dir.chmod(0o700)
        self._chown(self.data_dir)
        self.socket_dir.mkdir(mode=0o700, exist_ok=True)
        self._chown(self.socket_dir)
        if self._user is not None:
            check = subprocess.run(["runuser", "-u", self._user, "--", "test", "-w", str(self.data_dir)], check=False)
            if check.returncode != 0:
                raise ServerError(
                    f"The server user '{self._user}' cannot reach {self.data_dir}; "
                    "choose a --data-dir whose parent folders are traversable by other users (e.g. under /var/lib)."
                )

    def _write_private(self, path: Path, text: str, *, chown: bool = True) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        if chown:
            self._chown(path)

    def _chown(self, path: Path) -> None:
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def _pid_file_lines(self) -> list[str]:
        try:
            return (self.pgdata / "postmaster.pid").read_text(encoding="utf-8").splitlines()
        except OSError:
            return []

    def _remove_stale_files(self) -> None:
        stale = [self.pgdata / "postmaster.pid", *self.socket_dir.glob(".s.PGSQL.*")]
        for path in stale:
            if path.exists():
                logger.warning("removing %s left by a server that is no longer running", path)
                path.unlink(missing_ok=True)

    def _log_tail(self, lines: int) -> str:
        try:
            text = self.log_file.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(text[-lines:])


def _children(pid: int) -> list[int]:
    """Return the pids of the running children of process `pid`, from /proc (empty where there is no /proc)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == str(pid):
            children.append(int(stat.parent.name))
    return children


def _is_alive_postgres(pid: int) -> bool:
    """Tell whether pid is a live (not zombie) process, and a postgres one when /proc says so."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return True
    match = re.match(r"\d+ \((.*)\) (\S)", stat)
    return match is None or (match.group(2) not in "ZX" and "postgres" in match.group(1))
