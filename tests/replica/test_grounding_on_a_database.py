"""The grounding steps that run gold queries, as the builder runs them: as superuser, inside the build transaction.

The ZTF catalog's schema in a throwaway database, with 40 objects and one probability row each, stands in for the
synthetic data.
"""

from collections.abc import Iterator

import psycopg
import pytest

from catalog import load_catalog
from catalog.render import render_ddl
from replica.engine.grounding.density import answers_many
from replica.engine.grounding.thinning import thin_unordered_limits
from replica.ztf.grounding import ZTF_PROFILE

SCHEMA = (
    render_ddl(load_catalog("ztf")),
    "CREATE SEQUENCE alerce.counter",
    "INSERT INTO alerce.object (oid, ndet) "
    "SELECT format('ZTF20base%s', lpad(g::text, 3, '0')), g FROM generate_series(1, 40) g",
    "INSERT INTO alerce.probability (oid, class_name, classifier_name, classifier_version, probability, ranking) "
    "SELECT oid, 'SN', 'stamp_classifier', '1', 1.0, 1 FROM alerce.object",
)
GROUNDED = {"ZTF20base011", "ZTF20base012"}  # first in line to be thinned (equal counts: oid order)
HOSTILE = [
    pytest.param("SELECT oid FROM object WHERE lo_create(0) > 0 LIMIT 5", id="creates-large-objects"),
    pytest.param("SELECT oid FROM object WHERE nextval('alerce.counter') > 0 LIMIT 5", id="advances-a-sequence"),
    pytest.param(
        "SELECT oid FROM object WHERE set_config('search_path', 'pg_catalog', false) <> '' LIMIT 5",
        id="changes-the-session",
    ),
]


@pytest.fixture
def builder(scratch_database: str) -> Iterator[psycopg.Connection]:
    """A superuser connection to the small schema, search_path alerce, public, in an open transaction."""
    with psycopg.connect(scratch_database) as conn:
        for statement in SCHEMA:
            conn.execute(statement)
        conn.commit()
        conn.execute("SET search_path TO alerce, public")
        yield conn


def state(conn: psycopg.Connection) -> tuple:
    """What a hostile query could change: rows, large objects, the sequence and the session's search_path."""
    return conn.execute(
        "SELECT (SELECT count(*) FROM alerce.object), (SELECT count(*) FROM alerce.probability), "
        "(SELECT count(*) FROM pg_largeobject_metadata), (SELECT is_called FROM alerce.counter), "
        "current_setting('search_path')"
    ).fetchone()


def test_thinning_deletes_whole_base_objects_until_an_unordered_limit_has_headroom(builder):
    deleted = thin_unordered_limits(builder, ["SELECT oid FROM object WHERE ndet > 10 LIMIT 20"], GROUNDED, ZTF_PROFILE)
    qualifying = {row[0] for row in builder.execute("SELECT oid FROM object WHERE ndet > 10")}
    assert deleted == 11  # 30 qualifying rows, 19 left: under the limit of 20
    assert len(qualifying) == 19
    assert GROUNDED <= qualifying
    assert builder.execute("SELECT count(*) FROM object WHERE ndet <= 10").fetchone()[0] == 10
    orphans = "SELECT count(*) FROM probability p WHERE NOT EXISTS (SELECT 1 FROM object o WHERE o.oid = p.oid)"
    assert builder.execute(orphans).fetchone()[0] == 0
    assert builder.execute("SELECT count(*) FROM probability").fetchone()[0] == 40 - 11


def test_thinning_leaves_ordered_limits_and_limits_with_headroom_alone(builder):
    queries = ["SELECT oid FROM object WHERE ndet > 10 ORDER BY ndet LIMIT 20", "SELECT oid FROM object LIMIT 41"]
    assert thin_unordered_limits(builder, queries, set(), ZTF_PROFILE) == 0
    assert builder.execute("SELECT count(*) FROM object").fetchone()[0] == 40


@pytest.mark.parametrize("sql", HOSTILE)
def test_a_hostile_ground_query_never_runs_as_the_builder(builder, sql):
    before = state(builder)
    assert answers_many(builder, sql) is False
    assert thin_unordered_limits(builder, [sql], set(), ZTF_PROFILE) == 0
    builder.commit()
    assert state(builder) == before
