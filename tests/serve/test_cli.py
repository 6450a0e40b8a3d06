"""``python -m serve``: help, refusals with one line and the documented exit codes."""

import pytest

from serve.cli import main


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_describes_the_workbench(capsys, flag):
    with pytest.raises(SystemExit) as caught:
        main([flag])
    out = capsys.readouterr().out
    assert caught.value.code == 0
    assert out.startswith("usage: python -m serve")
    assert "--mcp" in out and "--token-file PATH" in out and "python -m serve --host 0.0.0.0 --token-file token" in out
    assert "--token " not in out and '--token "' not in out  # no token on the command line, where ps shows it


def test_another_address_without_a_token_is_a_bad_command_line(capsys, monkeypatch):
    monkeypatch.delenv("ALERCE_SERVE_TOKEN", raising=False)
    with pytest.raises(SystemExit) as caught:
        main(["--host", "0.0.0.0"])
    assert caught.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "python -m serve: error: binding 0.0.0.0 exposes the database beyond this machine; set a token with "
        "--token-file or $ALERCE_SERVE_TOKEN, or bind 127.0.0.1"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("short\n", "the access token has 5 characters; use at least 16"),
        (None, "cannot read the token from --token-file"),
    ],
    ids=["too-short", "missing-file"],
)
def test_the_token_comes_from_a_file_of_enough_characters(capsys, monkeypatch, tmp_path, content, message):
    monkeypatch.delenv("ALERCE_SERVE_TOKEN", raising=False)
    path = tmp_path / "token"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as caught:
        main(["--host", "0.0.0.0", "--token-file", str(path)])
    assert caught.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith(f"python -m serve: error: {message}")


def test_a_token_on_the_command_line_is_a_bad_command_line(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--host", "0.0.0.0", "--token", "s3cret-s3cret-s3cret"])
    assert caught.value.code == 2 and "unrecognized arguments: --token" in capsys.readouterr().err


def test_an_unreachable_database_is_one_line_and_exit_1(capsys):
    code = main(["--dsn", "postgresql://nobody@127.0.0.1:1/none", "-q"])
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert code == 1 and last.startswith("error: ") and "127.0.0.1:1" in last and "Traceback" not in err


@pytest.mark.parametrize(("argv", "message"), [(["--port", "-3"], "argument --port: must be more than 0, got -3")])
def test_bad_numbers_are_a_bad_command_line(capsys, argv, message):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2 and capsys.readouterr().err.splitlines()[-1] == f"python -m serve: error: {message}"
