"""The key that signs page sessions, shared by every web process: from the environment, else from a file made once.

A key of the process alone would make every restart (and every other web process) refuse the sessions it did not
issue; the file is created with mode 0600 by whichever process comes first, and the others read it.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

import platformdirs

__all__ = ["KEY_ENV", "KEY_FILE_ENV", "default_key_file", "session_key"]

KEY_ENV = "ALERCE_SERVE_SESSION_KEY"
"""Environment variable holding the key itself (at least 32 hexadecimal characters)."""
KEY_FILE_ENV = "ALERCE_SERVE_SESSION_KEY_FILE"
"""Environment variable naming the key file (default: ``default_key_file()``)."""
_KEY_BYTES = 32
_MIN_HEX_CHARS = 32


def default_key_file() -> Path:
    """``$ALERCE_SERVE_SESSION_KEY_FILE``, else ``session.key`` in the per-user config folder of alerce-t2s."""
    named = os.environ.get(KEY_FILE_ENV, "").strip()
    return Path(named).expanduser() if named else Path(platformdirs.user_config_dir("alerce-t2s")) / "session.key"


def session_key(path: Path | None = None) -> bytes:
    """Return the session signing key: ``$ALERCE_SERVE_SESSION_KEY``, else the key file (made once, mode 0600).

    Raises:
        ValueError: The variable is not long hexadecimal, or the file is readable by others or holds no key.
        OSError: The file cannot be made or read (the message names it).
    """
    given = os.environ.get(KEY_ENV, "").strip()
    if given:
        try:
            key = bytes.fromhex(given)
        except ValueError:
            key = b""
        if len(given) < _MIN_HEX_CHARS or not key:
            raise ValueError(
                f"${KEY_ENV} must be at least {_MIN_HEX_CHARS} hexadecimal characters (openssl rand -hex 32)"
            )
        return key
    path = path or default_key_file()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_key(path)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(secrets.token_hex(_KEY_BYTES) + "\n")
    return _read_key(path)


def _read_key(path: Path) -> bytes:
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ValueError(f"the session key file {path} is readable by others (mode {mode & 0o777:o}); chmod 600 it")
    text = path.read_text(encoding="utf-8").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < _KEY_BYTES // 2:
        raise ValueError(f"the session key file {path} holds no key; delete it and a new one is made")
    return key
