"""The answer page's result table: unit/UCD headers with summaries of every fetched row, RA/Dec formatted, object
ids linked to the object view (decided from the catalog's model), and the sort/filter script served."""

from __future__ import annotations

import html.parser

import pandas as pd

from answering.formats import sexagesimal
from catalog import load_catalog
from catalog.object_ids import object_id_columns
from serve.result_table import summary


class _Table(html.parser.HTMLParser):
    """The `table#rows` of a page: its header cells' attributes and each body cell's attributes, text and link."""

    def __init__(self) -> None:
        super().__init__()
        self.headers: list[dict[str, str]] = []
        self.rows: list[list[dict[str, str]]] = []
        self._inside = self._body = False
        self._cell: dict[str, str] | None = None

    def handle_starttag(self, tag, attrs):
        attributes = {key: value or "" for key, value in attrs}
        if tag == "table" and attributes.get("id") == "rows":
            self._inside = True
        elif self._inside and tag == "th":
            self.headers.append(attributes)
        elif self._inside and tag == "tbody":
            self._body = True
        elif self._body and tag == "tr":
            self.rows.append([])
        elif self._body and tag == "td":
            self._cell = attributes | {"text": ""}
            self.rows[-1].append(self._cell)
        elif self._cell is not None and tag == "a":
            self._cell["href"] = attributes["href"]

    def handle_endtag(self, tag):
        if tag == "table":
            self._inside = self._body = False
        elif tag == "td":
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


def _page_table(client, sql: str) -> tuple[_Table, pd.DataFrame, str]:
    response = client.post("/api/run-sql", json={"sql": sql})
    assert response.status_code == 200, response.text
    body = response.json()
    page = client.get(f"/answers/{body['id']}")
    parsed = _Table()
    parsed.feed(page.text)
    return parsed, pd.DataFrame(body["rows"], columns=body["columns"]), page.text


def test_headers_carry_unit_ucd_and_a_summary_of_every_fetched_row(client, bench):
    sql = "SELECT oid, meanra, meandec, ndet, corrected, meanra + 0 AS shifted FROM object ORDER BY oid LIMIT 120"
    table, _, text = _page_table(client, sql)
    frame = bench.record(_last_answer_id(text)).answer.frame
    by_name = {header["title"].split("\n")[0]: header for header in table.headers}
    meanra = next(h for h in table.headers if h.get("data-ucd") == "pos.eq.ra;meta.main")
    assert meanra["data-kind"] == "number"
    assert f"min {frame['meanra'].min():.6g} · max {frame['meanra'].max():.6g}" in meanra["title"]
    assert "of 120 rows" in meanra["title"]  # the whole result, not the 50 rows of the first page
    oid = table.headers[0]
    assert oid["data-kind"] == "text" and f"{frame['oid'].nunique()} distinct" in oid["title"]
    assert any(title.startswith("computed: no unit or UCD") for title in by_name)
    assert '<span class="unit">[deg]</span>' in text and '<span class="ucd">pos.eq.ra;meta.main</span>' in text
    assert len(table.rows) == 50


def test_ra_and_dec_show_degrees_with_sexagesimal_on_hover(client):
    table, frame, _ = _page_table(client, "SELECT oid, meanra, meandec FROM object ORDER BY oid LIMIT 3")
    for row, (_, ra, dec) in zip(table.rows, frame.itertuples(index=False), strict=True):
        ra_cell, dec_cell = row[1], row[2]
        hms, dms = sexagesimal(ra, dec).split()
        assert ra_cell["text"] == f"{ra:.6f}" and ra_cell["title"].startswith(hms)
        assert dec_cell["text"] == f"{dec:.6f}" and dec_cell["title"].startswith(dms)
        assert float(ra_cell["data-value"]) == ra


def test_object_ids_link_to_the_object_view_whatever_they_are_called(client):
    sql = "SELECT d.oid AS source, count(*) AS n, min(d.candid) AS first FROM detection d GROUP BY d.oid LIMIT 5"
    table, frame, _ = _page_table(client, sql)
    assert [row[0]["href"] for row in table.rows] == [f"/objects/ztf/{oid}" for oid in frame["source"]]
    assert not any("href" in cell for row in table.rows for cell in row[1:])  # a count and a candid are no objects


def test_a_text_column_that_merely_looks_like_an_id_is_not_linked(client):
    table, _, _ = _page_table(client, "SELECT oid_catalog AS oid FROM allwise LIMIT 3")
    assert table.rows and not any("href" in cell for row in table.rows for cell in row)


def test_the_page_serves_the_sort_and_filter_script(client):
    _, _, text = _page_table(client, "SELECT oid FROM object LIMIT 1")
    assert '<script src="/static/result_table.js"></script>' in text
    script = client.get("/static/result_table.js")
    assert script.status_code == 200 and "applyFilters" in script.text


def test_object_id_columns_come_from_keys_foreign_keys_and_the_catalog_file():
    ztf = load_catalog("ztf")
    ids = object_id_columns("ztf")
    assert ztf.table("object").column("oid") in ids and ztf.table("detection").column("oid") in ids
    assert ztf.table("detection").column("candid") not in ids
    assert ztf.table("xmatch").column("oid_catalog") not in ids
    multisurvey = load_catalog("multisurvey")
    ms_ids = object_id_columns("multisurvey")
    assert multisurvey.table("lsst_ss_detection").column("ssobjectid") in ms_ids
    assert multisurvey.table("object").column("sid") not in ms_ids


def test_summaries_of_numbers_and_text():
    assert summary(pd.Series([2, 7, None]), "number") == "min 2 · max 7 · 1 null of 3 rows"
    assert summary(pd.Series([None, None]), "number") == "2 nulls of 2 rows"
    assert summary(pd.Series(["x", None, "y", "x"]), "text") == "2 distinct · 1 null of 4 rows"


def _last_answer_id(page: str) -> str:
    marker = 'data-answer-id="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]
