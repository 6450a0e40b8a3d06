"""A bad manifest, a deeply nested program.json or predictions file, and a malformed demo index end in one line on
stderr and exit 1 in ``python -m ask``, ``python -m serve`` and ``python -m evaluate`` (red team round 4, item 10).

Each attack is data: a change to a saved artifact (or a predictions file), the text the one error line must hold.
Every case runs through the command's own ``main`` (a fake LM; nothing is ever asked of it, since loading refuses
first), and one case per command through a real ``python -m`` process, whose stderr must hold no traceback.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import dspy
import pandas as pd
import pytest

import lms
from modules import AlerceText2SQL, PipelineSettings
from modules.artifacts.load import MANIFEST_FILE, PROGRAM_FILE
from modules.generation.demo_retriever import DemoRetriever
from optimizers.saving import save_artifact
from serve.state import keys
from tests.answering.scripts import scripted_lm
from tests.conftest import REPO_DIR, free_port

MODEL = "fake/scripted"
EXAMPLES_CSV = REPO_DIR / "data" / "examples" / "examples.csv"
DEEP = "[" * 100_000 + "]" * 100_000


def _nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


def _set(*path_and_value):
    *path, key, value = path_and_value

    def change(data: dict) -> None:
        for part in path:
            data = data[part]
        data[key] = value

    return change


def _retriever_set(key, value):
    return _set("demo_retriever", key, value)


# name -> (change to the parsed manifest.json, or its whole text; text the error line must hold)
MANIFEST_ATTACKS = {
    "as_of that is not a date": (_set("pipeline", "as_of", "yesterday"), "pipeline.as_of"),
    "as_of that is a number": (_set("pipeline", "as_of", 20261204), "pipeline.as_of"),
    "an unknown top-level key": (_set("api_base", "http://127.0.0.1:9/v1"), "api_base"),
    "an unknown pipeline key": (_set("pipeline", "lm", "openai/x"), "pipeline.lm"),
    "a count given as text": (_set("pipeline", "max_corrections", "2"), "pipeline.max_corrections"),
    "a count given as a list": (_set("pipeline", "candidates", []), "pipeline.candidates"),
    "a negative count": (_set("pipeline", "max_corrections", -1), "max_corrections must be 0 or more"),
    "an agreement outside [0, 1]": (_set("pipeline", "min_agreement", 7), "min_agreement must be between 0 and 1"),
    "stages as one text": (_set("pipeline", "stages", "generation"), "pipeline.stages"),
    "an unknown catalog in the pipeline": (_set("pipeline", "catalog", "nowhere"), "pipeline.catalog"),
    "an unknown catalog": (_set("catalog", "nowhere"), "unknown catalog 'nowhere'"),
    "an unknown adapter": (_set("adapter", "xml"), "unknown adapter 'xml'"),
    "a pipeline that is a list": (_set("pipeline", [1]), "pipeline is not a JSON object"),
    "a split that is text": (_set("split", "all"), "split is not a JSON object"),
    "req_ids that are objects": (_set("split", {"train_req_ids": [{"a": 1}]}), "split.train_req_ids"),
    "a deeply nested manifest": (DEEP, "nested deeper than"),
}

# name -> (change to the parsed program.json, or its whole text; text the error line must hold)
PROGRAM_ATTACKS = {
    "a deeply nested program": (DEEP, "nested deeper than"),
    "a deeply nested demo": (_set("generation.direct", "demos", [{"sql": _nested(90)}]), "demos[0].sql"),
    "a retriever example without its question": (
        _retriever_set("examples", [{"knowledge": "", "sql": "SELECT 1"}]),
        "demo_retriever.examples[0].question",
    ),
    "a retriever vocabulary with repeated positions": (
        lambda s: s["demo_retriever"].update(vocabulary=dict.fromkeys(s["demo_retriever"]["vocabulary"], 0)),
        "demo_retriever.vocabulary",
    ),
    "a retriever vocabulary with a gap": (
        lambda s: s["demo_retriever"].update(vocabulary={"count": 0, "curve": 2}, idf=[1.0, 1.0, 1.0]),
        "demo_retriever.vocabulary",
    ),
    "an empty retriever vocabulary": (
        lambda s: s["demo_retriever"].update(vocabulary={}, idf=[]),
        "demo_retriever.idf",
    ),
    "a retriever idf longer than its vocabulary": (
        lambda s: s["demo_retriever"]["idf"].extend([1.0, 2.0]),
        "demo_retriever.vocabulary",
    ),
    "a retriever idf of NaN": (
        lambda s: s["demo_retriever"].update(idf=[float("nan")] * len(s["demo_retriever"]["idf"])),
        "demo_retriever.idf",
    ),
}

# name -> (the predictions file's text; text the error line must hold)
PREDICTIONS_ATTACKS = {
    "100,000 nested brackets": (DEEP, "nested deeper than"),
    "nested brackets under predictions": ('{"predictions": ' + DEEP + "}", "nested deeper than"),
    "a deeply nested sql": (json.dumps([{"req_id": 1, "sql": _nested(500)}]), "nested deeper than"),
    "a nested sql within the limit": (json.dumps([{"req_id": 1, "sql": _nested(90)}]), "is not text"),
    "a nested req_id": (json.dumps([{"req_id": _nested(90), "sql": "SELECT 1"}]), "is not an integer"),
}


@pytest.fixture
def use_lm(monkeypatch):
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: scripted_lm())


@pytest.fixture
def one_question(tmp_path):
    """The first example question alone: on code that wrongly accepts an attack, evaluate ends soon."""
    path = tmp_path / "one_question.csv"
    pd.read_csv(EXAMPLES_CSV, dtype=object, keep_default_na=False).head(1).to_csv(path, index=False)
    return path


@pytest.fixture
def no_serving(monkeypatch):
    """Make serving return at once: on code that wrongly accepts an attack, serve ends (exit 0) instead of serving."""
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)


@pytest.fixture(autouse=True)
def _session_key_in_tmp(monkeypatch, tmp_path):
    for name in (keys.KEY_ENV, "ALERCE_SERVE_STORE_DSN", "ALERCE_SERVE_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(keys.KEY_FILE_ENV, str(tmp_path / "session.key"))


def saved_artifact(folder):
    """An artifact as compile writes it for the ztf catalog, with a demo and an MQS demo index."""
    program = AlerceText2SQL()
    program.generation.direct.demos = [dspy.Example(question="Objects with many detections", sql="SELECT oid FROM t")]
    examples = [dspy.Example(question=q, gold_sql=f"SELECT {i}") for i, q in enumerate(["count SNIa", "light curve"])]
    program.demo_retriever = DemoRetriever.fit(examples, k=1)
    pipeline = dataclasses.asdict(PipelineSettings(as_of="2026-12-04"))
    pipeline["as_of"] = "2026-12-04"
    manifest = {"model": MODEL, "catalog": "ztf", "adapter": "chat", "pipeline": pipeline, "split": {}}
    return save_artifact(program, folder, manifest)


def tampered(folder, file, change):
    path = folder / file
    if isinstance(change, str):
        path.write_text(change)
    else:
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))
    return folder


def ask_argv(folder, dsn, tmp_path):
    return ["How many?", "--model", MODEL, "--dsn", dsn, "--program", str(folder), "-q"]


def serve_argv(folder, dsn, tmp_path, store_dsn):
    return ["--model", MODEL, "--dsn", dsn, "--program", str(folder), "--store-dsn", store_dsn]


def evaluate_argv(folder, dsn, tmp_path, dataset=EXAMPLES_CSV):
    return [
        "--model",
        MODEL,
        "--program",
        str(folder),
        "--dataset",
        str(dataset),
        "--dsn",
        dsn,
        "--report",
        str(tmp_path / "report"),
        "--gold-cache",
        str(tmp_path / "gold"),
        "-q",
    ]


def one_line_exit_1(code: int, err: str, expected: str) -> None:
    lines = err.strip().splitlines()
    assert code == 1, err
    assert len(lines) == 1, err[:2000]
    assert lines[0].startswith("error: ") and expected in lines[0], lines[0][:500]
    assert "Traceback" not in err and len(lines[0]) < 600


def run_main(command: str, argv: list[str], capsys) -> tuple[int, str]:
    if command == "ask":
        from answering.cli import main
    elif command == "serve":
        from serve.cli import main
    else:
        from evaluate import main
    code = main(argv)
    return code, capsys.readouterr().err


ARTIFACT_CASES = [
    pytest.param(MANIFEST_FILE, *attack, id=f"manifest: {name}") for name, attack in MANIFEST_ATTACKS.items()
] + [pytest.param(PROGRAM_FILE, *attack, id=f"program: {name}") for name, attack in PROGRAM_ATTACKS.items()]


@pytest.mark.parametrize(("file", "change", "expected"), ARTIFACT_CASES)
@pytest.mark.parametrize("command", ["ask", "evaluate"])
def test_a_bad_artifact_is_one_line_and_exit_1(
    command, file, change, expected, capsys, use_lm, tiny_dsn, tmp_path, one_question
):
    folder = tampered(saved_artifact(tmp_path / "art"), file, change)
    if command == "ask":
        argv = ask_argv(folder, tiny_dsn, tmp_path)
    else:
        argv = evaluate_argv(folder, tiny_dsn, tmp_path, one_question)
    code, err = run_main(command, argv, capsys)
    one_line_exit_1(code, err, expected)


@pytest.mark.parametrize(("file", "change", "expected"), ARTIFACT_CASES)
def test_serve_refuses_a_bad_artifact_in_one_line(
    file, change, expected, capsys, use_lm, tiny_dsn, tmp_path, scratch_database, no_serving
):
    folder = tampered(saved_artifact(tmp_path / "art"), file, change)
    argv = [*serve_argv(folder, tiny_dsn, tmp_path, scratch_database), "--port", str(free_port()), "-q"]
    code, err = run_main("serve", argv, capsys)
    one_line_exit_1(code, err, expected)


@pytest.mark.parametrize(("text", "expected"), PREDICTIONS_ATTACKS.values(), ids=list(PREDICTIONS_ATTACKS))
def test_a_bad_predictions_file_is_one_line_and_exit_1(text, expected, capsys, tiny_dsn, tmp_path, one_question):
    predictions = tmp_path / "predictions.json"
    predictions.write_text(text)
    argv = ["--predictions", str(predictions), "--dataset", str(one_question), "--dsn", tiny_dsn]
    code, err = run_main("evaluate", [*argv, "--report", str(tmp_path / "report"), "-q"], capsys)
    one_line_exit_1(code, err, expected)


def test_a_clean_artifact_still_answers(capsys, use_lm, tiny_dsn, tmp_path):
    code, err = run_main("ask", ask_argv(saved_artifact(tmp_path / "art"), tiny_dsn, tmp_path), capsys)
    assert code == 0, err


def _python_m(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_API_KEY": "sk-never-used", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=REPO_DIR, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("command", ["ask", "serve", "evaluate"])
def test_the_real_commands_print_one_line_and_no_traceback(command, tiny_dsn, tmp_path, scratch_database, one_question):
    folder = tampered(saved_artifact(tmp_path / "art"), MANIFEST_FILE, MANIFEST_ATTACKS["as_of that is not a date"][0])
    model = "openai/gpt-4.1-mini"  # resolved with a dummy key, never called: loading refuses first
    if command == "ask":
        argv = ["How many?", "--model", model, "--dsn", tiny_dsn, "--program", str(folder), "-q"]
    elif command == "serve":
        argv = [*serve_argv(folder, tiny_dsn, tmp_path, scratch_database), "--port", str(free_port()), "-q"]
        argv[1] = model
    else:
        argv = evaluate_argv(folder, tiny_dsn, tmp_path, one_question)
        argv[1] = model
    done = _python_m(command, *argv)  # on code that accepted the manifest, serve would serve until the timeout
    one_line_exit_1(done.returncode, done.stderr, "pipeline.as_of")
    predictions = tmp_path / "deep.json"
    predictions.write_text(DEEP)
    if command == "evaluate":
        done = _python_m("evaluate", "--predictions", str(predictions), "--dataset", str(one_question), "-q")
        one_line_exit_1(done.returncode, done.stderr, "nested deeper than")
