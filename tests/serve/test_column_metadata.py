"""Units, UCDs and descriptions reach every output of a `SELECT alias.*` answer: JSON, VOTable, Parquet, the page."""

import io

import pyarrow.parquet as pq
from astropy.io.votable import parse

from catalog import load_catalog

SQL = "SELECT o.*, o.meanra + 0 AS shifted FROM object o ORDER BY o.oid LIMIT 5"
OBJECT = load_catalog().table("object")


def _run(client):
    response = client.post("/api/run-sql", json={"sql": SQL})
    assert response.status_code == 200, response.text
    return response.json()


def test_api_fields_describe_each_column_and_say_none_for_computed(client):
    body = _run(client)
    fields = {field["name"]: field for field in body["fields"]}
    assert body["columns"] == [*OBJECT.column_names, "shifted"]
    assert fields["meanra"] == {
        "name": "meanra",
        "datatype": "double precision",
        "unit": "deg",
        "ucd": "pos.eq.ra;meta.main",
        "description": OBJECT.column("meanra").description,
    }
    assert fields["firstmjd"]["ucd"] == "time.epoch" and fields["firstmjd"]["unit"] == "d"
    assert fields["shifted"] == {"name": "shifted", "datatype": None, "unit": None, "ucd": None, "description": None}


def test_votable_fields_carry_ucds_and_point_at_coosys_and_timesys(client):
    answer_id = _run(client)["id"]
    document = parse(io.BytesIO(client.get(f"/answers/{answer_id}/download/votable").content))
    fields = {field.name: field for field in document.get_first_table().fields}
    assert fields["meanra"].ucd == "pos.eq.ra;meta.main" and fields["meandec"].ucd == "pos.eq.dec;meta.main"
    assert fields["meanra"].unit == "deg" and fields["meanra"].ref == "icrs"
    (coosys,) = document.resources[0].coordinate_systems
    assert coosys.ID == "icrs" and coosys.system == "ICRS"
    (timesys,) = document.resources[0].time_systems
    assert fields["firstmjd"].ref == timesys.ID and timesys.timeorigin == "MJD-origin"
    assert fields["shifted"].ucd is None and fields["shifted"].unit is None


def test_parquet_schema_metadata_has_unit_ucd_and_description(client):
    answer_id = _run(client)["id"]
    schema = pq.read_table(io.BytesIO(client.get(f"/answers/{answer_id}/download/parquet").content)).schema
    meta = schema.field("meanra").metadata
    assert meta[b"unit"] == b"deg" and meta[b"ucd"] == b"pos.eq.ra;meta.main" and meta[b"description"]
    assert schema.field("shifted").metadata is None


def test_page_headers_show_units_and_ucds(client):
    answer_id = _run(client)["id"]
    html = client.get(f"/answers/{answer_id}").text
    assert 'data-ucd="pos.eq.ra;meta.main"' in html and 'meanra</button> <span class="unit">[deg]</span>' in html
    assert '<th data-kind="number" title="computed: no unit or UCD\n' in html
