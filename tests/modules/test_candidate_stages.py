"""Candidates, selection, value check and result check as stages of `AlerceText2SQL`, with fake LMs and executors."""

import threading
import time
from types import SimpleNamespace
from typing import get_args

import dspy
import pandas as pd
import pytest

from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from engines.forwarding import ForwardingEngine
from lms.fake import fake_lm, render_answer
from modules import AlerceText2SQL, PipelineSettings
from modules.run.findings import FindingKind
from modules.selection.candidates import SAMPLING_TEMPERATURE, candidate_paths
from modules.settings import default_candidates
from modules.value_check.stage import ValueCheck
from modules.value_check.vocabulary import Vocabulary
from signatures import FINDING_KINDS

GENERATION_ONLY = ("generation", "selection")


class TableExecutor(FakeEngine):
    """Answers each statement from a table of results; unknown statements fail with a missing column."""

    def __init__(self, results: dict[str, list[str]]) -> None:
        self.results = results
        self.statements: list[str] = []

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        self.statements.append(sql)
        if sql not in self.results:
            raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42703", 'column "x" does not exist')
        return SimpleNamespace(frame=pd.DataFrame({"oid": self.results[sql]}), elapsed_s=0.0, truncated=False)


def is_revision(call) -> bool:
    return "finding_kind" in call.input_fields


def is_choice(call) -> bool:
    return "choice" in call.output_fields


def run(program, lm, question="Which objects are SNe?"):
    with dspy.context(lm=lm):
        return program(question=question)


def test_paths_differ_in_plan_reasoning_demos_and_sampling():
    paths = candidate_paths(4)
    assert [(p.use_plan, p.step_by_step, p.demos) for p in paths] == [
        (True, False, "default"),
        (False, False, "default"),
        (True, True, "default"),
        (True, False, "other"),
    ]
    assert paths[0].config == {}
    assert [p.config["rollout_id"] for p in paths[1:]] == [1, 2, 3]
    assert {p.config["temperature"] for p in paths[1:]} == {SAMPLING_TEMPERATURE}


def test_default_candidates_four_from_a_provider_one_in_process():
    assert default_candidates(dspy.LM("openai/gpt-4.1-mini")) == 4
    assert default_candidates(fake_lm(lambda call: "")) == 1
    assert default_candidates(None) == 1


def test_candidates_run_concurrently_and_the_majority_result_wins():
    barrier = threading.Barrier(4, timeout=10)  # breaks unless all four generations are in flight at once
    answers = iter(["SELECT 'a' AS oid", "SELECT 'b' AS oid", "SELECT 'b2' AS oid", "SELECT 'c' AS oid"])
    lock = threading.Lock()

    def answer(call):
        barrier.wait()
        with lock:
            sql = next(answers)
        return render_answer({"reasoning": "r", "sql": sql} if "reasoning" in call.output_fields else {"sql": sql})

    executor = TableExecutor({"SELECT 'a' AS oid": ["a"], "SELECT 'b' AS oid": ["b"], "SELECT 'b2' AS oid": ["b"],
                              "SELECT 'c' AS oid": ["c"]})  # fmt: skip
    program = AlerceText2SQL(executor, PipelineSettings(stages=GENERATION_ONLY, candidates=4))
    pred = run(program, fake_lm(answer))
    assert pred.result.frame["oid"].tolist() == ["b"]
    assert sorted(len(cluster) for cluster in pred.selection["clusters"]) == [1, 1, 2]
    assert [c["path"] for c in pred.candidates] == ["default", "without_plan", "step_by_step", "other_demos"]
    assert pred.usage["generation"]["calls"] == 4
    assert "selection" not in pred.usage


def test_a_tie_goes_to_the_pairwise_selector():
    def answer(call):
        if is_choice(call):
            first_is_b = "'b'" in call.inputs["first_sql"]
            return render_answer({"choice": "first" if first_is_b else "second", "reason": "b fits"})
        sql = "SELECT 'b' AS oid" if "reasoning" in call.output_fields else "SELECT 'a' AS oid"
        return render_answer({"reasoning": "r", "sql": sql} if "reasoning" in call.output_fields else {"sql": sql})

    executor = TableExecutor({"SELECT 'a' AS oid": ["a"], "SELECT 'b' AS oid": ["b"]})
    program = AlerceText2SQL(executor, PipelineSettings(stages=GENERATION_ONLY, candidates=3))
    pred = run(program, fake_lm(answer))
    # Paths default and without_plan write 'a', step_by_step writes 'b': 2 of 3 agree, enough for the vote alone
    # at min_agreement 0.5; at 0.9 the clusters meet in the pairwise selector.
    assert pred.result.frame["oid"].tolist() == ["a"]
    strict = AlerceText2SQL(executor, PipelineSettings(stages=GENERATION_ONLY, candidates=3, min_agreement=0.9))
    pred = run(strict, fake_lm(answer))
    assert pred.result.frame["oid"].tolist() == ["b"]
    assert pred.selection["reasons"] == ["b fits"]
    assert pred.usage["selection"]["calls"] == 1


def test_a_failed_candidate_loses_to_one_with_rows():
    def answer(call):
        sql = "SELECT 'a' AS oid" if "reasoning" in call.output_fields else "SELECT broken"
        return render_answer({"reasoning": "r", "sql": sql} if "reasoning" in call.output_fields else {"sql": sql})

    executor = TableExecutor({"SELECT 'a' AS oid": ["a"]})
    program = AlerceText2SQL(executor, PipelineSettings(stages=GENERATION_ONLY, candidates=3))
    pred = run(program, fake_lm(answer))
    assert pred.sql == "SELECT 'a' AS oid"
    assert [c["error_kind"] for c in pred.candidates] == ["missing_structure", "missing_structure", None]


def test_without_selection_one_candidate_is_written():
    lm = fake_lm(lambda call: render_answer({"sql": "SELECT 'a' AS oid"}))
    program = AlerceText2SQL(TableExecutor({"SELECT 'a' AS oid": ["a"]}), PipelineSettings(stages=(), candidates=4))
    pred = run(program, lm)
    assert len(lm.engine_obj.calls) == 1
    assert pred.selection is None
    assert len(pred.candidates) == 1


VOCABULARY = Vocabulary(
    {("probability", "class_name"): frozenset({"SNIa", "SNII"}), ("probability", "ranking"): frozenset({"1", "2"})},
    {("probability", "lc_classifier", "1.0"): frozenset({"SNIa", "SNII"})},
)
UNKNOWN = "SELECT oid FROM probability WHERE class_name = 'SN Ia'"
KNOWN = "SELECT oid FROM probability WHERE class_name = 'SNIa'"


def value_checked(answer_revision, stages=("schema_linking", "value_check")):
    prompts, revisions = [], []

    def answer(call):
        if is_revision(call):
            revisions.append(call.inputs)
            return render_answer({"sql": answer_revision})
        if "tables" in call.output_fields:
            return render_answer({"tables": ["probability"]})
        if "columns" in call.output_fields:
            return render_answer({"columns": {"probability": ["oid", "class_name"]}})
        prompts.append(call.inputs["schema_text"])
        return render_answer({"sql": UNKNOWN})

    program = AlerceText2SQL(TableExecutor({KNOWN: ["ZTF1"]}), PipelineSettings(stages=stages))
    program.values = ValueCheck(VOCABULARY)
    return run(program, fake_lm(answer)), prompts, revisions


def test_the_generation_prompt_lists_the_values_of_linked_columns():
    _, prompts, _ = value_checked(KNOWN)
    assert "probability.class_name of lc_classifier 1.0: 'SNII', 'SNIa'" in prompts[0]
    assert "probability.ranking" not in prompts[0]  # not a linked column


def test_an_unknown_value_is_revised_with_the_closest_values():
    pred, _, revisions = value_checked(KNOWN)
    assert pred.sql == KNOWN
    assert pred.result.frame["oid"].tolist() == ["ZTF1"]
    assert revisions[0]["finding_kind"] == "unknown_value"
    assert "closest: 'SNIa'" in revisions[0]["finding"]
    assert pred.findings[0]["kind"] == "unknown_value"
    assert pred.usage["value_check"]["calls"] == 1


def test_a_revision_that_keeps_the_unknown_value_gets_the_closest_one():
    pred, _, _ = value_checked(UNKNOWN)
    assert pred.sql == KNOWN


def test_without_value_check_no_values_and_no_revision():
    pred, prompts, revisions = value_checked(KNOWN, stages=("schema_linking",))
    assert "Values of categorical columns" not in prompts[0]
    assert revisions == []
    assert pred.sql == UNKNOWN


EMPTY = "SELECT oid FROM object WHERE ndet > 1000"


@pytest.mark.parametrize(
    ("revised", "accepted"),
    [("SELECT oid FROM object WHERE ndet > 10", True), ("SELECT oid FROM object WHERE ndet > 2000", False)],
    ids=["retry with rows kept", "retry still empty dropped"],
)
def test_an_empty_result_gets_one_targeted_retry(revised, accepted):
    seen = []

    def answer(call):
        if is_revision(call):
            seen.append((call.inputs["finding_kind"], call.inputs["checked_sql"]))
            return render_answer({"sql": revised})
        return render_answer({"sql": EMPTY})

    executor = TableExecutor(
        {EMPTY: [], "SELECT oid FROM object WHERE ndet > 10": ["ZTF1"], "SELECT oid FROM object WHERE ndet > 2000": []}
    )
    pred = run(AlerceText2SQL(executor, PipelineSettings(stages=("result_check",))), fake_lm(answer))
    assert seen == [("empty_result", EMPTY)]
    assert pred.sql == (revised if accepted else EMPTY)
    assert pred.findings == [
        {"stage": "result_check", "kind": "empty_result", "message": pred.findings[0]["message"],
         "retry_accepted": accepted}
    ]  # fmt: skip
    assert [a["sql"] for a in pred.attempts] == ([EMPTY, revised] if accepted else [EMPTY])


def test_without_result_check_an_empty_result_stands():
    lm = fake_lm(lambda call: render_answer({"sql": EMPTY}))
    pred = run(AlerceText2SQL(TableExecutor({EMPTY: []}), PipelineSettings(stages=())), lm)
    assert len(lm.engine_obj.calls) == 1
    assert pred.findings == []


def test_only_the_selected_candidate_reaches_the_callers_trace():
    def answer(call):
        sql = "SELECT 'b' AS oid" if "reasoning" in call.output_fields else "SELECT 'a' AS oid"
        return render_answer({"reasoning": "r", "sql": sql} if "reasoning" in call.output_fields else {"sql": sql})

    executor = TableExecutor({"SELECT 'a' AS oid": ["a"], "SELECT 'b' AS oid": ["b"]})
    program = AlerceText2SQL(executor, PipelineSettings(stages=GENERATION_ONLY, candidates=3))
    with dspy.context(lm=fake_lm(answer), trace=[]):
        program(question="Which objects?")
        trace = dspy.settings.trace
    # Optimizers bootstrap demos from the trace: the losing step_by_step candidate ('b') must not become one.
    assert [outputs.sql for _, _, outputs in trace] == ["SELECT 'a' AS oid"]


def test_the_revision_prompt_knows_every_finding_kind():
    assert get_args(FINDING_KINDS) == tuple(kind.value for kind in FindingKind)


class PooledExecutor(FakeEngine):
    """Counts the statements running at once; it has one pooled connection."""

    concurrency = 1

    def __init__(self) -> None:
        self.running = self.most_running = 0
        self.lock = threading.Lock()

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        with self.lock:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        time.sleep(0.05)
        with self.lock:
            self.running -= 1
        return SimpleNamespace(frame=pd.DataFrame({"oid": [sql]}), elapsed_s=0.0, truncated=False)


def test_candidates_never_run_more_statements_than_the_pool_has_connections():
    pooled = PooledExecutor()
    wrapper = ForwardingEngine(pooled)  # the bound is found through a wrapping engine
    assert wrapper.concurrency == 1
    lm = fake_lm(lambda call: render_answer({"reasoning": "r", "sql": "SELECT 1"}))
    program = AlerceText2SQL(wrapper, PipelineSettings(stages=GENERATION_ONLY, candidates=4))
    run(program, lm)
    assert pooled.most_running == 1


def test_bootstrapping_gives_the_pairwise_selector_demos():
    def answer(call):
        if is_choice(call):
            return render_answer({"choice": "first" if "'b'" in call.inputs["first_sql"] else "second", "reason": "b"})
        sql = "SELECT 'b' AS oid" if "reasoning" in call.output_fields else "SELECT 'a' AS oid"
        return render_answer({"reasoning": "r", "sql": sql} if "reasoning" in call.output_fields else {"sql": sql})

    def picked_b(example, pred, trace=None):
        return pred.result is not None and pred.result.frame["oid"].tolist() == ["b"]

    executor = TableExecutor({"SELECT 'a' AS oid": ["a"], "SELECT 'b' AS oid": ["b"]})
    settings = PipelineSettings(stages=GENERATION_ONLY, candidates=3, min_agreement=0.9)
    optimizer = dspy.BootstrapFewShot(metric=picked_b, max_bootstrapped_demos=1, max_labeled_demos=0)
    with dspy.context(lm=fake_lm(answer)):
        compiled = optimizer.compile(
            AlerceText2SQL(executor, settings),
            trainset=[dspy.Example(question="Which objects?").with_inputs("question")],
        )
    [demo] = compiled.selection.choose.demos
    assert (demo.choice, demo.second_sql) == ("second", "SELECT 'b' AS oid")
