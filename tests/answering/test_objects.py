"""The object view (``answering.object``) on both catalogs of the embedded database."""

import matplotlib
import numpy as np
import pytest

import answering
from answering.formats import sexagesimal
from answering.objects import fetch_object
from catalog.ztf_names import ztf_name_of, ztf_oid_of
from engines import EngineSettings
from engines.postgres import PostgresEngine, PostgresSettings

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def ztf(tiny_dsn):
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, catalog="ztf", timeout_s=30)) as opened:
        yield opened


@pytest.fixture(scope="module")
def multisurvey(multisurvey_dsn):
    with PostgresEngine(PostgresSettings(dsn=multisurvey_dsn, catalog="multisurvey", timeout_s=30)) as opened:
        yield opened


def _first(engine, sql):
    return engine.execute(sql).frame.iloc[0, 0]


def test_a_ztf_view_counts_what_the_tables_hold(ztf, tiny_dsn):
    oid = _first(ztf, "SELECT oid FROM detection GROUP BY oid ORDER BY count(*) DESC, oid LIMIT 1")
    view = answering.object("ztf", oid, engine=EngineSettings(dsn=tiny_dsn, catalog="ztf"))
    counts = view.points["kind"].value_counts().to_dict()
    for kind, table in (
        ("detection", "detection"),
        ("non-detection", "non_detection"),
        ("forced", "forced_photometry"),
    ):
        expected = _first(ztf, f"SELECT count(*) FROM {table} WHERE oid = '{oid}'")
        assert counts.get(kind, 0) == expected
    assert view.n_det == _first(ztf, f"SELECT ndet FROM object WHERE oid = '{oid}'")
    assert view.position == sexagesimal(view.ra, view.dec)
    assert view.links["ALeRCE explorer"].endswith(f"/object/{oid}")
    assert view.points["mjd"].is_monotonic_increasing


def test_ztf_fluxes_follow_the_sign_of_the_difference(ztf):
    oid = _first(ztf, "SELECT oid FROM detection WHERE isdiffpos < 0 GROUP BY oid ORDER BY oid LIMIT 1")
    view = fetch_object(ztf, oid)
    seen = view.points[view.points["kind"] == "detection"]
    negative = _first(ztf, f"SELECT count(*) FROM detection WHERE oid = '{oid}' AND isdiffpos < 0")
    assert (seen["flux"] < 0).sum() == negative
    assert np.allclose(seen["mag"], 31.4 - 2.5 * np.log10(seen["flux"].abs()))


def test_every_classifier_and_version_is_listed_and_ranked(ztf):
    oid = _first(
        ztf, "SELECT oid FROM probability GROUP BY oid ORDER BY count(DISTINCT classifier_name) DESC, oid LIMIT 1"
    )
    view = fetch_object(ztf, oid)
    groups = view.to_dict()["classifications"]
    expected = ztf.execute(
        f"SELECT DISTINCT classifier_name, classifier_version FROM probability WHERE oid = '{oid}'"
    ).frame
    assert {(group["classifier"], group["version"]) for group in groups} == set(expected.itertuples(index=False))
    for group in groups:
        assert [item["ranking"] for item in group["classes"]] == sorted(item["ranking"] for item in group["classes"])


def test_a_ztf_name_on_the_multisurvey_catalog_opens_its_integer_oid(multisurvey):
    oid = int(_first(multisurvey, "SELECT oid FROM object WHERE sid = 0 ORDER BY oid LIMIT 1"))
    view = fetch_object(multisurvey, ztf_name_of(oid))
    assert (view.oid, view.sid, view.name) == (str(oid), 0, ztf_name_of(oid))
    assert ztf_oid_of(view.name) == oid
    assert any("ztf catalog" in note for note in view.notes)  # no magnitudes here, and it says so
    assert view.points["flux"].isna().all() and len(view.points) == view.n_det


def test_a_solar_system_object_has_its_orbit_and_track(multisurvey):
    oid = _first(multisurvey, "SELECT ssobjectid FROM lsst_mpc_orbits ORDER BY ssobjectid LIMIT 1")
    view = fetch_object(multisurvey, oid)
    designation = _first(multisurvey, f"SELECT designation FROM lsst_mpc_orbits WHERE ssobjectid = {oid}")
    assert view.sid == 2 and view.orbit["designation"] == designation
    assert len(view.track) == view.to_dict()["n_points"] > 0
    assert "JPL small-body database" in view.links


def test_negative_lsst_fluxes_are_kept_with_a_magnitude_limit(multisurvey):
    oid = _first(
        multisurvey,
        "SELECT oid FROM lsst_forced_photometry WHERE sid = 1 AND psfflux < 0 GROUP BY oid ORDER BY oid LIMIT 1",
    )
    view = fetch_object(multisurvey, oid, sid=1)
    negative = view.points[view.points["flux"] <= 0]
    assert len(negative) and negative["mag"].isna().all() and negative["limit_mag"].notna().all()


@pytest.mark.parametrize(
    ("catalog", "oid", "message"),
    [
        ("ztf", "ZTF'; DROP", "is not a ZTF object id"),
        ("ztf", "ZTF99zzzzzzz", "no object"),
        ("multisurvey", "3.5e2", "is not a multisurvey oid"),
    ],
)
def test_bad_ids_get_one_line(ztf, multisurvey, catalog, oid, message):
    engine = ztf if catalog == "ztf" else multisurvey
    with pytest.raises(answering.AnsweringError, match=message):
        fetch_object(engine, oid)


def test_the_notebook_view_shows_the_summary_and_the_light_curve(ztf):
    oid = _first(ztf, "SELECT oid FROM object ORDER BY ndet DESC, oid LIMIT 1")
    shown = fetch_object(ztf, oid)._repr_html_()
    assert oid in shown and "data:image/png;base64," in shown and "MJD" in shown


def test_ztfs_no_match_markers_are_no_matches(ztf):
    oid = _first(ztf, "SELECT oid FROM ss_ztf WHERE ssnamenr = 'null' ORDER BY oid LIMIT 1")
    view = fetch_object(ztf, oid)
    assert not any(note.startswith("known solar-system object") for note in view.notes)
    assert "MPC (ss_ztf)" not in [match["catalog"] for match in view.crossmatches]
    assert all(match["separation_arcsec"] is None or match["separation_arcsec"] >= 0 for match in view.crossmatches)
