"""The shared --catalog option: its choices, its environment default and one-line errors."""

import argparse

import pytest

from catalog.options import CATALOG_ENV, add_catalog_argument


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cmd")
    add_catalog_argument(parser)
    return parser


def test_defaults_to_ztf(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)
    assert _parser().parse_args([]).catalog == "ztf"


def test_takes_the_environment_then_the_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CATALOG_ENV, "multisurvey")
    assert _parser().parse_args([]).catalog == "multisurvey"
    assert _parser().parse_args(["--catalog", "ztf"]).catalog == "ztf"


@pytest.mark.parametrize(("argv", "env"), [(["--catalog", "rubin"], None), ([], "rubin")])
def test_unknown_catalog_is_one_line_and_exit_2(monkeypatch, capsys, argv, env) -> None:
    if env:
        monkeypatch.setenv(CATALOG_ENV, env)
    with pytest.raises(SystemExit) as exited:
        _parser().parse_args(argv)
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "cmd: error: argument --catalog: unknown catalog 'rubin'; choose one of ztf, multisurvey"
    )
