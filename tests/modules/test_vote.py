"""Execution-result voting."""

import pandas as pd
import pytest

from modules.selection.vote import Candidate, result_key, vote


def _candidate(id_: str, frame: pd.DataFrame | None, sql: str = "SELECT oid FROM object") -> Candidate:
    return Candidate(id_, sql, frame)


def test_vote_picks_the_largest_cluster_ignoring_order_and_duplicates():
    result = vote(
        [
            _candidate("a", pd.DataFrame({"oid": ["ZTF1"]})),
            _candidate("b", pd.DataFrame({"oid": ["ZTF2", "ZTF3"]})),
            _candidate("c", pd.DataFrame({"oid": ["ZTF3", "ZTF2", "ZTF2"]})),
        ]
    )
    assert result.winners == ("b", "c")
    assert not result.is_tie
    assert result.clusters == (("b", "c"), ("a",))


def test_vote_errors_and_empty_results_lose_to_any_rows():
    result = vote(
        [
            _candidate("e1", None),
            _candidate("e2", None),
            _candidate("x1", pd.DataFrame({"oid": []})),
            _candidate("x2", pd.DataFrame({"oid": []})),
            _candidate("r", pd.DataFrame({"oid": ["ZTF1"]})),
        ]
    )
    assert result.winners == ("r",)


def test_vote_empty_results_win_when_nothing_returned_rows():
    result = vote([_candidate("e", None), _candidate("x1", pd.DataFrame({"oid": []})), _candidate("x2", None)])
    assert result.winners == ("x1",)
    assert not result.is_tie


def test_vote_all_errors_is_a_tie_of_singletons():
    result = vote([_candidate("e1", None), _candidate("e2", None)])
    assert result.is_tie
    assert result.tied == (("e1",), ("e2",))


def test_vote_reports_ties():
    result = vote([_candidate("a", pd.DataFrame({"oid": ["ZTF1"]})), _candidate("b", pd.DataFrame({"oid": ["ZTF2"]}))])
    assert result.is_tie
    assert result.winners == ("a",)
    assert result.tied == (("a",), ("b",))


def test_result_key_splits_on_column_names():
    same_ids = pd.DataFrame({"oid": ["ZTF1"], "ndet": [3]})
    other_columns = pd.DataFrame({"oid": ["ZTF1"], "meanra": [1.0]})
    assert result_key(_candidate("a", same_ids)) != result_key(_candidate("b", other_columns))


def test_result_key_follows_aliases_like_the_metric():
    aliased = _candidate("a", pd.DataFrame({"ztf_id": ["ZTF1"]}), "SELECT oid AS ztf_id FROM object")
    plain = _candidate("b", pd.DataFrame({"ztf_id": ["ZTF1"]}), "SELECT oid AS ztf_id FROM object WHERE ndet > 1")
    assert result_key(aliased) == result_key(plain)


def test_result_key_without_identifier_compares_rows():
    first = _candidate("a", pd.DataFrame({"ndet": [1, 2]}), "SELECT ndet FROM object")
    second = _candidate("b", pd.DataFrame({"ndet": [2, 1]}), "SELECT ndet FROM object")
    third = _candidate("c", pd.DataFrame({"ndet": [3]}), "SELECT ndet FROM object")
    assert result_key(first) == result_key(second) != result_key(third)


def test_vote_rejects_no_candidates():
    with pytest.raises(ValueError, match=r"^vote needs at least one candidate, got none\.$"):
        vote([])
