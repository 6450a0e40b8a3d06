"""Run the doctests of the modules package's pure modules."""

import doctest
import importlib

import pytest

MODULES = ("modules.extract_sql", "modules.candidates", "modules.candidate_selection")


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
