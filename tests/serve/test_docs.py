"""Run the doctests of the serve package."""

import doctest
import importlib

import pytest

MODULES = ("serve.access", "serve.settings")


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
