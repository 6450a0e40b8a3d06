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
    "checks.result_checks",
    "checks.value_check",
    "checks.vocabulary",
    "checks.vote",
    "db.grounding.domains",
    "db.grounding.predicates",
    "db.grounding.sources",
    "db.guard",
    "engines.adql",
    "engines.adql_guard",
    "engines.tap",
    "evaluation.program_predictions",
    "evaluation.seen_questions",
    "fileio.text",
    "lms.lm_watch",
    "lms.local_models",
    "lms.resolve",
    "lms.usage",
    "modules.candidate_selection",
    "modules.candidates",
    "modules.extract_sql",
    "optimizers.aggregate",
    "optimizers.metric",
    "optimizers.select_list",
    "optimizers.value_match",
    "serve.access",
    "serve.errors",
    "serve.mcp_server",
    "serve.settings",
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
