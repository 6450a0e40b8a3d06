"""The MCP server over a scripted fake LM: ``python -m tests.serve.fake_mcp_server DSN`` (spawned by test_mcp)."""

import sys

from serve.mcp_server import build_mcp_server
from tests.serve.conftest import make_bench

if __name__ == "__main__":
    build_mcp_server(make_bench(sys.argv[1], max_rows_per_response=10, max_response_bytes=100_000)).run("stdio")
