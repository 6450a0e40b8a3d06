"""Tests for data.fetch and ``python -m data``: offline, from file:// URLs and a monkeypatched opener."""

import hashlib
import logging
import shutil
import urllib.error

import pytest

from data.cli import main
from data.errors import ChecksumError, FetchError
from data.fetch import BASE_URL, FILES, SUMS_FILE, fetch_dataset

DEV, TEST = "txt2sql_alerce_train_v4_0.csv", "txt2sql_alerce_test_v4_0.csv"
FAKE_TEST = b'req_id,request,gold_query,difficulty\n1,"made-up question","SELECT 1",simple\n'


@pytest.fixture
def mirror(tmp_path, dev_csv_path):
    """A local folder serving the real dev file and a made-up test file."""
    folder = tmp_path / "mirror"
    folder.mkdir()
    shutil.copyfile(dev_csv_path, folder / DEV)
    (folder / TEST).write_bytes(FAKE_TEST)
    return folder


def test_base_url_is_pinned_to_the_paper_commit():
    assert BASE_URL == "https://raw.githubusercontent.com/jespejom/alerce_T2S/81d8d25/llm/data/"
    assert FILES[DEV] == "18a596b50662cdcebaa2e540632d64803b271001d25eb9a68b44182f3cc9bb05"


def test_fetch_downloads_verifies_and_records_checksums(tmp_path, mirror, caplog):
    dest = tmp_path / "dest"
    with caplog.at_level(logging.WARNING, logger="data.fetch"):
        assert fetch_dataset(dest, base_url=mirror.as_uri() + "/") == dest
    assert (dest / DEV).read_bytes() == (mirror / DEV).read_bytes()
    test_sha = hashlib.sha256(FAKE_TEST).hexdigest()
    assert (dest / SUMS_FILE).read_text() == f"{test_sha}  {TEST}\n{FILES[DEV]}  {DEV}\n"
    assert f"{TEST} has no published checksum: recorded sha256 {test_sha}" in caplog.text
    assert sorted(p.name for p in dest.iterdir()) == sorted([DEV, TEST, SUMS_FILE])


def test_second_fetch_checks_the_recorded_test_checksum(tmp_path, mirror):
    dest = tmp_path / "dest"
    fetch_dataset(dest, base_url=mirror.as_uri() + "/")
    (dest / TEST).unlink()
    (mirror / TEST).write_bytes(FAKE_TEST + b'2,"changed","SELECT 2",simple\n')
    with pytest.raises(ChecksumError) as info:
        fetch_dataset(dest, base_url=mirror.as_uri() + "/")
    assert info.value.expected == hashlib.sha256(FAKE_TEST).hexdigest()
    assert not (dest / TEST).exists()


def test_checksum_mismatch_saves_nothing(tmp_path, mirror):
    (mirror / DEV).write_bytes(b"not the benchmark\n")
    dest = tmp_path / "dest"
    url = mirror.as_uri() + "/" + DEV
    with pytest.raises(ChecksumError) as info:
        fetch_dataset(dest, base_url=mirror.as_uri() + "/")
    actual = hashlib.sha256(b"not the benchmark\n").hexdigest()
    assert str(info.value) == (
        f"{url} has sha256 {actual}, expected {FILES[DEV]}; the file was not saved. "
        f"Check the URL, or delete {dest / SUMS_FILE} if it recorded a wrong checksum."
    )
    assert list(dest.iterdir()) == []


def test_offline_fetch_raises_fetch_error(tmp_path, monkeypatch):
    def offline(url, timeout):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr("urllib.request.urlopen", offline)
    with pytest.raises(FetchError) as info:
        fetch_dataset(tmp_path)
    assert str(info.value) == (
        f"Cannot download {BASE_URL}{DEV}: [Errno -3] Temporary failure in name resolution. Check the network "
        "connection, or download the file by hand and pass its folder with --dataset PATH."
    )


def test_cli_fetch_prints_the_folder(tmp_path, mirror, capsys, caplog):
    dest = tmp_path / "dest"
    assert main(["-q", "fetch", "--dest", str(dest), "--base-url", mirror.as_uri() + "/"]) == 0
    assert capsys.readouterr().out == f"{dest}\n"
    assert "no published checksum" in caplog.text


def test_cli_fetch_offline_prints_one_error_line(tmp_path, capsys):
    missing = (tmp_path / "missing").as_uri() + "/"
    assert main(["-q", "fetch", "--dest", str(tmp_path / "dest"), "--base-url", missing]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"error: Cannot download {missing}{DEV}: ")
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv", [["-h"], ["--help"], ["fetch", "-h"], ["fetch", "--help"]])
def test_cli_help(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "python -m data fetch --dest" in out and "exit codes:" in out


@pytest.mark.parametrize("argv", [[], ["fetch", "--bogus"], ["pull"]])
def test_cli_bad_command_line_exits_2(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
