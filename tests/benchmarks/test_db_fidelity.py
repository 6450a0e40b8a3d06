"""The fidelity benchmark's mutations: classifier names and ids swap, MJDs shift, ids stay."""

from benchmarks.db_fidelity import identifier_index, mutations
from metric.perfect_match import identifier_columns


def test_multisurvey_golds_swap_classifier_ids_and_shift_only_mjds():
    sql = (
        "SELECT p.oid, p.sid FROM probability p JOIN object o ON o.oid = p.oid AND o.sid = p.sid "
        "WHERE p.classifier_id = 3 AND o.firstmjd > 61041 AND o.oid <> 313853496686280764"
    )
    described = dict(mutations(sql))
    assert "p.classifier_id = 1" in described["swap classifier"]
    assert sorted(name for name in described if name.startswith("mjd")) == ["mjd 61041 +1", "mjd 61041 -1"]


def test_ztf_golds_swap_classifier_names():
    described = dict(mutations("SELECT oid FROM probability WHERE classifier_name = 'lc_classifier'"))
    assert "classifier_name = 'stamp_classifier'" in described["swap classifier"]


def test_the_identifier_follows_the_catalogs_list():
    columns = ["oid", "sid", "measurement_id"]
    assert identifier_index(columns) == 0
    assert identifier_index(columns, identifier_columns("multisurvey")) == 2
