"""In-process tests of `python -m evaluate`: help, exit codes, one-line errors, reports and resume."""

import json
import subprocess
import sys

import pandas as pd
import pytest

import evaluation.cli
from data.loader import example_set, load_dataset
from engines.postgres import PostgresEngine, PostgresSettings
from evaluate import main
from metric.perfect_match import identifier_columns
from tests.conftest import REPO_DIR, free_port

HEAVY_SQL = "SELECT count(*) FROM alerce.detection a CROSS JOIN alerce.detection b CROSS JOIN alerce.detection c"


@pytest.fixture(scope="module")
def examples(dev_csv_path):
    return load_dataset(dev_csv_path, "dev")


@pytest.fixture
def gold_csv(examples, tmp_path):
    """The dev golds written as a predictions file (in a temp folder, never in the repository)."""
    path = tmp_path / "golds.csv"
    pd.DataFrame({"req_id": [e.req_id for e in examples], "sql": [e.gold_sql for e in examples]}).to_csv(
        path, index=False
    )
    return path


def _args(tmp_path, predictions, dev_csv_path, dsn, *extra):
    return [
        "--predictions",
        str(predictions),
        "--dataset",
        str(dev_csv_path),
        "--dsn",
        dsn,
        "--report",
        str(tmp_path / "report"),
        "--gold-cache",
        str(tmp_path / "gold"),
        "-q",
        *extra,
    ]


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help(flag, capsys):
    with pytest.raises(SystemExit) as info:
        main([flag])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert out.startswith("usage: python -m evaluate")
    assert "Score predicted SQL against the benchmark's gold queries" in out and "exit codes:" in out


def test_help_shows_model_without_a_default(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    model_help = out.partition("--model PROVIDER/MODEL run the program with this language model")[2]
    assert model_help.partition("--program PATH")[0].rstrip().endswith("(no default)")
    assert "(default: local/gemma3-270m)" not in out


def test_module_entry_point_runs():
    done = subprocess.run([sys.executable, "-m", "evaluate", "--help"], cwd=REPO_DIR, capture_output=True, text=True)
    assert done.returncode == 0 and "--predictions FILE" in done.stdout


@pytest.mark.parametrize(
    "argv", [[], ["--predictions", "p.csv", "--split", "train"], ["--predictions", "p.csv", "--workers", "0"]]
)
def test_bad_command_line_exits_2(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "usage:" in capsys.readouterr().err


def _fails(argv, capsys) -> str:
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    return lines[0]


def test_missing_predictions_file_is_one_line(tmp_path, dev_csv_path, capsys):
    line = _fails(_args(tmp_path, tmp_path / "none.csv", dev_csv_path, "postgresql://x@127.0.0.1:1/x"), capsys)
    assert line == f"error: Predictions file not found: '{tmp_path / 'none.csv'}'."


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("req_id,query\n1,SELECT 1\n", "no 'sql' field"),
        ('req_id,sql\n1,"SELECT 1\n', "Cannot read"),
        ("req_id,sql\n999999,SELECT 1\n", "not in the dataset: 999999; check --dataset and --split."),
    ],
    ids=["no-sql-column", "malformed-csv", "unknown-req-id"],
)
def test_bad_predictions_are_one_line(content, message, tmp_path, dev_csv_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text(content)
    assert message in _fails(_args(tmp_path, path, dev_csv_path, "postgresql://x@127.0.0.1:1/x"), capsys)


def test_missing_dataset_is_one_line(tmp_path, gold_csv, capsys):
    line = _fails(_args(tmp_path, gold_csv, tmp_path / "no-data", "postgresql://x@127.0.0.1:1/x"), capsys)
    assert line.startswith(f"error: Dataset not found: '{tmp_path / 'no-data'}'")


def test_unreachable_database_is_one_line(tmp_path, gold_csv, dev_csv_path, capsys):
    dsn = f"postgresql://reader@127.0.0.1:{free_port()}/alerce"
    line = _fails(_args(tmp_path, gold_csv, dev_csv_path, dsn), capsys)
    assert line.startswith("error: Cannot connect to PostgreSQL at 127.0.0.1:")


def test_golds_score_one_and_write_the_report(tmp_path, gold_csv, dev_csv_path, tiny_dsn, capsys):
    assert main(_args(tmp_path, gold_csv, dev_csv_path, tiny_dsn, "--json", "--plot")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["settings"]["timeout_s"] == 120.0 and report["settings"]["database"] == "external"
    assert report["settings"]["dataset_path"] == str(dev_csv_path.resolve())
    assert len(report["settings"]["dataset_sha256"]) == 64 and report["metric_version"] == "pm-v1"
    assert report["counts"]["items"] == 58 and report["counts"]["pred_errors"] == 0
    assert report["summary"]["overall"]["col_pm"]["mean"] == 1.0
    assert report["summary"]["overall"]["row_pm"]["mean"] >= 0.95
    folder = tmp_path / "report"
    assert {p.name for p in folder.iterdir()} == {
        "report.json",
        "per_question.csv",
        "checkpoint.jsonl",
        "pm_by_difficulty.png",
    }
    first_csv = (folder / "per_question.csv").read_text()
    checkpoint_lines = len((folder / "checkpoint.jsonl").read_text().splitlines())
    assert main(_args(tmp_path, gold_csv, dev_csv_path, tiny_dsn)) == 0  # resumed: nothing to run again
    assert capsys.readouterr().out.splitlines()[0].split()[:2] == ["difficulty", "n"]
    assert len((folder / "checkpoint.jsonl").read_text().splitlines()) == checkpoint_lines
    assert (folder / "per_question.csv").read_text() == first_csv


def test_wrong_predictions_are_counted_by_kind(tmp_path, examples, dev_csv_path, tiny_dsn, capsys):
    rows = [
        {"req_id": examples[0].req_id, "sql": f"SELECT g.*, g.hallucinated_col FROM ({examples[0].gold_sql}) g"},
        {"req_id": examples[1].req_id, "sql": HEAVY_SQL},
    ]
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps({"predictions": rows}))
    argv = _args(tmp_path, path, dev_csv_path, tiny_dsn, "--timeout", "0.05", "--gold-timeout", "30", "--json")
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["counts"]["pred_errors_by_kind"] == {"general": 56, "missing_structure": 1, "timeout": 1}
    assert report["counts"]["missing"] == 56 and report["summary"]["overall"]["row_pm"]["mean"] == 0.0
    frame = pd.read_csv(tmp_path / "report" / "per_question.csv").set_index("req_id")
    assert frame.loc[examples[1].req_id, "error_kind"] == "timeout"


def test_changed_settings_refuse_to_resume(tmp_path, gold_csv, dev_csv_path, tiny_dsn, capsys):
    assert main(_args(tmp_path, gold_csv, dev_csv_path, tiny_dsn, "--timeout", "5")) == 0
    capsys.readouterr()
    line = _fails(_args(tmp_path, gold_csv, dev_csv_path, tiny_dsn, "--timeout", "6"), capsys)
    assert "was made with other settings (timeout_s: 5.0 then, 6.0 now)" in line


def test_interrupt_exits_130(tmp_path, gold_csv, dev_csv_path, tiny_dsn, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation.cli, "score_predictions", interrupted)
    assert main(_args(tmp_path, gold_csv, dev_csv_path, tiny_dsn)) == 130
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"interrupted: finished items are saved; resume with --report {tmp_path / 'report'}"


def test_scoring_grounds_the_embedded_database_on_the_dataset_splits(examples, tmp_path, dev_csv_path, tiny_dsn):
    import db.engine

    grounded = []
    predictions = tmp_path / "one.csv"
    pd.DataFrame({"req_id": [examples[0].req_id], "sql": [examples[0].gold_sql]}).to_csv(predictions, index=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(db.engine, "resolve_dsn", lambda dsn, ground=None, **_: grounded.append(ground) or tiny_dsn)
        args = _args(tmp_path, predictions, dev_csv_path, tiny_dsn)
        assert main([*args[:4], *args[6:]]) == 0
    assert grounded == [(dev_csv_path,)]


def test_multisurvey_golds_score_one_wherever_they_have_rows_and_an_identifier(tmp_path, multisurvey_dsn, capsys):
    golds = load_dataset(example_set("multisurvey"))
    predictions = tmp_path / "golds.csv"
    pd.DataFrame({"req_id": [e.req_id for e in golds], "sql": [e.gold_sql for e in golds]}).to_csv(predictions)
    argv = ["--catalog", "multisurvey", "--predictions", str(predictions), "--dsn", multisurvey_dsn]
    assert main([*argv, "--report", str(tmp_path / "r"), "--gold-cache", str(tmp_path / "g"), "-q", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["settings"]["catalog"] == "multisurvey" and report["counts"]["items"] == len(golds)
    assert report["settings"]["dataset_path"] == str(example_set("multisurvey").resolve())
    per_question = pd.read_csv(tmp_path / "r" / "per_question.csv").set_index("req_id")
    ids = set(identifier_columns("multisurvey"))
    with PostgresEngine(PostgresSettings(dsn=multisurvey_dsn, catalog="multisurvey")) as engine:
        scored = [e.req_id for e in golds if ids & set(engine.execute(e.gold_sql, max_rows=1).frame.columns)]
    with_rows = [req_id for req_id in scored if per_question.loc[req_id, "gold_rows"] > 0]
    assert len(with_rows) >= 50  # tiny scale: 51 of the 84 golds have rows and an identifier column
    assert per_question.loc[with_rows, "row_pm"].all(), per_question.loc[with_rows, ["row_pm", "row_comparison"]]
    assert per_question["col_pm"][per_question["gold_rows"] > 0].all()


def _predictions_not_valid_unicode(path, examples) -> None:
    """A prediction that is not valid Unicode (a lone surrogate escape in JSON, a byte that is not UTF-8 in CSV),
    then a gold."""
    if path.suffix == ".json":
        rows = [{"req_id": examples[0].req_id, "sql": "SELECT 'a\udcff' AS oid"}]
        rows.append({"req_id": examples[1].req_id, "sql": examples[1].gold_sql})
        path.write_text(json.dumps({"predictions": rows}))  # ensure_ascii writes the surrogate as \udcff
        return
    gold = examples[1].gold_sql.replace('"', '""')
    path.write_bytes(
        b"req_id,sql\n%d,SELECT 'a\xff' AS oid\n%d,\"%s\"\n" % (examples[0].req_id, examples[1].req_id, gold.encode())
    )


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_a_prediction_that_is_not_valid_unicode_is_an_error_of_its_item(
    suffix, tmp_path, examples, dev_csv_path, tiny_dsn, capsys
):
    path = tmp_path / f"predictions{suffix}"
    _predictions_not_valid_unicode(path, examples)
    assert main(_args(tmp_path, path, dev_csv_path, tiny_dsn, "--json")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["counts"]["items"] == 58 and report["counts"]["pred_errors_by_kind"]["general"] >= 1
    frame = pd.read_csv(tmp_path / "report" / "per_question.csv").set_index("req_id")
    first, second = frame.loc[examples[0].req_id], frame.loc[examples[1].req_id]
    assert first["error_kind"] == "general" and "not valid Unicode" in first["error_message"]
    assert "\ufffd" in first["sql"] and bool(second["col_pm"]) is True
    lines = (tmp_path / "report" / "checkpoint.jsonl").read_text(encoding="utf-8").splitlines()
    assert main(_args(tmp_path, path, dev_csv_path, tiny_dsn)) == 0  # resumed: nothing to run again
    assert (tmp_path / "report" / "checkpoint.jsonl").read_text(encoding="utf-8").splitlines() == lines
