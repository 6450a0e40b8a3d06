"""ASGI middleware of the workbench: a cap on request bodies, the access token, and the headers of every response."""

from __future__ import annotations

import hashlib
import hmac
import json
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from serve.aladin import aladin_style_hashes
from serve.sessions import cookie_name_of
from serve.settings import SAMP_WEB_HUB, is_loopback

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "TOKEN_COOKIE",
    "AccessControl",
    "SecurityHeaders",
    "content_security_policy",
    "download_key",
    "download_url",
]

TOKEN_COOKIE = "workbench_token"
"""Cookie that keeps the token after a page was opened with ``?token=...`` (named by
``serve.sessions.cookie_name_of``)."""


def content_security_policy(samp_hub_url: str = SAMP_WEB_HUB, hips_url: str = "") -> str:
    """What the page may load: its own scripts, style sheets and pictures, its own API, the SAMP Web Profile hub at
    `samp_hub_url` (the send button's XML-RPC calls; a hub only answers the pages its user lets register) and the
    origin of the HiPS survey at `hips_url` (the sky view's tiles; none when ""); no page may frame it.

    Aladin Lite, the sky view, needs three things a plain 'self' policy refuses, none of them from another origin:
    compiling its WebAssembly ('wasm-unsafe-eval'), which it reads from a ``data:`` URL in its own bundle; its style
    sheet and constant style attributes, each allowed by its hash ('unsafe-hashes' lets a hash allow an attribute;
    ``serve.aladin.aladin_style_hashes``); and a worker of its own from a ``blob:``.

    Examples:
        >>> "connect-src 'self' data: http://localhost:21012;" in content_security_policy()
        True
        >>> "img-src 'self' data: https://hips.example.org;" in content_security_policy(hips_url="https://hips.example.org/P/DSS")
        True
    """
    survey = f" {_origin(hips_url)}" if hips_url else ""
    styles = " ".join(aladin_style_hashes())
    return (
        f"default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-hashes' {styles}; "
        f"img-src 'self' data:{survey}; connect-src 'self' data: {samp_hub_url}{survey}; worker-src 'self' blob:; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    )


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


CONTENT_SECURITY_POLICY = content_security_policy()
"""The policy of a workbench whose page sends to the standard Web Profile hub."""
_DOWNLOAD_KEY = "key"
"""Query parameter of a download URL that a SAMP client (TOPCAT, Aladin) fetches without the page's token."""
_HEADERS = [
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # no-referrer would make Chromium send `Origin: null` on its own forms
]


class AccessControl:
    """Refuse bodies over `max_request_bytes` (413), requests without the token (401) when `token` is set, and
    requests another site's page makes (403).

    The token is accepted as ``Authorization: Bearer TOKEN``, as the token cookie of the port the request
    addresses, or as a ``token`` query parameter (which the page then keeps as that cookie). Without a token the
    server is on loopback, and a request must name a loopback host (a DNS-rebinding page names its own) and come
    from no other origin (a form or fetch of another site would spend the model's tokens). The body is read here,
    within the cap, before the application sees it: a chunked body (no Content-Length) is held to the same cap.
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
        if self.token is not None and not self._has_token(scope, headers) and not self._has_key(scope):
            message = "this workbench needs its access token (Authorization: Bearer TOKEN or ?token=)"
            await _refuse(send, 401, "unauthorized", message)
            return
        if self.token is None and not _is_loopback_host(headers.get("host", "")):
            message = "this workbench answers only requests for 127.0.0.1 or localhost"
            await _refuse(send, 403, "forbidden", message)
            return
        origin = headers.get("origin")
        if origin and urlsplit(origin).netloc != headers.get("host", ""):
            await _refuse(send, 403, "forbidden", f"requests from another site ({origin}) are refused")
            return
        too_large = f"the request is over the limit of {self.max_request_bytes:,} bytes"
        declared = headers.get("content-length", "0")
        if not declared.isdigit() or int(declared) > self.max_request_bytes:
            await _refuse(send, 413, "too_large", too_large)
            return
        messages = await _read_body(receive, self.max_request_bytes)
        if messages is None:
            await _refuse(send, 413, "too_large", too_large)
            return
        await self.app(scope, _replay(messages, receive), send)

    def _has_token(self, scope: dict, headers: dict[str, str]) -> bool:
        offered = []
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            offered.append(value.strip())
        cookie = SimpleCookie(headers.get("cookie", ""))
        name = cookie_name_of(TOKEN_COOKIE, headers.get("host", ""), secure=scope.get("scheme") == "https")
        if name in cookie:
            offered.append(cookie[name].value)
        offered += parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [])
        return any(hmac.compare_digest(candidate.encode(), self.token.encode()) for candidate in offered)

    def _has_key(self, scope: dict) -> bool:
        """Tell whether a GET carries the key of its own path (``download_key``), as the URL sent over SAMP does."""
        if scope.get("method") != "GET":
            return False
        offered = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(_DOWNLOAD_KEY, [])
        wanted = download_key(self.token, scope["path"]).encode()
        return any(hmac.compare_digest(candidate.encode(), wanted) for candidate in offered)


def download_key(token: str, path: str) -> str:
    """The key that lets a request without the token GET `path` alone (a download sent to TOPCAT or Aladin, which
    fetch the URL themselves): an HMAC of the path under the token, so it opens that one path and shows no token.

    Examples:
        >>> token = "a" * 16
        >>> download_key(token, "/answers/1/download/votable") == download_key(token, "/answers/2/download/votable")
        False
    """
    return hmac.new(token.encode(), path.encode(), hashlib.sha256).hexdigest()


def download_url(token: str | None, path: str) -> str:
    """`path` as a SAMP client may fetch it: with its ``download_key`` when the workbench asks for a token."""
    return path if token is None else f"{path}?{_DOWNLOAD_KEY}={download_key(token, path)}"


def _is_loopback_host(host: str) -> bool:
    """Tell whether a Host header names a loopback address (any port).

    Examples:
        >>> _is_loopback_host("127.0.0.1:8000"), _is_loopback_host("[::1]:80"), _is_loopback_host("evil.example")
        (True, True, False)
    """
    return is_loopback(urlsplit(f"//{host}").hostname or "")


async def _read_body(receive: Any, max_bytes: int) -> list[dict] | None:
    """Receive the request's body messages; None as soon as they hold more than `max_bytes`."""
    messages, size = [], 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages
        size += len(message.get("body", b""))
        if size > max_bytes:
            return None
        if not message.get("more_body", False):
            return messages


def _replay(messages: list[dict], receive: Any) -> Any:
    """Give the application the messages read, then whatever comes next (a disconnect)."""
    pending = list(messages)

    async def replayed() -> dict:
        return pending.pop(0) if pending else await receive()

    return replayed


async def _refuse(send: Any, status: int, kind: str, message: str) -> None:
    body = json.dumps({"error": message, "kind": kind, "sql": ""}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Add the content security policy (``content_security_policy`` of `samp_hub_url` and `hips_url`) and the
    anti-framing, no-sniffing and referrer headers to every response."""

    def __init__(self, app: Any, *, samp_hub_url: str = SAMP_WEB_HUB, hips_url: str = "") -> None:
        self.app = app
        policy = content_security_policy(samp_hub_url, hips_url)
        self.headers = [(b"content-security-policy", policy.encode()), *_HEADERS]

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        """Pass the request on; add the headers to its response."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, with_headers)
