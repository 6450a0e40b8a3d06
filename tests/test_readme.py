"""What the README says about commands holds: compile examples spare the committed artifact, the commands take the
documented time limits, and the project has a license."""

import re
import shlex

import pytest

import answering.cli as ask_cli
import optimizers.cli as compile_cli
import serve.arguments as serve_arguments
from defaults.time_limits import ASK_QUERY_S
from modules.artifacts.load import REPO_DIR

README = (REPO_DIR / "README.md").read_text(encoding="utf-8")
COMPILE_EXAMPLES = re.findall(r"^python -m compile (.*?)(?:\s+#.*)?$", README, re.MULTILINE)


@pytest.mark.parametrize("example", COMPILE_EXAMPLES)
def test_readme_compile_examples_do_not_replace_a_committed_artifact(example):
    args = compile_cli.build_parser().parse_args(shlex.split(example))
    out = args.out or compile_cli.default_artifact_dir(args.model, args.catalog)
    assert args.force or not compile_cli.is_committed(REPO_DIR / out)


def test_readme_has_compile_examples():
    assert len(COMPILE_EXAMPLES) >= 2


def test_the_commands_default_to_the_documented_time_limits():
    # docs/reference/time-limits.md renders defaults/time_limits.py; the commands must take their defaults there.
    assert ask_cli.build_parser().get_default("timeout") == ASK_QUERY_S
    assert serve_arguments.build_parser().get_default("timeout") == ASK_QUERY_S


def test_the_project_has_an_mit_license():
    text = (REPO_DIR / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the alerce-t2s authors\n")
