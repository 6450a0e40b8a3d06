"""The SQL and ADQL boxes of the home page on PostgreSQL: before any question, listed in the history with their text."""

import re

from tests.serve.test_pages import ask


def test_the_home_page_has_both_boxes_before_any_question(client):
    page = client.get("/").text
    assert 'id="home-sql-form"' in page and 'action="/sql"' in page
    assert 'id="home-adql-form"' in page and 'action="/adql"' in page
    assert "needs the workbench started with --engine tap" in page  # this workbench runs on PostgreSQL


def test_sql_from_the_home_page_runs_and_is_listed_with_its_text(client):
    sql = "SELECT oid, ndet FROM object ORDER BY oid LIMIT 4"
    response = client.post("/sql", data={"sql": sql}, follow_redirects=False)
    assert response.status_code == 303
    page = client.get(response.headers["location"]).text
    assert "4 rows" in page and "SQL written by hand" in page
    history = client.get("/history").text
    link = re.search(r'<a href="(/answers/[^"]+)">([^<]*)</a>\s*<span class="meta">SQL</span>', history)
    assert link is not None and link.group(2) == sql
    assert client.get(link.group(1)).status_code == 200


def test_top_in_the_sql_box_points_to_the_adql_box(client):
    response = client.post("/sql", data={"sql": "SELECT TOP 3 oid FROM object"})
    assert "TOP is ADQL: run this in the ADQL box, or write LIMIT 3 at the end for PostgreSQL" in response.text


def test_adql_on_postgres_says_what_to_start_and_keeps_the_boxes(client):
    response = client.post("/adql", data={"adql": "SELECT TOP 3 oid FROM ztf.object"})
    assert response.status_code == 400
    assert "ADQL runs on a TAP service only; start the workbench with --engine tap" in response.text
    assert 'id="home-adql-form"' in response.text


def test_an_empty_box_gets_one_line(client):
    response = client.post("/sql", data={"sql": "  "})
    assert "the SQL box is empty; write one SELECT statement" in response.text


def test_an_answer_page_has_no_home_boxes(client):
    answer_id = ask(client)[-1]["answer_id"]
    assert 'id="home-sql-form"' not in client.get(f"/answers/{answer_id}").text
