"""A TAP job still running at its time limit is deleted on the service, against a fake UWS server (no DaCHS)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import pyvo

from engines.errors import ErrorKind, ExecutionError
from engines.tap.jobs import run_job

_JOB = "/tap/async/job1"


def _job_xml(phase: str) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<uws:job xmlns:uws="http://www.ivoa.net/xml/UWS/v1.0" xmlns:xlink="http://www.w3.org/1999/xlink"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="1.1">
  <uws:jobId>job1</uws:jobId>
  <uws:ownerId xsi:nil="true"/>
  <uws:phase>{phase}</uws:phase>
  <uws:quote xsi:nil="true"/>
  <uws:creationTime>2026-01-01T00:00:00Z</uws:creationTime>
  <uws:startTime>2026-01-01T00:00:00Z</uws:startTime>
  <uws:endTime xsi:nil="true"/>
  <uws:executionDuration>1</uws:executionDuration>
  <uws:destruction>2026-02-01T00:00:00Z</uws:destruction>
  <uws:parameters/>
  <uws:results/>
</uws:job>""".encode()


class _UwsServer(ThreadingHTTPServer):
    """A UWS service whose one job runs for ever (until deleted); it records each request as (method, path)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, str]] = []
        self.phase = "PENDING"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/tap"


class _Handler(BaseHTTPRequestHandler):
    server: _UwsServer

    def log_message(self, *args: object) -> None:  # keep the test output quiet
        pass

    def _record(self) -> str:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        path = self.path.split("?")[0]
        self.server.requests.append((self.command, path))
        return body

    def _redirect(self, location: str) -> None:
        self.send_response(303)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._record()
        body = _job_xml(self.server.phase)
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        body = self._record()
        if self.path.endswith("/phase") and "RUN" in body:
            self.server.phase = "EXECUTING"
        self._redirect(_JOB)

    def do_DELETE(self) -> None:
        self._record()
        self.server.phase = "ABORTED"
        self._redirect("/tap/async")


@pytest.fixture
def uws() -> Iterator[_UwsServer]:
    server = _UwsServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_a_job_running_at_its_limit_is_deleted(uws):
    service = pyvo.dal.TAPService(uws.url)
    with pytest.raises(ExecutionError) as timed_out:
        run_job(service, "SELECT TOP 1 oid FROM ztf.object", uploads=None, max_rows=5, timeout_s=0.3)
    assert timed_out.value.kind is ErrorKind.TIMEOUT
    assert ("POST", f"{_JOB}/phase") in uws.requests  # it ran ...
    assert ("DELETE", _JOB) in uws.requests  # ... and was deleted, which stops its query on the service
    assert uws.requests.index(("DELETE", _JOB)) > uws.requests.index(("POST", f"{_JOB}/phase"))
