"""A benchmark whose input holds or matches nothing exits 1 with one line, before it measures anything."""

import importlib

import pandas as pd
import pytest

COLUMNS = ["req_id", "request", "gold_query", "difficulty", "table_info", "external_knowledge", "domain_knowledge"]


@pytest.fixture
def empty_split(tmp_path):
    path = tmp_path / "dev.csv"
    pd.DataFrame(columns=COLUMNS).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("benchmarks.db", []),
        ("benchmarks.db_fidelity", []),
        ("benchmarks.evaluate", []),
        ("benchmarks.guard", []),
        ("benchmarks.local_lm", []),
        ("benchmarks.perturbed_golds", ["--out", "unused.sql"]),
        ("benchmarks.prompt_tokens", []),
        ("benchmarks.selection", []),
        ("benchmarks.tap", []),
    ],
)
def test_a_split_without_questions_is_one_line_and_exit_1(module, extra, empty_split, capsys):
    main = importlib.import_module(module).main
    assert main(["--dataset", str(empty_split), *extra]) == 1
    assert capsys.readouterr().err == (
        f"error: '{empty_split}' holds no questions; pass a benchmark CSV with questions as --dataset.\n"
    )


def test_peer_predictions_of_other_questions_are_one_line_and_exit_1(dev_csv_path, tmp_path, capsys):
    peers = tmp_path / "peers.csv"
    row = {"req_id": 990001, "sql": "SELECT 1", "live_row_pm": 1, "live_col_pm_formatted": 1, "live_gold_error": ""}
    pd.DataFrame([{**row, "live_pred_error": ""}]).to_csv(peers, index=False)
    main = importlib.import_module("benchmarks.db_fidelity").main
    assert main(["--dataset", str(dev_csv_path), "--peer-predictions", str(peers)]) == 1
    assert capsys.readouterr().err == (
        f"error: none of the 1 predictions in '{peers}' answers a question of the dataset whose live gold ran; "
        "pass the peer predictions of this split.\n"
    )


def test_peer_predictions_without_live_verdicts_are_one_line_and_exit_1(dev_csv_path, tmp_path, capsys):
    peers = tmp_path / "peers.csv"
    pd.DataFrame([{"req_id": 1, "sql": "SELECT 1"}]).to_csv(peers, index=False)
    main = importlib.import_module("benchmarks.db_fidelity").main
    assert main(["--dataset", str(dev_csv_path), "--peer-predictions", str(peers)]) == 1
    assert capsys.readouterr().err == (
        f"error: '{peers}' lacks the column(s) live_row_pm, live_col_pm_formatted, live_gold_error, live_pred_error.\n"
    )


def test_ground_files_without_queries_are_one_line_and_exit_1(dev_csv_path, tmp_path, capsys):
    ground = tmp_path / "ground.sql"
    ground.write_text("-- nothing\n")
    main = importlib.import_module("benchmarks.db").main
    assert main(["--dataset", str(dev_csv_path), "--ground", str(ground)]) == 1
    assert capsys.readouterr().err == f"error: --ground {ground}: no query to ground on in these files.\n"
