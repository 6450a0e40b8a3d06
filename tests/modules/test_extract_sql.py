"""SQL extraction: every case of tests/fixtures/extract_sql.yaml."""

from pathlib import Path

import pytest
import yaml

from modules.predictors.extract_sql import extract_sql

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "extract_sql.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_extract_sql(case):
    assert extract_sql(case["text"]) == case["sql"]


def test_none_gives_empty():
    assert extract_sql(None) == ""
