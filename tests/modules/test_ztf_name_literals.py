"""ZTF names on the multi-survey catalog (integer oids): found, replaced by their oids, shown for the question."""

from catalog.ztf_names import ztf_oid_of
from modules.value_check.stage import ValueCheck

NAME = "ZTF26aacextk"
OID = 36029005847028852
"""The idmapper's rule by hand: 2**55 + 26 * 26**7 + 'aacextk' in base 26 (a = 0)."""


def test_the_oid_follows_the_documented_rule():
    letters = 0
    for letter in "aacextk":
        letters = letters * 26 + "abcdefghijklmnopqrstuvwxyz".index(letter)
    assert 2**55 + 26 * 26**7 + letters == OID == ztf_oid_of(NAME)


def test_multisurvey_value_check_finds_and_replaces_a_ztf_name_compared_with_oid():
    check = ValueCheck.open(None, "multisurvey")
    sql = f"SELECT d.mjd FROM detection d WHERE d.oid IN ('{NAME}', 'ZTF19abcdefg') AND d.sid = 0"
    findings = check.findings(sql)
    assert [finding.value for finding in findings] == [NAME, "ZTF19abcdefg"]
    assert str(OID) in findings[0].message
    assert check.replace(sql) == (
        f"SELECT d.mjd FROM detection AS d WHERE d.oid IN ({OID}, {ztf_oid_of('ZTF19abcdefg')}) AND d.sid = 0"
    )


def test_a_name_compared_with_another_column_is_left_alone():
    check = ValueCheck.open(None, "multisurvey")
    sql = f"SELECT oid FROM lsst_mpc_orbits WHERE designation = '{NAME}'"
    assert check.findings(sql) == []
    assert check.replace(sql) == sql


def test_ztf_catalog_keeps_names_as_they_are():
    check = ValueCheck.open(None, "ztf")
    sql = f"SELECT * FROM object WHERE oid = '{NAME}'"
    assert check.findings(sql) == []
    assert check.replace(sql) == sql
    assert check.prompt_text(["object"], None, f"Where is {NAME}?") == ""


def test_the_question_names_reach_the_prompt_with_their_oids():
    text = ValueCheck.open(None, "multisurvey").prompt_text(["object"], None, f"Light curve of {NAME} and {NAME}?")
    assert text == f"ZTF objects are integer oids with sid 0 here: '{NAME}' is oid {OID}."
