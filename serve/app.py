"""The workbench's ASGI application: the page, the HTTP API, limits, token, sessions, headers and one-line errors."""

from __future__ import annotations

import html
import logging
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles

from catalog import load_catalog
from serve.access import AccessControl, SecurityHeaders
from serve.api import api_router
from serve.errors import UnexpectedError, WorkbenchError
from serve.gate import CLIENT
from serve.metrics import Metrics, MetricsEndpoint
from serve.objects import object_router
from serve.pages import SESSION_COOKIE, page_router
from serve.responses import EncodableJSONResponse, encodable_html
from serve.sessions import SessionIds, cookie_name_of
from serve.sky import sky_router
from serve.workbench import Workbench

__all__ = ["create_app"]

logger = logging.getLogger(__name__)


def create_app(bench: Workbench) -> FastAPI:
    """Build the application around a workbench (which the caller closes).

    The API documentation page (``/docs``) is off: it loads its scripts from a CDN, which the page's content
    security policy (and an offline machine) refuses; the OpenAPI document stays at ``/openapi.json``.
    """
    app = FastAPI(
        title="ALeRCE text-to-SQL workbench",
        description=f"Ask questions about ALeRCE's alerts ({load_catalog(bench.engine.catalog).title}); the SQL runs "
        "read-only behind the SQL guard.",
        version="1",
        docs_url=None,
        redoc_url=None,
        default_response_class=EncodableJSONResponse,
    )
    app.include_router(api_router(bench))
    app.include_router(page_router(bench))
    app.include_router(object_router(bench))
    app.include_router(sky_router(bench))
    app.mount("/static", StaticFiles(directory=Path(__file__).with_name("static")), name="static")
    session_ids = SessionIds(bench.session_key)

    @app.middleware("http")
    async def session_and_client(request: Request, call_next: Any) -> Response:
        client = request.client.host if request.client else ""  # the peer, or what a trusted proxy forwarded
        CLIENT.set(client)  # each query counts for its client's share
        secure = request.url.scheme == "https"
        name = cookie_name_of(SESSION_COOKIE, request.headers.get("host", ""), secure=secure)
        offered = request.cookies.get(name)
        session = offered if session_ids.is_issued(offered) else None
        on_page = not request.url.path.startswith("/api/")  # API clients have no page session
        new_id = None
        if on_page and request.method == "POST":  # every answer asked for hands the history to a new id
            new_id = session_ids.issue()
            request.state.session = bench.store.rotate(session, new_id, client=client)
        else:
            request.state.session = bench.store.history_of(session)
            new_id = session_ids.issue() if on_page and session is None else None
        response = await call_next(request)
        if new_id is not None:
            response.set_cookie(name, new_id, httponly=True, samesite="strict", secure=secure)
        return response

    @app.exception_handler(WorkbenchError)
    async def refused(request: Request, err: WorkbenchError) -> Response:
        return _error(request, err)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> Response:
        first = err.errors()[0] if err.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        return _error(request, WorkbenchError(f"bad request: {where or 'body'}: {first.get('msg', 'invalid')}"))

    @app.exception_handler(Exception)
    async def crashed(request: Request, err: Exception) -> Response:
        logger.exception("%s %s failed", request.method, request.url.path)
        return _error(request, UnexpectedError.about(err))

    app.add_middleware(
        AccessControl,
        max_request_bytes=bench.settings.max_request_bytes,
        token=bench.settings.token,
    )
    app.add_middleware(SecurityHeaders, samp_hub_url=bench.settings.samp_hub_url, hips_url=bench.settings.hips_url)
    settings = bench.settings
    app.add_middleware(
        MetricsEndpoint,
        metrics=Metrics(bench),
        host=settings.host,
        token=settings.token,
        metrics_token=settings.metrics_token,
    )
    return app


def _error(request: Request, err: WorkbenchError) -> Response:
    """Answer a failure: ``ErrorOut`` JSON for the API and the page's scripts, else a page with the message."""
    headers = {"Retry-After": str(err.retry_after_s)} if err.retry_after_s is not None else None
    if request.url.path.startswith(("/api/", "/jobs")):
        body = {"error": str(err), "kind": err.kind, "sql": getattr(err, "sql", "")}
        return EncodableJSONResponse(body, status_code=err.status, headers=headers)
    page = f'<!doctype html><title>error</title><p class="error" role="alert">{html.escape(str(err))}</p>'
    response = encodable_html(page, err.status)
    response.headers.update(headers or {})
    return response
