"""Pasted ADQL and computed columns on the local DaCHS: the cases of adql_pasted_cases.yaml run and name their
columns; refusals carry a hint."""

import pytest

from db.tap.server import SYNC_LIMIT_S
from engines import TapSettings
from engines.errors import ExecutionError
from engines.tap.engine import TapEngine
from tests.engines.test_adql_pasted import PASTED


@pytest.fixture(scope="module")
def tap(tap_url):
    with TapEngine(TapSettings(url=tap_url, timeout_s=SYNC_LIMIT_S, sync_limit_s=SYNC_LIMIT_S)) as engine:
        yield engine


@pytest.mark.parametrize("case", PASTED, ids=[case["title"] for case in PASTED])
def test_pasted_adql_runs_with_readable_column_names(tap, case):
    result = tap.execute_adql(case["adql"])
    assert list(result.frame.columns) == case["columns"]
    assert len(result.frame) >= 1


def test_translated_sql_names_its_computed_columns(tap):
    result = tap.execute("SELECT count(*), max(ndet) FROM object")
    assert list(result.frame.columns) == ["count", "max"]


def test_a_refusal_of_the_service_carries_a_hint_on_one_line(tap):
    with pytest.raises(ExecutionError) as caught:
        tap.execute_adql("SELECT TOP 1 value FROM ztf.feature")
    message = str(caught.value)
    assert "\n" not in message
    assert 'Hint: a reserved word used as a name must be quoted, as "value" or "date".' in message
    assert 'near "value' in message
    with pytest.raises(ExecutionError) as caught:
        tap.execute_adql("SELECT TOP 1 nonexistent FROM ztf.object")
    assert "Hint: check the column names in tap_schema.columns" in str(caught.value)
