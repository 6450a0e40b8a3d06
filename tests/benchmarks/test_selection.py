"""The selection benchmark: pooling, vote scoring, check precision and recall, and its command line."""

import pandas as pd
import pytest

from benchmarks import selection
from benchmarks.selection_scoring import Scored, pool_report
from modules.run.findings import FindingKind


def _item(req_id: int, id_: str, oids: list[str] | None, pm: bool, **fields) -> Scored:
    frame = None if oids is None else pd.DataFrame({"oid": oids})
    sql = "SELECT oid FROM object"
    defaults = {"live_pm": pm, "value_flagged": False, "fixed_sql": sql, "fixed_frame": frame, "fixed_pm": pm}
    defaults |= fields
    return Scored(
        req_id=req_id, difficulty="simple", model="m", id=id_, sql=sql, frame=frame, pm=pm, col_pm=pm, **defaults
    )


def test_pool_report_mean_vote_and_oracle_per_question():
    items = [
        _item(1, "a", ["ZTF1"], True),
        _item(1, "b", ["ZTF1"], True),
        _item(1, "c", ["ZTF9"], False),
        _item(2, "a", None, False),
        _item(2, "b", ["ZTF2"], False),
        _item(2, "c", ["ZTF3"], True),
    ]
    report = pool_report(items)
    assert report["mean_row_pm"] == round((2 / 3 + 1 / 3) / 2, 4)
    assert report["vote_row_pm"] == 0.75  # question 2 is a tie of two clusters, one right
    assert report["oracle_row_pm"] == 1.0
    assert report["vote_ties"] == 1


def test_pool_report_check_precision_and_recall():
    items = [
        _item(1, "a", [], False, result_kinds=frozenset({FindingKind.EMPTY_RESULT})),
        _item(1, "b", ["ZTF1"], False, value_flagged=True, fixed_pm=True),
        _item(1, "c", ["ZTF1"], True, value_flagged=True),
        _item(1, "d", ["ZTF2"], False),
    ]
    report = pool_report(items)
    assert report["value_check"]["flagged"] == 2
    assert report["value_check"]["precision"] == 0.5
    assert report["value_check"]["recall"] == round(1 / 3, 4)
    assert report["value_check"]["mean_row_pm_after_replace"] == 0.5
    empty = report["result_checks"]["empty_result"]
    assert (empty["flagged"], empty["precision"], empty["recall"]) == (1, 1.0, round(1 / 3, 4))


def test_report_pools_models_stronger_and_all():
    items = [_item(1, "a", ["ZTF1"], True)]
    items.append(Scored(**{**items[0].__dict__, "model": "gpt-4.1-2025-04-14", "id": "b"}))
    pools = selection.report(items, ("gpt-4.1-2025-04-14",))
    assert set(pools) == {"model:m", "model:gpt-4.1-2025-04-14", "stronger", "all"}
    assert pools["stronger"]["all"]["candidates"] == 1
    assert pools["all"]["simple"]["candidates"] == 2


def test_cli_missing_candidates_file_exits_1(dev_csv_path, tmp_path, capsys):
    missing = tmp_path / "none.csv"
    assert selection.main(["--dataset", str(dev_csv_path), "--candidates", str(missing)]) == 1
    assert capsys.readouterr().err.startswith("error: ")


def test_cli_candidates_without_id_column_exits_1(dev_csv_path, tmp_path, capsys):
    path = tmp_path / "c.csv"
    pd.DataFrame({"req_id": [1], "sql": ["SELECT 1"]}).to_csv(path, index=False)
    assert selection.main(["--dataset", str(dev_csv_path), "--candidates", str(path)]) == 1
    assert capsys.readouterr().err == (f"error: '{path}' lacks the column(s) of a candidate id; use --id-column.\n")


def test_cli_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        selection.main(["--help"])
    assert exit_info.value.code == 0
    assert "python -m benchmarks.selection --dataset" in capsys.readouterr().out


def test_stronger_models_are_the_better_half_of_the_file_and_need_two_models():
    items = [_item(1, "a", ["ZTF1"], True), _item(1, "b", ["ZTF2"], False)]
    items = [Scored(**{**item.__dict__, "model": model}) for item, model in zip(items, ("x", "y"), strict=True)]
    assert selection.stronger_models(items) == ("x",)
    assert selection.stronger_models(items[:1]) == ()


def _candidates_file(tmp_path, req_ids, models=("m1", "m2")):
    path = tmp_path / "candidates.csv"
    rows = [{"req_id": r, "sql": "SELECT 1", "model": m, "prompting": "p", "run": 0} for r in req_ids for m in models]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_cli_candidates_of_questions_outside_the_split_exit_1(dev_csv_path, tmp_path, capsys):
    path = _candidates_file(tmp_path, [990001, 990002])
    assert selection.main(["--dataset", str(dev_csv_path), "--candidates", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"error: none of the 4 candidates in '{path}' answers a question of the dev split; "
        "pass the split they answer with --split (or its --dataset).\n"
    )


def test_cli_stronger_models_absent_from_the_candidates_exit_1(dev_csv_path, tmp_path, capsys):
    path = _candidates_file(tmp_path, [int(pd.read_csv(dev_csv_path)["req_id"].iloc[0])])
    argv = ["--dataset", str(dev_csv_path), "--candidates", str(path), "--stronger", "m1,gpt-9"]
    assert selection.main(argv) == 1
    assert capsys.readouterr().err == "error: --stronger names models the candidates do not have: gpt-9.\n"
