"""The HTTP server's own limits: which proxy is believed, how many connections, how long a request's headers take.

uvicorn on its own believes ``X-Forwarded-For`` from 127.0.0.1, so any local client could claim any address and
take every other client's share; here proxy headers are believed only from the proxies the operator names
(``--forwarded-allow-ips``). Half-open connections are bounded in number (in all and per peer address, the real
peer's, never a forwarded one) and in the time their headers take, so a flood of them cannot use up the process's
open files, and ``/api/health`` keeps answering other clients; the accept loop's complaint when files do run out
is logged at most once every few seconds.
"""

from __future__ import annotations

import asyncio
import collections
import ipaddress
import logging
import os
import resource
import time
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr

from serve.settings import ServeSettings
from serve.store import fair_victim

__all__ = ["ConnectionLimits", "RateLimitedLog", "is_trusted_proxy", "uvicorn_config"]

logger = logging.getLogger(__name__)

LOG_EVERY_S = 10.0
"""Shortest time between two log lines about refused connections or the accept loop out of files."""
_REFUSAL = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
_ACCEPT_BURST = 64
"""The listen backlog, which is also how many connections asyncio accepts at once before any is counted (uvicorn's
2,048 would open that many files past the cap)."""
_FILES_KEPT_FREE = 64 + 3 * _ACCEPT_BURST
"""Open files left, when connections are capped by the file limit, for the database, logs and answers' downloads (64),
and for connections accepted but not yet counted in or closed: asyncio makes a connection's transport one loop
iteration after accepting it, calls ``connection_made`` the next, and closes a refused one the next again, so under
a flood three bursts are open past the cap."""


def is_trusted_proxy(peer: str, allowed: str | None) -> bool:
    """Tell whether `peer` is one of the proxies in `allowed` (comma-separated addresses or networks, ``*``: any).

    Examples:
        >>> is_trusted_proxy("10.0.0.7", "10.0.0.0/24"), is_trusted_proxy("127.0.0.1", None)
        (True, False)
        >>> is_trusted_proxy("::1", "127.0.0.1, ::1"), is_trusted_proxy("192.0.2.1", "*")
        (True, True)
    """
    if not allowed:
        return False
    names = [name.strip() for name in allowed.split(",") if name.strip()]
    if "*" in names:
        return True
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return peer in names
    for name in names:
        try:
            if address in ipaddress.ip_network(name, strict=False):
                return True
        except ValueError:
            continue
    return False


class RateLimitedLog:
    """Let one message through every `every_s` seconds and count the ones held back (said with the next)."""

    def __init__(self, every_s: float = LOG_EVERY_S) -> None:
        self.every_s = every_s
        self.held_back = 0
        self._last = -float("inf")

    def allow(self) -> bool:
        """Whether a message may be logged now (else it is counted)."""
        now = time.monotonic()
        if now - self._last < self.every_s:
            self.held_back += 1
            return False
        self._last = now
        return True

    def take_held_back(self) -> int:
        """Return how many messages were held back since the last one let through, and start counting again."""
        held, self.held_back = self.held_back, 0
        return held


class _AcceptErrors(logging.Filter):
    """Hold back repeats of asyncio's "out of system resource" line (the accept loop out of open files)."""

    def __init__(self) -> None:
        super().__init__()
        self.limit = RateLimitedLog()

    def filter(self, record: logging.LogRecord) -> bool:
        if "out of system resource" not in record.getMessage():
            return True
        if not self.limit.allow():
            return False
        held = self.limit.take_held_back()
        if held:
            record.msg = f"{record.msg} ({held} more like it in the last {self.limit.every_s:.0f} s)"
        return True


_ACCEPT_ERRORS = _AcceptErrors()


class ConnectionLimits:
    """Open connections in all and per peer address (a trusted proxy counts in all only); thread-unsafe (the event
    loop's thread only).

    When all places are taken, a newcomer holding fewer connections than another peer takes the place of that
    peer's oldest connection still waiting for its headers: a flood of half-open connections, even from many
    addresses, makes room for a client that sends its request at once (``/api/health`` keeps answering).
    """

    def __init__(self, *, total: int, per_peer: int, header_timeout_s: float, proxies: str | None = None) -> None:
        self.total = total
        self.per_peer = per_peer
        self.header_timeout_s = header_timeout_s
        self.proxies = proxies
        self.open: collections.Counter[str] = collections.Counter()
        self.refused = 0
        self.evicted = 0
        self._waiting: dict[str, dict[Any, None]] = collections.defaultdict(dict)  # peer -> header waits, oldest 1st
        self._log = RateLimitedLog()

    def admit(self, peer: str) -> bool:
        """Count a new connection of `peer` in (closing a half-open one of a peer holding more when all places are
        taken), or refuse it (False) when it would pass a cap."""
        per_peer_full = self.open[peer] >= self.per_peer and not is_trusted_proxy(peer, self.proxies)
        if not per_peer_full and self.open.total() >= self.total:
            self._evict_for(peer)
        if self.open.total() >= self.total or per_peer_full:
            self.refused += 1
            if self._log.allow():
                logger.warning(
                    "refused connections over the cap (%d open, at most %d, %d per address); %d refused, "
                    "%d half-open ones closed for others so far",
                    self.open.total(),
                    self.total,
                    self.per_peer,
                    self.refused,
                    self.evicted,
                )
            return False
        self.open[peer] += 1
        return True

    def release(self, peer: str) -> None:
        """Count a connection of `peer` out."""
        self.open[peer] -= 1
        if self.open[peer] <= 0:
            del self.open[peer]

    def waiting(self, peer: str, connection: Any, *, waits: bool) -> None:
        """Note whether `connection` of `peer` waits for a request's headers (so may make room for another)."""
        if waits:
            self._waiting[peer][connection] = None
        else:
            self._waiting[peer].pop(connection, None)
            if not self._waiting[peer]:
                del self._waiting[peer]

    def _evict_for(self, peer: str) -> None:
        holders = {other: self.open[other] for other in self._waiting if self.open[other] > self.open[peer] + 1}
        victim = fair_victim(holders)
        if victim is not None:
            oldest = next(iter(self._waiting[victim]))
            oldest.evict()
            self.evicted += 1

    def protocol(self) -> type[H11Protocol]:
        """An HTTP/1.1 protocol (uvicorn's h11) held to these limits."""
        limits = self

        class LimitedH11Protocol(H11Protocol):
            _peer: str | None = None
            _header_timer: asyncio.TimerHandle | None = None

            def connection_made(self, transport: Any) -> None:
                peer = (get_remote_addr(transport) or ("", 0))[0]
                if not limits.admit(peer):
                    transport.write(_REFUSAL)
                    transport.close()
                    return
                self._peer = peer
                super().connection_made(transport)
                self._arm()

            def connection_lost(self, exc: Exception | None) -> None:
                if self.transport is None:
                    return  # refused: never made
                self._count_out()
                super().connection_lost(exc)

            def data_received(self, data: bytes) -> None:
                if self._peer is None:
                    return
                super().data_received(data)
                if self.cycle is not None and not self.cycle.response_complete:
                    self._disarm()  # the headers are in: the request runs as long as it needs

            def on_response_complete(self) -> None:
                super().on_response_complete()
                if self._peer is not None and (self.cycle is None or self.cycle.response_complete):
                    self._arm()  # the next request's headers get the same time

            def evict(self) -> None:
                """Close this connection, which waits for headers, to make room for another peer's."""
                self._count_out()
                if not self.transport.is_closing():
                    self.transport.close()

            def _count_out(self) -> None:
                if self._peer is None:
                    return  # refused, or counted out already
                self._disarm()
                limits.release(self._peer)
                self._peer = None

            def _arm(self) -> None:
                self._disarm()
                self._header_timer = self.loop.call_later(limits.header_timeout_s, self._headers_too_slow)
                limits.waiting(self._peer, self, waits=True)

            def _disarm(self) -> None:
                if self._header_timer is not None:
                    self._header_timer.cancel()
                    self._header_timer = None
                    limits.waiting(self._peer, self, waits=False)

            def _headers_too_slow(self) -> None:
                self._disarm()
                if not self.transport.is_closing():
                    self.transport.close()

        return LimitedH11Protocol


def uvicorn_config(
    app: Any, settings: ServeSettings, *, port: int | None = None, log_level: str = "warning"
) -> uvicorn.Config:
    """The uvicorn configuration of the workbench: its address (`port` instead of the settings' one when given),
    the proxies it believes, its connection limits.

    Connections are capped below the process's open-file limit (less the files open now), whatever
    ``max_connections`` says.
    """
    logging.getLogger("asyncio").addFilter(_ACCEPT_ERRORS)
    soft_files, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    total = settings.max_connections
    if soft_files != resource.RLIM_INFINITY:
        total = min(total, max(16, soft_files - _files_open() - _FILES_KEPT_FREE))
    limits = ConnectionLimits(
        total=total,
        per_peer=settings.max_connections_per_client,
        header_timeout_s=settings.header_timeout_s,
        proxies=settings.forwarded_allow_ips,
    )
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port if port is None else port,
        log_level=log_level,
        http=limits.protocol(),
        proxy_headers=settings.forwarded_allow_ips is not None,
        forwarded_allow_ips=settings.forwarded_allow_ips or "",
        timeout_keep_alive=min(5, settings.header_timeout_s),
        backlog=_ACCEPT_BURST,
    )


def _files_open() -> int:
    """Files this process has open now (0 where the system does not list them)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0
