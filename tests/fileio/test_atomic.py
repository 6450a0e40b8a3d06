"""Atomic writes: a file is replaced whole or not at all, and no temp file is left behind."""

import os
import stat

import pytest

from fileio import check_writable, write_atomic


def test_write_atomic_replaces_the_file_and_leaves_no_temp(tmp_path):
    path = tmp_path / "sub" / "entry.pkl"
    write_atomic(path, b"first")
    write_atomic(path, b"second")
    assert path.read_bytes() == b"second"
    assert [child.name for child in path.parent.iterdir()] == ["entry.pkl"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_failed_rename_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "SHA256SUMS"
    write_atomic(path, b"old")

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="No space left on device"):
        write_atomic(path, b"new")
    assert path.read_bytes() == b"old"
    assert [child.name for child in tmp_path.iterdir()] == ["SHA256SUMS"]


def test_check_writable_raises_for_a_folder_under_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("keep")
    with pytest.raises(OSError):
        check_writable(blocker / "out")
    assert blocker.read_text() == "keep"
