"""What the README says about commands holds: compile examples spare the committed artifact, time limits are the
code's defaults, and the project has a license."""

import re
import shlex

import pytest

import compiling.cli as compile_cli
from answering.api import CONNECT_TIMEOUT_S, DEFAULT_TIMEOUT_S
from db.executor import ExecutorSettings
from engines.tap_settings import TapSettings
from evaluation.cli import EMBEDDED_TIMEOUT_S, EXTERNAL_TIMEOUT_S, GOLD_TIMEOUT_FACTOR
from optimizers.artifact import REPO_DIR

README = (REPO_DIR / "README.md").read_text(encoding="utf-8")
COMPILE_EXAMPLES = re.findall(r"^python -m compile (.*?)(?:\s+#.*)?$", README, re.MULTILINE)


def table_row(command: str) -> str:
    """The row of the README's time-limit table for `command`."""
    rows = [line for line in README.splitlines() if line.startswith(f"| `{command}` |")]
    assert len(rows) == 1, rows
    return rows[0]


def seconds(value: float) -> str:
    return f"{value:g} s"


@pytest.mark.parametrize("example", COMPILE_EXAMPLES)
def test_readme_compile_examples_do_not_replace_a_committed_artifact(example):
    args = compile_cli.build_parser().parse_args(shlex.split(example))
    out = args.out or compile_cli.default_artifact_dir(args.model)
    assert args.force or not compile_cli.is_committed(REPO_DIR / out)


def test_readme_has_compile_examples():
    assert len(COMPILE_EXAMPLES) >= 2


def test_readme_time_limits_are_the_code_defaults():
    assert f"| `ask` | {seconds(DEFAULT_TIMEOUT_S)}, " in README
    assert f"({seconds(CONNECT_TIMEOUT_S)} to connect)" in table_row("ask")
    evaluate = table_row("evaluate")
    assert f"{seconds(EMBEDDED_TIMEOUT_S)} on the embedded database; {seconds(EXTERNAL_TIMEOUT_S)} with" in evaluate
    gold = (seconds(GOLD_TIMEOUT_FACTOR * EMBEDDED_TIMEOUT_S), seconds(GOLD_TIMEOUT_FACTOR * EXTERNAL_TIMEOUT_S))
    assert f"{GOLD_TIMEOUT_FACTOR:g} times that default ({gold[0]}, {gold[1]})" in evaluate
    compile_row = table_row("compile")
    assert f"{seconds(ExecutorSettings(dsn='').timeout_s)} on PostgreSQL" in compile_row
    assert f"{seconds(TapSettings(url='').timeout_s)} on TAP" in compile_row
    assert f"evaluate`'s default query time limit is {seconds(EXTERNAL_TIMEOUT_S)}; `ask` keeps" in README


def test_the_project_has_an_mit_license():
    text = (REPO_DIR / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the alerce-t2s authors\n")
