"""``python -m serve``, ``web`` and ``worker``: the state options in each --help, bad values in one line."""

from __future__ import annotations

import socket

import pytest

from serve.cli import main
from serve.state import keys

UNREACHABLE = "postgresql://nobody@127.0.0.1:1/none"


@pytest.fixture(autouse=True)
def _no_state_env(monkeypatch, tmp_path):
    for name in (keys.KEY_ENV, "ALERCE_SERVE_STORE_DSN", "ALERCE_SERVE_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(keys.KEY_FILE_ENV, str(tmp_path / "session.key"))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], ["--store-dsn DSN", "--session-key-file PATH", "python -m serve worker", "web --workers 2"]),
        (["web"], ["--workers N", "--store-dsn DSN", "--session-key-file PATH", "--token-file PATH"]),
        (["worker"], ["--concurrency N", "--store-dsn DSN", "ALERCE_SERVE_STORE_DSN", "--model"]),
    ],
    ids=["serve", "web", "worker"],
)
def test_each_command_lists_its_state_options(capsys, argv, expected):
    with pytest.raises(SystemExit) as caught:
        main([*argv, "--help"])
    out = capsys.readouterr().out
    assert caught.value.code == 0 and out.startswith(f"usage: python -m serve{' ' + argv[0] if argv else ''}")
    assert all(text in out for text in expected), [text for text in expected if text not in out]
    assert "--listen-fd" not in out


@pytest.mark.parametrize("argv", [["web", "--workers", "0"], ["worker", "--concurrency", "-1"]])
def test_a_count_below_one_is_a_bad_command_line(capsys, argv):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and "must be" in err.splitlines()[-1] and "Traceback" not in err


@pytest.mark.parametrize("command", [[], ["web"], ["worker"]])
def test_an_unreachable_store_is_one_line_and_exit_1(capsys, tiny_dsn, command):
    code = main([*command, "--dsn", tiny_dsn, "--store-dsn", UNREACHABLE, "-q"])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error: the state database cannot be used: ")
    assert "127.0.0.1" in lines[0] and "Traceback" not in err


def test_the_store_dsn_comes_from_the_environment_too(capsys, monkeypatch, tiny_dsn):
    monkeypatch.setenv("ALERCE_SERVE_STORE_DSN", UNREACHABLE)
    assert main(["worker", "--dsn", tiny_dsn, "-q"]) == 1
    assert "127.0.0.1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda path, env: env.setenv(keys.KEY_ENV, "short"), "must be at least 32 hexadecimal characters"),
        (lambda path, env: (path.write_text("ab" * 32), path.chmod(0o644)), "is readable by others"),
        (lambda path, env: (path.write_text("zz\n"), path.chmod(0o600)), "holds no key"),
    ],
    ids=["env-too-short", "file-readable-by-others", "file-without-key"],
)
def test_an_unusable_session_key_is_one_line_and_exit_1(capsys, monkeypatch, tmp_path, setup, message):
    path = tmp_path / "given.key"
    setup(path, monkeypatch)
    code = main(["web", "--session-key-file", str(path), "--store-dsn", UNREACHABLE])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and message in lines[0]


def test_web_processes_on_an_address_in_use_is_one_line_and_exit_1(capsys, scratch_database):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code = main(["web", "--workers", "2", "--port", str(port), "--store-dsn", scratch_database, "-q"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and "Address already in use" in lines[0]
