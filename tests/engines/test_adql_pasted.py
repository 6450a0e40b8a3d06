"""Pasted ADQL made runnable (tests/fixtures/adql_pasted_cases.yaml) and the hints of refusals (adql_hint_cases)."""

from pathlib import Path

import pytest
import yaml

from engines.adql.hints import hint_for, sql_box_hint, with_hint
from engines.adql.pasted import prepare_pasted
from engines.adql.translation import default_target

FIXTURES = Path(__file__).parents[1] / "fixtures"
PASTED = yaml.safe_load((FIXTURES / "adql_pasted_cases.yaml").read_text())["pasted"]
HINTS = yaml.safe_load((FIXTURES / "adql_hint_cases.yaml").read_text())


@pytest.mark.parametrize("case", PASTED, ids=[case["title"] for case in PASTED])
def test_pasted_adql_is_sent_as_written_or_rewritten(case):
    prepared = prepare_pasted(case["adql"], default_target())
    assert prepared.adql == (case["sent"] or case["adql"])
    assert bool(prepared.changes) == (case["sent"] is not None)
    assert prepare_pasted(prepared.adql, default_target()).changes == ()  # what is sent needs no second pass


def test_pasted_adql_that_does_not_parse_is_sent_as_written():
    assert prepare_pasted("SELECT TOP 3 FROM WHERE", default_target()).adql == "SELECT TOP 3 FROM WHERE"


def test_the_multisurvey_catalog_gets_its_schema():
    prepared = prepare_pasted("SELECT TOP 1 oid FROM object", default_target("multisurvey"))
    assert prepared.adql == "SELECT TOP 1 oid FROM alerce_tap.object AS object"


@pytest.mark.parametrize("case", HINTS["hints"], ids=[case["title"] for case in HINTS["hints"]])
def test_refusals_get_their_hint(case):
    assert hint_for(case["message"], case["query"]) == case["hint"]
    line = with_hint(case["message"], case["query"])
    assert "\n" not in line and line.startswith(case["message"].rstrip("."))
    assert line.endswith(f"Hint: {case['hint']}.") if case["hint"] else line == case["message"]


@pytest.mark.parametrize("case", HINTS["sql_box"], ids=[case["title"] for case in HINTS["sql_box"]])
def test_adql_in_the_sql_box_points_to_the_adql_box(case):
    assert sql_box_hint(case["sql"]) == case["hint"]
