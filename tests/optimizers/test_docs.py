"""Run the doctests of the optimizers' pure modules."""

import doctest
import importlib

import pytest

MODULES = ("optimizers.select_list", "optimizers.metric", "optimizers.value_match", "optimizers.aggregate")


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
