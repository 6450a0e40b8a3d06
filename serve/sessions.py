"""Page sessions: ids only this server issues (signed, checked on every request), so no client picks another's, in
cookies named for their instance, so two workbenches on one host keep theirs apart."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from urllib.parse import urlsplit

__all__ = ["SessionIds", "cookie_name", "cookie_name_of"]


class SessionIds:
    """Issue session ids signed with a key of this server process, and tell an issued id from any other text.

    An id is a random nonce and its HMAC: unguessable, and checked without keeping a list of ids (a client cannot
    fill memory by asking for new ones). A restarted server issues new ids; the old ones, like the answers they
    listed, are gone.
    """

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or secrets.token_bytes(32)  # a shared key (serve.state.keys) outlives this process

    def issue(self) -> str:
        """Return a new session id."""
        nonce = secrets.token_urlsafe(16)
        return f"{nonce}.{self._sign(nonce)}"

    def is_issued(self, value: str | None) -> bool:
        """Tell whether `value` is an id this server issued (compared in constant time)."""
        nonce, dot, signature = (value or "").partition(".")
        offered = signature.encode("utf-8", "replace")
        return bool(nonce and dot) and hmac.compare_digest(offered, self._sign(nonce).encode())

    def _sign(self, nonce: str) -> str:
        digest = hmac.new(self._key, nonce.encode("utf-8", "replace"), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:18]).decode()


def cookie_name(base: str, port: int, *, secure: bool) -> str:
    """Name a cookie of the workbench on `port`: browsers share cookies between the ports of a host, so each
    instance has its own; over HTTPS it is a ``__Host-`` cookie, which only a secure page of this host can set.

    Examples:
        >>> cookie_name("workbench_session", 8000, secure=False), cookie_name("workbench_token", 443, secure=True)
        ('workbench_session_8000', '__Host-workbench_token_443')
    """
    return f"{'__Host-' if secure else ''}{base}_{port}"


def cookie_name_of(base: str, host: str, *, secure: bool) -> str:
    """Name a cookie of the workbench a request's `host` header addresses: by the port the browser used (the
    scheme's default when it names none), whichever port the server itself listens on behind it.

    Examples:
        >>> cookie_name_of("workbench_session", "127.0.0.1:8001", secure=False)
        'workbench_session_8001'
        >>> cookie_name_of("workbench_session", "example.org", secure=True)
        '__Host-workbench_session_443'
    """
    try:
        port = urlsplit(f"//{host}").port
    except ValueError:  # not a port: the scheme's default, as for no port
        port = None
    return cookie_name(base, port or (443 if secure else 80), secure=secure)
