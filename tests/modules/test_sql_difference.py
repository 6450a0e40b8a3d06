"""One line on how an alternative's SQL differs from the chosen one: every case of sql_difference_cases.yaml."""

from pathlib import Path

import pytest
import yaml

from modules.selection.sql_difference import describe_difference

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "sql_difference_cases.yaml").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_describe_difference(case):
    assert describe_difference(case["chosen"], case["other"]) == case["difference"]


def test_a_long_difference_is_cut_to_one_short_line():
    conditions = " AND ".join(f"ndet > {n}" for n in range(200))
    line = describe_difference("SELECT oid FROM object", f"SELECT oid FROM object WHERE {conditions}")
    assert len(line) == 300 and line.endswith("…") and "\n" not in line
