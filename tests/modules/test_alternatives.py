"""When the candidates disagree the prediction carries the runner-up readings; when they agree, none."""

from types import SimpleNamespace

import dspy
import pandas as pd

from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from lms.fake import fake_lm, render_answer
from modules import AlerceText2SQL, PipelineSettings
from modules.selection.alternatives import alternatives

MANY = "SELECT oid FROM object WHERE ndet > 50"
RECENT = "SELECT oid FROM object WHERE ndet > 50 AND firstmjd >= 60188"
BROKEN = "SELECT oid FROM objekt"
RESULTS = {MANY: ["ZTF1", "ZTF2", "ZTF3"], RECENT: ["ZTF3"]}


class TableEngine(FakeEngine):
    """Answers each known statement with its oids; any other fails with a missing relation."""

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        if sql not in RESULTS:
            raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42P01", 'relation "objekt" does not exist')
        return SimpleNamespace(frame=pd.DataFrame({"oid": RESULTS[sql]}), elapsed_s=0.0, truncated=False)


def answer_with(step_by_step_sql: str):
    """Paths default and without_plan write MANY; step_by_step writes `step_by_step_sql`; the selector picks MANY."""

    def answer(call):
        if "choice" in call.output_fields:
            return render_answer({"choice": "first" if call.inputs["first_sql"] == MANY else "second", "reason": "r"})
        if "reasoning" in call.output_fields:
            return render_answer({"reasoning": "r", "sql": step_by_step_sql})
        return render_answer({"sql": MANY})

    return answer


def run(step_by_step_sql: str, *, min_agreement: float):
    settings = PipelineSettings(stages=("generation", "selection"), candidates=3, min_agreement=min_agreement)
    with dspy.context(lm=fake_lm(answer_with(step_by_step_sql))):
        return AlerceText2SQL(TableEngine(), settings)(question="Which objects have more than 50 detections?")


def test_disagreeing_candidates_give_the_runner_up_with_its_rows_and_difference():
    pred = run(RECENT, min_agreement=0.9)  # 2 of 3 agree: below 0.9, so the clusters contend
    assert pred.sql == MANY and pred.selection["disagree"] is True
    assert pred.alternatives == [{"sql": RECENT, "rows": 1, "difference": "adds firstmjd >= 60188", "candidates": [2]}]


def test_agreeing_candidates_give_no_alternatives():
    pred = run(RECENT, min_agreement=0.5)  # 2 of 3 agree: enough to win alone
    assert pred.sql == MANY and pred.selection["disagree"] is False and pred.alternatives == []


def test_a_candidate_that_failed_is_no_alternative():
    pred = run(BROKEN, min_agreement=0.9)  # the vote leaves a failed candidate out: the others agree
    assert pred.sql == MANY and pred.selection["disagree"] is False and pred.alternatives == []


def test_one_candidate_has_no_alternatives():
    settings = PipelineSettings(stages=("generation",))
    with dspy.context(lm=fake_lm(answer_with(RECENT))):
        pred = AlerceText2SQL(TableEngine(), settings)(question="Which objects?")
    assert pred.selection is None and pred.alternatives == []


def test_the_chosen_reading_is_no_alternative_after_its_checks_rewrote_the_sql():
    # The value check turned the selected candidate's 'SN Ia' into 'SNIa': its own cluster is still the answer.
    chosen = "SELECT oid FROM probability WHERE class_name = 'SN Ia'"
    final = "SELECT oid FROM probability WHERE class_name = 'SNIa'"
    other = "SELECT oid FROM probability WHERE class_name = 'SNII'"
    described = [{"sql": chosen, "rows": 5}, {"sql": chosen, "rows": 5}, {"sql": other, "rows": 2}]
    selection = {"selected": 1, "clusters": [[0, 1], [2]], "disagree": True}
    assert [found["sql"] for found in alternatives(final, described, selection)] == [other]
