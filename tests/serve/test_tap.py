"""The page on the TAP engine (the local DaCHS): the ADQL beside the SQL, reruns translated or in ADQL, units kept."""

import io

from astropy.table import Table

from engines import EngineSettings
from modules.settings import ProgramSettings
from serve import ServeSettings
from serve.workbench import open_workbench
from tests.answering.scripts import scripted_lm
from tests.engines.conftest import tap_url  # noqa: F401 - the local DaCHS fixture
from tests.serve.conftest import client_of
from tests.serve.test_pages import ask

SQL = "SELECT oid, meanra, meandec FROM object ORDER BY oid LIMIT 5"


def test_the_page_shows_and_reruns_adql(tap_url):  # noqa: F811 - the fixture
    program, engine = ProgramSettings(uncompiled=True), EngineSettings(engine="tap", tap_url=tap_url)
    bench = open_workbench("fake/scripted", ServeSettings(), program=program, engine=engine, lm=scripted_lm(SQL))
    try:
        with client_of(bench) as client:
            answer_id = ask(client)[-1]["answer_id"]
            page = client.get(f"/answers/{answer_id}").text
            assert "engine tap" in page and 'name="adql" rows="5">SELECT TOP 5 object.oid' in page
            assert "5 rows" in page and 'id="sky"' in page
            votable = client.get(f"/answers/{answer_id}/download/votable").content
            assert str(Table.read(io.BytesIO(votable), format="votable")["meanra"].unit) == "deg"
            edited = "SELECT oid, ndet FROM object ORDER BY ndet DESC LIMIT 3"
            rerun = client.post(f"/answers/{answer_id}/rerun", data={"sql": edited}).text
            assert 'rows="5">SELECT TOP 3 object.oid, object.ndet FROM ztf.object AS object' in rerun
            refused = client.post(
                f"/answers/{answer_id}/rerun", data={"sql": "SELECT DISTINCT ON (oid) oid FROM object"}
            )
            assert "Not available on TAP (ADQL)" in refused.text and "[unsupported]" in refused.text
            adql = "SELECT TOP 2 oid, ndet FROM ztf.object ORDER BY ndet DESC"
            by_hand = client.post(f"/answers/{answer_id}/rerun-adql", data={"adql": adql, "question": "q"}).text
            assert "ADQL written by hand" in by_hand and "2 rows" in by_hand and f'rows="5">{adql}<' in by_hand
            deleting = client.post(f"/answers/{answer_id}/rerun-adql", data={"adql": "DELETE FROM ztf.object"}).text
            assert "Only one ADQL SELECT statement is allowed, got DELETE." in deleting
    finally:
        bench.close()


def test_the_adql_box_refuses_deep_nesting_in_one_line(tap_url):  # noqa: F811 - the fixture
    program, engine = ProgramSettings(uncompiled=True), EngineSettings(engine="tap", tap_url=tap_url)
    bench = open_workbench("fake/scripted", ServeSettings(), program=program, engine=engine, lm=scripted_lm(SQL))
    try:
        with client_of(bench) as client:
            answer_id = ask(client)[-1]["answer_id"]
            for opening, closing in [("(", ")"), ("NOT ", ""), ("(SELECT ", ")")]:
                deep = f"SELECT TOP 1 {opening * 400}1{closing * 400} AS x FROM ztf.object"
                refused = client.post(f"/answers/{answer_id}/rerun-adql", data={"adql": deep})
                assert refused.status_code == 200 and "Traceback" not in refused.text
                assert "The ADQL is nested too deeply to read; flatten the expression" in refused.text
    finally:
        bench.close()
