"""Run the doctests of the evaluation package's pure modules."""

import doctest
import importlib

import pytest

MODULES = ("evaluation.seen_questions", "evaluation.program_predictions")


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
