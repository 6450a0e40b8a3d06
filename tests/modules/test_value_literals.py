"""The value check: unknown literals of categorical columns, and their replacement."""

from pathlib import Path

import pandas as pd
import pytest
import yaml

from modules.run.findings import FindingKind
from modules.value_check.literals import closest_values, find_unknown_values, replace_unknown_values
from modules.value_check.vocabulary import Vocabulary

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


def _codes() -> Vocabulary:
    """A multi-survey vocabulary whose class_id and band are codes of lookups, as read_vocabulary builds it."""
    from catalog import load_catalog
    from modules.value_check.lookup_codes import CodeNames

    codes = {(code.table, code.column): code for code in load_catalog("multisurvey").codes}
    taxonomy = tuple(((str(c),), str(i), name) for c in (1, 3) for i, name in enumerate(("SN", "AGN", "VS")))
    bands = ((("0",), "1", "g"), (("1",), "1", "g"), (("1",), "6", "u"))
    return Vocabulary(
        values={
            ("probability", "class_id"): frozenset({"0", "1", "2"}),
            ("probability", "classifier_id"): frozenset({"1", "3"}),
            ("detection", "band"): frozenset({"1", "6"}),
        },
        codes={
            ("probability", "class_id"): CodeNames(codes[("probability", "class_id")], taxonomy),
            ("detection", "band"): CodeNames(codes[("detection", "band")], bands),
        },
    )


@pytest.mark.parametrize(
    ("sql", "replaced"),
    [
        (
            "SELECT oid FROM probability p WHERE p.classifier_id = 3 AND p.class_id = 'SN'",
            "SELECT oid FROM probability AS p WHERE p.classifier_id = 3 AND p.class_id = 0",
        ),
        ("SELECT oid FROM detection WHERE band IN ('u', 'g')", "SELECT oid FROM detection WHERE band IN (6, 1)"),
        ("SELECT oid FROM probability WHERE class_id = 'AGNs'", "SELECT oid FROM probability WHERE class_id = 1"),
        ("SELECT oid FROM probability WHERE class_id = 2", "SELECT oid FROM probability WHERE class_id = 2"),
    ],
    ids=["class name in its classifier", "band names", "closest class name", "an id stays"],
)
def test_a_name_compared_with_a_code_column_becomes_its_id(sql, replaced):
    assert replace_unknown_values(sql, _codes()) == replaced


def test_a_code_finding_names_the_lookup_and_the_id():
    sql = "SELECT oid FROM probability p WHERE p.classifier_id = 3 AND p.class_id = 'VS'"
    (finding,) = find_unknown_values(sql, _codes())
    assert finding.message == (
        "probability.class_id holds ids of taxonomy, not names: 'VS' is class_id 2, classifier_id 3. Compare it with "
        "the id, or join taxonomy and compare taxonomy.class_name."
    )
    assert (finding.column, finding.value, finding.closest) == ("probability.class_id", "VS", ("2",))


def test_a_name_outside_the_fixed_scope_is_not_guessed():
    (finding,) = find_unknown_values("SELECT oid FROM detection d WHERE d.sid = 0 AND d.band = 'u'", _codes())
    assert finding.closest == () and "no band_name 'u'" in finding.message


def test_code_ids_read_as_floats_still_become_integer_ids():
    # A lookup column with a NULL comes back from the database as floats (6.0); the SQL compares integers (6).
    from catalog import load_catalog
    from modules.value_check.lookup_codes import read_code_names

    bands = pd.DataFrame({"band": [1.0, 6.0, None], "band_name": ["g", "u", "x"], "sid": [1.0, 1.0, 1.0]})
    codes = read_code_names(
        load_catalog("multisurvey"), lambda queries: [bands if table == "band" else None for _, table in queries]
    )
    vocabulary = Vocabulary(values={("detection", "band"): frozenset({"1", "6"})}, codes=codes)
    sql = "SELECT oid FROM detection d WHERE d.sid = 1 AND d.band = 'u'"
    assert replace_unknown_values(sql, vocabulary) == "SELECT oid FROM detection AS d WHERE d.sid = 1 AND d.band = 6"
