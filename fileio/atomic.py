"""Write files so that a failure leaves the previous versions intact (temp file in the same folder, fsync, rename).

Every writer of a result that a later run reads back (artifacts, reports, the gold cache, the fetched benchmark)
goes through here; callers turn the ``OSError`` into their own error message.
"""

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["check_writable", "write_atomic", "write_files"]

FILE_MODE = 0o644
"""mkstemp creates 0600; the files written here are results meant to be shared."""


def _write_temp(folder: Path, name: str, payload: bytes) -> Path:
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(payload)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp, FILE_MODE)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return Path(temp)


def check_writable(folder: str | Path) -> None:
    """Create the folder and check that a file can be written there (before a long run).

    Raises:
        OSError: The folder cannot be created or written.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _write_temp(folder, "check", b"").unlink()


def write_files(folder: str | Path, files: dict[str, bytes]) -> None:
    """Write every file to a temp file first, then rename them into place in order.

    Args:
        folder: The destination folder (created if missing).
        files: File name to content.

    Raises:
        OSError: The folder cannot be created or written; no file was replaced unless a rename failed midway.
    """
    folder = Path(folder)
    temps: dict[str, Path] = {}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, payload in files.items():
            temps[name] = _write_temp(folder, name, payload)
        for name, temp in temps.items():
            os.replace(temp, folder / name)
    finally:
        for temp in temps.values():
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()


def write_atomic(path: str | Path, payload: bytes) -> None:
    """Replace the file at ``path`` with ``payload`` in one rename (its folder is created if missing).

    Raises:
        OSError: The file cannot be written; the previous version, if any, is intact.
    """
    path = Path(path)
    write_files(path.parent, {path.name: payload})
