"""compile lists the req_ids of its split parts; evaluate warns when it scores a program on questions it saw.

Held-out questions, which compile scored but neither drew demos from nor selected on, do not count as seen.
"""

import json

import pytest

import db.engine
import lms
import optimizers.cli as compile_cli
from evaluation.cli import main as evaluate_main
from evaluation.seen_questions import seen_in_compile
from metric.gold_cache import GoldCache
from modules.artifacts.load import MANIFEST_FILE
from tests.faults.conftest import ScriptedEngine, oracle, scripted_lm, synthetic_csv
from tests.optimizers.compile_helpers import synthetic_examples

WARNING = "questions were in the split the program was compiled on (demos or selection)"


@pytest.fixture
def compiled(tiny_dsn, tmp_path_factory, monkeypatch):
    """An artifact compiled (labeled, oracle LM) on the synthetic questions; returns its folder."""
    tmp_path = tmp_path_factory.mktemp("compiled")
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setattr(compile_cli, "resolve_lm", lambda model: scripted_lm(ScriptedEngine(oracle())))
    monkeypatch.setattr(db.engine, "resolve_dsn", lambda dsn, ground=None, **_: tiny_dsn)
    monkeypatch.setattr(compile_cli, "GoldCache", lambda executor: GoldCache(executor, cache_dir=tmp_path / "gold"))
    out = tmp_path / "artifact"
    argv = ["--model", "fake/oracle", "--optimizer", "labeled", "--k", "2", "--num-threads", "1"]
    assert compile_cli.main([*argv, "--dataset", str(synthetic_csv()), "--out", str(out), "-q"]) == 0
    return out


def test_the_manifest_lists_the_req_ids_of_each_part(compiled):
    split = json.loads((compiled / MANIFEST_FILE).read_text())["split"]
    train, validation, heldout = split["train_req_ids"], split["validation_req_ids"], split["heldout_req_ids"]
    assert (len(train), len(validation), len(heldout)) == (split["n_train"], split["n_validation"], split["n_heldout"])
    assert validation == []  # labeled selects nothing: all that is not a demo source is held out
    assert train and heldout and not set(train) & set(heldout)
    assert sorted(train + heldout) == sorted(example.req_id for example in synthetic_examples())


@pytest.mark.parametrize("program", ["compiled", "uncompiled"])
def test_evaluate_warns_when_it_scores_questions_compile_saw(
    program, compiled, tiny_dsn, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: scripted_lm(ScriptedEngine(oracle())))
    source = ["--program", str(compiled)] if program == "compiled" else ["--uncompiled"]
    argv = ["--model", "fake/oracle", *source, "--dataset", str(synthetic_csv()), "--dsn", tiny_dsn, "--json"]
    argv += ["--report", str(tmp_path / "report"), "--gold-cache", str(tmp_path / "gold"), "-q"]
    assert evaluate_main(argv) == 0
    captured = capsys.readouterr()
    seen = json.loads(captured.out)["settings"]["source"]["seen_in_compile"]
    if program == "compiled":
        train = json.loads((compiled / MANIFEST_FILE).read_text())["split"]["train_req_ids"]
        assert f"{len(train)} of the {len(synthetic_examples())} {WARNING}" in captured.err
        assert sorted(seen) == sorted(train)  # the held-out questions are not seen
    else:
        assert WARNING not in captured.err and seen == []


def test_other_files_and_old_manifests_have_no_seen_questions():
    questions = synthetic_examples()
    manifest = {"dataset": {"sha256": "ab"}, "split": {"train_req_ids": [questions[0].req_id]}}
    assert seen_in_compile(manifest, questions, "ab") == [questions[0].req_id]
    assert seen_in_compile(manifest, questions, "other") == []
    assert seen_in_compile({"dataset": {"sha256": "ab"}, "split": {"n_train": 3}}, questions, "ab") == []
    assert seen_in_compile(None, questions, "ab") == []
