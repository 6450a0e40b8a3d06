"""The MCP server (stdio): tools ``ask``, ``run_sql``, ``describe_schema`` and ``object`` over the same workbench.

AI assistants reach ALeRCE through the same SQL guard, read-only role, row and byte caps as the page. A refusal or
failure is an MCP error (``isError``) with one line; no reply echoes more than a short part of what was sent. A
message holding a lone surrogate escape (``"\\ud800"``), which the SDK's parser refuses without a reply, is made
encodable first, so every request gets its answer.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server

from answering import AnsweringError
from answering.objects import fetch_object
from catalog import load_catalog, render_schema_text
from engines.errors import EngineError
from fileio.json_data import loads_json
from fileio.text import encodable
from modules.run.served_catalog import served_catalog
from serve.api import answer_out
from serve.errors import WorkbenchError, failure_of, raise_if_failed
from serve.store import Record
from serve.workbench import Workbench

__all__ = ["build_mcp_server"]

_INSTRUCTIONS = (
    "Query ALeRCE's alert database, catalog {catalog} ({title}). `ask` turns a question into PostgreSQL and runs "
    "it, with the question's dates as MJD ranges, an explanation of what the SQL returns and, when readings "
    "disagree, alternatives; pass its conversation_id to ask a follow-up. `run_sql` runs your own SELECT; "
    "`describe_schema` gives tables, columns and their meaning; `object` summarizes one object. Every "
    "statement passes a SQL guard and runs "
    "read-only with a time limit and a row cap."
)
_SHOWN_CHARS = 60
"""Longest part of a name sent back in an error."""


class _EncodableStdioServer(MCPServer):
    """An MCP server whose stdio transport makes every incoming message encodable before the SDK parses it."""

    async def run_stdio_async(self) -> None:
        """Serve on stdin and stdout (as ``MCPServer.run_stdio_async``, with the lines made encodable)."""
        sys.stdin.reconfigure(encoding="utf-8", errors="replace")
        async with stdio_server(stdin=_encodable_lines(anyio.wrap_file(sys.stdin))) as (read_stream, write_stream):
            lowlevel = self._lowlevel_server  # the SDK's own run_stdio_async reaches it the same way
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


async def _encodable_lines(lines: Any) -> AsyncIterator[str]:
    """Yield each JSON line with its lone surrogates (escaped or not) as U+FFFD; other lines as they are."""
    async for line in lines:
        try:
            message = loads_json(line)
        except ValueError:
            yield line  # not JSON: the SDK answers that itself
            continue
        yield encodable(json.dumps(message, ensure_ascii=False))


def build_mcp_server(bench: Workbench) -> MCPServer:
    """Build the MCP server whose tools use `bench`; ``server.run("stdio")`` serves it."""
    catalog = load_catalog(bench.engine.catalog)
    instructions = _INSTRUCTIONS.format(catalog=catalog.name, title=catalog.title)
    server = _EncodableStdioServer("alerce-t2s", instructions=instructions)

    @server.tool()
    async def ask(question: str, external_knowledge: str = "", conversation_id: str = "") -> dict[str, Any]:
        """Answer a question about the served catalog's alerts: the PostgreSQL the program wrote, its rows (capped),
        dates, explanation, alternatives and cost; with a conversation_id, as a follow-up of that conversation's
        latest answer."""
        with _tool_errors():
            job = bench.start_ask(question, external_knowledge, conversation=conversation_id or None)
            return _reply(bench, raise_if_failed(await bench.answer(job)))

    @server.tool()
    async def run_sql(sql: str) -> dict[str, Any]:
        """Run one SELECT or WITH statement (PostgreSQL, the served catalog's tables) read-only; columns and rows."""
        with _tool_errors():
            record = await anyio.to_thread.run_sync(lambda: bench.run_sql(sql))
            return _reply(bench, raise_if_failed(record))

    @server.tool()
    def describe_schema(tables: list[str] | None = None) -> str:
        """Describe the ALeRCE tables (all, or those named): keys, columns, types and what each column holds."""
        catalog = served_catalog(bench.engine)
        unknown = [name for name in tables or () if catalog.table(name) is None]
        if unknown:
            raise ToolError(f"unknown table {_shown(unknown[0])}; the tables are {', '.join(catalog.table_names)}")
        return render_schema_text(catalog, tables)

    @server.tool(name="object")
    async def object_view(oid: str, sid: int | None = None) -> dict[str, Any]:
        """Summarize one object of the served catalog (a ZTF name, or a multi-survey integer oid with its survey
        sid when several hold it): position, first/last detection, detections, classifications, features,
        cross-matches with separations, a solar-system orbit, links out and the units of its numbers."""
        with _tool_errors():
            view = await anyio.to_thread.run_sync(lambda: _object_of(bench, oid, sid))
            return json.loads(encodable(json.dumps(view.summary(), ensure_ascii=False, default=str)))

    return server


def _object_of(bench: Workbench, oid: str, sid: int | None) -> Any:
    try:
        return fetch_object(bench.engine, oid, sid=sid)
    except (AnsweringError, EngineError) as err:
        raise failure_of(err) from err


@contextlib.contextmanager
def _tool_errors() -> Iterator[None]:
    """Turn a workbench error into an MCP tool error (``isError``) with its one line."""
    try:
        yield
    except WorkbenchError as err:
        raise ToolError(encodable(str(err))) from err


def _reply(bench: Workbench, record: Record) -> dict[str, Any]:
    """The record as ``AnswerOut`` within the response caps, every text encodable (the SDK writes UTF-8).

    Rows come inline, with each column's unit, UCD and description in ``fields``; the page's download links are
    left out, since nothing serves them over stdio. When rows were left out, ``rows_note`` says which and how to
    get the others.
    """
    payload = answer_out(record, bench.settings)
    payload.pop("downloads")
    note = _rows_note(len(payload["rows"]), payload["row_count"], cut_by_engine=record.answer.truncated)
    if note:
        payload["rows_note"] = note
    return json.loads(encodable(json.dumps(payload, ensure_ascii=False, default=str)))


def _rows_note(shown: int, fetched: int, *, cut_by_engine: bool) -> str:
    """Say which rows a reply leaves out and how to get them (every MCP reply carries its rows inline).

    Examples:
        >>> _rows_note(3, 3, cut_by_engine=False)
        ''
        >>> _rows_note(10, 120, cut_by_engine=False)[:80]
        'truncated: this reply holds rows 1-10 of the 120 fetched (the reply is capped in'
    """
    notes = []
    if shown < fetched:
        notes.append(
            f"truncated: this reply holds rows 1-{shown} of the {fetched:,} fetched (the reply is capped in rows "
            f"and bytes); to get the others, call run_sql again with an ORDER BY and LIMIT {shown} OFFSET {shown} "
            "(and so on), or select fewer columns"
        )
    if cut_by_engine:
        notes.append(
            f"the query had more rows than the {fetched:,} fetched (the engine's row cap); add WHERE conditions "
            "or an ORDER BY ... LIMIT to choose which rows come back"
        )
    return "; ".join(notes)


def _shown(name: str) -> str:
    """Quote a name as sent, cut to its first characters.

    Examples:
        >>> _shown("objects"), _shown("x" * 100)[-5:]
        ("'objects'", "x...'")
    """
    cut = name if len(name) <= _SHOWN_CHARS else name[:_SHOWN_CHARS] + "..."
    return repr(encodable(cut))
