"""MIPROv2 and GEPA compile end to end on the tiny database with fake LMs (offline, small budgets)."""

import inspect
import json

import dspy
import pytest

import db.engine
import optimizers.cli as cli
from engines.fake import FakeEngine
from engines.outage import OutageGuard
from lms.fake import fake_lm
from lms.usage import UsageTotals
from metric.gold_cache import GoldCache
from modules import AlerceText2SQL, PipelineSettings
from modules.artifacts.load import MANIFEST_FILE, PROGRAM_FILE, load_artifact, load_program, signature_hash
from modules.settings import ProgramSettings
from optimizers.run import _metered_feedback, compile_program
from optimizers.saving import save_artifact
from optimizers.settings import CompileSettings
from tests.optimizers.compile_helpers import (
    MAGIC_INSTRUCTION,
    SYNTHETIC_CSV,
    gated_lm,
    generic_answer,
    reflection_lm,
    synthetic_examples,
)

QUESTIONS = (
    "List the objects with more than 20 detections",
    "Objects ranked first as AGN with more than 10 detections",
)


def answers(program, lm):
    with dspy.context(lm=lm):
        return [program(question=q).sql for q in QUESTIONS]


def instructions(program) -> dict[str, str]:
    return {name: predictor.signature.instructions for name, predictor in program.named_predictors()}


def compile_and_reload(settings, executor, tmp_path, lm, **kwargs):
    """Compile, save, load into a fresh program; return (compiled, report, fresh)."""
    compiled, report = compile_program(
        settings,
        synthetic_examples(),
        executor=executor,
        gold_cache=GoldCache(executor, cache_dir=tmp_path),
        lm=lm,
        **kwargs,
    )
    save_artifact(compiled, tmp_path / "artifact", report)
    fresh = AlerceText2SQL(executor, PipelineSettings())
    load_artifact(fresh, tmp_path / "artifact")
    return compiled, report, fresh


def test_mipro_compiles_and_reloads(executor, tmp_path):
    settings = CompileSettings(model="fake/gated", optimizer="mipro", num_threads=2, trials=2, max_labeled_demos=1)
    lm = gated_lm()
    compiled, report, fresh = compile_and_reload(settings, executor, tmp_path, lm)
    scores = report["scores"]
    assert scores["heldout_pm_before"] == 0.0
    assert scores["heldout_pm_after"] > scores["heldout_pm_before"]  # the gated LM answers right only with demos
    assert any(predictor.demos for name, predictor in compiled.named_predictors() if name.startswith("generation"))
    assert report["optimizer"] == "mipro"
    assert report["usage"]["per_model"]["fake/gated"]["input_tokens"] > 0
    assert answers(fresh, lm) == answers(compiled, lm)
    assert instructions(fresh) == instructions(compiled)


def test_gepa_rewrites_instructions_and_reloads(executor, tmp_path):
    settings = CompileSettings(
        model="fake/gated", optimizer="gepa", num_threads=2, trials=12, reflection_model="fake/reflection"
    )
    lm, reflection = gated_lm(), reflection_lm()
    compiled, report, fresh = compile_and_reload(settings, executor, tmp_path, lm, reflection_lm=reflection)
    scores = report["scores"]
    assert scores["heldout_pm_before"] == 0.0
    assert scores["heldout_pm_after"] > 0.0
    changed = {name for name, text in instructions(compiled).items() if MAGIC_INSTRUCTION in text}
    assert any(name.startswith("generation") for name in changed), changed
    assert instructions(fresh) == instructions(compiled)
    assert answers(fresh, lm) == answers(compiled, lm)
    assert report["usage"]["per_model"]["fake/scripted"]["input_tokens"] > 0  # the reflection LM's calls
    # The reflection LM reads the feedback metric's text: per predictor (the stage line) and for the whole program.
    reflected = [m["content"] for entry in reflection.history for m in entry["messages"] if m["role"] == "user"]
    assert reflected
    assert any('"Feedback": "Tables needed: ' in text for text in reflected)
    assert all("The expected query was: " in text for text in reflected)
    # The hash comes from the code-built program, so reloading (which checks it) passes though instructions changed.
    built = AlerceText2SQL(executor, PipelineSettings())
    manifest = json.loads((tmp_path / "artifact" / MANIFEST_FILE).read_text())
    assert manifest["signature_hash"] == report["signature_hash"] == signature_hash(built)
    assert signature_hash(compiled) != signature_hash(built)


def test_gepa_feedback_forwards_every_argument_and_counts_usage_once_per_prediction():
    calls, usage = [], UsageTotals()
    metered = _metered_feedback(lambda *args: calls.append(args) or "scored", usage, OutageGuard(FakeEngine()))
    pred = dspy.Prediction(sql="SELECT 1", usage={"generation": {"input_tokens": 5, "output_tokens": 2, "calls": 1}})
    assert list(inspect.signature(metered).parameters) == ["gold", "pred", "trace", "pred_name", "pred_trace"]
    assert metered("gold", pred) == "scored"
    assert metered("gold", pred, "trace", "generation.planned", "pred_trace") == "scored"
    assert calls == [("gold", pred, None, None, None), ("gold", pred, "trace", "generation.planned", "pred_trace")]
    assert usage.as_dict() == {"generation": {"input_tokens": 5, "output_tokens": 2, "calls": 1}}


def test_gepa_without_reflection_model_is_refused(executor, tmp_path):
    from optimizers.errors import CompileError

    settings = CompileSettings(model="fake/gated", optimizer="gepa", num_threads=2, trials=1)
    with pytest.raises(CompileError, match="reflection"):
        compile_program(
            settings,
            synthetic_examples(),
            executor=executor,
            gold_cache=GoldCache(executor, cache_dir=tmp_path),
            lm=gated_lm(),
        )


def test_mipro_proposes_with_the_reflection_model_when_given(executor, tmp_path):
    settings = CompileSettings(
        model="fake/gated", optimizer="mipro", num_threads=2, trials=1, reflection_model="fake/scripted"
    )
    lm, proposer = gated_lm(), fake_lm(generic_answer)
    compile_program(
        settings,
        synthetic_examples(),
        executor=executor,
        gold_cache=GoldCache(executor, cache_dir=tmp_path),
        lm=lm,
        reflection_lm=proposer,
    )
    assert proposer.engine_obj.calls
    assert all("question" not in call.input_fields for call in proposer.engine_obj.calls)
    task_systems = [entry["messages"][0]["content"] for entry in lm.history]
    assert not any("proposed_instruction" in system for system in task_systems)


@pytest.fixture
def cli_backends(monkeypatch, tiny_dsn, tmp_path):
    """Point the CLI at the tiny database, the gated task LM, a fake reflection LM and per-test caches."""
    lms = {"fake/gated": gated_lm(), "fake/reflection": reflection_lm()}
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setattr(cli, "resolve_lm", lambda model: lms[model])
    monkeypatch.setattr(db.engine, "resolve_dsn", lambda dsn, ground=None, **_: tiny_dsn)
    monkeypatch.setattr(cli, "GoldCache", lambda executor: GoldCache(executor, cache_dir=tmp_path / "gold"))
    return lms


@pytest.mark.parametrize(
    "extra",
    [
        ["--optimizer", "mipro", "--trials", "2"],
        ["--optimizer", "gepa", "--trials", "12", "--reflection-model", "fake/reflection"],
    ],
    ids=["mipro", "gepa"],
)
def test_cli_compiles_and_the_artifact_loads(extra, cli_backends, tmp_path, capsys):
    out = tmp_path / "artifact"
    argv = ["--model", "fake/gated", *extra, "--dataset", str(SYNTHETIC_CSV), "--out", str(out), "-q"]
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == f"{out}\n"
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert manifest["optimizer"] == extra[1]
    assert manifest["scores"]["heldout_pm_after"] > manifest["scores"]["heldout_pm_before"]
    _, loaded = load_program("fake/gated", executor=None, choice=ProgramSettings(artifact=out / PROGRAM_FILE))
    assert loaded == manifest
