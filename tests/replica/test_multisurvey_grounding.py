"""Grounding the multi-survey replica: the project's examples, and copies with every literal redrawn, answer.

A tiny multi-survey database is grounded on the 84 example golds and two perturbed copies of them
(``benchmarks.perturbed_golds``, catalog multisurvey: 252 queries). Every query grounding does not skip returns
rows; a plausible mutation (``benchmarks.mutations``) changes the answer (identifier set, or rows of an aggregated
answer) of nearly every query that can be told apart at all (those with a mutation and a table the data fills); the
grounded rows keep the replica's invariants; named objects exist under their ids.
"""

from __future__ import annotations

import psycopg
import pytest
import sqlglot
from sqlglot import exp

from benchmarks.db_fidelity import evaluate
from benchmarks.mutations import mutations
from catalog import load_catalog
from replica.engine.grounding.entities import entities_for_queries
from replica.multisurvey.grounding import MULTISURVEY_PROFILE
from tests.replica import test_multisurvey_build as invariants

DISCRIMINATIVE_SHARE = 0.95
"""Share of the queries that can be told apart which must be: measured 0.98 (one gold filters sid = 1 on
lsst_forced_photometry, which holds only sid 1)."""
LOOKUPS = set(MULTISURVEY_PROFILE.lookups)
INVARIANTS = [
    invariants.test_lookups_hold_the_published_values,
    invariants.test_object_aggregates_match_detections,
    invariants.test_forced_counts_match,
    invariants.test_dia_object_statistics_agree_with_detections,
    invariants.test_dia_object_named_after_first_detection,
    invariants.test_probabilities_sum_to_one_and_rank,
    invariants.test_every_rubin_object_has_both_stamp_classifiers,
    invariants.test_known_solar_system_objects_are_asteroids,
    invariants.test_ztf_oids_follow_the_published_encoding,
    invariants.test_solar_system_ids_and_designations,
    invariants.test_solar_system_objects_move,
    invariants.test_epochs_fall_in_the_survey_windows,
    invariants.test_features_are_named_and_finite,
    invariants.test_cross_matches_resolve_and_ztf_twins_exist,
]


@pytest.fixture(scope="module")
def fidelity(grounded_conn: psycopg.Connection, grounded_queries: list[str]) -> list[dict]:
    """db_fidelity's verdict on every grounded query, with the query."""
    return [
        {**evaluate(grounded_conn, k, sql, 10.0, catalog="multisurvey"), "sql": sql}
        for k, sql in enumerate(grounded_queries)
    ]


def _can_be_told_apart(item: dict) -> bool:
    """Whether a mutation could change the query's answer: it has a mutation, and reads a table the data fill."""
    tree = sqlglot.parse_one(item["sql"], read="postgres")
    tables = {table.name for table in tree.find_all(exp.Table)} & set(load_catalog("multisurvey").table_names)
    return bool(mutations(item["sql"], "multisurvey")) and bool(tables - LOOKUPS)


def test_the_examples_and_their_perturbations_are_all_grounded(grounded_queries: list[str]) -> None:
    plan = entities_for_queries(grounded_queries, MULTISURVEY_PROFILE)
    assert plan.skipped == []


def test_every_grounded_query_returns_rows(fidelity: list[dict], ms_grounded: dict) -> None:
    print(f"tiny multisurvey build grounded on {len(fidelity)} queries took {ms_grounded['seconds']:.1f} s")
    empty = [
        (item["req_id"], item["error"], item["sql"][:90]) for item in fidelity if not item["runs"] or not item["rows"]
    ]
    assert empty == []


def test_nearly_every_query_that_can_be_told_apart_is_discriminative(fidelity: list[dict]) -> None:
    candidates = [item for item in fidelity if _can_be_told_apart(item)]
    blind = [(item["req_id"], item["sql"][:90]) for item in candidates if not item["discriminative"]]
    assert len(candidates) >= 0.6 * len(fidelity)
    assert len(candidates) - len(blind) >= DISCRIMINATIVE_SHARE * len(candidates), blind


@pytest.mark.parametrize("check", INVARIANTS, ids=lambda check: check.__name__.removeprefix("test_"))
def test_grounded_rows_keep_the_replica_invariants(grounded_conn: psycopg.Connection, check) -> None:
    check(grounded_conn)


@pytest.mark.parametrize(
    ("generic", "lsst"), [("detection", "lsst_detection"), ("forced_photometry", "lsst_forced_photometry")]
)
def test_grounded_lsst_rows_pair_with_generic_rows(grounded_conn: psycopg.Connection, generic: str, lsst: str) -> None:
    invariants.test_lsst_rows_pair_one_to_one_with_generic_rows(grounded_conn, generic, lsst)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT count(*) FROM object WHERE oid = 170245118847651329 AND sid = 1", 1),
        ("SELECT count(*) FROM detection WHERE oid = 170245118847651329 AND measurement_id = oid", 1),
        ("SELECT count(*) FROM object WHERE oid = 36028997828565782 AND sid = 0", 1),
        ("SELECT count(*) FROM lsst_mpc_orbits WHERE designation = '2021 JK117'", 1),
        ("SELECT count(DISTINCT ssobjectid) FROM lsst_ss_detection WHERE designation = 'K18P23T'", 1),
    ],
    ids=["lsst-oid", "named-after-first-detection", "ztf-oid", "unpacked-designation", "packed-designation"],
)
def test_objects_the_examples_name_exist_under_their_ids(grounded_conn, query: str, expected: int) -> None:
    assert grounded_conn.execute(query).fetchone()[0] == expected
