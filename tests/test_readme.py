"""What the README says about commands holds: compile examples spare the committed artifact, time limits are the
code's defaults, and the project has a license."""

import re
import shlex

import pytest

import answering.cli as ask_cli
import optimizers.cli as compile_cli
import serve.cli as serve_cli
from defaults.time_limits import (
    ASK_CONNECT_S,
    ASK_QUERY_S,
    DACHS_START_S,
    DATASET_DOWNLOAD_S,
    EVALUATE_EMBEDDED_QUERY_S,
    EVALUATE_EXTERNAL_QUERY_S,
    GOLD_QUERY_FACTOR,
    VOCABULARY_QUERY_S,
    VOCABULARY_READ_S,
)
from engines.postgres import PostgresSettings
from engines.tap_settings import TapSettings
from modules.artifact import REPO_DIR

README = (REPO_DIR / "README.md").read_text(encoding="utf-8")
COMPILE_EXAMPLES = re.findall(r"^python -m compile (.*?)(?:\s+#.*)?$", README, re.MULTILINE)


def table_row(command: str) -> str:
    """The row of the README's time-limit table for `command`."""
    cells = [(line.split(" | ")[0].removeprefix("| "), line) for line in README.splitlines() if line.startswith("| `")]
    rows = [line for first, line in cells if f"`{command}`" in first.split(", ")]
    assert len(rows) == 1, rows
    return rows[0]


def seconds(value: float) -> str:
    return f"{value:g} s"


@pytest.mark.parametrize("example", COMPILE_EXAMPLES)
def test_readme_compile_examples_do_not_replace_a_committed_artifact(example):
    args = compile_cli.build_parser().parse_args(shlex.split(example))
    out = args.out or compile_cli.default_artifact_dir(args.model, args.catalog)
    assert args.force or not compile_cli.is_committed(REPO_DIR / out)


def test_readme_has_compile_examples():
    assert len(COMPILE_EXAMPLES) >= 2


def test_readme_time_limits_are_the_code_defaults():
    assert ask_cli.build_parser().get_default("timeout") == ASK_QUERY_S
    assert serve_cli.build_parser().get_default("timeout") == ASK_QUERY_S
    assert table_row("ask") == table_row("serve") and f" | {seconds(ASK_QUERY_S)}, " in table_row("ask")
    assert f"({seconds(ASK_CONNECT_S)} to connect)" in table_row("ask")
    evaluate = table_row("evaluate")
    embedded, external = EVALUATE_EMBEDDED_QUERY_S, EVALUATE_EXTERNAL_QUERY_S
    assert f"{seconds(embedded)} on the embedded database; {seconds(external)} with" in evaluate
    gold = (seconds(GOLD_QUERY_FACTOR * embedded), seconds(GOLD_QUERY_FACTOR * external))
    assert f"{GOLD_QUERY_FACTOR:g} times that default ({gold[0]}, {gold[1]})" in evaluate
    compile_row = table_row("compile")
    assert f"{seconds(PostgresSettings(dsn='').timeout_s)} on PostgreSQL" in compile_row
    assert f"{seconds(TapSettings(url='').timeout_s)} on TAP" in compile_row
    assert f"waits up to {seconds(DACHS_START_S)} for DaCHS" in table_row("db")
    assert f"{seconds(VOCABULARY_QUERY_S)} per query, {seconds(VOCABULARY_READ_S)} in all" in README
    assert f"| `data fetch` | {seconds(DATASET_DOWNLOAD_S)} per benchmark file" in README
    assert f"evaluate`'s default query time limit is {seconds(EVALUATE_EXTERNAL_QUERY_S)}; `ask` keeps" in README


def test_the_project_has_an_mit_license():
    text = (REPO_DIR / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the alerce-t2s authors\n")
