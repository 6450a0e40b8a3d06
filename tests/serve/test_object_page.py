"""The object page (``/objects/<catalog>/<oid>``) on both catalogs, its data for the plots, its errors, and the
plotting library served from the installed plotly wheel."""

import json
import re
from html import unescape

import pytest

from catalog.ztf_names import ztf_name_of
from serve.access import CONTENT_SECURITY_POLICY
from serve.objects import plotly_path
from tests.serve.conftest import client_of, make_bench
from tests.serve.test_mcp import call, server


@pytest.fixture(scope="module")
def ztf_client(tiny_dsn):
    bench = make_bench(tiny_dsn)
    try:
        with client_of(bench) as client:
            yield client
    finally:
        bench.close()


@pytest.fixture(scope="module")
def multisurvey_client(multisurvey_dsn):
    bench = make_bench(multisurvey_dsn, catalog="multisurvey")
    try:
        with client_of(bench) as client:
            yield client
    finally:
        bench.close()


def first(client, sql):
    ran = client.post("/api/run-sql", json={"sql": sql}).json()
    return ran["rows"][0][0]


def page_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="object-data">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def test_a_ztf_object_page_shows_its_summary_and_every_point(ztf_client):
    oid = first(ztf_client, "SELECT oid FROM object ORDER BY ndet DESC, oid LIMIT 1")
    counts = {
        kind: first(ztf_client, f"SELECT count(*) FROM {table} WHERE oid = '{oid}'")
        for kind, table in (
            ("detection", "detection"),
            ("non-detection", "non_detection"),
            ("forced", "forced_photometry"),
        )
    }
    page = ztf_client.get(f"/objects/ztf/{oid}")
    assert page.status_code == 200, page.text
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    html = page.text
    ra = first(ztf_client, f"SELECT meanra FROM object WHERE oid = '{oid}'")
    assert f"RA {ra:.6f}°" in html and re.search(r"\d\d:\d\d:\d\d\.\d\d [+-]\d\d:\d\d:\d\d\.\d", html)
    assert "UTC" in html and f"https://alerce.online/object/{oid}" in html
    for name in ("TNS", "SIMBAD", "NED"):
        assert f">{name}</a>" in html
    points = page_data(html)["points"]
    assert {kind: points["kind"].count(kind) for kind in counts} == counts
    assert '<script src="/vendor/plotly.min.js"></script>' in html and "cdn" not in html.lower()


def test_every_classifier_and_version_is_on_the_page(ztf_client):
    oid = first(
        ztf_client,
        "SELECT oid FROM probability GROUP BY oid ORDER BY count(DISTINCT classifier_name) DESC, oid LIMIT 1",
    )
    ran = ztf_client.post(
        "/api/run-sql",
        json={"sql": f"SELECT DISTINCT classifier_name, classifier_version FROM probability WHERE oid = '{oid}'"},
    ).json()
    html = ztf_client.get(f"/objects/ztf/{oid}").text
    groups = page_data(html)["classifications"]
    assert {(group["classifier"], group["version"]) for group in groups} == {tuple(row) for row in ran["rows"]}
    for name, version in ran["rows"]:
        assert f"<summary>{name} {version}</summary>" in html


def test_a_ztf_name_on_multisurvey_opens_its_integer_oid_with_a_message(multisurvey_client):
    oid = first(multisurvey_client, "SELECT oid FROM object WHERE sid = 0 ORDER BY oid LIMIT 1")
    page = multisurvey_client.get(f"/objects/multisurvey/{ztf_name_of(oid)}")
    assert page.status_code == 200 and str(page.url).endswith(f"/objects/multisurvey/{oid}")
    data = page_data(page.text)
    assert all(value is None for value in data["points"]["flux"])
    assert any("ztf catalog" in note for note in data["notes"])


def test_negative_lsst_fluxes_reach_the_page(multisurvey_client):
    oid = first(
        multisurvey_client,
        "SELECT oid FROM lsst_forced_photometry WHERE sid = 1 AND psfflux < 0 GROUP BY oid ORDER BY oid LIMIT 1",
    )
    points = page_data(multisurvey_client.get(f"/objects/multisurvey/{oid}?sid=1").text)["points"]
    negative = [i for i, flux in enumerate(points["flux"]) if flux is not None and flux <= 0]
    assert negative and all(points["mag"][i] is None and points["limit_mag"][i] is not None for i in negative)


def test_a_solar_system_object_shows_its_orbit_and_track(multisurvey_client):
    oid = first(multisurvey_client, "SELECT ssobjectid FROM lsst_mpc_orbits ORDER BY ssobjectid LIMIT 1")
    designation = first(multisurvey_client, f"SELECT designation FROM lsst_mpc_orbits WHERE ssobjectid = {oid}")
    html = multisurvey_client.get(f"/objects/multisurvey/{oid}").text
    assert 'id="orbit"' in html and f"<td>{designation}</td>" in html
    assert len(page_data(html)["track"]["mjd"]) > 0


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/objects/ztf/ZTF99zzzzzzz", "no object 'ZTF99zzzzzzz' in the ztf catalog"),
        ("/objects/ztf/ZTF'%3B%20DROP", "is not a ZTF object id"),
        ("/objects/gaia/ZTF20aaelulu", "no catalog 'gaia'; the catalogs are ztf, multisurvey"),
        ("/objects/multisurvey/ZTF20aaelulu", "this workbench serves catalog ztf, not multisurvey"),
    ],
)
def test_unknown_objects_and_catalogs_are_404_with_one_line(ztf_client, path, message):
    page = ztf_client.get(path)
    assert page.status_code == 404
    shown = re.search(r'<p class="error" role="alert">(.*)</p>', page.text).group(1)
    assert message in unescape(shown) and "\n" not in shown


def test_plotly_is_served_from_the_installed_wheel(ztf_client):
    served = ztf_client.get("/vendor/plotly.min.js")
    assert served.status_code == 200 and served.headers["content-type"].startswith("text/javascript")
    assert served.content == plotly_path().read_bytes() and b"plotly.js v" in served.content[:200]


def test_the_mcp_tool_object_summarizes_with_units(tiny_dsn):
    import psycopg

    with psycopg.connect(tiny_dsn) as connection:
        oid, ndet, ra = connection.execute(
            "SELECT oid, ndet, meanra FROM object ORDER BY ndet DESC, oid LIMIT 1"
        ).fetchone()
        detections = connection.execute("SELECT count(*) FROM detection WHERE oid = %s", (oid,)).fetchone()[0]
    _, (summary, missing) = call(
        server("-m", "serve", "--mcp", "--dsn", tiny_dsn, "-q"),
        ("object", {"oid": oid}),
        ("object", {"oid": "ZTF99zzzzzzz"}),
    )
    found = summary.structured_content
    assert (found["oid"], found["n_det"], found["ra_deg"]) == (oid, ndet, ra)
    assert found["units"]["ra_deg"] == "deg" and found["units"]["crossmatches.separation_arcsec"] == "arcsec"
    assert sum(item["count"] for item in found["points_per_band"] if item["kind"] == "detection") == detections
    assert "points" not in found and found["first_detection"]["utc"]
    assert missing.is_error and missing.content[0].text.endswith("no object 'ZTF99zzzzzzz' in the ztf catalog")
