"""Reference pages generated from the code at build time: every command's ``--help``, the HTTP API from its
OpenAPI document, and the MCP tools from their schemas."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
from typing import Any
from unittest.mock import MagicMock

# Each command, and the module whose build_parser() it runs.
COMMANDS: dict[str, str] = {
    "ask": "answering.arguments",
    "compile": "optimizers.arguments",
    "evaluate": "evaluation.arguments",
    "serve": "serve.arguments",
    "db": "db.arguments",
    "data": "data.cli",
    "benchmarks.record": "benchmarks.record",
}


def parser_of(command: str) -> argparse.ArgumentParser:
    """The argument parser of ``python -m <command>`` (for ``benchmarks.X``, that benchmark's)."""
    module = COMMANDS.get(command) or (command if command.startswith("benchmarks.") else None)
    if module is None:
        raise KeyError(f"unknown command 'python -m {command}'")
    return importlib.import_module(module).build_parser()


def _helps(parser: argparse.ArgumentParser, name: str) -> list[tuple[str, str]]:
    """(command line, help text) of the parser and of each of its subcommands, depth first."""
    found = [(name, parser.format_help())]
    for action in parser._actions:  # argparse has no public way to list subcommands
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                found += _helps(subparser, f"{name} {sub}")
    return found


def cli_page() -> str:
    os.environ["COLUMNS"] = "110"  # argparse wraps to the terminal; the page should not depend on it
    lines = [
        "# Commands",
        "",
        "Generated at build time from each command's own parser (`--help`), so it cannot drift from the code.",
        "",
    ]
    for command in COMMANDS:
        for name, text in _helps(parser_of(command), f"python -m {command}"):
            lines += [f"## `{name}`", "", "```text", text.rstrip(), "```", ""]
        if command == "serve":
            from serve.processes import build_web_parser, build_worker_parser

            for name, parser in (("web", build_web_parser()), ("worker", build_worker_parser())):
                lines += [f"## `python -m serve {name}`", "", "```text", parser.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def _stand_in_workbench() -> Any:
    """A workbench without a database or model: the routes and tools are declared without calling it."""
    from serve.settings import ServeSettings

    bench = MagicMock()
    bench.engine.catalog = "ztf"
    bench.settings = ServeSettings()
    return bench


def openapi_document() -> dict[str, Any]:
    from serve.app import create_app

    return create_app(_stand_in_workbench()).openapi()


def http_page() -> str:
    document = openapi_document()
    lines = [
        "# HTTP API",
        "",
        f"Generated at build time from the service's OpenAPI document "
        f"(`/openapi.json`, version {document['info']['version']}).",
        "",
    ]
    for path, operations in sorted(document["paths"].items()):
        for method, operation in operations.items():
            lines += [f"## `{method.upper()} {path}`", "", operation.get("summary", ""), ""]
            if operation.get("description"):
                lines += [operation["description"], ""]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                lines += [f"Request body: `{body.get('$ref', '').rsplit('/', 1)[-1] or body.get('type')}`", ""]
            codes = ", ".join(
                f"{code} {answer.get('description', '')}" for code, answer in operation["responses"].items()
            )
            lines += [f"Responses: {codes}.", ""]
    lines += ["## Schemas", ""]
    for name, schema in sorted(document.get("components", {}).get("schemas", {}).items()):
        lines += [
            f"### `{name}`",
            "",
            schema.get("description", ""),
            "",
            "| field | type | required |",
            "|---|---|---|",
        ]
        required = set(schema.get("required", ()))
        for field, spec in schema.get("properties", {}).items():
            lines.append(f"| `{field}` | {_type(spec)} | {'yes' if field in required else 'no'} |")
        lines.append("")
    return "\n".join(lines)


def _type(spec: dict[str, Any]) -> str:
    if "$ref" in spec:
        return f"`{spec['$ref'].rsplit('/', 1)[-1]}`"
    if "anyOf" in spec:
        return " or ".join(_type(part) for part in spec["anyOf"])
    if spec.get("type") == "array":
        return f"array of {_type(spec.get('items', {}))}"
    return spec.get("type", "any")


def mcp_tools() -> list[Any]:
    from serve.mcp_server import build_mcp_server

    return asyncio.run(build_mcp_server(_stand_in_workbench()).list_tools())


def mcp_page() -> str:
    lines = [
        "# MCP tools",
        "",
        "`python -m serve --mcp` serves these tools over stdio. Generated at build time from the tools' own schemas.",
        "",
    ]
    for tool in mcp_tools():
        lines += [
            f"## `{tool.name}`",
            "",
            " ".join((tool.description or "").split()),
            "",
            "```json",
            json.dumps(tool.input_schema, indent=2),
            "```",
            "",
        ]
    return "\n".join(lines)


PAGES = {"reference/commands.md": cli_page, "reference/http.md": http_page, "reference/mcp.md": mcp_page}
