"""Run the doctests of the lms package's pure modules."""

import doctest
import importlib

import pytest

MODULES = ("lms.lm_watch", "lms.resolve", "lms.usage")


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
