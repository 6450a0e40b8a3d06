"""The latency benchmark of candidates: its JSON, and the calls each setting makes."""

import json

import pytest

from benchmarks.selection_latency import main


def test_prints_the_latency_of_each_setting(capsys):
    assert main(["--lm-delay", "0", "--questions", "1"]) == 0
    output = json.loads(capsys.readouterr().out)
    results = output["results"]
    assert output["benchmark"] == "selection_latency"
    # K = 1: tables, columns, difficulty, plan, SQL, explanation; K = 4 adds 3 SQL calls, and a four-way tie 6
    # pairwise choices.
    assert [results[key]["lm_calls_per_question"] for key in ("k1", "k_agreeing", "k_disagreeing")] == [6, 9, 15]
    assert results["ratio_agreeing"] > 0


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--candidates", "1"])
    assert info.value.code == 2
    assert "--candidates 2 or more" in capsys.readouterr().err
