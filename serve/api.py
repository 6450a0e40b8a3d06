"""The HTTP API: ask, run SQL, health; FastAPI generates its OpenAPI document from these models.

A failure is an HTTP error with one line and its kind in the body (``ErrorOut``): 400 a bad request or SQL the
guard refused, 422 SQL that ran and failed (or no SQL from the model), 429 too many questions queued, 502 the
language model failed, 503 the engine is busy or down, 504 the time limit.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from answering.render import AnswerFields, answer_json
from serve.errors import raise_if_failed
from serve.exports import DOWNLOADS
from serve.health import EngineHealth
from serve.settings import ServeSettings
from serve.store import Record
from serve.workbench import MAX_ID_CHARS, Workbench

__all__ = ["ERROR_RESPONSES", "AnswerOut", "AskIn", "ErrorOut", "HealthOut", "RunSqlIn", "answer_out", "api_router"]


class AskIn(BaseModel):
    """A question for the program."""

    question: str = Field(description="the question in plain English")
    external_knowledge: str = Field("", description="facts the question relies on, e.g. MJDs of dates")
    conversation_id: str | None = Field(
        None,
        max_length=MAX_ID_CHARS,
        description="continue this conversation (an answer's conversation_id): the question follows up its latest "
        "answer",
    )


class RunSqlIn(BaseModel):
    """SQL to run through the guard and the read-only role."""

    sql: str = Field(description="one SELECT or WITH statement in PostgreSQL")
    question: str = Field("", description="what the SQL answers, kept with it")


class _AnswerKeys(BaseModel):
    """Where an answer is kept (first among ``AnswerOut``'s fields)."""

    id: str = Field(description="key of the answer in /answers/{id} and its downloads")
    conversation_id: str = Field(description="the conversation the answer belongs to (send it to follow up)")


class AnswerOut(AnswerFields, _AnswerKeys):
    """One answer: the SQL, the rows (within the server's caps per response) and what it cost."""

    model: str
    engine: str
    input_tokens: int
    output_tokens: int
    cost_usd: float | None = Field(description="price of the tokens from LiteLLM's price map; null when unknown")
    downloads: dict[str, str] = Field(description="URLs of the CSV, VOTable and Parquet files of every fetched row")


class ErrorOut(BaseModel):
    """Why a request could not be served."""

    error: str = Field(description="what went wrong and what to do, in one line")
    kind: str = Field(
        description="bad_request, refused (by the SQL guard), general, missing_structure, unsupported, no_sql, "
        "timeout, too_many_requests, busy, unavailable, lm_failed or internal"
    )
    sql: str = Field("", description="the SQL that failed, when there is one")


class HealthOut(BaseModel):
    """Whether the workbench is up, with what, and how busy."""

    status: str = Field(
        description="ok, or unavailable when the engine fails a query on the catalog, the store cannot be used or no "
        "worker is alive"
    )
    engine_error: str | None = Field(description="why the engine cannot be reached, or null")
    model: str
    engine: str
    catalog: str = Field(description="the catalog asked about: ztf (ZTF alerts) or multisurvey (Rubin/LSST and ZTF)")
    queue_length: int = Field(description="questions waiting or being answered")
    one_at_a_time: bool = Field(description="questions are answered one at a time (the embedded local model)")
    store: str = Field(description="where answers and sessions are kept: ok (PostgreSQL), memory, or unavailable")
    store_error: str | None = Field(description="why the store cannot be used, or null")
    queue_depth: int | None = Field(description="questions waiting for a worker (null: the store is unavailable)")
    workers_alive: int | None = Field(description="workers whose heartbeat is recent (null: the store is unavailable)")


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "a bad request, or SQL the guard refused (kind refused)"},
    413: {"model": ErrorOut, "description": "the request body is over the server's limit"},
    422: {"model": ErrorOut, "description": "the SQL ran and failed, or the model wrote no SQL"},
    429: {"model": ErrorOut, "description": "too many questions queued; see Retry-After"},
    502: {"model": ErrorOut, "description": "the language model failed"},
    503: {"model": ErrorOut, "description": "the engine is busy (see Retry-After) or cannot be reached"},
    504: {"model": ErrorOut, "description": "the query ran longer than its time limit"},
}


def answer_out(record: Record, settings: ServeSettings) -> dict[str, Any]:
    """Describe a record as an ``AnswerOut`` dictionary, its rows within the settings' caps per response."""
    payload = answer_json(record.answer, limit=settings.max_rows_per_response)
    payload.pop("usage")
    rows = _within_bytes(payload["rows"], settings.max_response_bytes)
    if len(rows) < len(payload["rows"]):
        payload |= {"rows": rows, "truncated": True}
    links = {fmt: f"/answers/{record.id}/download/{fmt}" for fmt in DOWNLOADS}
    downloads = links if record.answer.frame is not None else {}
    return {
        "id": record.id,
        "conversation_id": record.conversation,
        **payload,
        **record.usage(),
        "downloads": downloads,
    }


def api_router(bench: Workbench) -> APIRouter:
    """Build the API routes around one workbench."""
    router = APIRouter(prefix="/api", tags=["api"])
    engine_health = EngineHealth(bench.engine.inner)  # the engine itself, under its gate

    @router.post("/ask", response_model=AnswerOut, responses=ERROR_RESPONSES, summary="Answer a question with SQL")
    async def ask(body: AskIn) -> dict[str, Any]:
        job = bench.start_ask(body.question, body.external_knowledge, conversation=body.conversation_id or None)
        record = raise_if_failed(await bench.answer(job))
        return answer_out(record, bench.settings)

    @router.post("/run-sql", response_model=AnswerOut, responses=ERROR_RESPONSES, summary="Run SQL read-only")
    async def run_sql(body: RunSqlIn) -> dict[str, Any]:
        record = raise_if_failed(await run_in_threadpool(bench.run_sql, body.sql, question=body.question))
        return answer_out(record, bench.settings)

    @router.get("/health", response_model=HealthOut, summary="Tell whether the workbench and its engine are up")
    async def health() -> dict[str, Any]:
        problem = await engine_health.problem()
        state = await run_in_threadpool(bench.state_health)
        healthy = problem is None and state["store"] != "unavailable" and state.get("workers_alive") != 0
        return {
            "status": "ok" if healthy else "unavailable",
            "engine_error": problem,
            "store": state["store"],
            "store_error": state["store_error"],
            "queue_depth": state.get("queue_depth"),
            "workers_alive": state.get("workers_alive"),
            "model": bench.model,
            "engine": bench.engine_name,
            "catalog": bench.engine.catalog,
            "queue_length": state.get("queue_depth", 0) + state.get("running", 0),
            "one_at_a_time": bench.queue.one_at_a_time,
        }

    return router


def _within_bytes(rows: list[list[Any]], max_bytes: int) -> list[list[Any]]:
    """Return the first rows whose JSON fits in `max_bytes`."""
    kept: list[list[Any]] = []
    size = 0
    for row in rows:
        size += len(json.dumps(row, ensure_ascii=False, default=str).encode("utf-8", "replace")) + 1
        if size > max_bytes:
            break
        kept.append(row)
    return kept
