"""The HTTP API: ask, run SQL, health; FastAPI generates its OpenAPI document from these models."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from answering.render import answer_json
from serve.exports import DOWNLOADS
from serve.workbench import Record, Workbench

__all__ = ["AnswerOut", "AskIn", "HealthOut", "RunSqlIn", "answer_out", "api_router"]


class AskIn(BaseModel):
    """A question for the program."""

    question: str = Field(description="the question in plain English")
    external_knowledge: str = Field("", description="facts the question relies on, e.g. MJDs of dates")
    conversation_id: str | None = Field(
        None, description="continue this conversation: the question follows up its latest answer"
    )


class RunSqlIn(BaseModel):
    """SQL to run through the guard and the read-only role."""

    sql: str = Field(description="one SELECT or WITH statement in PostgreSQL")
    question: str = Field("", description="what the SQL answers, kept with it in the history")


class AnswerOut(BaseModel):
    """One answer: the SQL, the rows (at most the server's rows-per-response cap) and what it cost."""

    id: str = Field(description="key of the answer in /answers/{id} and its downloads")
    conversation_id: str = Field(description="the conversation the answer belongs to (send it to follow up)")
    question: str
    follows: str | None = Field(description="the earlier question this one followed up, else null")
    sql: str
    adql: str = Field(description="the ADQL sent to a TAP service, else empty")
    catalog: str = Field(description="the catalog the SQL was written for")
    as_of: str | None = Field(description="reference date of the date stage (YYYY-MM-DD), null when it is off")
    dates: list[dict[str, Any]] = Field(
        description="the question's dates as MJD ranges start_mjd <= mjd < end_mjd (null: open), with their text"
    )
    explanation: dict[str, Any] | None = Field(
        description="what the SQL returns: summary, conditions, ordering, assumptions; null when there is none"
    )
    alternatives: list[dict[str, Any]] = Field(
        description="other readings when the candidates disagreed: sql, rows, difference (one line), candidates"
    )
    difficulty: str | None
    plan: list[str]
    attempts: list[dict[str, Any]]
    columns: list[str]
    rows: list[list[Any]]
    row_count: int = Field(description="rows fetched (the response may carry fewer)")
    truncated: bool = Field(description="rows were left out, by the engine's cap or by the response's")
    error: str | None
    error_kind: str | None
    model: str
    engine: str
    input_tokens: int
    output_tokens: int
    cost_usd: float | None = Field(description="price of the tokens from LiteLLM's price map; null when unknown")
    downloads: dict[str, str] = Field(description="URLs of the CSV, VOTable and Parquet files of every fetched row")


class HealthOut(BaseModel):
    """Whether the workbench is up, with what, and how busy."""

    status: str
    model: str
    engine: str
    catalog: str = Field(description="the catalog asked about: ztf (ZTF alerts) or multisurvey (Rubin/LSST and ZTF)")
    queue_length: int = Field(description="questions waiting or being answered")
    one_at_a_time: bool = Field(description="questions are answered one at a time (the embedded local model)")


def answer_out(record: Record, max_rows: int) -> dict[str, Any]:
    """Describe a record as an ``AnswerOut`` dictionary with at most `max_rows` rows."""
    payload = answer_json(record.answer, limit=max_rows)
    payload.pop("usage")
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
    cap = bench.settings.max_rows_per_response

    @router.post("/ask", response_model=AnswerOut, summary="Answer a question with SQL and its rows")
    async def ask(body: AskIn, request: Request) -> dict[str, Any]:
        follows = bench.latest_in(body.conversation_id).id if body.conversation_id else None
        session = _client(request)
        record = await run_in_threadpool(
            bench.ask, body.question, body.external_knowledge, session=session, follows=follows
        )
        return answer_out(record, cap)

    @router.post("/run-sql", response_model=AnswerOut, summary="Run SQL through the guard, read-only")
    async def run_sql(body: RunSqlIn, request: Request) -> dict[str, Any]:
        record = await run_in_threadpool(bench.run_sql, body.sql, question=body.question, session=_client(request))
        return answer_out(record, cap)

    @router.get("/health", response_model=HealthOut, summary="Tell whether the workbench is up")
    def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "model": bench.model,
            "engine": bench.engine_name,
            "catalog": bench.engine.catalog,
            "queue_length": bench.queue.length,
            "one_at_a_time": bench.queue.one_at_a_time,
        }

    return router


def _client(request: Request) -> str:
    return f"api:{request.client.host if request.client else ''}"
