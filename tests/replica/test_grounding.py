"""What grounding reads from a gold query, and what it builds from it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from data.loader import example_set
from db.cli import main as db_main
from replica.engine.grounding import predicates
from replica.engine.grounding.entities import entities_for_queries
from replica.engine.grounding.sources import GroundingError, grounding_digest, read_queries
from replica.engine.grounding.thinning import _counting_queries
from replica.ztf.grounding import ZTF_PROFILE, grounded_tables


def read_worlds(sql: str) -> tuple:
    """The worlds of a query on the ZTF catalog."""
    return predicates.read_worlds(sql, ZTF_PROFILE.catalog)


_SCALE = {"old_feature_fraction": 0.3, "max_forced_rows": 80}


def _atoms(sql: str, world: int = 0) -> set[tuple]:
    return {(a.ref.table, a.column, a.op, a.values) for a in read_worlds(sql)[world].atoms}


def test_conditions_of_a_derived_table_reach_its_base_table():
    sql = "SELECT s.oid FROM (SELECT oid, probability AS p FROM probability WHERE ranking = 1) AS s WHERE s.p > 0.9"
    assert _atoms(sql) == {("probability", "ranking", "=", (1.0,)), ("probability", "probability", ">", (0.9,))}


def test_between_in_not_null_and_boolean_columns():
    sql = (
        "SELECT * FROM object o JOIN magstat m ON o.oid = m.oid WHERE o.ndet BETWEEN 5 AND 9 "
        "AND m.fid IN (1, 2) AND o.meanra IS NOT NULL AND NOT o.stellar"
    )
    assert _atoms(sql) == {
        ("object", "ndet", ">=", (5.0,)),
        ("object", "ndet", "<=", (9.0,)),
        ("magstat", "fid", "in", (1.0, 2.0)),
        ("object", "meanra", "notnull", ()),
        ("object", "stellar", "=", (False,)),
    }


def test_a_union_gives_one_world_per_branch():
    sql = (
        "SELECT oid FROM probability WHERE class_name = 'AGN' "
        "UNION SELECT oid FROM probability WHERE class_name = 'QSO'"
    )
    worlds = read_worlds(sql)
    assert [[a.values for a in w.atoms] for w in worlds] == [[("AGN",)], [("QSO",)]]


def test_an_or_contributes_its_first_branch_and_not_in_subqueries_are_ignored():
    sql = (
        "SELECT oid FROM object WHERE (ndet > 5 OR deltajd > 10) "
        "AND oid NOT IN (SELECT oid FROM probability WHERE class_name = 'SN')"
    )
    assert _atoms(sql) == {("object", "ndet", ">", (5.0,))}


def test_column_differences_and_literal_arithmetic():
    sql = "SELECT * FROM magstat WHERE lastmjd > 100 + firstmjd AND dmdt_first < -(0.5)"
    world = read_worlds(sql)[0]
    assert [(d.left[1], d.right[1], d.op, d.value) for d in world.diffs] == [("lastmjd", "firstmjd", ">", 100.0)]
    assert ("magstat", "dmdt_first", "<", (-0.5,)) in _atoms(sql)


def test_cone_searches_against_literals_and_values_catalogs():
    radial = read_worlds("SELECT oid FROM object WHERE q3c_radial_query(meanra, meandec, 10.5, -3.0, 0.01)")[0]
    assert [(c.ref.table, c.centres, c.radius_deg) for c in radial.cones] == [("object", ((10.5, -3.0),), 0.01)]
    joined = read_worlds(
        "WITH c (id, ra, dec) AS (VALUES ('a', 1.0, 2.0), ('b', 3.0, 4.0)) "
        "SELECT * FROM c, allwise w WHERE q3c_join(c.ra, c.dec, w.ra, w.dec, 0.5)"
    )[0]
    assert [(c.ref.table, c.centres) for c in joined.cones] == [("allwise", ((1.0, 2.0), (3.0, 4.0)))]


def test_unparseable_query_gives_no_world():
    assert read_worlds("SELECT FROM WHERE (") == ()


def test_entities_answer_and_nearly_answer_a_query():
    entities = entities_for_queries(
        ["SELECT oid FROM probability WHERE class_name = 'YSO' AND probability > 0.7"], ZTF_PROFILE
    ).entities
    answers = [e for e in entities if e.spec.get("lc_class") == "YSO" and e.spec.get("lc_p", 0) > 0.7]
    misses = [e for e in entities if e not in answers]
    assert len(answers) == 2
    assert {"YSO"} != {e.spec.get("lc_class") for e in misses}
    assert any(e.spec.get("lc_class") == "YSO" and e.spec["lc_p"] < 0.7 for e in misses)


@pytest.mark.parametrize(
    ("condition", "meets"),
    [
        ("nframesref > 35", lambda v: v > 35),
        ("nframesref >= 35.5", lambda v: v >= 35.5),
        ("nframesref < 12", lambda v: v < 12),
        ("nframesref BETWEEN 20 AND 21", lambda v: 20 <= v <= 21),
    ],
    ids=["above", "above-fraction", "below", "between"],
)
def test_whole_number_columns_get_whole_numbers_that_meet_the_bounds(condition, meets):
    entities = entities_for_queries([f"SELECT oid FROM reference WHERE {condition}"], ZTF_PROFILE).entities
    values = [columns["nframesref"] for e in entities for table, _, columns in e.patches if table == "reference"]
    assert values and all(float(v).is_integer() for v in values)
    assert all(meets(v) for v in values[:2])  # the two answering entities; the rest are near misses


def test_literal_oids_name_entities_and_some_of_many_break_a_condition():
    oids = [f"ZTF21aaaaaa{c}" for c in "abcdef"]
    sql = f"SELECT * FROM ss_ztf WHERE oid IN ({', '.join(repr(o) for o in oids)}) AND ssdistnr > 2"
    entities = {e.oid: e for e in entities_for_queries([sql], ZTF_PROFILE).entities}
    assert set(entities) == set(oids)
    distances = [entities[o].spec["ssdistnr"] for o in oids]
    assert sum(d > 2 for d in distances) == 3
    assert sum(d <= 2 for d in distances) == 3


def test_entities_naming_the_same_oid_are_merged():
    sqls = ["SELECT * FROM gaia_ztf WHERE oid = 'ZTF20aaaaaaa'", "SELECT * FROM ss_ztf WHERE oid = 'ZTF20aaaaaaa'"]
    assert [e.oid for e in entities_for_queries(sqls, ZTF_PROFILE).entities] == ["ZTF20aaaaaaa"]


def test_only_limits_without_order_by_are_thinned():
    counting = _counting_queries("SELECT * FROM probability WHERE probability > 0.9 LIMIT 100", ZTF_PROFILE)
    assert [limit for _, limit in counting] == [100]
    assert "LIMIT" not in counting[0][0]
    assert _counting_queries("SELECT * FROM probability ORDER BY oid LIMIT 10", ZTF_PROFILE) == []


def test_read_queries_from_csv_and_sql_files(tmp_path: Path):
    csv_file = tmp_path / "mine.csv"
    csv_file.write_text('question,sql\n"how many?","SELECT count(*) FROM object;"\n')
    sql_file = tmp_path / "more.sql"
    sql_file.write_text("-- a comment; with a semicolon\nSELECT oid FROM object;\nSELECT 1")
    assert read_queries([csv_file, sql_file]) == ["SELECT count(*) FROM object", "SELECT oid FROM object", "SELECT 1"]


def test_read_queries_errors_name_the_file_and_the_fix(tmp_path: Path):
    bad = tmp_path / "bad.csv"
    bad.write_text("question,answer\nq,a\n")
    with pytest.raises(GroundingError, match=r"has no query column; name one of: gold_query, sql, query, gold_sql"):
        read_queries([bad])
    with pytest.raises(GroundingError, match="Cannot read queries to ground on"):
        read_queries([tmp_path / "missing.sql"])


def test_grounding_digest_ignores_order_and_duplicates():
    assert grounding_digest(["SELECT 1", "SELECT 2"]) == grounding_digest(["SELECT 2", "SELECT 1", "SELECT 1"])
    assert grounding_digest(["SELECT 1"]) != grounding_digest(["SELECT 2"])


def test_db_up_with_a_missing_ground_file_is_one_line_and_exit_1(tmp_path: Path, capsys):
    code = db_main(["up", "--scale", "tiny", "--data-dir", str(tmp_path), "--ground", str(tmp_path / "no.csv")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1
    assert err[0].startswith("error: Cannot read queries to ground on from")


def test_a_having_count_over_detections_sets_the_number_of_detections():
    sql = "SELECT oid FROM detection GROUP BY oid HAVING count(*) > 40"
    assert read_worlds(sql)[0].counts[0][1:] == (">", 40.0)
    assert all(e.spec.get("_ndet", 0) > 40 for e in entities_for_queries([sql], ZTF_PROFILE).entities)


def test_a_partition_of_probability_grounds_like_probability_of_its_classifier():
    entities = entities_for_queries(
        ["SELECT oid FROM lc_classifier WHERE class_name = 'QSO' AND probability > 0.8"], ZTF_PROFILE
    ).entities
    assert any(e.spec.get("lc_class") == "QSO" and e.spec["lc_p"] > 0.8 for e in entities)


def test_literals_are_written_as_their_columns_hold_them():
    sql = "SELECT oid FROM forced_photometry WHERE procstatus IN ('0', '57') AND mag <> 'NaN' AND nframesref > 35"
    tables = grounded_tables(entities_for_queries([sql], ZTF_PROFILE).entities, np.random.default_rng(0), **_SCALE)
    assert tables["forced_photometry"]["mag"].isna().any()  # the near miss of mag <> 'NaN' holds NaN


def test_the_projects_own_examples_ground_without_error():
    plan = entities_for_queries(read_queries([example_set()]), ZTF_PROFILE)
    tables = grounded_tables(plan.entities, np.random.default_rng(0), **_SCALE)
    assert plan.skipped == []
    assert len(tables["object"]) > 100


def test_a_lateral_subquery_cones_around_the_outer_catalog_and_skips_radii_that_are_not_positive():
    sql = (
        "WITH t (name, ra, dec, radius) AS (VALUES ('a', 10.0, 20.0, 3.0), ('b', 30.0, 40.0, -1.0)) "
        "SELECT t.name, nn.oid FROM t CROSS JOIN LATERAL (SELECT o.oid FROM object o "
        "WHERE q3c_join(t.ra, t.dec, o.meanra, o.meandec, t.radius) LIMIT 1) AS nn"
    )
    assert [(c.centres, c.radius_deg) for c in read_worlds(sql)[0].cones] == [(((10.0, 20.0), (30.0, 40.0)), 3.0)]


def test_an_absolute_value_bound_reads_as_two_bounds():
    sql = "SELECT oid FROM feature WHERE name = 'gal_b' AND abs(value) < 10"
    assert _atoms(sql) >= {("feature", "value", "<", (10.0,)), ("feature", "value", ">", (-10.0,))}


def test_an_allwise_source_without_an_object_gets_the_magnitudes_asked_for():
    sql = "SELECT oid_catalog FROM allwise WHERE w1mpro - w2mpro >= 1.9 AND w1mpro < 12"
    wise = grounded_tables(entities_for_queries([sql], ZTF_PROFILE).entities, np.random.default_rng(0), **_SCALE)[
        "allwise"
    ]
    assert ((wise["w1mpro"] < 12) & (wise["w1mpro"] - wise["w2mpro"] >= 1.9)).any()


def test_a_column_read_through_an_aggregate_is_met_by_every_row_of_an_answer():
    per_row = "SELECT DISTINCT oid FROM detection WHERE rb > 0.8"
    whole = "SELECT oid FROM detection GROUP BY oid HAVING max(rb) > 0.8"
    violations = [
        [violate for e in entities_for_queries([sql], ZTF_PROFILE).entities for *_, violate in e.alternating]
        for sql in (per_row, whole)
    ]
    assert any(violations[0]) and violations[1] and not any(violations[1])
