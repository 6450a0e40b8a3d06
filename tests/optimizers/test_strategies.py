"""Compile strategies on the tiny database with a demo-sensitive fake LM, and the train/validation split."""

from collections import Counter

import dspy
import pytest

from compiling.run import compile_program
from evaluation.gold_cache import GoldCache
from modules import AlerceText2SQL, PipelineSettings
from optimizers.artifact import load_artifact, save_artifact
from optimizers.settings import CompileSettings
from optimizers.strategies import STRATEGIES, split_examples
from tests.optimizers.compile_helpers import gated_lm, synthetic_examples

QUESTIONS = (
    "List the objects with more than 20 detections",
    "Objects ranked first as AGN with more than 10 detections",
    "Objects ranked first as RRL whose r band mean magnitude is brighter than 19",
)


def test_strategy_names_are_the_cli_choices():
    assert tuple(STRATEGIES) == ("random-search", "mipro", "gepa", "labeled", "none", "mqs")


def test_split_is_stratified_disjoint_and_deterministic():
    examples = synthetic_examples()
    train, validation = split_examples(examples, 0.4, seed=3)
    assert {e.req_id for e in train}.isdisjoint({e.req_id for e in validation})
    assert len(train) + len(validation) == len(examples)
    assert Counter(e.difficulty for e in train) == {"simple": 2, "medium": 1, "advanced": 1}
    again, _ = split_examples(examples, 0.4, seed=3)
    assert [e.req_id for e in again] == [e.req_id for e in train]


def answers(program, lm):
    with dspy.context(lm=lm):
        return [program(question=q).sql for q in QUESTIONS]


@pytest.mark.parametrize(
    ("optimizer", "extra"),
    [("labeled", {"k": 2}), ("random-search", {"trials": 1, "max_labeled_demos": 1}), ("mqs", {"k": 2})],
)
def test_compile_gains_and_reloads_to_identical_predictions(optimizer, extra, executor, tmp_path):
    settings = CompileSettings(model="fake/gated", optimizer=optimizer, num_threads=2, **extra)
    lm = gated_lm()
    compiled, report = compile_program(
        settings, synthetic_examples(), executor=executor, gold_cache=GoldCache(executor, cache_dir=tmp_path), lm=lm
    )
    scores = report["scores"]
    assert scores["validation_pm_before"] == 0.0
    assert scores["validation_pm_after"] > 0.5
    assert report["usage"]["per_model"]["fake/gated"]["input_tokens"] > 0
    assert report["usage"]["per_model"]["fake/gated"]["cost_usd"] is None
    assert report["usage"]["per_stage"]["generation"]["calls"] > 0
    save_artifact(compiled, tmp_path / "artifact", report)
    fresh = AlerceText2SQL(executor, PipelineSettings())
    load_artifact(fresh, tmp_path / "artifact")
    assert answers(fresh, lm) == answers(compiled, lm)
    assert answers(AlerceText2SQL(executor), lm) != answers(compiled, lm)
