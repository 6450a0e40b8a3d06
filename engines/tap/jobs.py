"""Run one ADQL query as a TAP async job whose time limit the service enforces, deleted when the limit passes.

A client that gives up on a sync query leaves it running on the service until the service's own sync limit (DaCHS:
60 s, at 99 % CPU): the time limit never reaches the service. A job carries it as EXECUTIONDURATION, the client
polls it until the limit, and a job still running then is deleted, which makes the service stop its query.
"""

import logging
import math
import time
from typing import Any

import requests
from pyvo.dal import DALServiceError

from engines.tap.errors import timeout_error

__all__ = ["run_job"]

logger = logging.getLogger(__name__)

_FINAL_PHASES = frozenset({"COMPLETED", "ERROR", "ABORTED"})
_FIRST_POLL_S = 0.05
_POLL_GROWTH = 1.5
_LONGEST_POLL_S = 1.0


def run_job(service: Any, adql: str, *, uploads: dict | None, max_rows: int, timeout_s: float) -> Any:
    """Run `adql` as an async job of `service` (a ``pyvo.dal.TAPService``) limited to `timeout_s`; return its results.

    Raises:
        ExecutionError: Kind timeout when the job did not complete within `timeout_s` (it is deleted).
        pyvo.dal.DALQueryError: The service reported an error for the query.
        pyvo.dal.DALServiceError, requests.RequestException: The service could not be used.
    """
    deadline = time.monotonic() + timeout_s
    job = service.submit_job(adql, maxrec=max_rows, uploads=uploads)
    try:
        job.execution_duration = max(1, math.ceil(timeout_s))
        job.run()
        phase = _wait(job, deadline)
        if phase == "ERROR":
            job.raise_if_error()
        if phase != "COMPLETED":  # still running at the limit, or aborted by the service at EXECUTIONDURATION
            raise timeout_error(timeout_s)
        return job.fetch_result()
    finally:
        _delete(job)


def _wait(job: Any, deadline: float) -> str:
    """Poll the job's phase, more slowly as it runs, until it ends or `deadline` (monotonic) passes."""
    pause_s = _FIRST_POLL_S
    while True:
        phase = job.phase
        left_s = deadline - time.monotonic()
        if phase in _FINAL_PHASES or left_s <= 0:
            return phase
        time.sleep(min(pause_s, left_s))
        pause_s = min(pause_s * _POLL_GROWTH, _LONGEST_POLL_S)


def _delete(job: Any) -> None:
    try:
        job.delete()
    except (DALServiceError, requests.RequestException) as err:
        logger.debug("could not delete TAP job %s: %s", job.url, err)
