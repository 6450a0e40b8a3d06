"""Compile strategies on the tiny database with a demo-sensitive fake LM, and the train/validation/held-out split."""

from collections import Counter
from itertools import combinations

import dspy
import pytest

import optimizers.run
from metric.gold_cache import GoldCache
from modules import AlerceText2SQL, PipelineSettings
from modules.artifacts.load import load_artifact
from optimizers.errors import CompileError
from optimizers.run import compile_program
from optimizers.saving import save_artifact
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


def ids(examples):
    return [example.req_id for example in examples]


def test_split_is_three_disjoint_stratified_deterministic_parts():
    examples = synthetic_examples()
    train, validation, heldout = split_examples(examples, 0.4, seed=3)
    parts = [set(ids(part)) for part in (train, validation, heldout)]
    assert all(a.isdisjoint(b) for a, b in combinations(parts, 2))
    assert sorted(ids(train + validation + heldout)) == sorted(ids(examples))
    assert Counter(e.difficulty for e in train) == {"simple": 2, "medium": 1, "advanced": 1}
    assert Counter(e.difficulty for e in validation) == {"simple": 1, "medium": 1, "advanced": 1}
    assert Counter(e.difficulty for e in heldout) == {"simple": 1, "medium": 1, "advanced": 1}
    again = split_examples(examples, 0.4, seed=3)
    assert [ids(part) for part in again] == [ids(train), ids(validation), ids(heldout)]


def test_a_strategy_that_does_not_select_holds_out_all_the_rest():
    examples = synthetic_examples()
    train, validation, heldout = split_examples(examples, 0.4, seed=3, selects=False)
    assert validation == []
    assert ids(train) == ids(split_examples(examples, 0.4, seed=3)[0])
    assert sorted(ids(train + heldout)) == sorted(ids(examples))


def test_too_few_examples_to_hold_any_out_is_an_error():
    one_per_difficulty = list({example.difficulty: example for example in synthetic_examples()}.values())
    with pytest.raises(CompileError, match="leave no held-out questions"):
        split_examples(one_per_difficulty, 0.9, seed=0, selects=False)
    with pytest.raises(CompileError, match="leave no validation questions"):
        split_examples(one_per_difficulty, 0.4, seed=0)


def test_compile_scores_only_questions_it_drew_no_demo_from_and_did_not_select_on(executor, tmp_path, monkeypatch):
    scored, shown = [], {}
    evaluate_pm = optimizers.run.evaluate_pm
    random_search = STRATEGIES["random-search"]

    def scoring(program, examples, metric, num_threads):
        scored.append(ids(examples))
        return evaluate_pm(program, examples, metric, num_threads)

    def optimizing(student, train, validation, context):
        shown.update(train=ids(train), validation=ids(validation))
        return random_search(student, train, validation, context)

    monkeypatch.setattr(optimizers.run, "evaluate_pm", scoring)
    monkeypatch.setitem(STRATEGIES, "random-search", optimizing)
    settings = CompileSettings(model="fake/gated", optimizer="random-search", trials=1, max_labeled_demos=1)
    compiled, report = compile_program(
        settings, synthetic_examples(), executor=executor, gold_cache=GoldCache(executor, cache_dir=tmp_path),
        lm=gated_lm(),
    )  # fmt: skip
    split = report["split"]
    assert scored == [split["heldout_req_ids"]] * 2
    assert shown == {"train": split["train_req_ids"], "validation": split["validation_req_ids"]}
    assert set(split["heldout_req_ids"]).isdisjoint(split["train_req_ids"] + split["validation_req_ids"])
    question_of = {example.req_id: example.question for example in synthetic_examples()}
    demo_questions = {demo.question for predictor in compiled.predictors() for demo in predictor.demos}
    assert demo_questions and demo_questions <= {question_of[req_id] for req_id in split["train_req_ids"]}
    assert report["scores"]["heldout_pm_after"] > report["scores"]["heldout_pm_before"]


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
    assert scores["heldout_pm_before"] == 0.0
    assert scores["heldout_pm_after"] > 0.5
    assert report["usage"]["per_model"]["fake/gated"]["input_tokens"] > 0
    assert report["usage"]["per_model"]["fake/gated"]["cost_usd"] is None
    assert report["usage"]["per_stage"]["generation"]["calls"] > 0
    save_artifact(compiled, tmp_path / "artifact", report)
    fresh = AlerceText2SQL(executor, PipelineSettings())
    load_artifact(fresh, tmp_path / "artifact")
    assert answers(fresh, lm) == answers(compiled, lm)
    assert answers(AlerceText2SQL(executor), lm) != answers(compiled, lm)


def test_compile_settings_take_the_model_default_adapter_unless_given():
    assert CompileSettings(model="openai/gpt-4.1-mini").adapter == "compact"
    assert CompileSettings(model="local/gemma3-270m").adapter == "chat"
    assert CompileSettings(model="openai/gpt-4.1-mini", adapter="json").adapter == "json"
