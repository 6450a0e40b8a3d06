"""`python -m benchmarks.prompt_tokens` counts tokens per stage at K = 1 and K = 4, selection included."""

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


def run(split, capsys, *extra) -> dict:
    assert prompt_tokens.main(["--dataset", str(split), "--overhead-repeats", "1", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_k4_writes_four_candidates_that_share_linking_classification_and_plan(split, capsys):
    result = run(split, capsys)
    k1, k4 = result["k1"]["by_stage"], result["k4"]["by_stage"]
    assert k4["generation"]["calls"] == 4 * k1["generation"]["calls"]
    for stage in ("schema_linking", "classification"):
        assert k4[stage] == k1[stage]
    assert "selection" not in k4  # the oracle's candidates agree: the vote decides alone
    assert result["k4_disagreeing"]["by_stage"]["selection"]["calls"] == 6 * 4  # every pair, on each question
    assert result["params"]["adapter"] == "compact"


def test_the_compact_adapter_sends_fewer_tokens_than_chat_adapter(split, capsys):
    compact = run(split, capsys)["k1"]["mean_input_tokens_per_question"]
    chat = run(split, capsys, "--adapter", "chat")["k1"]["mean_input_tokens_per_question"]
    assert compact < chat * 0.9


def test_an_ideal_cache_serves_the_static_prompt_starts(split, capsys):
    k1 = run(split, capsys, "--cache-min-tokens", "0", "--cache-block-tokens", "1")["k1"]
    served = k1["cacheable_share_by_call_stage"]
    assert 0.2 < served["all"] < 1.0
    assert set(served) >= {"schema_linking", "classification", "generation"}
