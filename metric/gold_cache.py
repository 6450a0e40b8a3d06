"""Run each gold query once per database and keep its result on disk.

Gold results are keyed by ``sha256(sql)`` under ``<cache_dir>/<catalog>/<executor.fingerprint()>/``, so a changed
database (another catalog, scale, seed or snapshot) never reuses a stale result. A gold error is cached too, except
a timeout hit with a shorter time limit than the one now asked for, which is retried.

Entries are Parquet files (the rows, with the entry's facts as JSON in the schema metadata): a shared cache holds data
that cannot run code. An entry that does not verify (unreadable, another format or SQL, a pickle of an older version)
is ignored with a warning and the query runs again.
"""

import functools
import hashlib
import io
import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import platformdirs
import pyarrow as pa
import pyarrow.parquet as pq

from engines import Engine
from engines.errors import ErrorKind, ExecutionError, GuardError
from engines.outage import raise_if_connection_lost
from fileio import loads_json, write_atomic
from metric.value_match import normalized_rows

__all__ = ["GoldCache", "GoldResult", "default_cache_dir"]

logger = logging.getLogger(__name__)

_FORMAT_VERSION = 2
_FACTS_KEY = b"alerce_t2s_gold"


@dataclass(frozen=True)
class GoldResult:
    """The outcome of one gold query.

    Attributes:
        frame: The rows, or None when the query failed.
        error: The execution error (timeout, missing structure, ...), or None.
        elapsed_s: Wall time of the original execution, in seconds (not of the cache lookup).
        truncated: The result had more rows than the executor's ``max_rows`` and was cut.
    """

    frame: pd.DataFrame | None
    error: ExecutionError | None
    elapsed_s: float
    truncated: bool = False

    @functools.cached_property
    def rows(self) -> list[tuple] | None:
        """The rows as the value match compares them, computed once for every prediction scored against them."""
        return None if self.frame is None else normalized_rows(self.frame)


def default_cache_dir() -> Path:
    """Return the user cache folder for gold results."""
    return Path(platformdirs.user_cache_dir("alerce-t2s")) / "gold"


def _sql_key(sql: str) -> str:
    return hashlib.sha256(sql.encode()).hexdigest()


class GoldCache:
    """Thread-safe memory and disk cache of gold query results for one database.

    Example: ``GoldCache(executor, timeout_s=120).result(example.gold_sql).frame``.
    """

    def __init__(self, executor: Engine, *, cache_dir: Path | None = None, timeout_s: float | None = None):
        """Create the cache; nothing is read or run until the first ``result`` call.

        Args:
            executor: Runs the gold queries; its ``catalog`` and ``fingerprint()`` name the database.
            cache_dir: Root folder of the disk cache (default: the user cache dir ``alerce-t2s/gold``).
            timeout_s: Time limit of one gold query in seconds (default: the executor's).
        """
        self.executor = executor
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.timeout_s = timeout_s
        self._memory: dict[str, GoldResult] = {}
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}
        self._folder: Path | None = None

    @property
    def folder(self) -> Path:
        """The folder of this database's entries, ``<catalog>/<fingerprint>`` (asks for the fingerprint once)."""
        with self._lock:
            if self._folder is None:
                self._folder = self.cache_dir / self.executor.catalog / self.executor.fingerprint()
            return self._folder

    def result(self, sql: str) -> GoldResult:
        """Return the gold result of ``sql``, running it only when neither memory nor disk holds it.

        Raises:
            DatabaseUnavailable: The query had to run and no connection could be opened, or it was lost during the
                query (nothing is cached).
        """
        key = _sql_key(sql)
        with self._lock:
            if key in self._memory:
                return self._memory[key]
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                if key in self._memory:
                    return self._memory[key]
            path = self.folder / f"{key}.parquet"
            _warn_of_pickle(path.with_suffix(".pkl"))
            result = self._load(path, sql)
            if result is None:
                result = self._run(sql)
                self._store(path, sql, result)
            with self._lock:
                self._memory[key] = result
            return result

    def _run(self, sql: str) -> GoldResult:
        try:
            executed = self.executor.execute(sql, timeout_s=self.timeout_s)
        except ExecutionError as err:
            raise_if_connection_lost(err)  # the database went away: not the gold's fault, never cached
            logger.warning("gold query failed: %s", err)
            return GoldResult(None, err, 0.0)
        if executed.truncated:
            logger.warning("gold result truncated to %d rows", len(executed.frame))
        return GoldResult(executed.frame, None, executed.elapsed_s, executed.truncated)

    def _load(self, path: Path, sql: str) -> GoldResult | None:
        """Read a cache entry; None when absent, unverifiable, for other SQL, or a timeout under a shorter limit."""
        try:
            table = pq.read_table(path)
            entry = loads_json((table.schema.metadata or {})[_FACTS_KEY])
        except FileNotFoundError:
            return None
        except (OSError, KeyError, ValueError, pa.ArrowException) as err:
            logger.warning("ignoring a gold cache entry that does not verify, %s: %s", path, err)
            return None
        if not isinstance(entry, dict) or entry.get("version") != _FORMAT_VERSION or entry.get("sql") != sql:
            logger.warning("ignoring a gold cache entry that does not verify, %s: other format or SQL", path)
            return None
        error = _error_from(entry["error"]) if entry["error"] is not None else None
        if error is not None and error.kind is ErrorKind.TIMEOUT and self._is_longer(entry.get("timeout_s")):
            return None
        frame = None
        if entry["columns"] is not None:
            frame = table.to_pandas()
            frame.columns = entry["columns"]
        return GoldResult(frame, error, entry["elapsed_s"], entry.get("truncated", False))

    def _is_longer(self, cached_timeout_s: float | None) -> bool:
        """Tell whether the current time limit is longer than the one under which a cached timeout happened."""
        current = self.timeout_s
        return current is not None and (cached_timeout_s is None or current > cached_timeout_s)

    def _store(self, path: Path, sql: str, result: GoldResult) -> None:
        """Write one entry atomically (temp file, fsync, rename); a failure only logs a warning."""
        frame = result.frame
        entry = {
            "version": _FORMAT_VERSION,
            "sql": sql,
            "columns": None if frame is None else [str(column) for column in frame.columns],
            "error": _error_fields(result.error) if result.error is not None else None,
            "elapsed_s": result.elapsed_s,
            "truncated": result.truncated,
            "timeout_s": self.timeout_s,
        }
        try:
            # Positional names: gold results may repeat a column name, which Parquet cannot hold.
            table = pa.table({}) if frame is None else pa.Table.from_pandas(_positional(frame), preserve_index=False)
            table = table.replace_schema_metadata({_FACTS_KEY: json.dumps(entry).encode()})
            buffer = io.BytesIO()
            pq.write_table(table, buffer)
            write_atomic(path, buffer.getvalue())
        except (OSError, pa.ArrowException, TypeError, ValueError) as err:
            logger.warning("cannot write gold cache entry %s: %s", path, err)


def _positional(frame: pd.DataFrame) -> pd.DataFrame:
    renamed = frame.copy(deep=False)
    renamed.columns = [f"c{index}" for index in range(frame.shape[1])]
    return renamed


def _warn_of_pickle(path: Path) -> None:
    if path.exists():
        logger.warning(
            "ignoring %s: gold cache entries are Parquet now; a pickle is never read (it could run code)", path
        )


def _error_fields(error: ExecutionError) -> dict[str, str | None]:
    return {
        "class": "guard" if isinstance(error, GuardError) else "execution",
        "kind": error.kind.value,
        "sqlstate": error.sqlstate,
        "message": error.message,
    }


def _error_from(fields: dict[str, str | None]) -> ExecutionError:
    if fields.get("class") == "guard":
        return GuardError(fields["message"] or "")
    return ExecutionError(ErrorKind(fields["kind"]), fields["sqlstate"], fields["message"] or "")
