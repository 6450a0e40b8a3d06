"""The limits and access rules of the workbench server, in one frozen settings object."""

from __future__ import annotations

import dataclasses
import ipaddress
import re

__all__ = ["MIN_TOKEN_CHARS", "SAMP_WEB_HUB", "TOKEN_ENV", "ServeSettings", "is_loopback"]

TOKEN_ENV = "ALERCE_SERVE_TOKEN"
"""Environment variable holding the access token (required when the server binds a non-loopback address)."""
MIN_TOKEN_CHARS = 16
"""Shortest access token accepted (``openssl rand -hex 16`` makes 32 characters)."""
SAMP_WEB_HUB = "http://localhost:21012"
"""Where the SAMP Web Profile puts the hub (TOPCAT's and Aladin's) for the pages of a browser: a fixed address."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ServeSettings:
    """How the workbench listens and how much one request, one client and all clients together may ask for.

    Attributes:
        host: Address to bind; anything but loopback needs ``token``.
        port: TCP port.
        token: Access token asked of every request (None: no token, loopback only); at least ``MIN_TOKEN_CHARS``.
        max_request_bytes: Largest request body accepted (with or without a Content-Length).
        max_question_chars: Longest question accepted.
        max_sql_chars: Longest SQL accepted from the SQL box or the API.
        max_rows_per_response: Most rows one API or MCP response carries (downloads carry every fetched row).
        max_response_bytes: Most bytes of rows one API or MCP response carries; rows past it are left out.
        page_rows: Rows per page of the result table.
        one_at_a_time: Answer one question at a time and show the queue position (the embedded local model).
        max_queued: Questions waiting or being answered, from all clients together; more are refused (429).
        max_queued_per_client: The same for one client (one address).
        busy_wait_s: Longest wait of a query for a free connection of its client's share before it is refused
            as busy (503); also the longest wait of an answer's query behind other clients' queries.
        own_wait_s: Longest wait of an answer's query behind the same client's other queries (its candidates,
            corrections and other questions share the client's connections).
        max_answers_kept: Answers kept in memory for pages and downloads; the oldest go first.
        max_kept_bytes: Memory the kept answers may hold (rows and texts, estimated); the oldest go first.
        max_sessions: Page sessions whose history is kept; the least recently answered go first.
        max_history: Answers listed in one page session's history.
        workers: Threads answering questions at once.
        metrics_token: Token a request for ``/metrics`` must carry (None: /metrics is open on a loopback server
            without an access token, and absent otherwise).
        forwarded_allow_ips: Addresses of the reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are
            believed (comma-separated, as uvicorn takes them); None believes no proxy: every cap counts the peer.
        max_connections: Open HTTP connections from all clients together; more are closed at once.
        max_connections_per_client: Open HTTP connections from one peer address.
        header_timeout_s: Longest a connection may take to send a request's headers (and stay idle between
            requests) before it is closed.
        samp_hub_url: The SAMP Web Profile hub that the page's send button talks to (the only address outside the
            workbench that the page may connect to); the standard's fixed one but in tests.
        hips_url: A HiPS survey the sky view shows under the positions (e.g. a CDS one); its origin joins the page's
            content security policy. "" (default): a plain coordinate view, as offline.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = dataclasses.field(default=None, repr=False)
    max_request_bytes: int = 64_000
    max_question_chars: int = 2_000
    max_sql_chars: int = 20_000
    max_rows_per_response: int = 500
    max_response_bytes: int = 4_000_000
    page_rows: int = 50
    one_at_a_time: bool = False
    max_queued: int = 20
    max_queued_per_client: int = 3
    busy_wait_s: float = 5.0
    max_answers_kept: int = 200
    max_kept_bytes: int = 256 * 1024 * 1024
    max_sessions: int = 1_000
    max_history: int = 50
    workers: int = 4
    metrics_token: str | None = dataclasses.field(default=None, repr=False)
    own_wait_s: float = 120.0
    forwarded_allow_ips: str | None = None
    max_connections: int = 1_000
    max_connections_per_client: int = 100
    header_timeout_s: float = 10.0
    samp_hub_url: str = SAMP_WEB_HUB
    hips_url: str = ""

    def __post_init__(self) -> None:
        """Refuse to serve another address without a token, and a token that is easy to guess."""
        if self.token is not None and len(self.token) < MIN_TOKEN_CHARS:
            raise ValueError(
                f"the access token has {len(self.token)} characters; use at least {MIN_TOKEN_CHARS} "
                f"(e.g. openssl rand -hex 16 > token, then --token-file token)"
            )
        if self.metrics_token is not None and len(self.metrics_token) < MIN_TOKEN_CHARS:
            raise ValueError(
                f"the metrics token has {len(self.metrics_token)} characters; use at least {MIN_TOKEN_CHARS}"
            )
        if not re.fullmatch(r"https?://[\w.\-\[\]:]+", self.samp_hub_url):
            raise ValueError(f"the SAMP hub's address {self.samp_hub_url!r} is not http://HOST:PORT")
        if self.hips_url and not re.fullmatch(r"https?://[\w.\-\[\]:]+(/[\w.\-~/%]*)?", self.hips_url):
            raise ValueError(f"the HiPS survey's address {self.hips_url!r} is not http(s)://HOST[:PORT]/PATH")
        if not is_loopback(self.host) and not self.token:
            raise ValueError(
                f"binding {self.host} exposes the database beyond this machine; set a token with --token-file or "
                f"${TOKEN_ENV}, or bind 127.0.0.1"
            )


def is_loopback(host: str) -> bool:
    """Tell whether `host` is a loopback address or ``localhost``.

    Examples:
        >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("localhost"), is_loopback("0.0.0.0")
        (True, True, True, False)
    """
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
