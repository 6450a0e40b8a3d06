"""The PostgreSQL -> ADQL translation: one case per rule (tests/fixtures/adql_cases.yaml)."""

from pathlib import Path

import pytest
import yaml

from catalog import load_catalog
from engines.adql.rules import RULES
from engines.adql.translation import Upload, default_target, translate
from engines.errors import ErrorKind, ExecutionError

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "adql_cases.yaml").read_text())


@pytest.mark.parametrize("case", CASES["translated"], ids=[case["title"] for case in CASES["translated"]])
def test_translate_renders_adql(case):
    translation = translate(case["sql"])
    assert translation.adql == case["adql"]
    expected = {
        name: Upload(columns=tuple(upload["columns"]), rows=tuple(tuple(row) for row in upload["rows"]))
        for name, upload in case.get("uploads", {}).items()
    }
    assert translation.uploads == expected


@pytest.mark.parametrize("case", CASES["unsupported"], ids=[case["title"] for case in CASES["unsupported"]])
def test_translate_refuses_constructs_without_adql_form(case):
    with pytest.raises(ExecutionError) as caught:
        translate(case["sql"])
    assert caught.value.kind is ErrorKind.UNSUPPORTED
    assert caught.value.message == f"Not available on TAP (ADQL): {case['message']}."


def test_every_rule_has_a_case():
    named = {case["rule"] for case in CASES["translated"]}
    assert {rule.__name__ for rule in RULES} - {"refuse_unsupported"} <= named


def test_translate_reports_sql_that_does_not_parse():
    with pytest.raises(ExecutionError) as caught:
        translate("SELECT FROM WHERE (")
    assert caught.value.kind is ErrorKind.GENERAL
    assert caught.value.message.startswith("Cannot parse the SQL: ")


def test_translate_knows_tables_the_service_adds():
    published = frozenset(table.name for table in load_catalog().tap_tables)
    target = default_target(tables=published | {"lc_classifier"})
    assert (
        translate("SELECT oid FROM lc_classifier", target).adql
        == "SELECT lc_classifier.oid FROM ztf.lc_classifier AS lc_classifier"
    )


MULTISURVEY = default_target("multisurvey")


def test_translate_qualifies_multisurvey_tables_with_alerce_tap():
    sql = (
        "SELECT d.oid, d.mjd, l.psfflux FROM detection d JOIN lsst_detection l "
        "ON d.oid = l.oid AND d.sid = l.sid AND d.measurement_id = l.measurement_id WHERE d.sid = 1 LIMIT 5"
    )
    assert translate(sql, MULTISURVEY).adql == (
        "SELECT TOP 5 d.oid, d.mjd, l.psfflux FROM alerce_tap.detection AS d JOIN alerce_tap.lsst_detection AS l "
        "ON d.oid = l.oid AND d.sid = l.sid AND d.measurement_id = l.measurement_id WHERE d.sid = 1"
    )
    assert translate("SELECT oid FROM alerce_tap.object", MULTISURVEY).adql == (
        "SELECT object.oid FROM alerce_tap.object AS object"
    )


@pytest.mark.parametrize(
    ("target", "sql", "message"),
    [
        (MULTISURVEY, "SELECT oid FROM magstat", "table magstat (published: allwise, band, catalog_id_lut,"),
        (MULTISURVEY, "SELECT oid FROM alerce.object", "schema alerce (only alerce_tap and tap_schema are published)"),
        (default_target(), "SELECT oid FROM lsst_detection", "table lsst_detection (published: allwise,"),
        (default_target(), "SELECT oid FROM alerce_tap.object", "schema alerce_tap (only ztf and tap_schema are"),
    ],
    ids=["ztf table on multisurvey", "ztf schema on multisurvey", "lsst table on ztf", "multisurvey schema on ztf"],
)
def test_a_table_of_the_other_catalog_is_refused_in_one_line(target, sql, message):
    with pytest.raises(ExecutionError) as caught:
        translate(sql, target)
    assert caught.value.kind is ErrorKind.UNSUPPORTED
    assert caught.value.message.startswith(f"Not available on TAP (ADQL): {message}")
    assert "\n" not in caught.value.message
