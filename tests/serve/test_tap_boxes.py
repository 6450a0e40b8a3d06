"""The home page's boxes on the TAP engine (the local DaCHS): pasted ADQL runs, is listed with its text, failures
show the ADQL that was sent with a hint, and a failed answer keeps its ADQL."""

import re

import pytest

from engines import EngineSettings
from modules.settings import ProgramSettings
from serve import ServeSettings
from serve.workbench import open_workbench
from tests.answering.scripts import scripted_lm
from tests.engines.conftest import tap_url  # noqa: F401 - the local DaCHS fixture
from tests.serve.conftest import client_of
from tests.serve.test_pages import ask

FAILING_SQL = "SELECT oid, nonexistent FROM object LIMIT 2"


@pytest.fixture(scope="module")
def client(tap_url):  # noqa: F811 - the fixture
    program, engine = ProgramSettings(uncompiled=True), EngineSettings(engine="tap", tap_url=tap_url)
    bench = open_workbench(
        "fake/scripted", ServeSettings(), program=program, engine=engine, lm=scripted_lm(FAILING_SQL)
    )
    try:
        with client_of(bench) as test_client:
            yield test_client
    finally:
        bench.close()


def test_pasted_q3c_adql_runs_and_says_what_was_changed(client):
    pasted = "select oid, count(*) from object where q3c_radial_query(meanra, meandec, 150, 2, 180) group by oid"
    page = client.post("/adql", data={"adql": pasted}).text
    assert "ADQL written by hand" in page and 'id="answer-notice"' in page
    assert "Changed before sending: q3c_radial_query written as ADQL geometry" in page
    sent = re.search(r'name="adql" rows="5">([^<]*)<', page).group(1)
    assert "CONTAINS(POINT(&#39;ICRS&#39;, meanra, meandec)" in sent and "FROM ztf.object AS object" in sent
    assert "<th" in page and 'class="sort">count</button>' in page  # named, not a random word
    history = client.get("/history").text
    listed = r"SELECT oid, COUNT\(\*\) AS &#34;count&#34; FROM ztf.object[^<]*"
    assert re.search(rf'<a href="/answers/[^"]+">{listed}</a>\s*<span class="meta">ADQL', history)


def test_a_failed_adql_run_shows_the_adql_and_a_hint(client):
    page = client.post("/adql", data={"adql": "SELECT TOP 1 value FROM ztf.feature"}).text
    assert 'id="answer-error"' in page and "Hint: a reserved word used as a name must be quoted" in page
    assert 'name="adql" rows="5">SELECT TOP 1 value FROM ztf.feature<' in page


def test_failed_sql_on_tap_shows_the_adql_that_was_sent(client):
    page = client.post("/sql", data={"sql": FAILING_SQL}).text
    assert 'id="answer-error"' in page and "Hint: check the column names in tap_schema.columns" in page
    assert 'name="adql" rows="5">SELECT TOP 2 object.oid, nonexistent FROM ztf.object AS object<' in page


def test_a_failed_answer_keeps_its_adql(client):
    answer_id = ask(client)[-1]["answer_id"]
    page = client.get(f"/answers/{answer_id}").text
    assert 'id="answer-error"' in page
    assert 'name="adql" rows="5">SELECT TOP 2 object.oid, nonexistent FROM ztf.object AS object<' in page
