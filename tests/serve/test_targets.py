"""Target lists through the workbench: the page's forms (multipart), the HTTP API and the MCP tools."""

import html
import json

import pytest

import answering
from engines import EngineSettings
from lms.fake import EXPLANATION, fake_lm, render_answer
from tests.serve.conftest import client_of, open_bench
from tests.serve.test_browser import page  # noqa: F401 - the headless Chromium fixture
from tests.serve.test_mcp import call, server

LISTED_SQL = "SELECT m.objectid, o.ndet FROM mylist m JOIN object o ON o.oid = m.objectid ORDER BY m.objectid"


@pytest.fixture(scope="module")
def oids(tiny_dsn):
    answer = answering.run_sql("SELECT oid FROM object ORDER BY oid LIMIT 2", engine=EngineSettings(dsn=tiny_dsn))
    return list(answer.frame["oid"])


@pytest.fixture
def listed_client(tiny_dsn):
    """A workbench whose model links mylist and writes LISTED_SQL; the schema texts it saw are kept."""
    seen = []

    def answer(call):
        if call.stage == "direct":
            seen.append(call.inputs["schema_text"])
        fields = {
            "tables": {"tables": ["object", "mylist"]},
            "columns": {"columns": {"object": ["oid", "ndet"], "mylist": ["objectid"]}},
            "difficulty": {"difficulty": "simple"},
            "explanation": EXPLANATION,
        }
        return render_answer(fields.get(call.stage, {"sql": LISTED_SQL}))

    bench = open_bench(tiny_dsn, fake_lm(answer))
    with client_of(bench) as client:
        client.seen = seen
        yield client
    bench.close()


def test_the_sql_box_takes_a_target_list_file(listed_client, oids):
    files = {"targets": ("ids.csv", f"oid\n{oids[1]}\nZTF00nothere\n".encode(), "text/csv")}
    response = listed_client.post("/sql", data={"sql": LISTED_SQL}, files=files, follow_redirects=False)
    assert response.status_code == 303
    answer_url = response.headers["location"]
    shown = listed_client.get(answer_url).text
    assert "1 row" in shown and oids[1] in shown and "With the target list mylist (2 rows)." in shown
    assert 'id="rerun-targets"' in shown, "the SQL names mylist: its box takes the list again"
    files = {"targets": ("ids.csv", f"objectid\n{oids[0]}\n".encode(), "text/csv")}
    rerun = listed_client.post(f"{answer_url}/rerun", data={"sql": LISTED_SQL}, files=files, follow_redirects=False)
    assert rerun.status_code == 303 and oids[0] in listed_client.get(rerun.headers["location"]).text
    kept = listed_client.post(f"{answer_url}/rerun", data={"sql": LISTED_SQL}, follow_redirects=False)
    again = html.unescape(listed_client.get(kept.headers["location"]).text)
    assert oids[1] in again and "With the target list mylist (2 rows)." in again, "without a file: the answer's list"


def test_a_bad_file_in_the_sql_box_is_one_line_400(listed_client):
    files = {"targets": ("picture.png", b"\x89PNG\r\n\x1a\n\x00\x00", "image/png")}
    response = listed_client.post("/sql", data={"sql": LISTED_SQL}, files=files)
    assert response.status_code == 400
    assert "the target list is neither CSV nor VOTable (it is not text)" in response.text
    assert 'id="home-sql-form"' in response.text


def test_the_ask_form_sends_the_list_to_the_stages(listed_client, oids):
    files = {"targets": ("ids.csv", f"objectid\n{oids[0]}\n".encode(), "text/csv")}
    started = listed_client.post("/jobs", data={"question": "How many detections do my targets have?"}, files=files)
    assert started.status_code == 200
    with listed_client.stream("GET", f"/jobs/{started.json()['job_id']}/events") as stream:
        events = [json.loads(line[6:]) for line in stream.iter_lines() if line.startswith("data: ")]
    done = events[-1]
    assert done["type"] == "done" and done["error"] is None
    assert "mylist" in listed_client.seen[-1] and "objectid" in listed_client.seen[-1]
    shown = listed_client.get(f"/answers/{done['answer_id']}").text
    assert oids[0] in shown and oids[1] not in shown
    bad = listed_client.post("/jobs", data={"question": "q"}, files={"targets": ("t.csv", b"mag\n1\n", "text/csv")})
    assert bad.status_code == 400 and "no position columns (ra, dec) and no object id column" in bad.json()["error"]


def test_the_api_takes_targets_as_text(listed_client, oids):
    body = {"sql": LISTED_SQL, "targets": f"objectid\n{oids[0]}\n{oids[1]}\n"}
    ran = listed_client.post("/api/run-sql", json=body).json()
    assert ran["rows"] == [[oids[0], ran["rows"][0][1]], [oids[1], ran["rows"][1][1]]]
    asked = listed_client.post("/api/ask", json={"question": "my targets?", "targets": f"objectid\n{oids[1]}\n"})
    assert asked.status_code == 200 and [row[0] for row in asked.json()["rows"]] == [oids[1]]
    bad = listed_client.post("/api/run-sql", json={"sql": LISTED_SQL, "targets": "ra,dec\nabc,1\n"})
    assert bad.status_code == 400 and bad.json() == {
        "error": "column ra of the target list holds 'abc', not a number in degrees",
        "kind": "bad_request",
        "sql": "",
    }


def test_mcp_run_sql_takes_targets(tiny_dsn, oids):
    crossmatch = (
        "SELECT m.name, o.oid FROM mylist m JOIN object o "
        "ON q3c_join(m.ra, m.dec, o.meanra, o.meandec, 1 / 3600.0) ORDER BY m.name"
    )
    position = answering.run_sql(
        f"SELECT meanra, meandec FROM object WHERE oid = '{oids[0]}'", engine=EngineSettings(dsn=tiny_dsn)
    ).frame.iloc[0]
    targets = f"name,ra,dec\nmine,{position.meanra},{position.meandec}\n"
    _, (ran, bad) = call(
        server("-m", "serve", "--mcp", "--dsn", tiny_dsn, "-q"),
        ("run_sql", {"sql": crossmatch, "targets": targets}),
        ("run_sql", {"sql": crossmatch, "targets": "<?xml version='1.0'?><VOTABLE>"}),
    )
    assert not ran.is_error and ran.structured_content["rows"] == [["mine", oids[0]]]
    assert bad.is_error and "the target list is not a readable VOTable: " in bad.content[0].text


def test_the_shared_workbench_runs_sql_and_answers_questions_about_a_list(tiny_dsn, scratch_database, tmp_path, oids):
    """As ``python -m serve`` runs by default: the web process queues the question with its list, a worker answers."""
    from tests.answering.scripts import scripted_lm
    from tests.serve.state_benches import open_shared, working

    bench = open_shared(tiny_dsn, scratch_database, tmp_path / "session.key", lm=scripted_lm(LISTED_SQL))
    try:
        ran = bench.run_sql(LISTED_SQL, targets=f"objectid\n{oids[0]}\n")
        assert ran.answer.frame["objectid"].tolist() == [oids[0]]
        kept = bench.record(ran.id).answer
        assert kept.frame["objectid"].tolist() == [oids[0]] and kept.notice == "With the target list mylist (1 row)."
        job = bench.start_ask("which of my targets?", targets=f"objectid\n{oids[1]}\n")
        with working(bench):
            assert job.wait(60)
        assert job.error is None
        assert bench.record(job.answer_id).answer.frame["objectid"].tolist() == [oids[1]]
    finally:
        bench.close()


def test_a_browser_asks_about_an_uploaded_list(tiny_dsn, oids, tmp_path, page):  # noqa: F811 - the fixture
    """The ask form's script sends the chosen file (multipart) and the answer is about the list."""
    from tests.serve.conftest import serving

    seen = []

    def answer(call):
        if call.stage == "direct":
            seen.append(call.inputs["schema_text"])
        fields = {"tables": {"tables": ["object", "mylist"]}, "difficulty": {"difficulty": "simple"}}
        return render_answer((fields | {"explanation": EXPLANATION}).get(call.stage, {"sql": LISTED_SQL}))

    listed = tmp_path / "ids.csv"
    listed.write_text(f"objectid\n{oids[1]}\n")
    bench = open_bench(tiny_dsn, fake_lm(answer))
    try:
        with serving(bench) as url:
            page.goto(url)
            page.fill("#question", "How many detections do my targets have?")
            page.set_input_files("#targets", str(listed))
            page.click("#ask-button")
            page.wait_for_selector("#answer")
            assert page.inner_text("#row-count").startswith("1 row") and oids[1] in page.inner_text("#rows")
    finally:
        bench.close()
    assert seen and "mylist" in seen[-1]
