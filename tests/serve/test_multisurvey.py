"""The workbench, API and MCP on the multi-survey catalog: it says which catalog it serves, and draws LSST curves."""

import io

from astropy.table import Table

from tests.serve.conftest import client_of, make_bench
from tests.serve.test_mcp import call, server
from tests.serve.test_pages import PNG_MAGIC, ask

LSST_SQL = "SELECT oid, sid, meanra, meandec, n_det FROM object WHERE sid IN (1, 2) ORDER BY n_det DESC, oid LIMIT 40"


def test_the_workbench_serves_the_multisurvey_catalog(multisurvey_dsn):
    bench = make_bench(multisurvey_dsn, LSST_SQL, catalog="multisurvey")
    try:
        with client_of(bench) as client:
            assert client.get("/api/health").json()["catalog"] == "multisurvey"
            assert 'catalog <b id="catalog">multisurvey</b>' in client.get("/").text
            answer_id = ask(client, "The most detected LSST objects")[-1]["answer_id"]
            assert client.get(f"/answers/{answer_id}/sky.png").content.startswith(PNG_MAGIC)
            frame = bench.record(answer_id).answer.frame
            for sid in (1, 2):
                oid = frame[frame["sid"] == sid]["oid"].iloc[0]
                curve = client.get(f"/answers/{answer_id}/lightcurve.png", params={"oid": str(oid)})
                assert curve.content.startswith(PNG_MAGIC), curve.text
            ran = client.post(
                "/api/run-sql", json={"sql": "SELECT oid, sid, psfflux FROM lsst_detection ORDER BY oid LIMIT 5"}
            ).json()
            votable = client.get(ran["downloads"]["votable"]).content
    finally:
        bench.close()
    assert str(Table.read(io.BytesIO(votable), format="votable")["psfflux"].unit) == "nJy"


def test_mcp_describes_the_multisurvey_schema(multisurvey_dsn):
    _, (schema, ran) = call(
        server("-m", "serve", "--mcp", "--catalog", "multisurvey", "--dsn", multisurvey_dsn, "-q"),
        ("describe_schema", {"tables": ["lsst_detection"]}),
        ("run_sql", {"sql": "SELECT band_name FROM band WHERE sid = 1 ORDER BY band_order"}),
    )
    assert schema.content[0].text.startswith("table lsst_detection (key (oid, sid, measurement_id)")
    assert [row[0] for row in ran.structured_content["rows"]] == ["u", "g", "r", "i", "z", "y"]
