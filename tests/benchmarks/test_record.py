"""benchmarks.record names the commit that ran, and refuses a result whose commit changed during the run."""

import json
import subprocess

import pytest

from benchmarks import record as recorder


@pytest.fixture
def fake_run(monkeypatch, tmp_path):
    """A benchmark that prints a result; git answers from `heads` in turn; results go to a temporary folder."""
    heads: list[str] = []
    monkeypatch.setattr(recorder, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(recorder, "_git", lambda *args: heads.pop(0) if args[0] == "rev-parse" else "")
    done = subprocess.CompletedProcess([], 0, stdout=json.dumps({"answer": 1}), stderr="")
    monkeypatch.setattr(recorder.subprocess, "run", lambda *args, **kwargs: done)
    return heads


def test_the_result_names_the_commit_it_ran_at(fake_run, tmp_path):
    fake_run.extend(["a" * 40, "a" * 40])
    file = recorder.record("guard", [])
    entry = json.loads(file.read_text())
    assert entry["commit"] == "a" * 40 and entry["result"] == {"answer": 1} and entry["dirty"] is False


def test_a_commit_made_during_the_run_refuses_the_result(fake_run, tmp_path):
    fake_run.extend(["a" * 40, "b" * 40])
    with pytest.raises(RuntimeError, match="commit changed"):
        recorder.record("guard", [])
    assert not (tmp_path / "guard.json").exists()
