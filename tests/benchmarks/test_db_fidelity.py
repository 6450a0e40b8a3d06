"""The fidelity benchmark compares the identifier the catalog's row PM compares."""

from benchmarks.db_fidelity import identifier_index
from metric.perfect_match import identifier_columns


def test_the_identifier_follows_the_catalogs_list():
    columns = ["oid", "sid", "measurement_id"]
    assert identifier_index(columns) == 0
    assert identifier_index(columns, identifier_columns("multisurvey")) == 2
