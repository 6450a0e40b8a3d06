"""`python -m evaluate --model`: the program answers the dataset (oracle fake LM, tiny database), saved and scored.

Model mode writes the same report files as predictions mode (plus predictions.jsonl) and the same scores for the
same SQL; a rerun resumes without LM calls; --without removes a stage's calls; --ablation gives one row per
configuration.
"""

import json

import pandas as pd
import pytest

import lms
from catalog import load_catalog
from evaluation.ablation import ABLATION_CSV, ABLATION_JSON, configurations
from evaluation.cli import main
from evaluation.program_predictions import PREDICTIONS_FILE
from lms.fake import OracleAnswers, fake_lm

MODEL = "fake/oracle"
REPORT_FILES = ("report.json", "per_question.csv", "checkpoint.jsonl", PREDICTIONS_FILE)


def catalog_columns(table: str) -> list[str]:
    found = load_catalog().table(table)
    return found.column_names if found else []


@pytest.fixture(scope="module")
def small_dev(dev_csv_path, tmp_path_factory):
    """Two dev questions of each difficulty, as a CSV file in a temporary folder."""
    frame = pd.read_csv(dev_csv_path).groupby("difficulty", sort=False).head(2)
    path = tmp_path_factory.mktemp("data") / "dev.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def oracle(small_dev, monkeypatch):
    """Make every model string resolve to one oracle LM (answers from the labels); returns it."""
    lm = fake_lm(OracleAnswers(pd.read_csv(small_dev), catalog_columns))
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: lm)
    return lm


@pytest.fixture
def evaluate(small_dev, tiny_dsn, tmp_path, capsys):
    """Run `python -m evaluate` in-process on the small dataset; return (exit code, stdout)."""
    common = ["--dataset", str(small_dev), "--dsn", tiny_dsn, "--gold-cache", str(tmp_path / "gold"), "-q"]

    def run(*argv: str) -> tuple[int, str]:
        code = main([*argv, *common])
        return code, capsys.readouterr().out

    return run


def predictions(folder) -> list[dict]:
    lines = (folder / PREDICTIONS_FILE).read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]  # the first line is the checkpoint header


def test_model_mode_writes_the_report_files_and_scores_like_predictions_mode(evaluate, oracle, tmp_path):
    report_dir = tmp_path / "model"
    code, out = evaluate("--model", MODEL, "--uncompiled", "--report", str(report_dir), "--json")
    assert code == 0 and all((report_dir / name).is_file() for name in REPORT_FILES)
    report = json.loads(out)
    answers = predictions(report_dir)
    assert len(answers) == 6 and {"sql", "attempts", "usage", "seconds"} <= set(answers[0])
    source = report["settings"]["source"]
    assert source["kind"] == "program" and source["model"] == MODEL and source["program"] == "uncompiled"
    assert source["usage"]["calls"] == len(oracle.engine_obj.calls) and source["usage"]["cost_usd"] is None
    assert report["summary"]["overall"]["row_pm"]["mean"] > 0

    csv_file = tmp_path / "preds.csv"
    pd.DataFrame([{"req_id": a["req_id"], "sql": a["sql"]} for a in answers]).to_csv(csv_file, index=False)
    code, out = evaluate("--predictions", str(csv_file), "--report", str(tmp_path / "preds"), "--json")
    assert code == 0 and json.loads(out)["summary"] == report["summary"]


def test_a_rerun_resumes_without_lm_calls(evaluate, oracle, tmp_path):
    report_dir = tmp_path / "model"
    assert evaluate("--model", MODEL, "--uncompiled", "--report", str(report_dir))[0] == 0
    calls = len(oracle.engine_obj.calls)
    assert evaluate("--model", MODEL, "--uncompiled", "--report", str(report_dir))[0] == 0
    assert len(oracle.engine_obj.calls) == calls and len(predictions(report_dir)) == 6


def test_without_removes_the_stage_calls(evaluate, oracle, tmp_path):
    report_dir = tmp_path / "model"
    code, out = evaluate(
        "--model", MODEL, "--uncompiled", "--without", "schema_linking", "--report", str(report_dir), "--json"
    )
    assert code == 0
    assert all("schema_linking" not in answer["usage"] for answer in predictions(report_dir))
    assert "tables" not in oracle.engine_obj.stages() and "columns" not in oracle.engine_obj.stages()
    usage = json.loads(out)["settings"]["source"]["usage"]
    assert "schema_linking" not in usage["by_stage"] and usage["by_stage"]["generation"]["calls"] == 6


def test_the_report_records_the_reference_date_and_a_resume_keeps_it(evaluate, oracle, tmp_path, capsys):
    report_dir = tmp_path / "model"
    argv = ("--model", MODEL, "--uncompiled", "--report", str(report_dir))
    code, out = evaluate(*argv, "--as-of", "2026-12-01", "--json")
    assert code == 0 and json.loads(out)["settings"]["source"]["pipeline"]["as_of"] == "2026-12-01"
    calls = len(oracle.engine_obj.calls)
    code, _ = evaluate(*argv, "--as-of", "2027-01-01")
    # Another date gives other knowledge: the saved answers are refused, not reused.
    assert code == 1 and len(oracle.engine_obj.calls) == calls


def test_runs_answer_every_question_once_per_run(evaluate, oracle, tmp_path):
    code, out = evaluate("--model", MODEL, "--uncompiled", "--runs", "2", "--report", str(tmp_path / "m"), "--json")
    report = json.loads(out)
    assert code == 0 and report["counts"]["items"] == 12 and report["counts"]["runs"] == 2


def test_ablation_gives_one_row_per_configuration(evaluate, oracle, tmp_path):
    report_dir = tmp_path / "ablation"
    code, out = evaluate("--model", MODEL, "--uncompiled", "--ablation", "--report", str(report_dir), "--json")
    ablation = json.loads(out)
    names = [configuration.name for configuration in configurations()]
    assert code == 0 and [row["configuration"] for row in ablation["rows"]] == names
    assert names == [
        "full",
        "without_dates",
        "without_schema_linking",
        "without_classification",
        "without_decomposition",
        "without_value_check",
        "without_self_correction",
        "without_selection",
        "without_result_check",
        "without_explanation",
        "direct",
    ]
    assert json.loads((report_dir / ABLATION_JSON).read_text()) == ablation
    csv_rows = pd.read_csv(report_dir / ABLATION_CSV, dtype=str)
    assert csv_rows["configuration"].tolist() == names and set(csv_rows["cost_usd_per_question"]) == {"-"}
    assert all((report_dir / name / "report.json").is_file() for name in names)
    by_name = {row["configuration"]: row for row in ablation["rows"]}
    assert (
        by_name["direct"]["stages"] == "direct" and "classification" not in by_name["without_classification"]["stages"]
    )
    assert by_name["full"]["input_tokens_per_question"] > by_name["direct"]["input_tokens_per_question"]
    direct_usage = json.loads((report_dir / "direct" / "report.json").read_text())["settings"]["source"]["usage"]
    assert set(direct_usage["by_stage"]) == {"generation"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--predictions", "p.csv", "--runs", "2"], "--runs runs the program: use it with --model"),
        (["--model", MODEL, "--ablation", "--direct"], "--ablation runs its own grid"),
        (["--model", MODEL, "--direct", "--without", "decomposition"], "--direct runs the uncompiled one-call"),
        (["--model", MODEL, "--without", "generation"], "argument --without: unknown stage 'generation'"),
        (["--model", MODEL, "--program", "x", "--uncompiled"], "not allowed with argument --program"),
        (["--predictions", "p.csv", "--candidates", "2"], "--candidates runs the program: use it with --model"),
        (["--model", MODEL, "--direct", "--candidates", "2"], "--direct runs the uncompiled one-call"),
        (["--predictions", "p.csv", "--as-of", "2026-12-01"], "--as-of runs the program: use it with --model"),
    ],
    ids=[
        "runs-needs-model",
        "ablation-direct",
        "direct-without",
        "unknown-stage",
        "program-uncompiled",
        "candidates-need-model",
        "direct-candidates",
        "as-of-needs-model",
    ],
)
def test_contradicting_options_exit_2(capsys, argv, message):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2 and message in capsys.readouterr().err


def test_a_question_that_crashes_the_program_is_an_error_and_the_report_is_written(
    evaluate, oracle, tmp_path, monkeypatch
):
    import evaluation.program_predictions as program_predictions

    answer = program_predictions.predict_one
    crashing = {}

    def predict_one(t2s, example, run):
        if not crashing:
            crashing["req_id"] = example.req_id
        if example.req_id == crashing["req_id"]:
            raise ValueError("messages contains text that is not valid Unicode (lone surrogate U+D800)")
        return answer(t2s, example, run)

    monkeypatch.setattr(program_predictions, "predict_one", predict_one)
    report_dir = tmp_path / "crash"
    code, out = evaluate("--model", MODEL, "--uncompiled", "--report", str(report_dir), "--json")
    assert code == 0 and all((report_dir / name).is_file() for name in REPORT_FILES)
    failed = [a for a in predictions(report_dir) if a["req_id"] == crashing["req_id"]]
    assert len(predictions(report_dir)) == 6
    assert failed[0]["sql"] is None and failed[0]["failures"][0]["kind"] == "crash"
    assert json.loads(out)["summary"]["overall"]["row_pm"]["mean"] > 0
