"""The fidelity benchmark compares what the catalog's metric compares, and says why a gold is not discriminative."""

import pytest

from benchmarks.db_fidelity import Answer, answers_in_aggregates, identifier_index, told_apart
from benchmarks.fidelity_reasons import KINDS, reason_summary, why_not
from benchmarks.mutations import mutations
from metric.perfect_match import identifier_columns


def test_the_identifier_follows_the_catalogs_list():
    columns = ["oid", "sid", "measurement_id"]
    assert identifier_index(columns) == 0
    assert identifier_index(columns, identifier_columns("multisurvey")) == 2


@pytest.mark.parametrize(
    ("sql", "aggregated"),
    [
        ("SELECT sid, COUNT(*) AS n FROM object GROUP BY sid", True),
        ("SELECT COUNT(*) FROM object WHERE sid = 2", True),
        ("SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY ndet) FROM object", True),
        ("WITH f AS (SELECT sid, COUNT(*) AS n FROM object GROUP BY sid) SELECT sid FROM f", False),
        ("SELECT oid FROM object WHERE ndet > (SELECT AVG(ndet) FROM object)", False),
        ("SELECT oid, COUNT(*) OVER (PARTITION BY sid) AS n FROM object", False),
        ("SELECT oid, ndet FROM object ORDER BY ndet DESC LIMIT 3", False),
    ],
)
def test_an_answer_is_aggregated_when_the_outer_select_groups_or_aggregates(sql, aggregated):
    assert answers_in_aggregates(sql) is aggregated


def test_a_top_n_is_also_read_the_other_way_round():
    described = dict(mutations("SELECT oid FROM object WHERE sid = 1 ORDER BY n_det DESC, oid LIMIT 20"))
    assert described["flip order n_det DESC"] == "SELECT oid FROM object WHERE sid = 1 ORDER BY n_det ASC, oid LIMIT 20"
    assert not [d for d, _ in mutations("SELECT oid FROM object ORDER BY n_det DESC") if d.startswith("flip")]


def test_a_failed_mutation_is_told_apart_unless_it_timed_out():
    assert told_apart(Answer(error="InvalidArgumentForLogarithm: ..."), "rows") == "error"
    assert told_apart(Answer(error="QueryCanceled: ...", timed_out=True), "rows") is None
    assert told_apart(Answer(differs=True), "identifiers") == "identifiers"
    assert told_apart(Answer(), "identifiers") is None


def _item(mutated: list[dict], *, runs=True, compared="identifiers", identifier="oid"):
    return {
        "runs": runs,
        "error": None if runs else "UndefinedTable: x",
        "compared": compared,
        "identifier": identifier,
        "mutations": mutated,
    }


def test_why_not_names_the_kind_from_the_gold_and_its_mutations():
    lookup = why_not(_item([], identifier="sid"), "SELECT sid, survey_name FROM sid_lut ORDER BY sid", "multisurvey")
    assert lookup["kind"] == "no_mutation" and "lookup table sid_lut" in lookup["reason"]
    counts = why_not(_item([], compared="rows"), "SELECT sid, COUNT(*) FROM object GROUP BY sid", "multisurvey")
    assert counts["kind"] == "no_mutation" and "lookup" not in counts["reason"]
    same = why_not(
        _item([{"mutation": "drop where[0] tid = 1", "error": None}], identifier="classifier_name"),
        "SELECT classifier_name FROM classifier WHERE tid = 1",
        "multisurvey",
    )
    assert same["kind"] == "same_answer"
    assert same["reason"].startswith("drop where[0] tid = 1: the same classifier_name set")
    slow = why_not(
        _item([{"mutation": "drop where[0] ndet > 5", "error": "QueryCanceled: timeout"}]), "SELECT 1", "ztf"
    )
    assert slow["kind"] == "mutations_time_out" and "timed out" in slow["reason"]
    assert why_not(_item([], runs=False), "SELECT oid FROM nowhere", "ztf")["kind"] == "gold_fails"


def test_the_summary_lists_every_kind_even_without_golds():
    summary = reason_summary([{"req_id": 3, "why_not": {"kind": "same_answer"}}, {"req_id": 4}])
    assert list(summary) == list(KINDS)
    assert summary["same_answer"] == {"queries": 1, "req_ids": "3"}
    assert summary["no_mutation"] == {"queries": 0, "req_ids": "none"}
