"""Where the TAP service is and what a query on it may cost (light: no pyvo import)."""

import dataclasses
import os

from defaults.time_limits import TAP_CONNECT_S, TAP_QUERY_S

__all__ = ["DEFAULT_TAP_URL", "TAP_URL_ENV", "TapSettings", "default_tap_url"]

DEFAULT_TAP_URL = "https://tap.alerce.online/tap"
TAP_URL_ENV = "ALERCE_TAP_URL"


def default_tap_url() -> str:
    """Return ``$ALERCE_TAP_URL`` if set, else ALeRCE's service."""
    return os.environ.get(TAP_URL_ENV) or DEFAULT_TAP_URL


@dataclasses.dataclass(frozen=True, kw_only=True)
class TapSettings:
    """How to reach the TAP service and how much a query may cost.

    Attributes:
        url: Base URL of the TAP service (the folder holding ``/sync``, ``/async``, ``/capabilities``).
        timeout_s: Default time limit of one query, in seconds.
        max_rows: Default row cap, sent as MAXREC (lowered to the service's hard limit).
        sync_limit_s: Longest time limit run synchronously; longer ones run as async jobs. ALeRCE's service runs
            queries of several minutes in sync mode (DaCHS's own default sync limit is 60 s, past which it
            answers "Query timed out").
        connect_timeout_s: Time allowed to open a connection to the service.
        retries: Extra attempts after a transient HTTP failure (connection refused, 5xx, 429).
        backoff_s: Wait before the first retry, doubled for each further one.
        catalog: Whose tables the SQL names (``catalog.CATALOG_NAMES``); the service publishes them in the catalog's
            TAP schema (``ztf``, ``alerce_tap``).
    """

    url: str = dataclasses.field(default_factory=default_tap_url)
    timeout_s: float = TAP_QUERY_S
    max_rows: int = 100_000
    sync_limit_s: float = 600.0
    connect_timeout_s: float = TAP_CONNECT_S
    retries: int = 2
    backoff_s: float = 0.5
    catalog: str = "ztf"
