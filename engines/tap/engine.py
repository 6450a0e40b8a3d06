"""ALeRCE's TAP service as an engine: guard, translate to ADQL, run through pyvo, return a frame and a Table.

A query runs as an async job with EXECUTIONDURATION set to its time limit, polled until the limit and deleted then
(``engines.tap.jobs``), so the limit reaches the service; only a limit at or above the service's own sync limit
(``TapSettings.sync_limit_s``, when known) runs synchronously, where the service stops the query itself. maxrec is
always the row cap; a result the service cut (``QUERY_STATUS=OVERFLOW``) is flagged truncated, and the extra row
DaCHS sends past MAXREC to say so is dropped. Transient HTTP failures are retried with backoff a bounded number of
times, never past the time limit. The service's limits (``/capabilities``) and its tables (``tap_schema``) are read
once, on first use. A result holding arrays of strings, which pyvo cannot read from a VOTable, is fetched again as
CSV; a catalog array column that the service publishes as JSON text (the local DaCHS) is read back as lists
(`engines.tap.csv`).

TAP has no SQLSTATE: error kinds come from the service's messages ("Could not locate table", "No such field
known", "Query timed out"), in ``engines.tap.errors``.
"""

import hashlib
import logging
import math
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import pandas as pd
import pyvo
import requests
from astropy.table import Table
from pyvo.dal import DALFormatError, DALOverflowWarning, DALQueryError, DALServiceError

from catalog import load_catalog
from catalog.dachs_rd import array_columns
from engines.adql.guard import check_adql
from engines.adql.hints import with_hint
from engines.adql.pasted import PastedADQL, prepare_pasted
from engines.adql.translation import TapTarget, Translation, Upload, default_target, translate
from engines.engine import EngineLifecycle, Result
from engines.errors import DatabaseUnavailable, ExecutionError
from engines.guard import check_sql
from engines.tap.csv import fetch_csv, holds_string_arrays, read_back_arrays
from engines.tap.errors import is_timeout, is_transient, query_error, reason, timeout_error, unavailable_message
from engines.tap.jobs import run_job
from engines.tap.settings import TapSettings

__all__ = ["TapEngine"]

logger = logging.getLogger(__name__)

T = TypeVar("T")


class TapEngine(EngineLifecycle):
    """Run the program's PostgreSQL on a TAP service, as ADQL through pyvo.

    Example: ``with TapEngine(TapSettings(url=url)) as engine: engine.execute("SELECT oid FROM object").frame``.
    """

    name = "tap"

    def __init__(self, settings: TapSettings | None = None) -> None:
        self.settings = settings or TapSettings()
        self.catalog = self.settings.catalog
        self._array_columns = array_columns(load_catalog(self.catalog))
        self._lock = threading.Lock()
        self._target: TapTarget | None = None
        self._hard_limit: int | None = None
        self._contents = ""

    def execute(self, sql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Guard, translate and run one SELECT statement.

        Args:
            sql: PostgreSQL text holding one SELECT or WITH statement.
            timeout_s: Time limit in seconds (default: settings.timeout_s).
            max_rows: Row cap (default: settings.max_rows).

        Returns:
            The rows, the elapsed time, whether the service cut them at the cap, the ADQL and the Table.

        Raises:
            GuardError: The guard refused the statement.
            ExecutionError: Kind unsupported when ADQL has no form for it; the service's error otherwise.
            DatabaseUnavailable: The service cannot be reached.
        """
        return self._execute(self.translate(check_sql(sql)), timeout_s=timeout_s, max_rows=max_rows)

    def execute_adql(self, adql: str, *, timeout_s: float | None = None, max_rows: int | None = None) -> Result:
        """Run ADQL written by a person (one SELECT, ``engines.adql.guard``), with the same limits, after
        `prepare_adql` rewrote what the service refuses.

        Raises:
            GuardError: The text is not one ADQL query.
            ExecutionError: The service's error, with a hint.
            DatabaseUnavailable: The service cannot be reached.
        """
        prepared = self.prepare_adql(adql)
        return self._execute(Translation(prepared.adql), timeout_s=timeout_s, max_rows=max_rows)

    def prepare_adql(self, adql: str) -> PastedADQL:
        """Check pasted ADQL and rewrite what DaCHS refuses (``engines.adql.pasted``); reads the service once.

        Raises:
            GuardError: The text is not one ADQL query.
        """
        return prepare_pasted(check_adql(adql), self.target())

    def _execute(self, translation: Translation, *, timeout_s: float | None, max_rows: int | None) -> Result:
        timeout_s = self.settings.timeout_s if timeout_s is None else timeout_s
        max_rows = self.settings.max_rows if max_rows is None else max_rows
        if self._hard_limit:
            max_rows = min(max_rows, self._hard_limit)
        started = time.perf_counter()
        deadline = time.monotonic() + timeout_s
        sync_limit_s = self.settings.sync_limit_s
        is_sync = sync_limit_s is not None and timeout_s >= sync_limit_s  # the service stops it at its own limit

        def fetch() -> tuple[Table, bool]:
            left_s = max(0.0, deadline - time.monotonic())
            return self._fetch(translation, timeout_s=left_s, max_rows=max_rows, is_sync=is_sync)

        with warnings.catch_warnings():  # pyvo warns of the overflow the result's `truncated` reports
            warnings.simplefilter("ignore", DALOverflowWarning)
            try:
                table, truncated = self._with_retries(fetch, deadline=deadline)
            except ExecutionError as err:
                raise ExecutionError(err.kind, err.sqlstate, with_hint(err.message, translation.adql)) from err
        truncated = truncated or len(table) > max_rows
        table = table[:max_rows]
        frame = table.to_pandas(index=False) if table.colnames else pd.DataFrame()
        frame.columns = _undo_renames(list(frame.columns))
        elapsed_s = time.perf_counter() - started
        return Result(frame=frame, elapsed_s=elapsed_s, truncated=truncated, adql=translation.adql, table=table)

    def _fetch(self, translation: Translation, *, timeout_s: float, max_rows: int, is_sync: bool) -> tuple[Table, bool]:
        """Run the query for a VOTable; when pyvo cannot read its arrays of strings, run it again for CSV."""
        try:
            results = self._run(translation, timeout_s=timeout_s, max_rows=max_rows, is_sync=is_sync)
        except DALFormatError as err:
            if not holds_string_arrays(err):
                raise
            service = self._service(timeout_s + self.settings.connect_timeout_s)
            return fetch_csv(service, translation.adql, max_rows=max_rows, uploads=_uploads(translation))
        table = read_back_arrays(results.to_table(), self._array_columns)
        return table, (results.query_status or "").upper() == "OVERFLOW"

    def translate(self, sql: str) -> Translation:
        """Return the ADQL of a guarded statement for this service's tables (reads them on first use)."""
        return translate(sql, self.target())

    def target(self) -> TapTarget:
        """Return the service's schema facts, reading its limits and ``tap_schema`` tables once."""
        with self._lock:
            if self._target is None:
                self._target, self._hard_limit, self._contents = self._with_retries(self._read_service)
            return self._target

    def check_available(self) -> None:
        """Ask the service for its capabilities (a small document every TAP service serves), within the connect
        timeout.

        Raises:
            DatabaseUnavailable: The service does not answer, or answers with an error.
        """
        wait_s = self.settings.connect_timeout_s
        try:
            requests.get(f"{self.settings.url.rstrip('/')}/capabilities", timeout=(wait_s, wait_s)).raise_for_status()
        except requests.RequestException as err:
            raise DatabaseUnavailable(unavailable_message(self.settings.url, err)) from err

    @property
    def concurrency(self) -> None:
        """Unbounded: the service queues what it cannot run at once."""
        return None

    def tables(self) -> frozenset[str]:
        """Return the tables the service publishes in the catalog's TAP schema (read from ``tap_schema`` once)."""
        return self.target().tables

    def fingerprint(self) -> str:
        """Return ``tap-`` and a hash of the URL, the published tables and their row counts where listed.

        The row counts (``tap_schema.tables.nrows``, filled by DaCHS's ``dachs limits``) change when the service's
        data change; a service that does not list them is identified by its URL and tables only.
        """
        self.target()
        text = "\x1f".join([self.settings.url, self._contents])
        return f"{self.name}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"

    def close(self) -> None:
        """Forget the cached service facts; nothing stays open between queries."""
        with self._lock:
            self._target = None

    def _service(self, read_timeout_s: float) -> pyvo.dal.TAPService:
        session = _TimeoutSession((self.settings.connect_timeout_s, read_timeout_s))
        return pyvo.dal.TAPService(self.settings.url, session=session)

    def _read_service(self) -> tuple[TapTarget, int | None, str]:
        """Read the hard row limit, the tables of the catalog's TAP schema and their row counts (where listed)."""
        service = self._service(self.settings.timeout_s)
        try:
            hard_limit = int(service.hardlimit)
        except (DALServiceError, TypeError, ValueError):
            hard_limit = None
        schema = default_target(self.catalog).schema
        where = f"WHERE schema_name = '{schema}'"
        try:
            rows = service.run_sync(f"SELECT table_name, nrows FROM tap_schema.tables {where}", maxrec=10_000)
        except DALQueryError:  # a service whose tap_schema has no nrows column
            rows = service.run_sync(f"SELECT table_name FROM tap_schema.tables {where}", maxrec=10_000)
        table = rows.to_table()
        names = [str(name).split(".")[-1].lower() for name in table["table_name"]]
        counts = [str(count) for count in table["nrows"]] if "nrows" in table.colnames else [""] * len(names)
        contents = ",".join(sorted(f"{name}={count}" for name, count in zip(names, counts, strict=True)))
        logger.debug("TAP service %s publishes %d tables in %s", self.settings.url, len(names), schema)
        return default_target(self.catalog, frozenset(names)), hard_limit, contents

    def _run(self, translation: Translation, *, timeout_s: float, max_rows: int, is_sync: bool) -> pyvo.dal.TAPResults:
        uploads = _uploads(translation)
        if is_sync:
            service = self._service(timeout_s + self.settings.connect_timeout_s)
            return service.run_sync(translation.adql, maxrec=max_rows, uploads=uploads)
        service = self._service(self.settings.connect_timeout_s)
        return run_job(service, translation.adql, uploads=uploads, max_rows=max_rows, timeout_s=timeout_s)

    def _with_retries(self, call: Callable[[], T], *, deadline: float = math.inf) -> T:
        """Run `call`, retrying transient HTTP failures while the monotonic `deadline` allows; translate pyvo and
        HTTP errors into project errors."""
        attempt = 0
        while True:
            try:
                return call()
            except DALQueryError as err:
                raise query_error(err) from err
            except (DALServiceError, DALFormatError, requests.RequestException) as err:
                if is_timeout(err):
                    raise timeout_error(None) from err
                delay_s = self.settings.backoff_s * 2**attempt
                if not is_transient(err) or attempt >= self.settings.retries or time.monotonic() + delay_s > deadline:
                    raise DatabaseUnavailable(unavailable_message(self.settings.url, err)) from err
                logger.info("TAP service failed (%s); retrying in %.1f s", reason(err), delay_s)
                time.sleep(delay_s)
                attempt += 1


class _TimeoutSession(requests.Session):
    """A requests session whose calls time out (pyvo passes no timeout of its own)."""

    def __init__(self, timeout: tuple[float, float]) -> None:
        super().__init__()
        self.timeout = timeout

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout)
        return super().request(*args, **kwargs)


def _undo_renames(names: list[str]) -> list[str]:
    """Give back repeated column names that DaCHS suffixed with ``_`` (``oid``, ``oid_``), as PostgreSQL names them.

    Examples:
        >>> _undo_renames(["oid", "ndet", "oid_", "oid__", "class_name"])
        ['oid', 'ndet', 'oid', 'oid', 'class_name']
    """
    seen: set[str] = set()
    labels = []
    for name in names:
        base = name.rstrip("_")
        label = base if base != name and base in seen else name
        seen.add(label)
        labels.append(label)
    return labels


def _uploads(translation: Translation) -> dict[str, Table] | None:
    return {name: _upload_table(upload) for name, upload in translation.uploads.items()} or None


def _upload_table(upload: Upload) -> Table:
    columns = list(zip(*upload.rows, strict=True)) if upload.rows else [[] for _ in upload.columns]
    return Table([list(values) for values in columns], names=upload.columns)
