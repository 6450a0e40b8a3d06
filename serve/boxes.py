"""The SQL and ADQL boxes of the home page: run a query written by hand before any question is asked, with an
optional target list (CSV or VOTable) the query names as ``mylist``."""

from __future__ import annotations

import html
from collections.abc import Callable

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import RedirectResponse, Response

from serve.errors import WorkbenchError
from serve.workbench import Workbench

__all__ = ["NO_FILE", "boxes_router"]

NO_FILE = File(None)
"""The default of an optional file field of a form (a target list)."""


def boxes_router(bench: Workbench, page: Callable[..., Response]) -> APIRouter:
    """Routes ``POST /sql`` and ``POST /adql``; `page(request, bench, html, status_code=..., boxes=True)`
    renders an error above the boxes."""
    router = APIRouter(include_in_schema=False)

    def run(request: Request, runner: Callable, text: str, targets: UploadFile | None) -> Response:
        try:
            listed = targets.file.read() if targets is not None else None
            record = runner(text, session=request.state.session, targets=listed)
        except WorkbenchError as err:
            error = f'<p class="error" role="alert" id="box-error">{html.escape(str(err))}</p>'
            return page(request, bench, error, status_code=err.status, boxes=True)
        return RedirectResponse(f"/answers/{record.id}", status_code=303)

    @router.post("/sql")
    def run_sql(request: Request, sql: str = Form(""), targets: UploadFile | None = NO_FILE) -> Response:
        return run(request, bench.run_sql, sql, targets)

    @router.post("/adql")
    def run_adql(request: Request, adql: str = Form(""), targets: UploadFile | None = NO_FILE) -> Response:
        return run(request, bench.run_adql, adql, targets)

    return router
