"""Every command reads its arguments before it imports the program: --help and a bad argument import no DSPy,
LiteLLM or pandas (benchmarks/startup.py measures the time)."""

import subprocess
import sys

import pytest

from optimizers.arguments import STRATEGY_NAMES

HEAVY = ("dspy", "litellm", "pandas")
COMMANDS = ("ask", "serve", "evaluate", "compile", "db")
# Runs the command as `python -m NAME ...` would, then reports which heavy packages it imported.
PROBE = """
import runpy, sys
name, *sys.argv[1:] = sys.argv[1:]
sys.argv[0] = name
try:
    runpy.run_module(name, run_name="__main__", alter_sys=True)
except SystemExit as stop:
    code = stop.code
heavy = [m for m in {heavy!r} if m in sys.modules]
print("heavy:", ",".join(heavy), "exit:", code, file=sys.stderr)
"""


def _probe(*argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *argv], capture_output=True, text=True, timeout=120
    )
    return done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_imports_nothing_heavy(command):
    assert _probe(command, "--help") == "heavy:  exit: 0"


@pytest.mark.parametrize("command", COMMANDS)
def test_bad_argument_imports_nothing_heavy(command):
    assert _probe(command, "--no-such-option") == "heavy:  exit: 2"


def test_evaluate_refuses_contradicting_options_before_the_import():
    assert _probe("evaluate", "--predictions", "p.csv", "--direct") == "heavy:  exit: 2"


def test_optimizer_names_are_the_strategies():
    from optimizers.strategies import STRATEGIES

    assert tuple(STRATEGIES) == STRATEGY_NAMES
