"""Tell what went wrong on a TAP service: TAP has no SQLSTATE, so error kinds come from the service's messages
("Could not locate table", "No such field known", "Query timed out") and HTTP failures are transient or not."""

import requests
from pyvo.dal import DALQueryError

from engines.errors import ErrorKind, ExecutionError
from engines.tap.settings import TAP_URL_ENV

__all__ = ["is_timeout", "is_transient", "query_error", "reason", "timeout_error", "unavailable_message"]

_MISSING_MARKERS = (
    "could not locate",
    "could not be located",
    "no such field",
    "no such table",
    "does not exist",
    "unknown function",
)
_TIMEOUT_MARKERS = ("timed out", "took too long", "execution duration")
_TRANSIENT_HTTP = {429, 500, 502, 503, 504}


def query_error(err: DALQueryError) -> ExecutionError:
    """Type the service's refusal of a query by its message."""
    message = " ".join(str(err.reason or err).split())
    lowered = message.lower()
    if any(marker in lowered for marker in _TIMEOUT_MARKERS):
        kind = ErrorKind.TIMEOUT
    elif any(marker in lowered for marker in _MISSING_MARKERS):
        kind = ErrorKind.MISSING_STRUCTURE
    else:
        kind = ErrorKind.GENERAL
    return ExecutionError(kind, None, message)


def is_timeout(err: Exception) -> bool:
    """Tell whether reading the answer timed out (not connecting)."""
    cause = getattr(err, "cause", None) or err
    return isinstance(cause, requests.Timeout) and not isinstance(cause, requests.ConnectTimeout)


def is_transient(err: Exception) -> bool:
    """Tell whether a failure may pass on a retry: no connection, or HTTP 429 or 5xx."""
    cause = getattr(err, "cause", None) or err
    if isinstance(cause, requests.ConnectionError | requests.ConnectTimeout):
        return True
    code = getattr(err, "code", None) or getattr(getattr(cause, "response", None), "status_code", None)
    return code in _TRANSIENT_HTTP


def reason(err: Exception) -> str:
    """Return the gist of an HTTP or pyvo failure, on one line of at most 300 characters."""
    cause = getattr(err, "cause", None)
    text = str(getattr(err, "reason", None) or cause or err)
    return " ".join(text.split())[:300]


def unavailable_message(url: str, err: Exception) -> str:
    """Say that the service at `url` cannot be used, why, and what to check."""
    return f"Cannot use the TAP service at {url}: {reason(err)}. Check --tap-url or ${TAP_URL_ENV}."


def timeout_error(timeout_s: float | None) -> ExecutionError:
    """Return the error of a TAP query that outlived its time limit (None: the HTTP read timed out)."""
    limit = f" {timeout_s:g} s" if timeout_s is not None else ""
    message = f"the TAP query ran longer than its{limit} time limit; make it cheaper or narrow it down"
    return ExecutionError(ErrorKind.TIMEOUT, None, message)
