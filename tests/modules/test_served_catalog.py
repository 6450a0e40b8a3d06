"""Stages offer the model only the tables the engine serves (a TAP service publishes fewer)."""

import dspy

from catalog import load_catalog
from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from lms.fake import fake_lm, render_answer
from modules import AlerceText2SQL
from modules.run.served_catalog import served_catalog


class ServingExecutor(FakeEngine):
    """Accepts every statement and serves only `served` tables."""

    def __init__(self, served):
        self.served = frozenset(served)
        self.asked = 0

    def tables(self):
        self.asked += 1
        return self.served

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        raise ExecutionError(ErrorKind.GENERAL, None, "not run in this test")


def test_served_catalog_keeps_every_table_without_an_engine_or_when_the_engine_serves_all():
    assert served_catalog(None).table_names == load_catalog().table_names
    assert served_catalog(FakeEngine()).table_names == load_catalog().table_names


def test_served_catalog_keeps_only_the_served_tables_in_catalog_order():
    assert served_catalog(ServingExecutor({"probability", "object"})).table_names == ["object", "probability"]


def test_the_program_links_to_the_served_tables_only():
    calls = []

    def answer(call):
        calls.append(call)
        fields = {"tables": {"tables": ["object"]}, "columns": {"columns": {"object": ["oid"]}}}
        return render_answer(fields.get(call.stage, {"sql": ""}))

    program = AlerceText2SQL(ServingExecutor({"object", "probability"}))
    with dspy.context(lm=fake_lm(answer)):
        program(question="Objects?")
    text = next(call for call in calls if call.stage == "tables").inputs["table_catalog"]
    assert "object:" in text and "probability:" in text
    assert "lc_classifier:" not in text and "step:" not in text


def test_the_program_reads_the_served_catalog_once_for_all_its_questions():
    def answer(call):
        fields = {"tables": {"tables": ["object"]}, "columns": {"columns": {"object": ["oid"]}}}
        return render_answer(fields.get(call.stage, {"sql": ""}))

    executor = ServingExecutor({"object", "probability"})
    program = AlerceText2SQL(executor)
    with dspy.context(lm=fake_lm(answer)):
        for question in ("Objects?", "Probabilities?", "Objects again?"):
            program(question=question)
    assert executor.asked == 1
