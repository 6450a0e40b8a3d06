"""Candidate selection: the vote decides clear cases, a fake LM breaks ties pairwise."""

import dspy
import pandas as pd

from lms.fake import fake_lm, render_answer
from modules.selection.stage import CandidateSelection, result_preview
from modules.selection.vote import Candidate


def _candidate(id_: str, oids: list[str] | None) -> Candidate:
    return Candidate(id_, f"SELECT oid FROM object -- {id_}", None if oids is None else pd.DataFrame({"oid": oids}))


def test_selection_takes_the_largest_cluster_without_calling_the_lm():
    lm = fake_lm(lambda call: render_answer({"choice": "second", "reason": "unused"}))
    with dspy.context(lm=lm):
        prediction = CandidateSelection()(
            "q", "", [_candidate("a", ["ZTF1"]), _candidate("b", ["ZTF1"]), _candidate("c", ["ZTF2"])]
        )
    assert prediction.candidate.id == "a"
    assert lm.history == []


def test_selection_breaks_ties_with_the_pairwise_choice():
    seen = []

    def answer(call):
        seen.append((call.inputs["first_sql"], call.inputs["second_sql"], call.inputs["second_result"]))
        return render_answer({"choice": "second", "reason": "it filters on the class"})

    with dspy.context(lm=fake_lm(answer)):
        prediction = CandidateSelection()(
            "Which SNe?", "", [_candidate("a", ["ZTF1"]), _candidate("b", ["ZTF2"]), _candidate("e", None)]
        )
    assert prediction.candidate.id == "b"
    assert prediction.reasons == ["it filters on the class"]
    assert seen == [("SELECT oid FROM object -- a", "SELECT oid FROM object -- b", "1 rows; columns: oid\nZTF2")]


def test_result_preview_of_an_empty_result():
    assert result_preview(pd.DataFrame({"oid": []})) == "no rows; columns: oid"


def _tournament(beats: dict[tuple[str, str], str | None]):
    """Run selection over clusters a (two candidates), b and c, which the vote leaves contending; ``beats`` maps each
    pair of representatives (larger cluster first) to the winner, or to None for an answer that cannot be read."""
    candidates = [_candidate("a1", ["ZTF1"]), _candidate("a2", ["ZTF1"]), _candidate("b", ["ZTF2"])]
    candidates.append(_candidate("c", ["ZTF3"]))

    def answer(call):
        first, second = (call.inputs[f"{side}_sql"].rsplit("-- ", 1)[1] for side in ("first", "second"))
        winner = beats[(first, second)]
        if winner is None:
            return "I cannot decide."
        return render_answer({"choice": "first" if winner == first else "second", "reason": f"{winner} is right"})

    with dspy.context(lm=fake_lm(answer)):
        return CandidateSelection()("q", "", candidates, min_agreement=0.9)  # 2 of 4 agree: every cluster contends


def test_a_tie_in_wins_goes_to_the_larger_cluster():
    # Each representative beats one other: one win each, and a's two agreeing candidates decide.
    prediction = _tournament({("a1", "b"): "a1", ("b", "c"): "b", ("a1", "c"): "c"})
    assert prediction.candidate.id == "a1" and prediction.disagree


def test_a_comparison_that_failed_is_a_win_for_neither_side():
    # b beats a, c beats b, and a against c cannot be read: b and c have one win each, a none; b comes first.
    prediction = _tournament({("a1", "b"): "b", ("b", "c"): "c", ("a1", "c"): None})
    assert prediction.candidate.id == "b"
    assert len(prediction.failures) == 1 and len(prediction.reasons) == 2
