"""The MCP server (stdio): tools ``ask``, ``run_sql`` and ``describe_schema`` over the same workbench.

AI assistants reach ALeRCE through the same SQL guard, read-only role and row caps as the page.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from catalog import load_catalog, render_schema_text
from modules.served_catalog import served_catalog
from serve.api import answer_out
from serve.workbench import Workbench, WorkbenchError

__all__ = ["build_mcp_server"]

_INSTRUCTIONS = (
    "Query ALeRCE's alert database, catalog {catalog} ({title}). `ask` turns a question into PostgreSQL and runs "
    "it, with the question's dates as MJD ranges, an explanation of what the SQL returns and, when readings "
    "disagree, alternatives; pass its conversation_id to ask a follow-up. `run_sql` runs your own SELECT; "
    "`describe_schema` gives tables, columns and their meaning. Every statement passes a SQL guard and runs "
    "read-only with a time limit and a row cap."
)
_SESSION = "mcp"


def build_mcp_server(bench: Workbench) -> MCPServer:
    """Build the MCP server whose tools use `bench`; ``server.run("stdio")`` serves it."""
    catalog = load_catalog(bench.engine.catalog)
    server = MCPServer("alerce-t2s", instructions=_INSTRUCTIONS.format(catalog=catalog.name, title=catalog.title))
    cap = bench.settings.max_rows_per_response

    @server.tool()
    async def ask(question: str, external_knowledge: str = "", conversation_id: str = "") -> dict[str, Any]:
        """Answer a question about the served catalog's alerts: the PostgreSQL the program wrote, its rows (capped),
        dates, explanation, alternatives and cost; with a conversation_id, as a follow-up of that conversation's
        latest answer."""
        follows = (await _in_thread(bench.latest_in, conversation_id)).id if conversation_id else None
        record = await _in_thread(bench.ask, question, external_knowledge, session=_SESSION, follows=follows)
        return answer_out(record, cap)

    @server.tool()
    async def run_sql(sql: str) -> dict[str, Any]:
        """Run one SELECT or WITH statement (PostgreSQL, the served catalog's tables) read-only; columns and rows."""
        record = await _in_thread(bench.run_sql, sql, session=_SESSION)
        return answer_out(record, cap)

    @server.tool()
    def describe_schema(tables: list[str] | None = None) -> str:
        """Describe the ALeRCE tables (all, or those named): keys, columns, types and what each column holds."""
        catalog = served_catalog(bench.engine)
        unknown = [name for name in tables or () if catalog.table(name) is None]
        if unknown:
            raise ToolError(f"unknown table {unknown[0]!r}; the tables are {', '.join(catalog.table_names)}")
        return render_schema_text(catalog, tables)

    return server


async def _in_thread(function: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return await anyio.to_thread.run_sync(lambda: function(*args, **kwargs))
    except WorkbenchError as err:
        raise ToolError(str(err)) from err
