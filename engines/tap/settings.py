"""Where the TAP service is and what a query on it may cost (light: no pyvo import)."""

import dataclasses
import os

from defaults.catalog import DEFAULT_CATALOG
from defaults.time_limits import TAP_CONNECT_S, TAP_QUERY_S
from engines.errors import DatabaseUnavailable
from engines.settings import MAX_ROWS

__all__ = [
    "DEFAULT_TAP_URL",
    "TAP_SYNC_LIMIT_ENV",
    "TAP_URL_ENV",
    "TapSettings",
    "default_sync_limit",
    "default_tap_url",
]

DEFAULT_TAP_URL = "https://tap.alerce.online/tap"
TAP_URL_ENV = "ALERCE_TAP_URL"
TAP_SYNC_LIMIT_ENV = "ALERCE_TAP_SYNC_LIMIT_S"


def default_tap_url() -> str:
    """Return ``$ALERCE_TAP_URL`` if set, else ALeRCE's service."""
    return os.environ.get(TAP_URL_ENV) or DEFAULT_TAP_URL


def default_sync_limit() -> float | None:
    """Return ``$ALERCE_TAP_SYNC_LIMIT_S`` (the service's own sync time limit, in seconds) if set, else None.

    Raises:
        DatabaseUnavailable: The variable is not a number of seconds above 0.
    """
    text = os.environ.get(TAP_SYNC_LIMIT_ENV, "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise DatabaseUnavailable(
            f"${TAP_SYNC_LIMIT_ENV} must be the TAP service's sync time limit in seconds, got {text!r}; unset it "
            "when the limit is unknown."
        )
    return seconds


@dataclasses.dataclass(frozen=True, kw_only=True)
class TapSettings:
    """How to reach the TAP service and how much a query may cost.

    Attributes:
        url: Base URL of the TAP service (the folder holding ``/sync``, ``/async``, ``/capabilities``).
        timeout_s: Default time limit of one query, in seconds.
        max_rows: Default row cap, sent as MAXREC (lowered to the service's hard limit).
        sync_limit_s: The service's own time limit of sync queries, when known (DaCHS's default is 60 s, past which
            it answers "Query timed out"; ALeRCE's runs queries of several minutes). A time limit at or above it
            runs synchronously, since the service stops the query first; any other runs as an async job with
            EXECUTIONDURATION, deleted at the limit. None (unknown): every query runs as a job (DaCHS takes
            about 3 s more to start one). Default: ``$ALERCE_TAP_SYNC_LIMIT_S``, else None.
        connect_timeout_s: Time allowed to open a connection to the service.
        retries: Extra attempts after a transient HTTP failure (connection refused, 5xx, 429).
        backoff_s: Wait before the first retry, doubled for each further one.
        catalog: Whose tables the SQL names (``catalog.CATALOG_NAMES``); the service publishes them in the catalog's
            TAP schema (``ztf``, ``alerce_tap``).
    """

    url: str = dataclasses.field(default_factory=default_tap_url)
    timeout_s: float = TAP_QUERY_S
    max_rows: int = MAX_ROWS
    sync_limit_s: float | None = dataclasses.field(default_factory=default_sync_limit)
    connect_timeout_s: float = TAP_CONNECT_S
    retries: int = 2
    backoff_s: float = 0.5
    catalog: str = DEFAULT_CATALOG
