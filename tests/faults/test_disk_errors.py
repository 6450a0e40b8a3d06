"""A full disk or an unwritable report/artifact folder: one clear error line, exit 1, earlier files intact.

Tests run as root, where permission bits do not stop writes, so an unwritable folder is a path under a regular
file, and a full disk is an ``OSError(ENOSPC)`` injected where files are written.
"""

import errno
import json
import os

import pandas as pd

import db.engine
import fileio.atomic
import optimizers.cli as compile_cli
from evaluation.cli import main as evaluate_main
from metric.gold_cache import GoldCache
from modules.artifacts.load import MANIFEST_FILE, PROGRAM_FILE
from tests.faults.conftest import ScriptedEngine, oracle, scripted_lm, synthetic_csv


def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _predictions(tmp_path):
    frame = pd.read_csv(synthetic_csv())
    path = tmp_path / "preds.csv"
    frame.rename(columns={"gold_query": "sql"})[["req_id", "sql"]].to_csv(path, index=False)
    return path


def _evaluate_argv(tmp_path, tiny_dsn, report):
    return [
        *("--predictions", str(_predictions(tmp_path)), "--dataset", str(synthetic_csv()), "--dsn", tiny_dsn),
        *("--report", str(report), "--gold-cache", str(tmp_path / "gold"), "-q"),
    ]


def test_report_folder_under_a_file_exits_1_and_keeps_the_file(tiny_dsn, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("keep")
    report = blocker / "report"
    assert evaluate_main(_evaluate_argv(tmp_path, tiny_dsn, report)) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: Cannot save progress to '{report / 'checkpoint.jsonl'}': ")
    assert err.endswith("Free space or choose a writable --report folder.\n") and err.count("\n") == 1
    assert blocker.read_text() == "keep"


def test_disk_full_while_writing_the_report_keeps_the_previous_report(tiny_dsn, tmp_path, monkeypatch, capsys):
    report = tmp_path / "report"
    argv = _evaluate_argv(tmp_path, tiny_dsn, report)
    assert evaluate_main(argv) == 0
    before = {name: (report / name).read_bytes() for name in ("report.json", "per_question.csv")}
    (report / "checkpoint.jsonl").unlink()  # score again, so the report is rewritten
    capsys.readouterr()

    monkeypatch.setattr(fileio.atomic, "_write_temp", _disk_full)
    assert evaluate_main(argv) == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: Cannot write the report to '{report}': No space left on device. Finished items are saved; "
        "free space or choose a writable --report folder and rerun.\n"
    )
    assert {name: (report / name).read_bytes() for name in before} == before
    assert not [path.name for path in report.iterdir() if path.name.startswith(".")]


def test_disk_full_while_saving_the_artifact_keeps_the_previous_one(tiny_dsn, tmp_path, monkeypatch, capsys):
    engine = ScriptedEngine(oracle())
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setattr(compile_cli, "resolve_lm", lambda model: scripted_lm(engine))
    monkeypatch.setattr(db.engine, "resolve_dsn", lambda dsn, ground=None, **_: tiny_dsn)
    monkeypatch.setattr(compile_cli, "GoldCache", lambda executor: GoldCache(executor, cache_dir=tmp_path / "gold"))
    out = tmp_path / "artifact"
    argv = ["--model", "fake/oracle", "--optimizer", "labeled", "--dataset", str(synthetic_csv())]
    argv += ["--out", str(out), "-q"]
    assert compile_cli.main([*argv, "--k", "2"]) == 0
    before = {name: (out / name).read_bytes() for name in (PROGRAM_FILE, MANIFEST_FILE)}
    capsys.readouterr()

    real_write_temp = fileio.atomic._write_temp

    def full_after_the_check(folder, name, payload):
        # check_writable's empty probe succeeds; the disk fills up while the compiled files are written.
        return real_write_temp(folder, name, payload) if name == "check" else _disk_full()

    monkeypatch.setattr(fileio.atomic, "_write_temp", full_after_the_check)
    assert compile_cli.main([*argv, "--k", "1"]) == 1
    last = capsys.readouterr().err.splitlines()[-1]  # DSPy's Evaluate logs its scores on stderr before it
    assert last == f"error: Cannot write the artifact to '{out}': No space left on device. Choose a writable --out."
    assert {name: (out / name).read_bytes() for name in before} == before
    assert json.loads(before[MANIFEST_FILE])["settings"]["k"] == 2
