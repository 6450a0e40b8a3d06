"""Run the doctests of the answering package."""

import doctest
import importlib

import pytest

MODULES = (
    "answering",
    "answering.astro_table",
    "answering.lightcurve",
    "answering.question",
    "answering.render",
    "answering.sky",
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
