"""Tests of report building, the printed table and the written files."""

import json

import pandas as pd

from evaluation.item_record import ItemRecord
from evaluation.report import PER_QUESTION_COLUMNS, PLOT_FILE, build_report, render_table, write_report

SETTINGS = {"timeout_s": 10.0, "gold_timeout_s": 30.0, "database_fingerprint": "fp"}


def _record(req_id, run, difficulty, *, ok=True, error_kind=None, gold_error_kind=None, missing=False):
    return ItemRecord(
        req_id=req_id,
        run=run,
        difficulty=difficulty,
        gold_rows=None if gold_error_kind else 3,
        pred_rows=None if error_kind else 3,
        error_kind=error_kind,
        row_pm=ok,
        col_pm=ok,
        col_pm_formatted=ok,
        value_match=False,
        gold_error_kind=gold_error_kind,
        is_missing=missing,
        sql=None if missing else "SELECT 1",
    )


RECORDS = [
    _record(1, 0, "simple"),
    _record(2, 0, "advanced", ok=False, error_kind="timeout"),
    _record(3, 0, "advanced", gold_error_kind="timeout"),
    _record(1, 1, "simple", ok=False, error_kind="general", missing=True),
    _record(2, 1, "advanced"),
    _record(3, 1, "advanced", gold_error_kind="timeout"),
]


def test_build_report_states_version_convention_and_counts():
    report = build_report(RECORDS, settings=SETTINGS, convention="paper")
    assert (report["metric_version"], report["convention"], report["settings"]) == ("pm-v1", "paper", SETTINGS)
    assert report["counts"] == {
        "items": 6,
        "questions": 3,
        "runs": 2,
        "gold_errors": 2,
        "gold_errors_by_kind": {"timeout": 2},
        "empty_gold": 0,
        "pred_errors": 2,
        "pred_errors_by_kind": {"general": 1, "timeout": 1},
        "missing": 1,
    }
    assert report["summary"]["by_difficulty"]["advanced"]["row_pm"] == {"mean": 0.25, "std": 0.3535533905932738}


def test_excluded_convention_drops_gold_errors():
    report = build_report(RECORDS, settings=SETTINGS, convention="excluded")
    assert report["summary"]["by_difficulty"]["advanced"]["n_items"] == 2
    assert report["summary"]["by_difficulty"]["advanced"]["row_pm"]["mean"] == 0.5


def test_render_table_shows_rates_errors_and_settings():
    table = render_table(build_report(RECORDS, settings=SETTINGS))
    lines = table.splitlines()
    assert lines[0].split() == ["difficulty", "n", "row", "PM", "column", "PM", "value", "match"]
    assert lines[2].split() == ["simple", "2", "0.500", "±", "0.707", "0.500", "±", "0.707", "0.000", "±", "0.000"]
    assert lines[4].split()[:3] == ["overall", "6", "0.333"]
    assert "execution errors: general 1, timeout 1 (missing predictions: 1)" in table
    assert "gold errors: 2, empty gold results: 0 (convention: paper)" in table
    assert "timeout: 10.0 s (gold 30.0 s), database: fp, metric: pm-v1" in table


def test_write_report_writes_json_csv_and_plot(tmp_path):
    report = write_report(RECORDS, tmp_path / "r", settings=SETTINGS, plot=True)
    assert json.loads((tmp_path / "r" / "report.json").read_text()) == report
    frame = pd.read_csv(tmp_path / "r" / "per_question.csv")
    assert tuple(frame.columns) == PER_QUESTION_COLUMNS
    assert frame[["req_id", "run", "row_pm", "error_kind"]].iloc[1].tolist() == [2, 0, 0, "timeout"]
    assert (tmp_path / "r" / PLOT_FILE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_write_report_without_plot_draws_nothing(tmp_path):
    write_report(RECORDS, tmp_path, settings=SETTINGS, plot=False)
    assert not (tmp_path / PLOT_FILE).exists()
