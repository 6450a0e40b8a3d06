"""The multi-survey catalog on a real local DaCHS (schema alerce_tap) against the tiny PostgreSQL database.

The same DaCHS publishes the ztf tables (schema ztf) for the other TAP tests: one `tap up` serves both.
"""

import pytest

from benchmarks.tap import same_result
from catalog import load_catalog
from data.loader import example_set, load_dataset
from db.tap.server import SYNC_LIMIT_S
from engines import PostgresEngine, TapSettings
from engines.errors import ExecutionError
from engines.postgres import PostgresSettings
from engines.tap.engine import TapEngine
from metric.perfect_match import identifier_columns

IDS = identifier_columns("multisurvey")
# Example golds with no ADQL form, with the reason (docs/astronomer/catalogs.md); each fails as `unsupported`.
EXPECTED_EXCEPTIONS = {
    2033: "percentile_cont()",
    2062: "percentile_cont()",
    2059: "window functions",
    2060: "window functions",
    2073: "window functions",
    2044: "intervals",
}


@pytest.fixture(scope="module")
def tap(tap_url):
    # At the service's own sync limit, queries run in sync mode (fast); jobs cost DaCHS a process each (about 1 s).
    settings = TapSettings(url=tap_url, timeout_s=SYNC_LIMIT_S, sync_limit_s=SYNC_LIMIT_S, catalog="multisurvey")
    with TapEngine(settings) as engine:
        yield engine


@pytest.fixture(scope="module")
def postgres(multisurvey_dsn):
    with PostgresEngine(PostgresSettings(dsn=multisurvey_dsn, timeout_s=30, catalog="multisurvey")) as engine:
        yield engine


def test_every_example_gold_gives_the_same_identifiers_and_columns_on_tap(postgres, tap):
    differ = {}
    for example in load_dataset(example_set("multisurvey")):
        expected = postgres.execute(example.gold_sql)
        try:
            got = tap.execute(example.gold_sql)
        except ExecutionError as err:
            differ[example.req_id] = f"{err.kind.value}: {err.message}"
            continue
        if not same_result(expected.frame, got.frame, IDS):
            differ[example.req_id] = f"{len(expected.frame)} rows on PostgreSQL, {len(got.frame)} on TAP"
    assert set(differ) == set(EXPECTED_EXCEPTIONS), differ
    for req_id, construct in EXPECTED_EXCEPTIONS.items():
        assert differ[req_id].startswith(f"unsupported: Not available on TAP (ADQL): {construct}"), differ[req_id]


def test_the_engine_reads_the_twenty_alerce_tap_tables(tap):
    assert tap.tables() == frozenset(table.name for table in load_catalog("multisurvey").tap_tables)
    assert tap.translate("SELECT oid FROM object").adql == "SELECT object.oid FROM alerce_tap.object AS object"


@pytest.mark.parametrize(
    "adql",
    [
        "SELECT TOP 5 oid, sid, n_det FROM alerce_tap.object WHERE sid = 1 ORDER BY n_det DESC",
        "SELECT TOP 3 o.oid FROM alerce_tap.object AS o WHERE o.oid IN ('{oid}', '1') AND o.sid = 1",
        "SELECT band_name, band, band_order FROM alerce_tap.band WHERE sid = 1 ORDER BY band_order",
        "SELECT TOP 5 oid, feature_id, feature_value FROM alerce_tap.feature WHERE band = 0",
        "SELECT TOP 5 ssObjectId, designation FROM alerce_tap.lsst_mpc_orbits WHERE ssObjectId > 0",
        "SELECT TOP 3 det.*, lsst_det.* FROM alerce_tap.detection AS det JOIN alerce_tap.lsst_detection AS lsst_det "
        "ON det.oid = lsst_det.oid AND det.sid = lsst_det.sid AND det.measurement_id = lsst_det.measurement_id",
    ],
    ids=["top", "quoted id list", "band_order", "feature_value", "mixed case", "star join"],
)
def test_adql_users_paste_for_alerce_tap_runs_on_the_local_service(tap, postgres, adql):
    oid = postgres.execute("SELECT oid FROM object WHERE sid = 1 ORDER BY oid LIMIT 1").frame.iloc[0, 0]
    result = tap.execute_adql(adql.format(oid=oid))
    assert len(result.frame) > 0
    assert all(name == name.lower() for name in result.frame.columns)
    if " IN (" in adql:
        assert list(result.frame["oid"]) == [oid]


def test_tap_schema_lists_the_catalogs_units(tap):
    query = (
        "SELECT column_name, unit FROM tap_schema.columns "
        "WHERE table_name = 'alerce_tap.lsst_detection' AND column_name IN ('psfflux', 'raerr')"
    )
    units = dict(tap.execute_adql(query).frame.itertuples(index=False))
    assert units == {"psfflux": "nJy", "raerr": "deg"}
