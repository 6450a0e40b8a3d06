"""The limits and access rules of the workbench server, in one frozen settings object."""

from __future__ import annotations

import dataclasses
import ipaddress

__all__ = ["TOKEN_ENV", "ServeSettings", "is_loopback"]

TOKEN_ENV = "ALERCE_SERVE_TOKEN"
"""Environment variable holding the access token (required when the server binds a non-loopback address)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ServeSettings:
    """How the workbench listens and how much one request may ask for.

    Attributes:
        host: Address to bind; anything but loopback needs ``token``.
        port: TCP port.
        token: Access token asked of every request (None: no token, loopback only).
        max_request_bytes: Largest request body accepted.
        max_question_chars: Longest question accepted.
        max_sql_chars: Longest SQL accepted from the SQL box or the API.
        max_rows_per_response: Most rows one API or MCP response carries (downloads carry every fetched row).
        page_rows: Rows per page of the result table.
        one_at_a_time: Answer one question at a time and show the queue position (the embedded local model).
        max_answers_kept: Answers kept in memory for pages and downloads; the oldest go first.
        workers: Threads answering questions at once.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    max_request_bytes: int = 64_000
    max_question_chars: int = 2_000
    max_sql_chars: int = 20_000
    max_rows_per_response: int = 500
    page_rows: int = 50
    one_at_a_time: bool = False
    max_answers_kept: int = 200
    workers: int = 4

    def __post_init__(self) -> None:
        """Refuse to serve another address without a token."""
        if not is_loopback(self.host) and not self.token:
            raise ValueError(
                f"binding {self.host} exposes the database beyond this machine; set a token with --token or "
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
