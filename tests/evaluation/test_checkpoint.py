"""Tests of the JSON-lines checkpoint."""

import json

import pytest

from evaluation import checkpoint as checkpoint_module
from evaluation.checkpoint import Checkpoint
from evaluation.errors import CheckpointMismatch

IDENTITY = {"database_fingerprint": "abc", "timeout_s": 10.0}


def test_checkpoint_round_trips_records_and_keeps_the_latest(tmp_path):
    checkpoint = Checkpoint(tmp_path / "run" / "checkpoint.jsonl", IDENTITY)
    assert checkpoint.load() == []
    checkpoint.append({"req_id": 1, "run": 0, "row_pm": False})
    checkpoint.append({"req_id": 1, "run": "a", "row_pm": True})
    checkpoint.append({"req_id": 1, "run": 0, "row_pm": True})
    header = json.loads(checkpoint.path.read_text().splitlines()[0])
    assert header == {"checkpoint": 1, "identity": IDENTITY}
    assert Checkpoint(checkpoint.path, IDENTITY).load() == [
        {"req_id": 1, "run": 0, "row_pm": True},
        {"req_id": 1, "run": "a", "row_pm": True},
    ]


def test_checkpoint_survives_a_torn_last_line(tmp_path):
    checkpoint = Checkpoint(tmp_path / "checkpoint.jsonl", IDENTITY)
    checkpoint.append({"req_id": 1, "run": 0})
    with checkpoint.path.open("a") as file:
        file.write('{"req_id": 2, "ru')
    checkpoint.append({"req_id": 3, "run": 0})
    assert [record["req_id"] for record in checkpoint.load()] == [1, 3]


@pytest.mark.parametrize(
    "line",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"req_id": ' + "[" * 5_000 + "]" * 5_000 + ', "run": 0}',
        '{"run": 0}',
        "[1, 2]",
        '{"req_id": {"a": 1}, "run": 0}',
        "\udcff",
    ],
    ids=[
        "100,000 nested brackets",
        "a deeply nested req_id",
        "no req_id",
        "not an object",
        "req_id an object",
        "a lone surrogate",
    ],
)
def test_a_checkpoint_line_that_is_not_an_item_is_ignored(tmp_path, line):
    checkpoint = Checkpoint(tmp_path / "checkpoint.jsonl", IDENTITY)
    checkpoint.append({"req_id": 1, "run": 0})
    with checkpoint.path.open("a", encoding="utf-8", errors="surrogateescape") as file:
        file.write(line + "\n")
    checkpoint.append({"req_id": 3, "run": 0})
    assert [record["req_id"] for record in checkpoint.load()] == [1, 3]


def test_checkpoint_refuses_other_settings(tmp_path):
    Checkpoint(tmp_path / "checkpoint.jsonl", IDENTITY).append({"req_id": 1, "run": 0})
    with pytest.raises(CheckpointMismatch) as info:
        Checkpoint(tmp_path / "checkpoint.jsonl", {**IDENTITY, "timeout_s": 5.0}).load()
    assert info.value.differences == ("timeout_s",)
    assert str(info.value) == (
        f"The checkpoint in '{tmp_path}' was made with other settings (timeout_s: 10.0 then, 5.0 now); "
        "rerun with the same settings to resume, or choose another --report folder."
    )


def test_checkpoint_refuses_a_foreign_file(tmp_path):
    (tmp_path / "checkpoint.jsonl").write_text('{"something": "else"}\n')
    with pytest.raises(CheckpointMismatch, match="is not a checkpoint of this evaluator"):
        Checkpoint(tmp_path / "checkpoint.jsonl", IDENTITY).load()


def test_appends_within_the_sync_interval_share_one_fsync(tmp_path, monkeypatch):
    clock = iter([100.0, 100.0, 100.5, 101.2, 101.2])
    synced = []
    monkeypatch.setattr(checkpoint_module.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(checkpoint_module.os, "fsync", synced.append)
    checkpoint = Checkpoint(tmp_path / "checkpoint.jsonl", IDENTITY)
    checkpoint.append_all([{"req_id": 1, "run": 0}, {"req_id": 1, "run": 1}])  # at 100.0: synced
    checkpoint.append({"req_id": 2, "run": 0})  # at 100.5: flushed only
    checkpoint.append({"req_id": 3, "run": 0})  # at 101.2: synced again
    assert len(synced) == 2
    assert [(record["req_id"], record["run"]) for record in checkpoint.load()] == [(1, 0), (1, 1), (2, 0), (3, 0)]
