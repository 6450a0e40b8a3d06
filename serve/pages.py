"""The workbench page: ask with streamed stages, the answer with its dates, explanation, alternatives, editable SQL,
rows, downloads and plots, follow-up questions, and the history as conversations."""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jinja2
from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from answering import AnsweringError
from answering.cones import cones_of
from answering.lightcurve import object_figure
from answering.render import describe_range
from catalog import load_catalog
from engines.errors import EngineError
from serve.access import TOKEN_COOKIE, download_url
from serve.boxes import NO_FILE, boxes_router
from serve.errors import WorkbenchError
from serve.exports import DOWNLOADS, download, png_bytes
from serve.responses import EncodableJSONResponse, encodable_html
from serve.result_table import result_table
from serve.sessions import cookie_name_of
from serve.store import Record
from serve.workbench import Workbench

__all__ = ["SESSION_COOKIE", "page_router"]

SESSION_COOKIE = "workbench_session"
"""Cookie holding the page session's id, as ``serve.sessions.SessionIds`` issued it (named by
``serve.sessions.cookie_name_of``)."""
_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)
_EVENT_POLL_S = 0.1
_MAX_OIDS = 50


def page_router(bench: Workbench) -> APIRouter:
    """Build the routes of the page around one workbench."""
    router = APIRouter(include_in_schema=False)

    @router.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        return _page(request, bench, "")

    @router.get("/history", response_class=HTMLResponse)
    def history(request: Request) -> Response:
        threads = _threads(bench.history(request.state.session))
        return encodable_html(_TEMPLATES.get_template("history.html").render(threads=threads))

    router.include_router(boxes_router(bench, _page))
    router.include_router(_question_routes(bench))
    router.include_router(_answer_routes(bench))
    router.include_router(_file_routes(bench))
    return router


def _question_routes(bench: Workbench) -> APIRouter:
    """``POST /jobs`` starts answering a question; ``/jobs/ID/events`` streams its stages."""
    router = APIRouter(include_in_schema=False)
    jobs: dict[str, Any] = {}
    jobs_lock = threading.Lock()

    @router.post("/jobs")
    async def start(
        request: Request,
        question: str = Form(""),
        knowledge: str = Form(""),
        follows: str = Form(""),
        targets: UploadFile | None = NO_FILE,
    ) -> Response:
        listed = await targets.read() if targets is not None else None
        job = bench.start_ask(
            question, knowledge, session=request.state.session, follows=follows or None, targets=listed
        )
        with jobs_lock:
            jobs[job.id] = job
            for stale in [key for key, old in jobs.items() if old.is_finished][: -bench.settings.max_answers_kept]:
                del jobs[stale]
        return EncodableJSONResponse({"job_id": job.id})

    @router.get("/jobs/{job_id}/events")
    async def events(job_id: str) -> Response:
        job = jobs.get(job_id) or bench.find_job(job_id)  # another web process may have taken the question
        if job is None:
            return EncodableJSONResponse({"error": f"no question {job_id!r} is being answered"}, status_code=404)
        return StreamingResponse(_stream(job), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    return router


def _answer_routes(bench: Workbench) -> APIRouter:
    """An answer's page and fragment, and the new answers made from it: its SQL or ADQL edited, an alternative."""
    router = APIRouter(include_in_schema=False)

    @router.get("/answers/{answer_id}", response_class=HTMLResponse)
    def answer_page(request: Request, answer_id: str, page: int = 1, oid: str = "") -> Response:
        record = bench.record(answer_id)
        return _page(request, bench, _answer_html(bench, record, page=page, oid=oid), question=record.answer.question)

    @router.get("/answers/{answer_id}/fragment", response_class=HTMLResponse)
    def answer_fragment(answer_id: str, page: int = 1, oid: str = "") -> Response:
        return encodable_html(_answer_html(bench, bench.record(answer_id), page=page, oid=oid))

    def run_by_hand(
        request: Request, answer_id: str, run: Any, text: str, question: str, targets: UploadFile | None
    ) -> Response:
        """Run the text of an answer's SQL or ADQL box with the target list sent along (default: the answer's);
        show the new answer, or the old one with the error."""
        try:
            listed = (targets.file.read() if targets is not None else None) or _kept_targets(bench, answer_id)
            record = run(text, question=question, session=request.state.session, targets=listed)
        except WorkbenchError as err:
            html = _answer_html(bench, bench.record(answer_id), message=str(err))
            return _page(request, bench, html, status_code=err.status)
        return RedirectResponse(f"/answers/{record.id}", status_code=303)

    @router.post("/answers/{answer_id}/rerun")
    def rerun(
        request: Request,
        answer_id: str,
        sql: str = Form(""),
        question: str = Form(""),
        targets: UploadFile | None = NO_FILE,
    ) -> Response:
        return run_by_hand(request, answer_id, bench.run_sql, sql, question, targets)

    @router.post("/answers/{answer_id}/alternatives/{number}")
    def run_alternative(request: Request, answer_id: str, number: int) -> Response:
        record = bench.run_alternative(answer_id, number, session=request.state.session)
        return RedirectResponse(f"/answers/{record.id}", status_code=303)

    @router.post("/answers/{answer_id}/rerun-adql")
    def rerun_adql(
        request: Request,
        answer_id: str,
        adql: str = Form(""),
        question: str = Form(""),
        targets: UploadFile | None = NO_FILE,
    ) -> Response:
        return run_by_hand(request, answer_id, bench.run_adql, adql, question, targets)

    return router


def _file_routes(bench: Workbench) -> APIRouter:
    """An answer's downloads and pictures."""
    router = APIRouter(include_in_schema=False)

    @router.get("/answers/{answer_id}/download/{fmt}")
    def download_rows(answer_id: str, fmt: str) -> Response:
        record = bench.record(answer_id)
        if fmt not in DOWNLOADS or record.answer.frame is None:
            raise WorkbenchError(f"no {fmt} download here; choose {', '.join(DOWNLOADS)} of an answer with rows")
        media_type, extension = DOWNLOADS[fmt]
        headers = {"Content-Disposition": f'attachment; filename="alerce-{record.id}.{extension}"'}
        return Response(download(record.answer, fmt), media_type=media_type, headers=headers)

    @router.get("/answers/{answer_id}/sky.png")
    def sky(answer_id: str) -> Response:
        try:
            figure = bench.record(answer_id).answer.plot_sky()
        except AnsweringError as err:
            raise WorkbenchError(str(err)) from err
        return Response(png_bytes(figure), media_type="image/png")

    @router.get("/answers/{answer_id}/lightcurve.png")
    def lightcurve(answer_id: str, oid: str) -> Response:
        bench.record(answer_id)  # only for an answer of this workbench
        try:
            figure = object_figure(bench.engine, oid)
        except (AnsweringError, EngineError) as err:
            raise WorkbenchError(str(err)) from err
        return Response(png_bytes(figure), media_type="image/png")

    return router


def _kept_targets(bench: Workbench, answer_id: str) -> Any:
    """The target list of a kept answer; None when it has none or is no longer kept (its box's text runs alone)."""
    try:
        return bench.record(answer_id).answer.targets
    except WorkbenchError:
        return None


async def _stream(job: Any) -> AsyncIterator[str]:
    sent = 0
    while True:
        while sent < len(job.events):
            yield f"data: {json.dumps(job.events[sent], default=str)}\n\n"
            sent += 1
        if job.is_finished and sent == len(job.events):
            return
        await asyncio.sleep(_EVENT_POLL_S)


def _page(
    request: Request,
    bench: Workbench,
    result: str,
    *,
    question: str = "",
    status_code: int = 200,
    boxes: bool | None = None,
) -> Response:
    """Render the page around `result`; the SQL and ADQL boxes show on the home page (or when `boxes`)."""
    html = _TEMPLATES.get_template("page.html").render(
        model=bench.model,
        engine=bench.engine_name,
        catalog=bench.engine.catalog,
        tap_schema=load_catalog(bench.engine.catalog).tap_schema,
        max_question_chars=bench.settings.max_question_chars,
        question=question,
        result=result,
        boxes=not result if boxes is None else boxes,
        message="",
        threads=_threads(bench.history(request.state.session)),
    )
    response = encodable_html(html, status_code)
    token = request.query_params.get("token")
    if token:  # AccessControl has checked it; keep it for the page's own requests
        secure = request.url.scheme == "https"
        name = cookie_name_of(TOKEN_COOKIE, request.headers.get("host", ""), secure=secure)
        response.set_cookie(name, token, httponly=True, samesite="strict", secure=secure)
    return response


def _threads(history: list[Record]) -> list[list[Record]]:
    """Group a history (newest first) into conversations, the newest conversation first, each oldest first."""
    threads: dict[str, list[Record]] = {}
    for record in history:
        threads.setdefault(record.conversation, []).insert(0, record)
    return list(threads.values())


def _answer_html(bench: Workbench, record: Record, *, page: int = 1, oid: str = "", message: str = "") -> str:
    answer = record.answer
    frame = answer.frame
    context: dict[str, Any] = {"rows": None, "headers": [], "total": 0, "page": 1, "pages": 1, "has_sky": False}
    context |= {"oids": [], "oid": "", "message": message}
    if frame is not None:
        size = bench.settings.page_rows
        pages = max(1, math.ceil(len(frame) / size))
        page = min(max(1, page), pages)
        shown = frame.iloc[(page - 1) * size : page * size]
        headers, rows = result_table(answer, shown)
        oids = _oids(shown)
        context |= {"rows": rows, "headers": headers, "total": len(frame)}
        context |= {"page": page, "pages": pages, "oids": oids}
        context["has_sky"] = answer.has_coordinates or bool(cones_of(answer.sql))
        context["oid"] = oid if oid in oids else ""
    cost = "n/a (no price for this model)" if record.cost_usd is None else f"${record.cost_usd:.4f}"
    context["dates"] = [describe_range(date_range) for date_range in answer.dates]
    context["samp_hub"] = bench.settings.samp_hub_url
    context["samp_url"] = download_url(bench.settings.token, f"/answers/{record.id}/download/votable")
    return _TEMPLATES.get_template("answer.html").render(record=record, answer=answer, cost=cost, **context)


def _oids(frame: Any) -> list[str]:
    labels = [str(label).lower() for label in frame.columns]
    if "oid" not in labels:
        return []
    values = frame.iloc[:, labels.index("oid")]
    return list(dict.fromkeys(str(value) for value in values if value is not None))[:_MAX_OIDS]
