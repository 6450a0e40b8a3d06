"""`python -m benchmarks.prompt_tokens` counts tokens per stage at K = 1 and K = 4, selection included."""

import contextlib
import io
import json

import pandas as pd
import pytest

from benchmarks import prompt_tokens


@pytest.fixture(scope="module")
def split(dev_csv_path, tmp_path_factory):
    """The first four dev questions."""
    path = tmp_path_factory.mktemp("split") / "dev.csv"
    pd.read_csv(dev_csv_path).head(4).to_csv(path, index=False)
    return path


def run(split, *extra) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert prompt_tokens.main(["--dataset", str(split), "--overhead-repeats", "1", *extra]) == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def report(split) -> dict:
    """The report with the default options."""
    return run(split)


def test_k4_writes_four_candidates_that_share_linking_classification_and_plan(report):
    result = report
    k1, k4 = result["k1"]["by_stage"], result["k4"]["by_stage"]
    assert k4["generation"]["calls"] == 4 * k1["generation"]["calls"]
    for stage in ("schema_linking", "classification"):
        assert k4[stage] == k1[stage]
    assert "selection" not in k4  # the oracle's candidates agree: the vote decides alone
    assert result["k4_disagreeing"]["by_stage"]["selection"]["calls"] == 6 * 4  # every pair, on each question
    assert result["params"]["adapter"] == "compact"


def test_the_compact_adapter_sends_fewer_tokens_than_chat_adapter(split, report):
    compact = report["k1"]["mean_input_tokens_per_question"]
    chat = run(split, "--adapter", "chat")["k1"]["mean_input_tokens_per_question"]
    assert compact < chat * 0.9


def test_an_ideal_cache_serves_the_static_prompt_starts(split):
    k1 = run(split, "--cache-min-tokens", "0", "--cache-block-tokens", "1")["k1"]
    served = k1["cacheable_share_by_call_stage"]
    assert 0.2 < served["all"] < 1.0
    assert set(served) >= {"schema_linking", "classification", "generation"}


def test_it_reports_the_cacheable_share_per_run_provider_rule_and_prompt_order(report):
    result = report
    shares = result["cacheable_share"]
    assert set(shares) == {"openai", "anthropic", "any_prefix"}
    for rule in shares.values():
        assert set(rule) == {"k1", "k4", "k1_demos", "k4_demos"}
        assert all(set(orders) == {"cache_order", "signature_order"} for orders in rule.values())
    # Today's prompts carry no breakpoint: Anthropic caches nothing of them.
    assert all(orders["signature_order"] == 0.0 for orders in shares["anthropic"].values())
    # The repeating parts first: an ideal cache serves more of the cache order, never less.
    assert all(o["cache_order"] >= o["signature_order"] for o in shares["any_prefix"].values())
    assert shares["any_prefix"]["k4"]["cache_order"] > shares["any_prefix"]["k4"]["signature_order"]
    demos = result["k4_demos"]["prompt_cache"]
    assert demos["anthropic"]["cache_order"]["cacheable_share"] > 0.3
    assert demos["anthropic"]["input_price_change"] < 0  # reading the demos back costs less than sending them
    assert (
        result["k4_demos"]["by_stage"]["generation"]["calls"]
        == 4 * result["k1_demos"]["by_stage"]["generation"]["calls"]
    )
    prices = result["prices_usd_per_million_tokens"]
    assert prices["openai"]["cache_read"] < prices["openai"]["input"] < prices["anthropic"]["cache_write"]


def test_the_whole_schema_of_the_baseline_is_served_from_the_second_question_on(report):
    direct = report["direct"]["prompt_cache"]
    assert direct["openai"]["cache_order"]["cacheable_share"] > 0.6
    assert direct["openai"]["signature_order"]["cacheable_share"] == 0.0
