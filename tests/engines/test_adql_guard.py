"""The ADQL box's check: one query, nothing after it, nothing that is not a query."""

from pathlib import Path

import pytest
import yaml

from engines.adql.guard import MAX_ADQL_CHARS, check_adql
from engines.errors import GuardError

QUERY = (
    "SELECT TOP 5 o.oid FROM ztf.object AS o WHERE "
    "CONTAINS(POINT('ICRS', o.meanra, o.meandec), CIRCLE('ICRS', 150.0, 2.2, 1.0)) = 1 ORDER BY o.oid"
)


UNION = "SELECT oid FROM ztf.object UNION SELECT oid FROM ztf.ss_ztf"


@pytest.mark.parametrize("text", [QUERY, f"  {QUERY} ;\n", UNION])
def test_one_query_passes_as_written(text):
    assert check_adql(text) == text.strip().rstrip(";").strip()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "The ADQL is empty"),
        ("DELETE FROM ztf.object", "got DELETE."),
        ("DROP TABLE ztf.object", "got DROP."),
        (f"{QUERY}; DROP TABLE ztf.object", "got 2 statements."),
        ("SELEC oid", "got text that is not a query."),
        ("SELECT " + "1, " * MAX_ADQL_CHARS + "1", "characters long"),
    ],
    ids=["empty", "delete", "drop", "stacked", "not-a-query", "too-long"],
)
def test_anything_else_is_refused_in_one_line(text, message):
    with pytest.raises(GuardError) as refused:
        check_adql(text)
    assert message in refused.value.message and "\n" not in refused.value.message


REFUSED = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "adql_guard_cases.yaml").read_text())["refused"]


@pytest.mark.parametrize("case", REFUSED, ids=[case["id"] for case in REFUSED])
def test_every_write_in_the_parse_tree_is_refused(case):
    with pytest.raises(GuardError) as refused:
        check_adql(case["text"])
    assert case["message"] in refused.value.message and "\n" not in refused.value.message
