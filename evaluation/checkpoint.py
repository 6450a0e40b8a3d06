"""An append-only JSON-lines checkpoint of scored items, so an interrupted evaluation resumes where it stopped."""

import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from evaluation.errors import CheckpointMismatch, ReportNotWritten
from fileio.json_data import UnreadableJSON, loads_json

__all__ = ["CHECKPOINT_FILE", "Checkpoint"]

logger = logging.getLogger(__name__)

CHECKPOINT_FILE = "checkpoint.jsonl"
_FORMAT_VERSION = 1
SYNC_INTERVAL_S = 1.0
"""Longest time between two fsyncs of the checkpoint file while items are appended."""


class Checkpoint:
    """Items finished so far, one JSON object per line after a header line naming the settings they depend on.

    Each append is written and flushed at once, so a killed run loses at most the line being written (a torn last
    line is ignored on load). The file is fsynced at most every `SYNC_INTERVAL_S` (one fsync per item would cost
    more than scoring it): a machine that crashes loses at most the last interval's items, which a resume redoes.
    """

    def __init__(self, path: str | Path, identity: dict[str, object]) -> None:
        """Bind the checkpoint to a file; nothing is read or written yet.

        Args:
            path: The ``checkpoint.jsonl`` file (its folder is created on the first append).
            identity: JSON-ready settings that make results comparable (database fingerprint, dataset hash,
                timeouts, ...); a file written under other values is refused.
        """
        self.path = Path(path)
        self.identity = json.loads(json.dumps(identity))
        self._lock = threading.Lock()
        self._synced_at = -SYNC_INTERVAL_S

    def load(self) -> list[dict]:
        """Return the records saved so far (later lines win for a repeated item), or [] when there is no file.

        Raises:
            CheckpointMismatch: The file was written under other settings.
        """
        if not self.path.is_file():
            return []
        lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        records = [record for record in map(_parse_line, lines) if record is not None]
        if not records:
            return []
        header, *items = records
        self._check_header(header)
        latest = {(record["req_id"], record["run"]): record for record in items if _is_item(record)}
        return list(latest.values())

    def append(self, record: dict) -> None:
        """Add one finished item (thread-safe).

        Raises:
            ReportNotWritten: The file cannot be written (disk full, read-only, its folder is a file); the items
                saved before are kept.
        """
        self.append_all([record])

    def append_all(self, records: Sequence[dict]) -> None:
        """Add several finished items in one write (thread-safe).

        Raises:
            ReportNotWritten: As for ``append``.
        """
        lines = "".join(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n" for record in records)
        try:
            self._append(lines)
        except OSError as err:
            raise ReportNotWritten(
                f"Cannot save progress to '{self.path}': {err.strerror or err}. Free space or choose a writable "
                "--report folder.",
                str(self.path),
            ) from err

    def _append(self, lines: str) -> None:
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ending = _last_byte(self.path)
            with self.path.open("a", encoding="utf-8") as file:
                if ending is None:
                    file.write(json.dumps({"checkpoint": _FORMAT_VERSION, "identity": self.identity}) + "\n")
                elif ending != b"\n":
                    file.write("\n")  # end a line torn by a killed run, so this record stays readable
                file.write(lines)
                file.flush()
                if time.monotonic() - self._synced_at >= SYNC_INTERVAL_S:
                    os.fsync(file.fileno())
                    self._synced_at = time.monotonic()

    def _check_header(self, header: dict) -> None:
        saved = header.get("identity") if header.get("checkpoint") == _FORMAT_VERSION else None
        if not isinstance(saved, dict):
            raise CheckpointMismatch(
                f"'{self.path}' is not a checkpoint of this evaluator; choose another --report folder.",
                str(self.path),
                (),
            )
        names = sorted(set(saved) | set(self.identity))
        differences = tuple(name for name in names if saved.get(name) != self.identity.get(name))
        if differences:
            changes = "; ".join(f"{n}: {saved.get(n)!r} then, {self.identity.get(n)!r} now" for n in differences)
            raise CheckpointMismatch(
                f"The checkpoint in '{self.path.parent}' was made with other settings ({changes}); "
                "rerun with the same settings to resume, or choose another --report folder.",
                str(self.path),
                differences,
            )


def _last_byte(path: Path) -> bytes | None:
    """Return the file's last byte, or None when the file is absent or empty."""
    try:
        with path.open("rb") as file:
            file.seek(0, os.SEEK_END)
            if file.tell() == 0:
                return None
            file.seek(-1, os.SEEK_END)
            return file.read(1)
    except FileNotFoundError:
        return None


def _parse_line(line: str) -> dict | None:
    """Parse one line; a blank or torn line (from a killed run), or one that is not a JSON object, gives None."""
    if not line.strip():
        return None
    try:
        record = loads_json(line)
    except UnreadableJSON as err:
        logger.warning("ignoring an unreadable checkpoint line (%s): %.60s", err, line)
        return None
    return record if isinstance(record, dict) else None


def _is_item(record: dict) -> bool:
    """Tell whether a record names its item (a req_id and a run that can be keys); others are ignored."""
    if isinstance(record.get("req_id"), int | str) and isinstance(record.get("run"), int | str):
        return True
    logger.warning("ignoring a checkpoint line without a req_id and a run: %.60s", json.dumps(record)[:60])
    return False
