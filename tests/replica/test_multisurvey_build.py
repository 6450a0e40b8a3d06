"""Invariants of the multi-survey replica at scale tiny: determinism, aggregates, probabilities, ids, lookups."""

import re

import psycopg
import pytest

from catalog import load_catalog
from catalog.ztf_names import ztf_name_of, ztf_oid_of
from replica.multisurvey.ids import pack_designation, ss_object_id, unpack_designation
from replica.multisurvey.scales import SCALES
from replica.multisurvey.sky import LSST_END_MJD, LSST_START_MJD

SCHEMA = load_catalog("multisurvey").schema


def _scalar(conn: psycopg.Connection, query: str):
    return conn.execute(query).fetchone()[0]


def _checksums(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        tables = [r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (SCHEMA,))]
        return {
            table: _scalar(conn, f"SELECT md5(string_agg(x::text, '|' ORDER BY x::text)) FROM {SCHEMA}.{table} x")
            for table in tables
        }


def test_same_seed_gives_same_rows(multisurvey_builds: dict) -> None:
    first, second = (_checksums(multisurvey_builds[name]["dsn"]) for name in ("ms_test_a", "ms_test_b"))
    assert first == second
    assert len(first) == 20


def test_another_seed_gives_other_objects(multisurvey_builds: dict) -> None:
    first, other = (_checksums(multisurvey_builds[name]["dsn"]) for name in ("ms_test_a", "ms_test_seed1"))
    assert first["object"] != other["object"]
    assert first["band"] == other["band"]


def test_build_fills_every_table(multisurvey_builds: dict) -> None:
    info = multisurvey_builds["ms_test_a"]
    print(f"tiny multisurvey build took {info['seconds']:.1f} s")  # reported, not asserted
    assert all(count > 0 for count in info["counts"].values()), info["counts"]
    assert info["counts"]["lsst_dia_object"] > SCALES["tiny"].n_dia // 2


def test_lookups_hold_the_published_values(ms_conn) -> None:
    for table, rows in load_catalog("multisurvey").rows.items():
        assert _scalar(ms_conn, f"SELECT count(*) FROM {table}") == len(rows), table
    bands = dict(ms_conn.execute("SELECT band_name, band FROM band WHERE sid = 1").fetchall())
    assert bands == {"u": 6, "g": 1, "r": 2, "i": 3, "z": 4, "y": 5}
    classes = ms_conn.execute("SELECT classifier_id, class_id, class_name FROM taxonomy ORDER BY 1, 2").fetchall()
    assert [row[2] for row in classes if row[0] == 3] == ["SN", "AGN", "VS", "asteroid", "bogus"]
    assert {row[0] for row in classes} == {1, 3}
    assert _scalar(ms_conn, "SELECT feature_name FROM feature_name_lut WHERE feature_id = 27") == "Multiband_period"


def test_object_aggregates_match_detections(ms_conn) -> None:
    bad = _scalar(
        ms_conn,
        """
        SELECT count(*) FROM object o FULL JOIN (
            SELECT oid, sid, count(*) AS n, min(mjd) AS first, max(mjd) AS last, min(ra) AS ra0, max(ra) AS ra1,
                   min(dec) AS dec0, max(dec) AS dec1
            FROM detection GROUP BY oid, sid) d USING (oid, sid)
        WHERE d.n IS DISTINCT FROM o.n_det OR abs(d.first - o.firstmjd) > 1e-9 OR abs(d.last - o.lastmjd) > 1e-9
           OR abs(o.deltamjd - (o.lastmjd - o.firstmjd)) > 1e-9 OR o.meandec NOT BETWEEN d.dec0 AND d.dec1
           OR (o.sid = 1 AND o.meanra NOT BETWEEN d.ra0 AND d.ra1)""",
    )
    assert bad == 0


def test_forced_counts_match(ms_conn) -> None:
    bad = _scalar(
        ms_conn,
        """
        SELECT count(*) FROM object o LEFT JOIN (SELECT oid, sid, count(*) AS n FROM forced_photometry
                                                 GROUP BY oid, sid) f USING (oid, sid)
        WHERE o.n_forced <> coalesce(f.n, 0)""",
    )
    assert bad == 0


@pytest.mark.parametrize(
    ("generic", "lsst"), [("detection", "lsst_detection"), ("forced_photometry", "lsst_forced_photometry")]
)
def test_lsst_rows_pair_one_to_one_with_generic_rows(ms_conn, generic: str, lsst: str) -> None:
    unpaired = _scalar(
        ms_conn,
        f"""SELECT count(*) FROM (SELECT oid, sid, measurement_id FROM {generic} WHERE sid > 0) g
            FULL JOIN {lsst} l USING (oid, sid, measurement_id) WHERE g.oid IS NULL OR l.oid IS NULL""",
    )
    assert unpaired == 0
    assert _scalar(ms_conn, f"SELECT count(*) FROM {generic} WHERE sid = 0") > 0


def test_dia_object_statistics_agree_with_detections(ms_conn) -> None:
    bad = _scalar(
        ms_conn,
        """
        SELECT count(*) FROM lsst_dia_object d
        FULL JOIN (SELECT * FROM object WHERE sid = 1) o USING (oid)
        JOIN (SELECT oid, count(*) FILTER (WHERE band = 2) AS n_r, min(l.psfflux) FILTER (WHERE band = 2) AS lo,
                     max(l.psfflux) FILTER (WHERE band = 2) AS hi
              FROM detection JOIN lsst_detection l USING (oid, sid, measurement_id) WHERE sid = 1 GROUP BY oid) x
             USING (oid)
        WHERE d.ndiasources IS DISTINCT FROM o.n_det OR d.r_psffluxndata <> x.n_r
           OR d.u_psffluxndata + d.g_psffluxndata + d.r_psffluxndata + d.i_psffluxndata + d.z_psffluxndata
              + d.y_psffluxndata <> o.n_det
           OR (x.n_r > 0 AND d.r_psffluxmean NOT BETWEEN x.lo - 1 AND x.hi + 1)
           OR abs(d.lastdiasourcemjdtai - o.lastmjd) > 1e-9""",
    )
    assert bad == 0


def test_dia_object_named_after_first_detection(ms_conn) -> None:
    bad = _scalar(
        ms_conn,
        """SELECT count(*) FROM object o WHERE sid = 1 AND NOT EXISTS (
             SELECT 1 FROM detection d WHERE d.oid = o.oid AND d.sid = 1 AND d.measurement_id = o.oid
               AND d.mjd = o.firstmjd)""",
    )
    assert bad == 0


def test_probabilities_sum_to_one_and_rank(ms_conn) -> None:
    worst = _scalar(
        ms_conn,
        "SELECT max(abs(s - 1)) FROM (SELECT sum(probability::float8) AS s FROM probability "
        "GROUP BY oid, sid, classifier_id) q",
    )
    assert worst < 1e-5
    misranked = _scalar(
        ms_conn,
        """SELECT count(*) FROM (SELECT ranking, row_number() OVER (PARTITION BY oid, sid, classifier_id
                                 ORDER BY probability DESC, class_id) AS expected FROM probability) q
           WHERE ranking <> expected""",
    )
    assert misranked == 0


def test_every_rubin_object_has_both_stamp_classifiers(ms_conn) -> None:
    counts = ms_conn.execute(
        """SELECT o.sid, count(DISTINCT (p.classifier_id, p.class_id)), count(*) / count(DISTINCT o.oid)
           FROM object o JOIN probability p USING (oid, sid) GROUP BY o.sid ORDER BY 1"""
    ).fetchall()
    assert counts == [(1, 10, 10), (2, 10, 10)]
    versions = dict(ms_conn.execute("SELECT DISTINCT classifier_id, classifier_version FROM probability").fetchall())
    assert versions == {1: 201, 3: 202}


def test_known_solar_system_objects_are_asteroids(ms_conn) -> None:
    rows = ms_conn.execute(
        """SELECT DISTINCT t.class_name, p.probability FROM probability p
           JOIN taxonomy t USING (classifier_id, class_id) WHERE p.sid = 2 AND p.ranking = 1"""
    ).fetchall()
    assert rows == [("asteroid", 1.0)]


def test_ztf_oids_follow_the_published_encoding(ms_conn) -> None:
    oids = [row[0] for row in ms_conn.execute("SELECT oid FROM object WHERE sid = 0")]
    assert oids
    for oid in oids:
        name = ztf_name_of(oid)
        assert re.fullmatch(r"ZTF(1[89]|2[0-6])[a-z]{7}", name), name
        assert ztf_oid_of(name) == oid


def test_solar_system_ids_and_designations(ms_conn) -> None:
    rows = ms_conn.execute(
        """SELECT DISTINCT m.ssobjectid, m.designation, m.packed_primary_provisional_designation, s.designation
           FROM lsst_mpc_orbits m JOIN lsst_ss_detection s USING (ssobjectid)"""
    ).fetchall()
    assert len(rows) == _scalar(ms_conn, "SELECT count(*) FROM object WHERE sid = 2")
    for ssobjectid, unpacked, packed, detection_designation in rows:
        assert pack_designation(unpacked) == packed == detection_designation
        assert unpack_designation(packed) == unpacked
        assert ss_object_id(packed) == ssobjectid
    assert _scalar(ms_conn, "SELECT count(*) FROM lsst_detection WHERE sid = 2 AND diaobjectid <> 0") == 0
    assert _scalar(ms_conn, "SELECT count(*) FROM lsst_mpc_orbits WHERE orbit_type_int <> -1 OR earth_moid <> 0") == 0


def test_solar_system_objects_move(ms_conn) -> None:
    slow = _scalar(
        ms_conn,
        """SELECT count(*) FROM object o WHERE sid = 2 AND o.deltamjd > 0.5
             AND (SELECT max(q3c_dist(d.ra, d.dec, o.meanra, o.meandec)) FROM detection d
                  WHERE d.oid = o.oid AND d.sid = 2) < 10.0 / 3600""",
    )
    assert slow == 0


def test_epochs_fall_in_the_survey_windows(ms_conn) -> None:
    lo, hi = ms_conn.execute("SELECT min(mjd), max(mjd) FROM detection WHERE sid > 0").fetchone()
    assert LSST_START_MJD <= lo and hi <= LSST_END_MJD + 1
    assert _scalar(ms_conn, "SELECT max(mjd) FROM detection WHERE sid = 0") <= LSST_END_MJD + 1


def test_features_are_named_and_finite(ms_conn) -> None:
    bad = _scalar(
        ms_conn,
        """SELECT count(*) FROM feature f LEFT JOIN feature_name_lut n USING (feature_id)
           LEFT JOIN band b ON b.sid = f.sid AND b.band = f.band
           WHERE n.feature_id IS NULL OR (f.band <> 0 AND b.band IS NULL) OR f.feature_value = 'NaN'
              OR f.version <> 1""",
    )
    assert bad == 0
    assert _scalar(ms_conn, "SELECT min(n_det) FROM object JOIN feature USING (oid, sid)") >= 2


def test_cross_matches_resolve_and_ztf_twins_exist(ms_conn) -> None:
    orphans = _scalar(
        ms_conn,
        """SELECT count(*) FROM xmatch x LEFT JOIN allwise a ON x.catid = 0 AND a.oid_catalog = x.oid_catalog
           LEFT JOIN gaiadr3_source g ON x.catid = 1 AND CAST(g.oid_catalog AS varchar) = x.oid_catalog
           WHERE a.oid_catalog IS NULL AND g.oid_catalog IS NULL""",
    )
    assert orphans == 0
    twins = _scalar(
        ms_conn,
        """SELECT count(*) FROM object z JOIN object l ON q3c_join(z.meanra, z.meandec, l.meanra, l.meandec, 1.0 / 3600)
           WHERE z.sid = 0 AND l.sid = 1""",
    )
    assert twins > 0
