"""The SQL and ADQL boxes of the home page: run a query written by hand before any question is asked."""

from __future__ import annotations

import html
from collections.abc import Callable

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from serve.errors import WorkbenchError
from serve.workbench import Workbench

__all__ = ["boxes_router"]


def boxes_router(bench: Workbench, page: Callable[..., Response]) -> APIRouter:
    """Routes ``POST /sql`` and ``POST /adql``; `page(request, bench, html, status_code=..., boxes=True)`
    renders an error above the boxes."""
    router = APIRouter(include_in_schema=False)

    def run(request: Request, runner: Callable, text: str) -> Response:
        try:
            record = runner(text, session=request.state.session)
        except WorkbenchError as err:
            error = f'<p class="error" role="alert" id="box-error">{html.escape(str(err))}</p>'
            return page(request, bench, error, status_code=err.status, boxes=True)
        return RedirectResponse(f"/answers/{record.id}", status_code=303)

    @router.post("/sql")
    def run_sql(request: Request, sql: str = Form("")) -> Response:
        return run(request, bench.run_sql, sql)

    @router.post("/adql")
    def run_adql(request: Request, adql: str = Form("")) -> Response:
        return run(request, bench.run_adql, adql)

    return router
