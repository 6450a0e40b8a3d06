"""The shared --engine, --tap-url and --dsn options."""

import argparse

import pytest

from engines import EngineSettings
from engines.options import add_dsn_argument, add_engine_arguments, engine_settings


def test_add_dsn_argument_defines_the_shared_option() -> None:
    parser = argparse.ArgumentParser()
    add_dsn_argument(parser)
    assert parser.parse_args(["--dsn", "postgresql://x/y"]).dsn == "postgresql://x/y"
    assert parser.parse_args([]).dsn is None
    assert "ALERCE_DSN" in parser.format_help()


def test_engine_arguments_default_to_postgres() -> None:
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser)
    args = parser.parse_args([])
    assert engine_settings(args) == EngineSettings(engine="postgres")
    assert "ALERCE_TAP_URL" in parser.format_help()


def test_engine_arguments_select_tap_with_a_url() -> None:
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser)
    args = parser.parse_args(["--engine", "tap", "--tap-url", "http://127.0.0.1:8080/tap"])
    settings = engine_settings(args, timeout_s=5.0)
    assert settings == EngineSettings(engine="tap", tap_url="http://127.0.0.1:8080/tap", timeout_s=5.0)


def test_engine_arguments_refuse_an_unknown_engine(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--engine", "sqlite"])
    assert "invalid choice: 'sqlite'" in capsys.readouterr().err


def test_engine_settings_refuse_an_unknown_engine() -> None:
    with pytest.raises(ValueError, match=r"Unknown engine .sqlite.; choose one of postgres, tap\."):
        EngineSettings(engine="sqlite")


def test_engine_arguments_choose_the_catalog() -> None:
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser)
    settings = engine_settings(parser.parse_args(["--catalog", "multisurvey", "--engine", "tap"]))
    assert settings == EngineSettings(engine="tap", catalog="multisurvey")


def test_engine_settings_refuse_an_unknown_catalog() -> None:
    with pytest.raises(ValueError, match=r"^Unknown catalog 'rubin'; choose one of ztf, multisurvey\.$"):
        EngineSettings(catalog="rubin")


def test_each_engine_owns_its_settings_and_takes_what_was_given() -> None:
    from engines import PostgresSettings, TapSettings
    from engines.settings import MAX_ROWS

    chosen = EngineSettings(catalog="multisurvey", timeout_s=7.0, dsn="postgresql://x/y")
    postgres = chosen.given_to(PostgresSettings, dsn="postgresql://resolved/db")
    assert postgres == PostgresSettings(dsn="postgresql://resolved/db", timeout_s=7.0, catalog="multisurvey")
    assert postgres.max_rows == MAX_ROWS and postgres.pool_size == PostgresSettings(dsn="").pool_size
    tap = EngineSettings(engine="tap", max_rows=10, connect_timeout_s=2.0).given_to(TapSettings, url="http://t/tap")
    assert (tap.url, tap.max_rows, tap.connect_timeout_s) == ("http://t/tap", 10, 2.0)
    assert tap.timeout_s == TapSettings().timeout_s and TapSettings().max_rows == MAX_ROWS
