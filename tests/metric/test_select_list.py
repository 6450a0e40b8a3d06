"""Tests for metric.select_list: the reference's SELECT-list parser and its artefacts."""

import pytest

from metric.select_list import has_top_level_order_by, parse_select_list
from tests.optimizers.cases import params


@pytest.mark.parametrize("case", params("select_list"))
def test_parse_select_list(case):
    assert parse_select_list(case["sql"]) == [tuple(pair) for pair in case["pairs"]]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT oid FROM object ORDER BY oid", True),
        ("SELECT oid FROM object UNION SELECT oid FROM ss_ztf ORDER BY 1 LIMIT 3", True),
        ("WITH s AS (SELECT oid FROM object ORDER BY ndet) SELECT oid FROM s", False),
        ("SELECT oid, rank() OVER (ORDER BY ndet) FROM object", False),
        ("SELECT oid FROM object; SELECT oid FROM object ORDER BY oid", False),
        ("SELECT 'ORDER BY' FROM object", False),
    ],
)
def test_has_top_level_order_by(sql, expected):
    assert has_top_level_order_by(sql) is expected
