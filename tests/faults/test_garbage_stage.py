"""The LM answers garbage for one stage of one question: that question gets a typed failure, the run completes."""

import json

import pandas as pd
import pytest

import lms
from evaluation.cli import main as evaluate_main
from evaluation.program_predictions import PREDICTIONS_FILE
from tests.faults.conftest import ScriptedEngine, oracle, scripted_lm, synthetic_csv

GARBAGE = "Sure! Here is what you asked for: \x00\x01 {not json"


@pytest.mark.parametrize(
    ("call_stages", "stage"),
    [({"tables"}, "schema_linking"), ({"difficulty"}, "classification"), ({"direct", "planned"}, "generation")],
    ids=["schema_linking", "classification", "generation"],
)
def test_garbage_for_one_stage_is_a_typed_failure_of_that_question(
    call_stages, stage, tiny_dsn, tmp_path, monkeypatch, capsys
):
    victim = pd.read_csv(synthetic_csv()).iloc[0]
    answer = oracle()

    def answer_or_garbage(call):
        is_victim = call.inputs.get("question", "").strip() == victim.request
        return GARBAGE if is_victim and call.stage in call_stages else answer(call)

    engine = ScriptedEngine(answer_or_garbage)
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: scripted_lm(engine))
    report = tmp_path / "report"
    argv = ["--model", "fake/oracle", "--uncompiled", "--dataset", str(synthetic_csv()), "--dsn", tiny_dsn]
    argv += ["--report", str(report), "--gold-cache", str(tmp_path / "gold"), "-q", "--json"]

    assert evaluate_main(argv) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["items"] == 10
    records = {
        record["req_id"]: record for record in map(json.loads, (report / PREDICTIONS_FILE).read_text().splitlines()[1:])
    }
    assert {(f["stage"], f["kind"]) for f in records[victim.req_id]["failures"]} == {(stage, "parse")}
    assert all(not record["failures"] for req_id, record in records.items() if req_id != victim.req_id)
