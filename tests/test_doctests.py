"""Every module's docstring examples run and pass (each listed module has at least one)."""

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
    "modules.result_findings",
    "modules.value_literals",
    "modules.vocabulary",
    "modules.vote",
    "replica.grounding.constraints",
    "replica.grounding.domains",
    "replica.grounding.predicates",
    "replica.grounding.report",
    "replica.grounding.sources",
    "engines.guard",
    "engines.adql",
    "engines.adql_guard",
    "engines.tap",
    "evaluation.program_predictions",
    "evaluation.seen_questions",
    "lms.lm_watch",
    "lms.resolve",
    "lms.usage",
    "modules.selection",
    "modules.candidates",
    "modules.extract_sql",
    "metric.aggregate",
    "metric.perfect_match",
    "metric.select_list",
    "metric.value_match",
    "serve.access",
    "serve.settings",
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
