"""Masked question similarity: masking, retrieval, the JSON index, and per-question demos in the program."""

import doctest
import json

import dspy
import pytest

import modules.generation.demo_retriever
from lms.fake import fake_lm, render_answer
from modules import AlerceText2SQL, PipelineSettings
from modules.generation.demo_retriever import DemoRetriever, mask_question

TRAIN = [
    dspy.Example(question="Objects classified as SNIa with more than 20 detections", gold_sql="SELECT 1"),
    dspy.Example(question="Light curve of ZTF19abcdefg in the g band", gold_sql="SELECT 2"),
    dspy.Example(question="Objects within 5 arcsec of RA 10h00m00s, Dec +02d00m00s", gold_sql="SELECT 3"),
    dspy.Example(question="Mean magnitude per band of QSO objects", gold_sql="SELECT 4", domain_knowledge="-- hint"),
]


def test_doctests_pass():
    result = doctest.testmod(modules.generation.demo_retriever)
    assert result.attempted >= 4
    assert result.failed == 0


@pytest.mark.parametrize(
    ("question", "masked"),
    [
        ("objects first detected on 3 March 2021", "objects first detected on <DATE>"),
        ("since 2023-09-01 12:00:00 UTC", "since <DATE> UTC"),
        ("SNe Ia from the stamp classifier", "<CLASS> from the <CLASSIFIER>"),
        ("Periodic-Other or LPV by lc_classifier_periodic", "<CLASS> or <CLASS> by <CLASSIFIER>"),
        ("magnitude below -2.5e3 or mjd 59000.5", "magnitude below <NUM> or mjd <NUM>"),
        ("ZTF18aabcdef and ztf20xyzabcd", "<OID> and <OID>"),
        ("detections in the g band", "detections in the g band"),
    ],
)
def test_mask_question(question, masked):
    assert mask_question(question) == masked


def test_retrieval_picks_the_masked_look_alike():
    retriever = DemoRetriever.fit(TRAIN, k=2)
    assert retriever.demos("Objects classified as AGN with more than 5 detections")[0].sql == "SELECT 1"
    assert retriever.demos("Light curve of ZTF21zzzzzzz in the r band")[0].sql == "SELECT 2"
    assert retriever.demos("Objects within 2 arcsec of RA 1h2m3s, Dec -4d5m6s")[0].sql == "SELECT 3"


def test_demos_carry_knowledge_and_never_the_question_itself():
    retriever = DemoRetriever.fit(TRAIN, k=4)
    demos = retriever.demos(TRAIN[3].question)
    assert len(demos) == 3
    assert TRAIN[3].question not in [d.question for d in demos]
    assert DemoRetriever.fit(TRAIN, k=1).demos("Mean magnitude of AGN objects")[0].toDict() == {
        "question": TRAIN[3].question,
        "knowledge": "-- hint",
        "sql": "SELECT 4",
    }


def test_index_round_trips_through_json():
    retriever = DemoRetriever.fit(TRAIN, k=2)
    restored = DemoRetriever.from_state(json.loads(json.dumps(retriever.to_state())))
    question = "Objects classified as QSO with more than 3 detections"
    assert [d.toDict() for d in restored.demos(question)] == [d.toDict() for d in retriever.demos(question)]


def test_empty_trainset_is_refused():
    with pytest.raises(ValueError, match=r"^MQS needs at least one training example.$"):
        DemoRetriever.fit([], k=2)


def test_program_sends_retrieved_demos_to_generation_only():
    program = AlerceText2SQL(settings=PipelineSettings(stages=("schema_linking", "generation")))
    program.demo_retriever = DemoRetriever.fit(TRAIN, k=2)
    answers = {"tables": {"tables": ["object"]}, "columns": {"columns": {"object": ["oid"]}}}
    lm = fake_lm(lambda call: render_answer(answers.get(call.stage, {"sql": "SELECT oid FROM object"})))
    with dspy.context(lm=lm):
        pred = program(question="Objects classified as RRL with more than 9 detections")
    assert pred.sql == "SELECT oid FROM object"
    turns = [len(entry["messages"]) for entry in lm.history]
    assert turns == [2, 2, 2 + 2 * 2]  # system + user; generation adds a user/assistant pair per demo
    assert "SELECT 1" in lm.history[-1]["messages"][2]["content"]
    assert program.generation.direct.demos == []
