"""The workbench's ASGI application: the page, the HTTP API, limits, token and one-line errors."""

from __future__ import annotations

import html
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response

from catalog import load_catalog
from serve.access import AccessControl
from serve.api import api_router
from serve.pages import SESSION_COOKIE, new_session_id, page_router
from serve.workbench import Workbench, WorkbenchError

__all__ = ["create_app"]

logger = logging.getLogger(__name__)


def create_app(bench: Workbench) -> FastAPI:
    """Build the application around a workbench (which the caller closes)."""
    app = FastAPI(
        title="ALeRCE text-to-SQL workbench",
        description=f"Ask questions about ALeRCE's alerts ({load_catalog(bench.engine.catalog).title}); the SQL runs "
        "read-only behind the SQL guard.",
        version="1",
    )
    app.include_router(api_router(bench))
    app.include_router(page_router(bench))

    @app.middleware("http")
    async def session_cookie(request: Request, call_next) -> Response:
        request.state.new_session = new_session_id()
        response = await call_next(request)
        if SESSION_COOKIE not in request.cookies:
            response.set_cookie(SESSION_COOKIE, request.state.new_session, httponly=True, samesite="strict")
        return response

    @app.exception_handler(WorkbenchError)
    async def refused(request: Request, err: WorkbenchError) -> Response:
        return _error(request, str(err), 400)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> Response:
        first = err.errors()[0] if err.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        return _error(request, f"bad request: {where or 'body'}: {first.get('msg', 'invalid')}", 422)

    @app.exception_handler(Exception)
    async def crashed(request: Request, err: Exception) -> Response:
        logger.exception("%s %s failed", request.method, request.url.path)
        return _error(request, f"internal error ({type(err).__name__}); the server log has the details", 500)

    app.add_middleware(AccessControl, max_request_bytes=bench.settings.max_request_bytes, token=bench.settings.token)
    return app


def _error(request: Request, message: str, status_code: int) -> Response:
    if request.url.path.startswith(("/api/", "/jobs")):
        return JSONResponse({"error": message}, status_code=status_code)
    return HTMLResponse(
        f'<!doctype html><title>error</title><p class="error" role="alert">{html.escape(message)}</p>', status_code
    )
