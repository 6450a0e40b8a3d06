"""Run the doctests of the checks' pure modules."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["checks.vote", "checks.value_check", "checks.vocabulary", "checks.result_checks"])
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
