"""End-to-end smoke test: the real default local model answers one question with each catalog's committed artifact.

Runs in the default selection (CI): llama.cpp, the shipped GGUF weights and the committed artifact must work on a
fresh clone. The SQL of a tiny model is not checked for correctness, only that the pipeline completed; its speed is
measured by `python -m benchmarks.local_lm_pipeline`, not asserted here (a loaded machine is slower, not wrong).
"""

import pytest

from answering import Answer, load
from engines import EngineSettings
from lms import DEFAULT_LOCAL_MODEL
from modules.artifacts.load import MANIFEST_FILE, PROGRAM_FILE, default_artifact_dir

QUESTIONS = {
    "ztf": "How many objects are classified as SNIa by the light-curve classifier?",
    "multisurvey": "How many LSST objects have more than 10 detections?",
}


@pytest.mark.parametrize("catalog", sorted(QUESTIONS))
def test_default_local_model_answers_one_question_with_the_committed_artifact(catalog, request):
    artifact = default_artifact_dir(DEFAULT_LOCAL_MODEL, catalog)
    assert (artifact / PROGRAM_FILE).is_file() and (artifact / MANIFEST_FILE).is_file()
    dsn = request.getfixturevalue("tiny_dsn" if catalog == "ztf" else "multisurvey_dsn")
    with load(engine=EngineSettings(dsn=dsn, catalog=catalog)) as t2s:
        assert t2s.manifest is not None and t2s.manifest["model"] == DEFAULT_LOCAL_MODEL
        assert t2s.manifest["catalog"] == catalog
        answer = t2s.ask(QUESTIONS[catalog])

    assert isinstance(answer, Answer)
    assert answer.sql.strip(), f"no SQL produced: {answer.error}"
    assert answer.attempts, "the SQL never reached the guard and executor"
    assert answer.attempts[0]["sql"].strip()
    assert answer.usage["generation"]["calls"] >= 1  # tests run with DSPy's caches off (conftest)
    if answer.is_answered:
        assert answer.error is None and answer.frame is not None
    else:
        assert answer.error.startswith("could not answer") and answer.error_kind
