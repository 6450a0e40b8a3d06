"""`python -m db` in-process: help, exit codes and the up/status/url/down cycle."""

import subprocess
import sys
from pathlib import Path

import pytest

from db.cli import main
from db.server import ServerSettings

SUBCOMMANDS = ["up", "status", "down", "url"]


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("command", [[], *([name] for name in SUBCOMMANDS)], ids=["main", *SUBCOMMANDS])
def test_help_exits_0_with_examples(capsys: pytest.CaptureFixture[str], command: list[str], flag: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, flag])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out
    assert "python -m db" in out


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["bogus"],
        ["up", "--scale", "huge"],
        ["up", "--port", "x"],
        ["url", "--seed", "1"],
        ["status", "extra"],
        ["up", "--catalog", "rubin"],
    ],
    ids=["no-command", "unknown-command", "bad-scale", "bad-port", "url-has-no-seed", "extra-argument", "bad-catalog"],
)
def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scale", "large"], "Unknown scale 'large' for catalog multisurvey; choose one of tiny, default."),
    ],
    ids=["no-large-scale"],
)
def test_multisurvey_up_refuses_what_its_replica_lacks_in_one_line(capsys, tmp_path, argv, message) -> None:
    assert main(["up", "--catalog", "multisurvey", "--data-dir", str(tmp_path), *argv]) == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"error: {message}\n")


def test_url_without_a_running_server_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["url", "--data-dir", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"error: The embedded server in {tmp_path} is not running; start it with `python -m db up`.\n"
    )


def test_status_without_a_server_says_not_running(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["status", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"running: no\ndata dir: {tmp_path}\n"


def test_up_status_url_down_cycle(capsys: pytest.CaptureFixture[str], scratch_server: ServerSettings) -> None:
    where = ["--data-dir", str(scratch_server.data_dir)]
    assert main(["-q", "up", "--scale", "tiny", "--seed", "0", "--port", str(scratch_server.port), *where]) == 0
    dsn = capsys.readouterr().out
    assert dsn == f"postgresql://alerce_reader@127.0.0.1:{scratch_server.port}/alerce_tiny\n"

    assert main(["status", *where]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["running: yes", f"data dir: {scratch_server.data_dir}", f"port: {scratch_server.port}"]
    assert any(line.startswith("database: alerce_tiny (catalog ztf, scale tiny, seed 0, q3c ") for line in lines)

    assert main(["url", "--scale", "tiny", *where]) == 0
    assert capsys.readouterr().out == dsn

    assert main(["url", *where]) == 1
    assert capsys.readouterr().err.endswith(
        "error: Database alerce is not built; build it with `python -m db up --catalog ztf --scale default`.\n"
    )
    assert main(["url", "--catalog", "multisurvey", "--scale", "tiny", *where]) == 1
    assert capsys.readouterr().err == (
        "error: Database alerce_multisurvey_tiny is not built; build it with "
        "`python -m db up --catalog multisurvey --scale tiny`.\n"
    )

    assert main(["-q", "down", *where]) == 0
    assert main(["url", "--scale", "tiny", *where]) == 1
    assert "is not running" in capsys.readouterr().err


def test_module_entry_point_runs_main() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "db", "status", "--help"],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parents[2],
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: python -m db status")
