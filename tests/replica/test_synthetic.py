"""Tests of the synthetic ALeRCE generator: determinism and cross-table invariants at scale tiny."""

import logging
import time
from collections.abc import Iterator

import psycopg
import pytest

from catalog import load_catalog, render_ddl
from replica.replicas import build_replica
from replica.ztf import vocab
from replica.ztf.scales import SCALES

log = logging.getLogger(__name__)

_DATABASES = ("synth_test_a", "synth_test_b")


def _dsn_for(admin_dsn: str, dbname: str) -> str:
    return psycopg.conninfo.make_conninfo(admin_dsn, dbname=dbname)


def _fresh_database(admin_dsn: str, dbname: str) -> str:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {dbname}")
        conn.execute(f"CREATE DATABASE {dbname}")
    dsn = _dsn_for(admin_dsn, dbname)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(render_ddl(load_catalog()))
    return dsn


@pytest.fixture(scope="module")
def built(admin_dsn_tiny: str) -> Iterator[dict]:
    """Two tiny databases built with seed 0, with their row counts and build times."""
    out = {}
    for name in _DATABASES:
        dsn = _fresh_database(admin_dsn_tiny, name)
        with psycopg.connect(dsn) as conn:
            t0 = time.monotonic()
            counts = build_replica(conn, catalog="ztf", scale="tiny", seed=0)
            out[name] = {"dsn": dsn, "counts": counts, "seconds": time.monotonic() - t0}
        log.warning("tiny build %s: %.1f s", name, out[name]["seconds"])
    yield out
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        for name in _DATABASES:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="module")
def conn(built: dict) -> Iterator[psycopg.Connection]:
    with psycopg.connect(built[_DATABASES[0]]["dsn"], autocommit=True) as c:
        c.execute("SET search_path TO alerce, public")
        yield c


def _scalar(conn, sql: str):
    return conn.execute(sql).fetchone()[0]


def _checksums(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn) as c:
        tables = [
            r[0] for r in c.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'alerce' ORDER BY 1").fetchall()
        ]
        return {
            t: c.execute(
                f"SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM alerce.{t} AS x"
            ).fetchone()[0]
            for t in tables
        }


def test_same_seed_gives_same_data(built: dict) -> None:
    a, b = (_checksums(built[name]["dsn"]) for name in _DATABASES)
    assert a == b
    assert built[_DATABASES[0]]["counts"] == built[_DATABASES[1]]["counts"]


def test_build_reports_rows_and_time(built: dict) -> None:
    info = built[_DATABASES[0]]
    print(f"tiny build took {info['seconds']:.1f} s")  # reported, not asserted
    assert info["counts"]["object"] >= SCALES["tiny"].n_objects
    assert info["counts"]["detection"] > info["counts"]["object"]


def test_probabilities_sum_to_one(conn) -> None:
    worst = _scalar(
        conn,
        "SELECT max(abs(s - 1)) FROM (SELECT sum(probability::float8) AS s FROM probability "
        "GROUP BY oid, classifier_name, classifier_version) q",
    )
    assert worst < 1e-5


def test_ranking_follows_probability(conn) -> None:
    bad = _scalar(
        conn,
        """
        SELECT count(*) FROM (
          SELECT ranking, row_number() OVER (PARTITION BY oid, classifier_name, classifier_version
                                             ORDER BY probability DESC) AS expected
          FROM probability) q WHERE ranking <> expected""",
    )
    assert bad == 0


def test_every_class_present_per_classifier(conn) -> None:
    bad = _scalar(
        conn,
        """
        SELECT count(*) FROM (SELECT p.oid, p.classifier_name, p.classifier_version, count(*) AS n,
                                     max(t.k) AS k
                              FROM probability p JOIN (SELECT classifier_name, max(cardinality(classes)) AS k
                                        FROM taxonomy GROUP BY 1) t USING (classifier_name)
                              GROUP BY 1, 2, 3) q WHERE n <> k""",
    )
    assert bad == 0


@pytest.mark.parametrize("classifier", ["lc_classifier", "lc_classifier_BHRF_forced_phot"])
def test_lc_is_top_times_branch(conn, classifier: str) -> None:
    worst = _scalar(
        conn,
        f"""
        SELECT max(abs(lc.probability - top.probability * br.probability))
        FROM probability lc
        JOIN probability br ON br.oid = lc.oid AND br.class_name = lc.class_name
             AND br.classifier_version = lc.classifier_version
             AND br.classifier_name IN ('{classifier}_transient', '{classifier}_stochastic', '{classifier}_periodic')
        JOIN probability top ON top.oid = lc.oid AND top.classifier_name = '{classifier}_top'
             AND top.classifier_version = lc.classifier_version
             AND top.class_name = initcap(substring(br.classifier_name from {len(classifier) + 2}))
        WHERE lc.classifier_name = '{classifier}'""",
    )
    assert worst < 1e-4  # a 1e-6 grid with no two classes tied moves each of up to 21 classes a few steps


def test_object_matches_detections(conn) -> None:
    bad = _scalar(
        conn,
        """
        SELECT count(*) FROM object o LEFT JOIN (
            SELECT oid, count(*) AS n, min(mjd) AS first, max(mjd) AS last FROM detection GROUP BY oid) d USING (oid)
        WHERE d.n IS DISTINCT FROM o.ndet OR abs(d.first - o.firstmjd) > 1e-6 OR abs(d.last - o.lastmjd) > 1e-6
           OR abs(o.deltajd - (o.lastmjd - o.firstmjd)) > 1e-6""",
    )
    assert bad == 0


def test_magstat_matches_detections(conn) -> None:
    bad = _scalar(
        conn,
        """
        SELECT count(*) FROM magstat m FULL JOIN (
            SELECT oid, fid, count(*) AS n, min(magpsf) AS mn, max(magpsf) AS mx, avg(magpsf::float8) AS mean,
                   min(mjd) AS first, max(mjd) AS last,
                   (array_agg(magpsf ORDER BY mjd))[1] AS mfirst, (array_agg(magpsf ORDER BY mjd DESC))[1] AS mlast
            FROM detection GROUP BY oid, fid) d USING (oid, fid)
        WHERE d.n IS DISTINCT FROM m.ndet OR d.mn <> m.magmin OR d.mx <> m.magmax
           OR abs(d.mean - m.magmean) > 1e-3 OR d.mfirst <> m.magfirst OR d.mlast <> m.maglast
           OR abs(d.first - m.firstmjd) > 0.01 OR abs(d.last - m.lastmjd) > 0.01""",
    )
    assert bad == 0


@pytest.mark.parametrize(
    "table",
    [
        "probability",
        "feature",
        "magstat",
        "non_detection",
        "detection",
        "ps1_ztf",
        "gaia_ztf",
        "ss_ztf",
        "reference",
        "xmatch",
        "forced_photometry",
    ],
)
def test_child_oids_exist_in_object(conn, table: str) -> None:
    assert (
        _scalar(conn, f"SELECT count(*) FROM {table} t WHERE NOT EXISTS (SELECT 1 FROM object o WHERE o.oid = t.oid)")
        == 0
    )


@pytest.mark.parametrize("table", ["dataquality", "ps1_ztf", "gaia_ztf", "ss_ztf", "reference"])
def test_candids_are_detections_of_the_same_oid(conn, table: str) -> None:
    assert (
        _scalar(
            conn,
            f"SELECT count(*) FROM {table} t WHERE NOT EXISTS "
            f"(SELECT 1 FROM detection d WHERE d.candid = t.candid AND d.oid = t.oid)",
        )
        == 0
    )


def test_dataquality_one_per_detection_and_candids_unique(conn) -> None:
    assert _scalar(conn, "SELECT count(*) FROM detection") == _scalar(conn, "SELECT count(*) FROM dataquality")
    assert _scalar(conn, "SELECT count(*) - count(DISTINCT candid) FROM detection") == 0


def test_xmatch_catalog_rows_exist_and_unlinked_allwise(conn) -> None:
    assert (
        _scalar(
            conn, "SELECT count(*) FROM xmatch x LEFT JOIN allwise a USING (oid_catalog) WHERE a.oid_catalog IS NULL"
        )
        == 0
    )
    assert (
        _scalar(
            conn,
            "SELECT count(*) FROM allwise a WHERE NOT EXISTS "
            "(SELECT 1 FROM xmatch x WHERE x.oid_catalog = a.oid_catalog)",
        )
        > 0
    )


def test_value_domains(conn) -> None:
    assert _scalar(conn, "SELECT count(*) FROM ss_ztf WHERE ssnamenr = 'null' AND ssdistnr = -999") > 0
    assert {row[0] for row in conn.execute("SELECT DISTINCT version FROM feature")} <= {
        *vocab.FEATURE_VERSIONS,
        vocab.FEATURE_VERSION_TRANSITIONAL,
    }
    assert _scalar(conn, "SELECT count(*) FROM taxonomy") == 15
    assert _scalar(conn, f"SELECT min(firstmjd) >= 58194 AND max(lastmjd) < {vocab.MJD_END} FROM object")
    for table in ("detection", "forced_photometry", "non_detection"):
        assert _scalar(conn, f"SELECT max(mjd) < {vocab.MJD_END} FROM {table}")
    assert _scalar(conn, "SELECT count(*) FROM object WHERE oid !~ '^ZTF[0-9]{2}[a-z]{7}$'") == 0


def test_probability_holds_exactly_the_catalogs_classifiers_and_versions(conn) -> None:
    stored = set(conn.execute("SELECT DISTINCT classifier_name, classifier_version FROM probability").fetchall())
    assert stored == {(c.name, version) for c in load_catalog().classifiers for version in c.versions}


def test_the_data_run_to_the_catalogs_data_end_in_june_2026(conn) -> None:
    assert vocab.MJD_END == 61222.0  # catalog/ztf.yaml data_end 2026-07-01
    assert _scalar(conn, "SELECT max(mjd) > 61222 - 30 FROM detection")
    assert _scalar(conn, "SELECT count(*) FROM object WHERE firstmjd > 60857") > 0  # first seen after June 2025


def test_a_build_leaves_every_table_with_planner_statistics(conn) -> None:
    never_analyzed = (
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'alerce' AND c.relkind = 'r' AND c.reltuples < 0"
    )
    assert _scalar(conn, never_analyzed) == 0
