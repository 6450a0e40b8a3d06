"""The MCP server, spawned over stdio and driven by the official SDK's own client."""

import asyncio
import json
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import REPO_DIR
from tests.serve.conftest import POSITIONS_SQL


def server(*args: str) -> StdioServerParameters:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return StdioServerParameters(command=sys.executable, args=list(args), cwd=str(REPO_DIR), env=env)


def call(parameters: StdioServerParameters, *calls: tuple[str, dict]) -> tuple[list[str], list]:
    async def session() -> tuple[list[str], list]:
        async with Client(parameters, read_timeout_seconds=120) as client:
            tools = sorted(tool.name for tool in (await client.list_tools()).tools)
            return tools, [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(session())


def test_python_m_serve_mcp_runs_sql_and_describes_the_schema(tiny_dsn):
    tools, (ran, refused, schema, unknown) = call(
        server("-m", "serve", "--mcp", "--dsn", tiny_dsn, "-q"),
        ("run_sql", {"sql": "SELECT oid, ndet FROM object ORDER BY oid LIMIT 3"}),
        ("run_sql", {"sql": "DROP TABLE object"}),
        ("describe_schema", {"tables": ["object"]}),
        ("describe_schema", {"tables": ["objects"]}),
    )
    assert tools == ["ask", "describe_schema", "run_sql"]
    assert not ran.is_error and ran.structured_content["columns"] == ["oid", "ndet"]
    assert len(ran.structured_content["rows"]) == 3
    assert refused.structured_content["error"].startswith("Only one SELECT or WITH statement is allowed, got DROP")
    text = schema.content[0].text
    assert text.startswith("table object (key oid)") and "meanra double" in text and "table detection" not in text
    assert unknown.is_error and "unknown table 'objects'; the tables are step, object" in unknown.content[0].text


def test_ask_answers_through_the_program(tiny_dsn):
    _, (answered,) = call(
        server("-m", "tests.serve.fake_mcp_server", tiny_dsn), ("ask", {"question": "Where are the objects?"})
    )
    body = answered.structured_content
    assert body["sql"] == POSITIONS_SQL and body["row_count"] == 120
    assert len(body["rows"]) == 10 and body["truncated"] is True
    assert json.loads(answered.content[0].text)["model"] == "fake/scripted"


def test_ask_follows_up_a_conversation_and_refuses_an_unknown_one(tiny_dsn):
    async def session() -> list:
        parameters = server("-m", "tests.serve.fake_mcp_server", tiny_dsn)
        async with Client(parameters, read_timeout_seconds=120) as client:
            first = await client.call_tool("ask", {"question": "Where were the objects in September 2023?"})
            conversation = first.structured_content["conversation_id"]
            arguments = {"question": "same for 2024", "conversation_id": conversation}
            follow_up = await client.call_tool("ask", arguments)
            unknown = await client.call_tool("ask", {**arguments, "conversation_id": "nope"})
            return [first, follow_up, unknown]

    first, follow_up, unknown = asyncio.run(session())
    assert first.structured_content["dates"][0]["text"] == "September 2023"
    assert first.structured_content["explanation"]["summary"] == "The rows the query returns."
    body = follow_up.structured_content
    assert body["follows"] == "Where were the objects in September 2023?" and body["dates"][0]["text"] == "2024"
    assert body["conversation_id"] == first.structured_content["conversation_id"]
    assert unknown.is_error and "no conversation 'nope' here" in unknown.content[0].text
