"""Target lists on the TAP engine (the local DaCHS): sent as TAP_UPLOAD.mylist, the same rows as on PostgreSQL."""

import pandas as pd
import pytest

import answering
from engines import EngineSettings
from engines.targets import read_targets, uploaded
from tests.engines.conftest import tap_url  # noqa: F401 - the local DaCHS fixture


@pytest.fixture(scope="module")
def targets(tiny_dsn):
    """Three objects of the tiny database moved 0.5 arcsec in Dec, and a position far from any object."""
    known = answering.run_sql(
        "SELECT oid, meanra, meandec FROM object ORDER BY oid LIMIT 3", engine=EngineSettings(dsn=tiny_dsn)
    ).frame
    lines = ["name,ra,dec", *(f"t{i},{r.meanra},{r.meandec + 0.5 / 3600}" for i, r in enumerate(known.itertuples()))]
    return read_targets(("\n".join([*lines, "far,0.001,-89.99"]) + "\n").encode()), list(known["oid"])


def test_crossmatch_on_tap_equals_postgres(tap_url, tiny_dsn, targets):  # noqa: F811 - the fixture
    listed, oids = targets
    on_tap = answering.crossmatch(listed, radius_arcsec=2, engine=EngineSettings(engine="tap", tap_url=tap_url))
    on_postgres = answering.crossmatch(listed, radius_arcsec=2, engine=EngineSettings(dsn=tiny_dsn))
    assert on_tap.error is None, on_tap.error
    assert "FROM TAP_UPLOAD.mylist AS t JOIN ztf.object AS o" in on_tap.adql
    assert list(on_tap.frame.sort_values("name")["oid"]) == oids
    columns = ["name", "oid"]
    expected = on_postgres.frame[columns].sort_values("name").reset_index(drop=True)
    pd.testing.assert_frame_equal(on_tap.frame[columns].sort_values("name").reset_index(drop=True), expected)


def test_ids_and_pasted_adql_join_tap_upload_mylist(tap_url, targets):  # noqa: F811 - the fixture
    _, oids = targets
    ids = read_targets(pd.DataFrame({"oid": [oids[0], "ZTF00nothere"]}))
    sql = "SELECT m.objectid, o.ndet FROM mylist AS m JOIN object AS o ON o.oid = m.objectid"
    answer = answering.run_sql(sql, targets=ids, engine=EngineSettings(engine="tap", tap_url=tap_url))
    assert answer.error is None and list(answer.frame["objectid"]) == [oids[0]]
    from db.engine import open_engine

    with open_engine(EngineSettings(engine="tap", tap_url=tap_url)) as engine, uploaded(ids):
        adql = "SELECT m.objectid, o.ndet FROM tap_upload.mylist AS m JOIN ztf.object AS o ON o.oid = m.objectid"
        assert list(engine.execute_adql(adql).frame["objectid"]) == [oids[0]]


def test_the_adql_box_sends_a_file_as_tap_upload(tap_url, targets):  # noqa: F811 - the fixture
    from modules.settings import ProgramSettings
    from serve import ServeSettings
    from serve.workbench import open_workbench
    from tests.answering.scripts import scripted_lm
    from tests.serve.conftest import client_of

    _, oids = targets
    program, engine = ProgramSettings(uncompiled=True), EngineSettings(engine="tap", tap_url=tap_url)
    bench = open_workbench("fake/scripted", ServeSettings(), program=program, engine=engine, lm=scripted_lm())
    adql = "SELECT m.objectid, o.ndet FROM TAP_UPLOAD.mylist AS m JOIN ztf.object AS o ON o.oid = m.objectid"
    files = {"targets": ("ids.csv", f"objectid\n{oids[2]}\n".encode(), "text/csv")}
    try:
        with client_of(bench) as client:
            page = client.post("/adql", data={"adql": adql}, files=files).text
    finally:
        bench.close()
    assert "1 row" in page and oids[2] in page and "With the target list mylist (1 row)." in page
