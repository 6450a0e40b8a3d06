"""The page: a question streams its stages, the answer shows SQL, pages of rows, downloads and plots."""

import dataclasses
import io
import json

import pandas as pd
import pyarrow.parquet as pq
from astropy.table import Table

from answering import load
from engines.postgres import PostgresEngine, PostgresSettings
from modules.settings import ProgramSettings
from serve import ServeSettings, Workbench
from serve.gate import gated
from tests.answering.scripts import scripted_lm
from tests.serve.conftest import POSITIONS_SQL, client_of

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def ask(client, question="Where are the objects?"):
    started = client.post("/jobs", data={"question": question})
    assert started.status_code == 200
    with client.stream("GET", f"/jobs/{started.json()['job_id']}/events") as stream:
        events = [json.loads(line[len("data: ") :]) for line in stream.iter_lines() if line.startswith("data: ")]
    return events


def test_a_question_streams_each_stage_then_its_answer(client):
    events = ask(client)
    stages = [(e["stage"], e["status"]) for e in events if e["type"] == "stage"]
    assert stages == [
        ("dates", "running"),
        ("dates", "done"),
        ("schema_linking", "running"),
        ("schema_linking", "done"),
        ("classification", "running"),
        ("classification", "done"),
        ("generation", "running"),
        ("generation", "done"),
        ("execution", "done"),
        ("explanation", "running"),
        ("explanation", "done"),
    ]
    assert events[0] == {"type": "started"} and events[-1]["type"] == "done" and events[-1]["error"] is None
    generation = next(e for e in events if e.get("stage") == "generation" and e["status"] == "done")
    assert generation["detail"] == f"sql: {POSITIONS_SQL}"


def test_the_checks_stream_as_stages_of_their_own(client):
    # "How many" answered with rows: the result check's count_as_rows finding asks for one revision.
    stages = [(e["stage"], e["status"]) for e in ask(client, "How many objects are there?") if e["type"] == "stage"]
    assert stages[-4:-2] == [("result_check", "running"), ("result_check", "done")]


def test_the_answer_page_shows_sql_rows_pages_and_plots(client):
    answer_id = ask(client)[-1]["answer_id"]
    html = client.get(f"/answers/{answer_id}").text
    assert f'<textarea class="sql" id="sql" name="sql" rows="7">{POSITIONS_SQL}</textarea>' in html
    assert "120 rows" in html and "page 1 of 3" in html and html.count("<tr>") == 51
    assert 'id="sky"' in html and 'id="sky-png"' in html and 'id="lightcurve-form"' in html
    assert "model fake/scripted · engine postgres" in html and "input +" in html
    assert "Where are the objects?" in client.get("/").text  # the session's history
    last = client.get(f"/answers/{answer_id}?page=3").text
    assert "page 3 of 3" in last and last.count("<tr>") == 21


def test_downloads_read_back_with_every_row(client):
    answer_id = ask(client)[-1]["answer_id"]
    csv = client.get(f"/answers/{answer_id}/download/csv")
    assert csv.headers["content-type"].startswith("text/csv")
    assert list(pd.read_csv(io.StringIO(csv.text)).columns) == ["oid", "meanra", "meandec", "ndet"]
    assert len(pd.read_csv(io.StringIO(csv.text))) == 120
    votable = Table.read(io.BytesIO(client.get(f"/answers/{answer_id}/download/votable").content), format="votable")
    assert len(votable) == 120 and str(votable["meanra"].unit) == "deg"
    parquet = pq.read_table(io.BytesIO(client.get(f"/answers/{answer_id}/download/parquet").content))
    assert parquet.num_rows == 120 and parquet.column_names == ["oid", "meanra", "meandec", "ndet"]


def test_unknown_download_is_a_message(client):
    answer_id = ask(client)[-1]["answer_id"]
    refused = client.get(f"/answers/{answer_id}/download/xlsx")
    assert refused.status_code == 400
    assert "no xlsx download here; choose csv, votable, parquet" in refused.text


def test_sky_and_light_curve_are_png(client):
    answer_id = ask(client)[-1]["answer_id"]
    assert client.get(f"/answers/{answer_id}/sky.png").content.startswith(PNG_MAGIC)
    oid = pd.read_csv(io.StringIO(client.get(f"/answers/{answer_id}/download/csv").text))["oid"][0]
    page = client.get(f"/answers/{answer_id}", params={"oid": oid}).text
    assert f'src="/answers/{answer_id}/lightcurve.png?oid={oid}"' in page
    assert client.get(f"/answers/{answer_id}/lightcurve.png", params={"oid": oid}).content.startswith(PNG_MAGIC)
    refused = client.get(f"/answers/{answer_id}/lightcurve.png", params={"oid": "x' OR '1'='1"})
    assert refused.status_code == 400 and "is not an object id" in refused.text


def test_the_sky_data_holds_the_positions_and_the_cone_of_the_sql(client):
    answer_id = ask(client)[-1]["answer_id"]
    sky = client.get(f"/answers/{answer_id}/sky.json").json()
    assert sky["total"] == 120 and len(sky["positions"]["ra"]) == 120 and sky["cones"] == []
    assert sky["positions"]["label"][0].startswith("ZTF") and sky["hips_url"] == "" and sky["fov_deg"] > 0
    cone = "SELECT oid FROM object WHERE q3c_radial_query(meanra, meandec, 10.5, -20.25, 2.0 / 60)"
    rerun = client.post(f"/answers/{answer_id}/rerun", data={"sql": cone, "question": "q"}, follow_redirects=False)
    page = client.get(rerun.headers["location"]).text
    assert 'id="sky"' in page and 'id="sky-png"' not in page  # a cone without positions: the cone alone
    sky = client.get(rerun.headers["location"].split("?")[0] + "/sky.json").json()
    assert sky["total"] == 0 and sky["cones"] == [{"ra": 10.5, "dec": -20.25, "radius_deg": 2.0 / 60}]
    assert sky["centre"] == {"ra": 10.5, "dec": -20.25} and sky["projection"] == "TAN"


def test_edited_sql_runs_again_and_joins_the_history(client):
    answer_id = ask(client)[-1]["answer_id"]
    edited = "SELECT oid, ndet FROM object ORDER BY ndet DESC, oid LIMIT 3"
    rerun = client.post(f"/answers/{answer_id}/rerun", data={"sql": edited, "question": "q"}, follow_redirects=False)
    assert rerun.status_code == 303
    page = client.get(rerun.headers["location"]).text
    assert "3 rows" in page and "SQL written by hand" in page and 'id="sky"' not in page
    assert page.count('<li class="thread"><a href="/answers/') == 2
    no_sky = client.get(rerun.headers["location"].split("?")[0] + "/sky.png")
    assert no_sky.status_code == 400 and "Traceback" not in no_sky.text  # no coordinates: a message, not a 500


def test_adql_runs_on_a_tap_engine_only(client):
    answer_id = ask(client)[-1]["answer_id"]
    refused = client.post(f"/answers/{answer_id}/rerun-adql", data={"adql": "SELECT TOP 1 oid FROM ztf.object"})
    assert refused.status_code == 400 and "ADQL runs on a TAP service only" in refused.text


def test_the_sql_box_goes_through_the_guard(client):
    answer_id = ask(client)[-1]["answer_id"]
    rerun = client.post(f"/answers/{answer_id}/rerun", data={"sql": "DELETE FROM object"})
    page = client.get(rerun.url).text if rerun.history else rerun.text
    assert "Only one SELECT or WITH statement is allowed, got DELETE. [refused]" in page and "Traceback" not in page
    empty = client.post(f"/answers/{answer_id}/rerun", data={"sql": "  "})
    assert empty.status_code == 400 and "the SQL box is empty" in empty.text


def test_a_bad_question_is_a_message(client):
    refused = client.post("/jobs", data={"question": "x" * 5_000})
    assert refused.status_code == 400
    assert refused.json() == {
        "error": "the question is 5,000 characters long; the limit is 2,000. Shorten it to the part that matters.",
        "kind": "bad_request",
        "sql": "",
    }
    assert client.post("/jobs", data={"question": ""}).json()["error"].startswith("the question is empty")


def test_a_missing_answer_is_a_message(client):
    missing = client.get("/answers/nothing-here")
    assert missing.status_code == 400 and "no answer &#x27;nothing-here&#x27; here" in missing.text


def test_a_result_the_engine_cut_says_so(tiny_dsn):
    t2s = load(
        "fake/scripted",
        program=ProgramSettings(uncompiled=True),
        engine=gated(PostgresEngine(PostgresSettings(dsn=tiny_dsn, max_rows=40)), wait_s=5),
        lm=scripted_lm(POSITIONS_SQL),
    )
    bench = Workbench(t2s, ServeSettings(), model="fake/scripted")
    try:
        with client_of(bench) as client:
            page = client.get(f"/answers/{ask(client)[-1]['answer_id']}").text
            api = client.post("/api/ask", json={"question": "Where?"}).json()
    finally:
        bench.close()
    assert "40 rows" in page and "(truncated: the query had more rows; only the first 40 were fetched)" in page
    assert api["truncated"] is True and api["row_count"] == 40


def test_candidates_and_selection_stream_as_stages(bench, client):
    bench.t2s.program.settings = dataclasses.replace(bench.t2s.program.settings, candidates=2)
    stages = [(e["stage"], e["status"]) for e in ask(client) if e["type"] == "stage"]
    assert stages.count(("generation", "done")) == 2 and stages.count(("execution", "done")) == 2
    assert stages[-4:-2] == [("selection", "running"), ("selection", "done")]
