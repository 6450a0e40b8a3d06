"""ASGI middleware of the workbench: a cap on request bodies and, when one is set, an access token."""

from __future__ import annotations

import hmac
import json
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from serve.settings import is_loopback

__all__ = ["TOKEN_COOKIE", "AccessControl"]

TOKEN_COOKIE = "workbench_token"
"""Cookie that keeps the token after a page was opened with ``?token=...``."""


class _BodyTooLargeError(Exception):
    pass


class AccessControl:
    """Refuse bodies over `max_request_bytes` (413), requests without the token (401) when `token` is set, and
    requests another site's page makes (403).

    The token is accepted as ``Authorization: Bearer TOKEN``, as the ``workbench_token`` cookie, or as a
    ``token`` query parameter (which the page then keeps as that cookie). Without a token the server is on
    loopback, and a request must name a loopback host (a DNS-rebinding page names its own) and come from no other
    origin (a form or fetch of another site would spend the model's tokens).
    """

    def __init__(self, app: Any, *, max_request_bytes: int, token: str | None) -> None:
        self.app = app
        self.max_request_bytes = max_request_bytes
        self.token = token

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        """Check one HTTP request, then pass it on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        if self.token is not None and not self._has_token(scope, headers):
            await _refuse(send, 401, "this workbench needs its access token (Authorization: Bearer TOKEN or ?token=)")
            return
        if self.token is None and not _is_loopback_host(headers.get("host", "")):
            await _refuse(send, 403, "this workbench answers only requests for 127.0.0.1 or localhost")
            return
        origin = headers.get("origin")
        if origin and urlsplit(origin).netloc != headers.get("host", ""):
            await _refuse(send, 403, f"requests from another site ({origin}) are refused")
            return
        declared = headers.get("content-length", "0")
        if not declared.isdigit() or int(declared) > self.max_request_bytes:
            await _refuse(send, 413, f"the request is over the limit of {self.max_request_bytes:,} bytes")
            return
        started = False
        received = 0

        async def counted_receive() -> dict:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.max_request_bytes:
                raise _BodyTooLargeError
            return message

        async def tracked_send(message: dict) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except _BodyTooLargeError:
            if not started:
                await _refuse(send, 413, f"the request is over the limit of {self.max_request_bytes:,} bytes")

    def _has_token(self, scope: dict, headers: dict[str, str]) -> bool:
        offered = []
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            offered.append(value.strip())
        cookie = SimpleCookie(headers.get("cookie", ""))
        if TOKEN_COOKIE in cookie:
            offered.append(cookie[TOKEN_COOKIE].value)
        offered += parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [])
        return any(hmac.compare_digest(candidate.encode(), self.token.encode()) for candidate in offered)


def _is_loopback_host(host: str) -> bool:
    """Tell whether a Host header names a loopback address (any port).

    Examples:
        >>> _is_loopback_host("127.0.0.1:8000"), _is_loopback_host("[::1]:80"), _is_loopback_host("evil.example")
        (True, True, False)
    """
    return is_loopback(urlsplit(f"//{host}").hostname or "")


async def _refuse(send: Any, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
