"""`python -m compile`: help, usage errors, expected failures, and a full run with a fake LM on the tiny database."""

import dataclasses
import json
import shlex
import subprocess
from datetime import UTC, datetime

import pandas as pd
import pytest

import db.engine
import optimizers.cli as cli
from catalog import CATALOG_NAMES, load_catalog
from data.loader import example_set
from engines.postgres import PostgresEngine, PostgresSettings
from lms.fake import OracleAnswers, fake_lm
from metric.gold_cache import GoldCache
from modules.artifacts.load import MANIFEST_FILE, PROGRAM_FILE, REPO_DIR, load_program
from modules.errors import CatalogMismatch
from modules.settings import ProgramSettings
from tests.optimizers.compile_helpers import SYNTHETIC_CSV, gated_lm

COMMITTED = REPO_DIR / "artifacts" / "local-gemma3-270m" / "ztf"


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help(flag, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main([flag])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m compile")
    assert "Compile the program for one model and freeze it under artifacts/." in out
    assert "exit codes: 0 done, 1 error (one line on stderr), 2 bad command line, 130 interrupted" in out


@pytest.mark.parametrize(
    "argv",
    [["--optimizer", "bogus"], ["--trials", "0"], ["--trials", "2", "--max-lm-calls", "9"], ["--stages", "nope"]],
    ids=["unknown-optimizer", "zero-trials", "two-budgets", "unknown-stage"],
)
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_missing_dataset_exits_1_with_one_line(tmp_path, capsys):
    missing = tmp_path / "none.csv"
    assert cli.main(["--dataset", str(missing)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: Dataset not found: '{missing}' (from --dataset). ")
    assert err.count("\n") == 1


def test_gepa_without_reflection_model_exits_1(capsys):
    assert cli.main(["--optimizer", "gepa", "--dataset", str(SYNTHETIC_CSV)]) == 1
    assert capsys.readouterr().err == (
        "error: The gepa optimizer needs a reflection model: add --reflection-model PROVIDER/MODEL.\n"
    )


def test_unknown_model_exits_1(capsys):
    assert cli.main(["--model", "nomodel", "--dataset", str(SYNTHETIC_CSV)]) == 1
    assert capsys.readouterr().err.startswith("error: Model 'nomodel' has no provider")


@pytest.fixture
def fake_backends(monkeypatch, tiny_dsn, tmp_path):
    """Point the CLI at the tiny database, a fake LM and per-test caches."""
    lm = gated_lm()
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setattr(cli, "resolve_lm", lambda model: lm)
    monkeypatch.setattr(db.engine, "resolve_dsn", lambda dsn, ground=None, **_: tiny_dsn)
    monkeypatch.setattr(cli, "GoldCache", lambda executor: GoldCache(executor, cache_dir=tmp_path / "gold"))
    return lm


def test_compile_writes_the_artifact_and_prints_its_folder(fake_backends, tmp_path, capsys):
    out = tmp_path / "artifact"
    argv = ["--model", "fake/gated", "--optimizer", "labeled", "--k", "2", "--adapter", "json"]
    assert cli.main([*argv, "--dataset", str(SYNTHETIC_CSV), "--out", str(out), "-q"]) == 0
    assert capsys.readouterr().out == f"{out}\n"
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert manifest["model"] == "fake/gated"
    assert manifest["optimizer"] == "labeled"
    assert manifest["adapter"] == "json"
    assert manifest["settings"]["k"] == 2
    assert manifest["pipeline"]["candidates"] == 1  # a fake engine runs in process: one candidate
    assert manifest["dataset"]["name"] == "synthetic_questions.csv"
    assert len(manifest["dataset"]["sha256"]) == 64
    assert set(manifest["scores"]) == {"heldout_pm_before", "heldout_pm_after"}
    assert set(manifest["versions"]) == {"python", "dspy", "sqlglot", "psycopg"}
    program, loaded = load_program("fake/gated", executor=None, choice=ProgramSettings(artifact=out / PROGRAM_FILE))
    assert loaded == manifest
    assert len(program.generation.direct.demos) == 2


def test_compile_records_the_reference_date_of_the_date_stage(fake_backends, tmp_path):
    argv = ["--model", "fake/gated", "--optimizer", "none", "--dataset", str(SYNTHETIC_CSV), "-q"]
    assert cli.main([*argv, "--out", str(tmp_path / "given"), "--as-of", "2026-12-01"]) == 0
    assert cli.main([*argv, "--out", str(tmp_path / "today")]) == 0
    given, today = (json.loads((tmp_path / name / MANIFEST_FILE).read_text()) for name in ("given", "today"))
    assert given["pipeline"]["as_of"] == "2026-12-01"
    assert today["pipeline"]["as_of"] == datetime.now(UTC).date().isoformat()


def test_compile_records_the_candidates_asked_for(fake_backends, tmp_path):
    out = tmp_path / "artifact"
    argv = ["--model", "fake/gated", "--optimizer", "none", "--candidates", "3", "--dataset", str(SYNTHETIC_CSV)]
    assert cli.main([*argv, "--out", str(out), "-q"]) == 0
    assert json.loads((out / MANIFEST_FILE).read_text())["pipeline"]["candidates"] == 3


def test_compile_grounds_the_embedded_database_on_the_dataset_splits(monkeypatch, tiny_dsn, tmp_path):
    dataset = tmp_path / "splits"
    dataset.mkdir()
    for name in ("dev.csv", "test.csv"):
        (dataset / name).write_bytes(SYNTHETIC_CSV.read_bytes())
    grounded = []
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setattr(cli, "resolve_lm", lambda model: gated_lm())
    monkeypatch.setattr(db.engine, "resolve_dsn", lambda dsn, ground=None, **_: grounded.append(ground) or tiny_dsn)
    monkeypatch.setattr(cli, "GoldCache", lambda executor: GoldCache(executor, cache_dir=tmp_path / "gold"))
    argv = ["--model", "fake/gated", "--optimizer", "none", "--dataset", str(dataset), "--out", str(tmp_path / "a")]
    assert cli.main([*argv, "-q"]) == 0
    assert grounded == [(dataset / "dev.csv", dataset / "test.csv")]


def test_unwritable_out_exits_1_before_compiling(fake_backends, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("keep")
    argv = ["--optimizer", "none", "--dataset", str(SYNTHETIC_CSV), "--out", str(blocker / "art"), "-q"]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: Cannot write the artifact to '{blocker / 'art'}': ")
    assert err.endswith("Choose a writable --out.\n")
    assert blocker.read_text() == "keep"


def test_the_manifest_records_the_command_line(fake_backends, tmp_path):
    out = tmp_path / "art dir"
    argv = ["--model", "fake/gated", "--optimizer", "none", "--dataset", str(SYNTHETIC_CSV), "--out", str(out), "-q"]
    assert cli.main(argv) == 0
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert manifest["command"] == shlex.join(["python", "-m", "compile", *argv])
    assert shlex.split(manifest["command"])[3:] == argv


@pytest.mark.parametrize("catalog", CATALOG_NAMES)
def test_each_committed_artifact_records_the_command_that_made_it(catalog):
    committed = COMMITTED.parent / catalog
    manifest = json.loads((committed / MANIFEST_FILE).read_text())
    python, dash_m, module, *argv = shlex.split(manifest["command"])
    assert (python, dash_m, module) == ("python", "-m", "compile")
    parser = cli.build_parser()
    args = parser.parse_args(argv)
    settings = json.loads(json.dumps(dataclasses.asdict(cli._settings(args, parser)), default=str))
    # Without --as-of the compile records the day it ran, not the day this test runs.
    given = settings.pop("pipeline")
    assert settings == manifest["settings"]
    # The manifest keeps the pipeline once, resolved: K as compiled, and without --as-of the day the compile ran.
    recorded = manifest["pipeline"]
    given["candidates"] = recorded["candidates"] if given["candidates"] is None else given["candidates"]
    given["as_of"] = recorded["as_of"] if args.as_of is None else given["as_of"]
    assert given == recorded
    assert manifest["catalog"] == args.catalog == catalog
    assert args.examples and manifest["dataset"]["name"] == example_set(catalog).name
    assert args.out is None and cli.default_artifact_dir(args.model, args.catalog) == committed


def test_compile_refuses_to_replace_the_committed_artifact(monkeypatch, capsys):
    before = {path.name: path.read_bytes() for path in COMMITTED.iterdir()}
    monkeypatch.setattr(cli, "resolve_lm", lambda model: pytest.fail("no LM may be built"))
    assert cli.main(["--optimizer", "mqs", "--examples", "--stages", "generation"]) == 1
    assert capsys.readouterr().err == (
        f"error: '{COMMITTED}' holds a committed artifact (git tracks its manifest.json): pass --force to replace "
        "it, or --out DIR to compile elsewhere.\n"
    )
    assert {path.name: path.read_bytes() for path in COMMITTED.iterdir()} == before


def test_force_replaces_a_tracked_artifact(fake_backends, tmp_path, capsys):
    out = tmp_path / "repo" / "art"
    out.mkdir(parents=True)
    (out / MANIFEST_FILE).write_text("{}\n")
    subprocess.run(["git", "init", "-q"], cwd=out.parent, check=True)
    subprocess.run(["git", "add", f"art/{MANIFEST_FILE}"], cwd=out.parent, check=True)
    assert cli.is_committed(out)
    argv = ["--model", "fake/gated", "--optimizer", "none", "--dataset", str(SYNTHETIC_CSV), "--out", str(out), "-q"]
    assert cli.main(argv) == 1
    assert "holds a committed artifact" in capsys.readouterr().err
    assert (out / MANIFEST_FILE).read_text() == "{}\n"
    assert cli.main([*argv, "--force"]) == 0
    assert json.loads((out / MANIFEST_FILE).read_text())["model"] == "fake/gated"


def test_an_untracked_or_missing_artifact_is_not_committed(tmp_path):
    (tmp_path / MANIFEST_FILE).write_text("{}\n")
    assert not cli.is_committed(tmp_path)
    assert not cli.is_committed(tmp_path / "none")


def test_compile_for_the_multisurvey_catalog_on_its_example_set(monkeypatch, multisurvey_dsn, tmp_path, capsys):
    examples = pd.read_csv(example_set("multisurvey"))
    columns = lambda table: load_catalog("multisurvey").table(table).column_names  # noqa: E731
    lm = fake_lm(OracleAnswers(examples, columns))
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setattr(cli, "resolve_lm", lambda model: lm)
    monkeypatch.setattr(db.engine, "resolve_dsn", lambda dsn, ground=None, **_: multisurvey_dsn)
    monkeypatch.setattr(cli, "GoldCache", lambda executor: GoldCache(executor, cache_dir=tmp_path / "gold"))
    out = tmp_path / "artifact"
    argv = ["--model", "fake/oracle", "--catalog", "multisurvey", "--examples", "--optimizer", "mqs"]
    assert cli.main([*argv, "--stages", "generation", "--k", "2", "--out", str(out), "-q"]) == 0
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert (manifest["catalog"], manifest["pipeline"]["catalog"]) == ("multisurvey", "multisurvey")
    assert manifest["dataset"]["name"] == "multisurvey_examples.csv"
    assert manifest["scores"]["heldout_pm_after"] > 0.5  # the oracle writes the gold; a few golds have no rows
    choice = ProgramSettings(artifact=out)
    with PostgresEngine(PostgresSettings(dsn=multisurvey_dsn, catalog="multisurvey")) as engine:
        program, _ = load_program("fake/oracle", executor=engine, choice=choice)
        assert program.settings.catalog == "multisurvey" and program.demo_retriever is not None
    with pytest.raises(CatalogMismatch, match="was compiled for the multisurvey catalog, not ztf"):
        load_program("fake/oracle", executor=None, choice=choice)
