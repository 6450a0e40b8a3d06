"""Usage and cost: sums of DSPy's usage records, LiteLLM prices, trackers shared across threads."""

import copy
import threading

import dspy
import litellm
import pytest

from lms.fake import fake_lm, render_answer
from lms.usage import SharedUsageTracker, UsageTotals, per_model, price_usd, tokens_of


def test_price_of_a_mapped_model_follows_the_litellm_price_map():
    prices = litellm.model_cost["gpt-4.1-mini"]
    expected = 1000 * prices["input_cost_per_token"] + 100 * prices["output_cost_per_token"]
    assert price_usd("openai/gpt-4.1-mini", 1000, 100) == pytest.approx(expected)
    assert price_usd("gpt-4.1-mini", 1000, 100) == pytest.approx(expected)


@pytest.mark.parametrize("model", ["local/smollm2-135m", "fake/oracle", "nope/unknown-model", "ollama_chat/llama3"])
def test_unpriced_models_cost_none_and_print_nothing(model, capsys):
    assert price_usd(model, 1000, 100) is None
    assert capsys.readouterr().out == ""


def test_usage_totals_add_up_across_threads():
    totals = UsageTotals()
    one = {"generation": {"input_tokens": 3, "output_tokens": 1, "calls": 1}, "classification": {"calls": 1}}

    def add_many():
        for _ in range(500):
            totals.add(one)

    threads = [threading.Thread(target=add_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    totals.add(None)
    assert totals.as_dict() == {
        "generation": {"input_tokens": 6000, "output_tokens": 2000, "calls": 2000},
        "classification": {"input_tokens": 0, "output_tokens": 0, "calls": 2000},
    }


def test_shared_tracker_survives_deep_copies_and_counts_real_lm_calls():
    tracker = SharedUsageTracker()
    assert copy.deepcopy(tracker) is tracker  # dspy.Parallel deep-copies the settings' tracker per thread
    lm = fake_lm(lambda call: render_answer({"answer": "yes"}))
    with dspy.context(lm=lm, usage_tracker=tracker):
        dspy.Predict("question -> answer")(question="q")
        dspy.Predict("question -> answer")(question="r")
    assert tokens_of(tracker.usage_data) == {"input_tokens": 20, "output_tokens": 10, "calls": 2}
    assert per_model(tracker) == {"fake/scripted": {"input_tokens": 20, "output_tokens": 10, "cost_usd": None}}
