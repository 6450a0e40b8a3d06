"""Candidate selection: the vote decides clear cases, a fake LM breaks ties pairwise."""

import dspy
import pandas as pd

from lms.fake import fake_lm, render_answer
from modules.selection import CandidateSelection, result_preview
from modules.vote import Candidate


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
