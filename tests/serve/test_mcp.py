"""The MCP server, spawned over stdio and driven by the official SDK's own client."""

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import LATEST_PROTOCOL_VERSION

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
    assert tools == ["ask", "describe_schema", "object", "run_sql"]
    assert not ran.is_error and ran.structured_content["columns"] == ["oid", "ndet"]
    assert len(ran.structured_content["rows"]) == 3
    assert [(f["name"], f["ucd"]) for f in ran.structured_content["fields"]] == [
        ("oid", "meta.id;meta.main"),
        ("ndet", "meta.number"),
    ]
    assert "downloads" not in ran.structured_content, "no links to files that nothing serves over stdio"
    assert refused.is_error and "Only one SELECT or WITH statement is allowed, got DROP" in refused.content[0].text
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
    units = {field["name"]: (field["unit"], field["ucd"]) for field in body["fields"]}
    assert units["meanra"] == ("deg", "pos.eq.ra;meta.main") and units["meandec"] == ("deg", "pos.eq.dec;meta.main")
    assert body["rows_note"].startswith("truncated: this reply holds rows 1-10 of the 120 fetched")
    assert "LIMIT 10 OFFSET 10" in body["rows_note"]
    assert "/answers/" not in answered.content[0].text, "no links to routes that nothing serves over stdio"


def test_run_sql_pages_through_what_a_reply_left_out(tiny_dsn):
    sql = "SELECT oid, meanra FROM object ORDER BY oid"
    _, (first, second, whole) = call(
        server("-m", "tests.serve.fake_mcp_server", tiny_dsn),
        ("run_sql", {"sql": f"{sql} LIMIT 25"}),
        ("run_sql", {"sql": f"{sql} LIMIT 10 OFFSET 10"}),  # as the first reply's note says
        ("run_sql", {"sql": f"{sql} LIMIT 5"}),
    )
    assert first.structured_content["truncated"] is True and len(first.structured_content["rows"]) == 10
    assert "rows 1-10 of the 25 fetched" in first.structured_content["rows_note"]
    shown, following = first.structured_content["rows"], second.structured_content["rows"]
    assert len(following) == 10 and following[0][0] > shown[-1][0]  # the next rows, none twice
    assert [field["unit"] for field in second.structured_content["fields"]] == [None, "deg"]
    assert whole.structured_content["truncated"] is False and "rows_note" not in whole.structured_content


def test_ask_follows_up_a_conversation_and_refuses_an_unknown_one(tiny_dsn):
    async def session() -> list:
        parameters = server("-m", "tests.serve.fake_mcp_server", tiny_dsn)
        async with Client(parameters, read_timeout_seconds=120) as client:
            first = await client.call_tool("ask", {"question": "Where were the objects in September 2023?"})
            conversation = first.structured_content["conversation_id"]
            arguments = {"question": "same for 2024", "conversation_id": conversation}
            follow_up = await client.call_tool("ask", arguments)
            unknown = await client.call_tool("ask", {**arguments, "conversation_id": "nope"})
            long = await client.call_tool("ask", {**arguments, "conversation_id": "c" * 60_000})
            return [first, follow_up, unknown, long]

    first, follow_up, unknown, long = asyncio.run(session())
    assert first.structured_content["dates"][0]["text"] == "September 2023"
    assert first.structured_content["explanation"]["summary"] == "The rows the query returns."
    body = follow_up.structured_content
    assert body["follows"] == "Where were the objects in September 2023?" and body["dates"][0]["text"] == "2024"
    assert body["conversation_id"] == first.structured_content["conversation_id"]
    assert unknown.is_error and "no conversation 'nope' here" in unknown.content[0].text
    assert long.is_error and "a conversation id has at most 64 characters" in long.content[0].text
    assert "c" * 100 not in long.content[0].text


MCP_TEXTS = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "serve_attacks.yaml").read_text())["texts"]


def test_errors_are_mcp_errors_in_one_short_line(tiny_dsn):
    huge_name = "x" * 1_000_000
    _, (refused, unknown) = call(
        server("-m", "tests.serve.fake_mcp_server", tiny_dsn),
        ("run_sql", {"sql": "DROP TABLE object"}),
        ("describe_schema", {"tables": [huge_name]}),
    )
    assert refused.is_error and refused.content[0].text == (
        "Error executing tool run_sql: Only one SELECT or WITH statement is allowed, got DROP. [refused]"
    )
    assert unknown.is_error and len(unknown.content[0].text) < 500 and "unknown table 'xxx" in unknown.content[0].text


def test_a_response_is_capped_in_bytes(tiny_dsn):
    _, (ran,) = call(
        server("-m", "tests.serve.fake_mcp_server", tiny_dsn),
        ("run_sql", {"sql": "SELECT repeat('x', 40000) AS x FROM generate_series(1, 10)"}),
    )
    assert not ran.is_error and ran.structured_content["truncated"] is True
    assert 1 <= len(ran.structured_content["rows"]) <= 2 and len(ran.content[0].text) <= 100_000


def raw_session(parameters: StdioServerParameters, calls: list[tuple[str, dict]], timeout_s: float = 120) -> list:
    """Talk JSON-RPC to the server as bytes (the SDK's own client cannot send a lone surrogate); return the results
    of `calls` (None for a call that got no reply in time)."""
    process = subprocess.Popen(
        [parameters.command, *parameters.args],
        cwd=parameters.cwd,
        env=parameters.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    replies: dict[int, dict] = {}
    threading.Thread(target=_read_replies, args=(process.stdout, replies), daemon=True).start()
    hello = {
        "protocolVersion": LATEST_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    messages = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}]
    messages.append({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for number, (name, arguments) in enumerate(calls, start=1):
        params = {"name": name, "arguments": arguments}
        messages.append({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
    try:
        for message in messages:  # json.dumps writes a surrogate as its \\udXXX escape, as any JSON client may
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
        deadline = time.monotonic() + timeout_s
        while len(replies) <= len(calls) and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        return [replies.get(number, {}).get("result") for number in range(1, len(calls) + 1)]
    finally:
        process.kill()
        process.wait()


def _read_replies(stream, replies: dict[int, dict]) -> None:
    for line in stream:
        message = json.loads(line)
        if "id" in message:
            replies[message["id"]] = message


@pytest.mark.parametrize("case", [c for c in MCP_TEXTS if c["entry"].startswith("mcp_")], ids=lambda case: case["id"])
def test_a_text_utf8_cannot_encode_gets_a_reply(tiny_dsn, case):
    tool = case["entry"].removeprefix("mcp_")
    reply, after = raw_session(
        server("-m", "tests.serve.fake_mcp_server", tiny_dsn),
        [(tool, {case["field"]: case["text"]}), ("run_sql", {"sql": "SELECT 1 AS n"})],
    )
    assert reply is not None and "\\ud" not in json.dumps(reply).lower()
    assert after is not None and after["structuredContent"]["rows"] == [[1]]  # the server still answers
