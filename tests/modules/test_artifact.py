"""Saving and loading artifacts: round trip, ablations, refusals, atomic writes, the committed tiny artifact."""

import json
import logging
import os

import dspy
import pytest

from engines.fake import FakeEngine
from modules import AlerceText2SQL, DirectText2SQL, PipelineSettings
from modules.artifacts.load import (
    MANIFEST_FILE,
    PROGRAM_FILE,
    PROGRAM_VERSION,
    default_artifact_dir,
    load_artifact,
    load_program,
    signature_hash,
)
from modules.errors import ArtifactMismatch, ArtifactNotFound, CatalogMismatch
from modules.generation.demo_retriever import DemoRetriever
from modules.settings import ProgramSettings
from optimizers.errors import CompileError
from optimizers.saving import save_artifact
from tests.optimizers.tiny_artifact import TINY_ARTIFACT_DIR

CODE_HASH = signature_hash(AlerceText2SQL())


def compiled_program() -> AlerceText2SQL:
    """A program as an optimiser leaves it: demos, a rewritten instruction, an LM attached to one stage."""
    program = AlerceText2SQL()
    program.generation.direct.demos = [dspy.Example(question="Objects with many detections", sql="SELECT oid FROM t")]
    predict = program.classification.predict
    predict.signature = predict.signature.with_instructions("Rate the difficulty.")
    program.schema_linking.tables.lm = dspy.LM("openai/gpt-4.1-mini")
    return program


def save(tmp_path, program=None, **manifest):
    program = program or compiled_program()
    return save_artifact(program, tmp_path / "art", {"model": "fake/m", "signature_hash": CODE_HASH, **manifest})


def test_round_trip_restores_demos_and_instructions_without_lms(tmp_path):
    original = compiled_program()
    folder = save(tmp_path, original)
    fresh = AlerceText2SQL()
    manifest = load_artifact(fresh, folder / PROGRAM_FILE)
    assert fresh.generation.direct.demos == [{"question": "Objects with many detections", "sql": "SELECT oid FROM t"}]
    assert fresh.classification.predict.signature.instructions == "Rate the difficulty."
    assert fresh.schema_linking.tables.lm is None
    assert original.schema_linking.tables.lm is not None  # saving cleared LMs only in the file
    assert manifest["program_version"] == PROGRAM_VERSION
    assert manifest["program_class"] == "modules.alerce_text2sql:AlerceText2SQL"
    assert manifest["signature_hash"] == CODE_HASH


@pytest.mark.parametrize("stages", [("generation",), ("schema_linking", "generation"), ("decomposition", "generation")])
def test_artifact_loads_into_ablated_program(tmp_path, stages):
    folder = save(tmp_path, pipeline={"stages": ["schema_linking", "generation"]})
    program, manifest = load_program("fake/m", executor=None, choice=ProgramSettings(artifact=folder, stages=stages))
    assert program.settings.stages == stages
    assert len(program.generation.direct.demos) == 1
    assert manifest["model"] == "fake/m"


def test_load_program_builds_the_manifest_pipeline(tmp_path):
    pipeline = {"stages": ["classification", "generation"], "max_corrections": 1, "timeout_s": 3.0, "reasoning": False}
    folder = save(tmp_path, pipeline=pipeline)
    program, _ = load_program("fake/m", executor=None, choice=ProgramSettings(artifact=folder))
    assert program.settings == PipelineSettings(
        stages=("classification", "generation"), max_corrections=1, timeout_s=3.0
    )


@pytest.mark.parametrize(
    ("key", "value", "difference"),
    [
        ("signature_hash", "0" * 64, f"signature_hash '{'0' * 64}' (saved) vs. '{CODE_HASH}' (code)"),
        ("program_version", 0, f"program_version 0 (saved) vs. {PROGRAM_VERSION} (code)"),
    ],
)
def test_mismatched_manifest_is_refused(tmp_path, key, value, difference):
    folder = save(tmp_path)
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    manifest[key] = value
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest))
    with pytest.raises(ArtifactMismatch) as caught:
        load_artifact(AlerceText2SQL(), folder)
    assert str(caught.value) == (
        f"The artifact '{folder / PROGRAM_FILE}' does not match the code: {difference}. "
        "It was compiled for another version of the program; recompile with python -m compile --model fake/m."
    )
    assert caught.value.differences == [difference]


def test_other_program_class_is_refused(tmp_path):
    folder = save(tmp_path)
    with pytest.raises(ArtifactMismatch, match=r"program_class 'modules.alerce_text2sql:AlerceText2SQL' \(saved\)"):
        load_artifact(DirectText2SQL(), folder)


def test_missing_artifact_path_is_reported(tmp_path):
    with pytest.raises(ArtifactNotFound) as caught:
        load_program("fake/m", executor=None, choice=ProgramSettings(artifact=tmp_path))
    assert str(caught.value) == (
        f"No compiled program at '{tmp_path / PROGRAM_FILE}'; compile one with python -m compile --model MODEL."
    )


def test_no_artifact_for_model_runs_uncompiled_with_warning(caplog):
    model = "fake/never-compiled-model"
    assert not default_artifact_dir(model).exists()
    with caplog.at_level(logging.WARNING, logger="modules.artifacts.load"):
        program, manifest = load_program(model, executor=None)
    assert manifest is None
    assert program.generation.direct.demos == []
    assert caplog.messages == [
        f"no compiled program for {model} on the ztf catalog; running uncompiled — compile one with "
        f"python -m compile --catalog ztf --model {model}"
    ]


def test_the_default_artifact_folder_is_per_model_and_catalog():
    assert default_artifact_dir("local/gemma3-270m").parts[-3:] == ("artifacts", "local-gemma3-270m", "ztf")
    assert default_artifact_dir("openai/gpt-4.1-mini", "multisurvey").parts[-2:] == (
        "openai-gpt-4.1-mini",
        "multisurvey",
    )


class _MultisurveyEngine(FakeEngine):
    catalog = "multisurvey"


def test_an_uncompiled_program_writes_for_its_engines_catalog():
    program, manifest = load_program("fake/never-compiled-model", executor=_MultisurveyEngine())
    assert manifest is None and program.settings.catalog == "multisurvey"
    assert "alerce_tap" in program.generation.direct.signature.instructions


def test_an_artifact_of_one_catalog_refuses_to_load_for_the_other(tmp_path):
    folder = save(tmp_path)
    with pytest.raises(CatalogMismatch) as caught:
        load_program("fake/m", executor=_MultisurveyEngine(), choice=ProgramSettings(artifact=folder))
    assert str(caught.value) == (
        f"The artifact '{folder}' was compiled for the ztf catalog, not multisurvey; use --catalog ztf, "
        "or compile one with python -m compile --catalog multisurvey."
    )


def test_a_program_refuses_an_engine_of_another_catalog():
    with pytest.raises(
        CatalogMismatch, match=r"^The program writes SQL for the ztf catalog, but its engine serves multisurvey\.$"
    ):
        AlerceText2SQL(_MultisurveyEngine())


def test_unwritable_out_dir_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(CompileError, match=f"^Cannot write the artifact to '{blocker / 'art'}': .*Choose a writable"):
        save_artifact(AlerceText2SQL(), blocker / "art", {"model": "fake/m"})


def test_failed_write_leaves_previous_artifact_intact(tmp_path, monkeypatch):
    folder = save(tmp_path)
    before = {name: (folder / name).read_bytes() for name in (PROGRAM_FILE, MANIFEST_FILE)}

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(CompileError, match="No space left on device"):
        save(tmp_path, AlerceText2SQL(), model="fake/other")
    assert {name: (folder / name).read_bytes() for name in before} == before
    assert sorted(path.name for path in folder.iterdir()) == [MANIFEST_FILE, PROGRAM_FILE]


def test_retriever_is_saved_and_restored(tmp_path):
    program = AlerceText2SQL()
    examples = [dspy.Example(question=q, gold_sql=f"SELECT {i}") for i, q in enumerate(["count SNIa", "light curve"])]
    program.demo_retriever = DemoRetriever.fit(examples, k=1)
    folder = save(tmp_path, program)
    fresh, _ = load_program("fake/m", executor=None, choice=ProgramSettings(artifact=folder))
    assert fresh.demo_retriever.to_state() == program.demo_retriever.to_state()


def test_committed_tiny_artifact_keeps_loading():
    program, manifest = load_program("fake/tiny", executor=None, choice=ProgramSettings(artifact=TINY_ARTIFACT_DIR))
    assert manifest["optimizer"] == "labeled"
    assert len(program.generation.direct.demos) == 2
    assert len(program.schema_linking.tables.demos) == 2
    assert program.demo_retriever.k == 2
    assert [demo.sql for demo in program.demo_retriever.demos("Objects with more than 15 detections")][:1] == [
        "SELECT oid FROM object WHERE ndet > 20"
    ]


def test_stages_added_after_an_artifact_load_with_their_code_prompts(tmp_path):
    path = save(tmp_path)
    state = json.loads((path / PROGRAM_FILE).read_text())
    added = ("self_correction.revise", "selection.choose")
    older = {name: value for name, value in state.items() if name not in added}
    (path / PROGRAM_FILE).write_text(json.dumps(older))
    manifest = json.loads((path / MANIFEST_FILE).read_text())
    manifest["signature_hash"] = signature_hash(AlerceText2SQL(), older.keys())
    (path / MANIFEST_FILE).write_text(json.dumps(manifest))
    program = AlerceText2SQL()
    load_artifact(program, path)
    assert program.generation.direct.demos[0]["sql"] == "SELECT oid FROM t"
    assert program.selection.choose.signature.instructions == AlerceText2SQL().selection.choose.signature.instructions
    assert manifest["signature_hash"] != CODE_HASH
