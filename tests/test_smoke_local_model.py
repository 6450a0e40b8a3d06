"""End-to-end smoke test: the real default local model answers one question with the committed default artifact.

Runs in the default selection (CI): llama.cpp, the shipped GGUF weights and the committed artifact must work on a
fresh clone. The SQL of a tiny model is not checked for correctness, only that the pipeline completed; its speed is
measured by `python -m benchmarks.local_lm_pipeline`, not asserted here (a loaded machine is slower, not wrong).
"""

from answering import Answer, load
from engines import EngineSettings
from lms import DEFAULT_LOCAL_MODEL
from modules.artifact import MANIFEST_FILE, PROGRAM_FILE, default_artifact_dir

QUESTION = "How many objects are classified as SNIa by the light-curve classifier?"


def test_default_local_model_answers_one_question_with_the_committed_artifact(tiny_dsn):
    artifact = default_artifact_dir(DEFAULT_LOCAL_MODEL)
    assert (artifact / PROGRAM_FILE).is_file() and (artifact / MANIFEST_FILE).is_file()
    with load(engine=EngineSettings(dsn=tiny_dsn)) as t2s:
        assert t2s.manifest is not None and t2s.manifest["model"] == DEFAULT_LOCAL_MODEL
        answer = t2s.ask(QUESTION)

    assert isinstance(answer, Answer)
    assert answer.sql.strip(), f"no SQL produced: {answer.error}"
    assert answer.attempts, "the SQL never reached the guard and executor"
    assert answer.attempts[0]["sql"].strip()
    assert answer.usage["generation"]["calls"] >= 1  # tests run with DSPy's caches off (conftest)
    if answer.is_answered:
        assert answer.error is None and answer.frame is not None
    else:
        assert answer.error.startswith("could not answer") and answer.error_kind
