"""The value check: unknown literals of categorical columns, and their replacement."""

from pathlib import Path

import pytest
import yaml

from modules.findings import FindingKind
from modules.value_literals import closest_values, find_unknown_values, replace_unknown_values
from modules.vocabulary import Vocabulary

VOCABULARY = Vocabulary(
    values={
        ("probability", "class_name"): frozenset({"SNIa", "SNII", "QSO", "SN", "AGN"}),
        ("probability", "classifier_name"): frozenset({"lc_classifier", "stamp_classifier"}),
        ("probability", "classifier_version"): frozenset({"hierarchical_rf_1.1.0", "stamp_classifier_1.0.4"}),
        ("magstat", "fid"): frozenset({"1", "2"}),
        ("feature", "name"): frozenset({"Amplitude", "Multiband_period"}),
    },
    classes={
        ("probability", "lc_classifier", "hierarchical_rf_1.1.0"): frozenset({"SNIa", "SNII", "QSO"}),
        ("probability", "stamp_classifier", "stamp_classifier_1.0.4"): frozenset({"SN", "AGN"}),
    },
)

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "value_check_cases.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_find_unknown_values(case):
    findings = find_unknown_values(case["sql"], VOCABULARY)
    assert [[f.column, f.value] for f in findings] == case["flagged"]
    assert all(f.kind is FindingKind.UNKNOWN_VALUE for f in findings)


def test_finding_lists_closest_values_and_says_what_to_do():
    (finding,) = find_unknown_values("SELECT oid FROM probability WHERE class_name = 'snia'", VOCABULARY)
    assert finding.closest[0] == "SNIa"
    assert finding.message.startswith("probability.class_name has no value 'snia'; closest: 'SNIa'")
    assert finding.message.endswith("Use one of the column's values.")


def test_finding_without_close_value_lists_valid_ones():
    (finding,) = find_unknown_values("SELECT oid FROM feature WHERE name = 'zzz'", VOCABULARY)
    assert finding.closest == ()
    assert (
        finding.message
        == "feature.name has no value 'zzz'; valid: Amplitude, Multiband_period. Use one of the column's values."
    )


def test_replace_unknown_values_rewrites_only_flagged_literals():
    sql = "SELECT oid FROM probability WHERE class_name IN ('SNIa', 'SN Ia') AND classifier_name = 'lc_classifier'"
    assert replace_unknown_values(sql, VOCABULARY) == (
        "SELECT oid FROM probability WHERE class_name IN ('SNIa', 'SNIa') AND classifier_name = 'lc_classifier'"
    )


def test_replace_unknown_values_keeps_sql_without_findings():
    sql = "select oid from probability where class_name = 'SNIa'"
    assert replace_unknown_values(sql, VOCABULARY) is sql


def test_closest_values_for_numbers_by_distance():
    assert closest_values("7", frozenset({"1", "2"})) == ("2", "1")
