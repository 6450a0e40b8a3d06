"""`python -m benchmarks.date_hints` counts the hinted MJDs that the date stage finds again, on a made-up split."""

import csv
import json

import pytest

from benchmarks.date_hints import main

ROWS = [
    # Hints 2023-09-01 and 2023-10-01: both are bounds of "September 2023".
    ("Objects first detected in September 2023", "\n-- mjd date for September 2023 = [60188.0, 60218.0]"),
    # Hint 2023-01-31, the last day of January: only the last-day rule finds it (the end bound is 59976).
    ("Objects detected in January 2023", "-- mjd date for the end of January = 59975.0"),
    # A hint for a date the question does not name in a form the stage reads.
    ("Objects detected around the new moon", "-- mjd date for the new moon = 60204.0"),
    ("How many objects have more than 50 detections?", "0"),
    ("Objects with a radius of 1000 arcmin", "-- 1000 arcmin = 16.667 degrees"),
]


@pytest.fixture
def split(tmp_path):
    return _write_split(tmp_path / "dev.csv", ROWS)


def test_counts_hinted_values_found_again(split, capsys):
    assert main(["--dataset", str(split), "--as-of", "2026-12-01"]) == 0
    report = json.loads(capsys.readouterr().out)
    results = report["results"]
    assert report["params"]["as_of"] == "2026-12-01"
    assert (results["questions_with_hints"], results["hinted_values"]) == (3, 4)
    assert (results["reproduced_exact"], results["reproduced_last_day"]) == (2, 3)
    assert [q["req_id"] for q in results["questions"]] == [0, 1, 2]
    assert results["questions"][2]["ranges"] == []


def test_a_tighter_tolerance_keeps_exact_bounds(split, capsys):
    assert main(["--dataset", str(split), "--as-of", "2026-12-01", "--tolerance-days", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]["reproduced_exact"] == 2


def test_a_missing_dataset_is_one_line_and_exit_1(tmp_path, capsys):
    assert main(["--dataset", str(tmp_path / "none.csv"), "--as-of", "2023-10-01"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: Dataset not found") and err.count("\n") == 1


def _write_split(path, rows):
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["req_id", "request", "gold_query", "difficulty", "external_knowledge"])
        writer.writerows([index, question, "SELECT 1", "simple", hint] for index, (question, hint) in enumerate(rows))
    return path


def test_a_split_without_mjd_hints_is_one_line_and_exit_1(tmp_path, capsys):
    path = _write_split(tmp_path / "dev.csv", ROWS[3:])
    assert main(["--dataset", str(path), "--as-of", "2023-10-01"]) == 1
    assert capsys.readouterr().err == (
        f"error: no question of '{path}' has an MJD hint in its external knowledge to compare with.\n"
    )


def test_a_split_without_questions_is_one_line_and_exit_1(tmp_path, capsys):
    path = _write_split(tmp_path / "dev.csv", [])
    assert main(["--dataset", str(path), "--as-of", "2023-10-01"]) == 1
    assert capsys.readouterr().err == (
        f"error: '{path}' holds no questions; pass a benchmark CSV with questions as --dataset.\n"
    )


def test_a_bad_as_of_is_a_usage_error(split, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--dataset", str(split), "--as-of", "1 Sept 2023"])
    assert exit_info.value.code == 2
    assert "expected a date YYYY-MM-DD, got '1 Sept 2023'" in capsys.readouterr().err
