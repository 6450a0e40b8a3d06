"""Write a folder's files so that a failure leaves the previous versions intact (temp file, fsync, rename)."""

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from optimizers.errors import CompileError

__all__ = ["check_writable", "write_files"]


def _unwritable(folder: Path, err: OSError) -> CompileError:
    return CompileError(f"Cannot write the artifact to '{folder}': {err.strerror or err}. Choose a writable --out.")


def _write_temp(folder: Path, name: str, payload: bytes) -> Path:
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(payload)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp, 0o644)  # mkstemp creates 0600; artifacts are meant to be shared
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return Path(temp)


def check_writable(folder: str | Path) -> None:
    """Create the folder and check that a file can be written there (before a long compile).

    Raises:
        CompileError: The folder cannot be created or written.
    """
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _write_temp(folder, "check", b"").unlink()
    except OSError as err:
        raise _unwritable(folder, err) from err


def write_files(
    folder: str | Path,
    files: dict[str, bytes],
    *,
    on_error: Callable[[Path, OSError], Exception] = _unwritable,
) -> None:
    """Write every file to a temp file first, then rename them into place in order.

    Args:
        folder: The destination folder (created if missing).
        files: File name to content.
        on_error: Builds the exception raised for an ``OSError`` (default: an artifact ``CompileError``).

    Raises:
        CompileError: The folder cannot be created or written (or what ``on_error`` builds); no file was replaced
            unless a rename failed midway.
    """
    folder = Path(folder)
    temps: dict[str, Path] = {}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, payload in files.items():
            temps[name] = _write_temp(folder, name, payload)
        for name, temp in temps.items():
            os.replace(temp, folder / name)
    except OSError as err:
        raise on_error(folder, err) from err
    finally:
        for temp in temps.values():
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
