"""Whether the copy the local DaCHS serves is current, checked against the test database (no DaCHS needed)."""

import dataclasses
import json

import pandas as pd
import pytest

from db.provision import database_build_info
from db.server import ServerInfo
from db.tap import copy as tap_copy
from db.tap.copy import Freshness, PublishedCopy, check_copy, forget_copy, read_copy, write_copy
from db.tap.current import CurrentCopyEngine
from engines.engine import Result
from engines.errors import DatabaseUnavailable

URL = "http://127.0.0.1:8080/tap"


@pytest.fixture
def gavo_dir(tmp_path, monkeypatch):
    (tmp_path / "inputs" / "ztf").mkdir(parents=True)
    monkeypatch.setattr(tap_copy, "GAVO_DIR", tmp_path)
    return tmp_path


@pytest.fixture
def published(tiny_server: ServerInfo, gavo_dir) -> PublishedCopy:
    """A recorded copy of the test database as it is now."""
    copy = PublishedCopy.of(tiny_server, database_build_info(tiny_server.admin_dsn))
    write_copy(copy)
    return copy


def test_a_copy_of_the_database_as_it_is_is_current(published):
    freshness = check_copy()
    assert freshness == Freshness(copy=published, state="current")
    assert freshness.current


def test_a_copy_of_another_grounding_is_stale_and_says_how_to_refresh(published, tiny_server):
    write_copy(dataclasses.replace(published, grounding="0123456789abcdef", grounded_queries=3))
    freshness = check_copy()
    assert freshness.state == "stale"
    assert f"grounding 0123456789abcdef -> {published.grounding}" in freshness.reason
    message = freshness.message(URL)
    assert "\n" not in message
    assert message.startswith(f"The local TAP service at {URL} serves a stale copy of alerce_tiny: its database ")
    assert message.endswith(
        f"run `python -m db tap up --scale tiny --data-dir {tiny_server.data_dir}` to republish it."
    )


def test_a_rebuild_of_the_same_build_is_not_stale(published):
    write_copy(dataclasses.replace(published, built_at="2020-01-01T00:00:00+00:00"))
    assert check_copy().current


def test_a_copy_rendered_from_another_catalog_is_stale(published):
    write_copy(dataclasses.replace(published, catalog="feedfacefeedface"))
    assert check_copy().reason == "the catalog changed since it was copied"


def test_a_copy_whose_database_does_not_answer_cannot_be_checked(published):
    write_copy(dataclasses.replace(published, reader_dsn="postgresql://alerce_reader@127.0.0.1:9/alerce_tiny"))
    freshness = check_copy()
    assert freshness.state == "unchecked"
    assert "cannot be checked: its database cannot be read" in freshness.message(URL)


def test_a_copy_whose_data_folder_was_removed_is_stale_and_points_at_the_default_folder(published, tmp_path):
    gone = str(tmp_path / "removed")
    write_copy(
        dataclasses.replace(published, reader_dsn="postgresql://alerce_reader@127.0.0.1:9/alerce_tiny", data_dir=gone)
    )
    freshness = check_copy()
    assert (freshness.state, freshness.reason) == ("stale", f"its data folder {gone} was removed")
    assert freshness.message(URL).endswith("run `python -m db tap up --scale tiny` to republish it.")


def test_nothing_published_or_an_older_record_is_no_copy(gavo_dir):
    assert check_copy() == Freshness(copy=None, state="none", reason="no database is published")
    (gavo_dir / "inputs" / "ztf" / "source.json").write_text(json.dumps({"database": "alerce", "build": "[]"}))
    assert read_copy() is None
    assert "publishes no database; run `python -m db tap up`" in check_copy().message(URL)


def test_forget_copy_drops_the_record(published):
    forget_copy()
    assert read_copy() is None


class _Inner:
    """A TAP engine stand-in that counts the queries it runs."""

    name = "tap"
    concurrency = None
    catalog = "ztf"

    def __init__(self):
        self.settings = type("Settings", (), {"url": URL})()
        self.runs = 0

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        self.runs += 1
        return Result(frame=pd.DataFrame({"oid": ["a"]}), elapsed_s=0.0, truncated=False)

    execute_adql = execute

    def fingerprint(self):
        return "tap-0123456789abcdef"


def test_the_engine_refuses_a_stale_copy_before_running_anything(published):
    inner = _Inner()
    stale = Freshness(copy=published, state="stale", reason="its database was rebuilt (seed 0 -> 1)")
    engine = CurrentCopyEngine(inner, check=lambda: stale)
    for run in (engine.execute, engine.execute_adql):
        with pytest.raises(DatabaseUnavailable) as caught:
            run("SELECT oid FROM object")
        assert str(caught.value) == stale.message(URL)
    with pytest.raises(DatabaseUnavailable):
        engine.fingerprint()
    assert inner.runs == 0


def test_the_engine_runs_on_a_current_copy_and_its_fingerprint_names_the_build(published):
    inner = _Inner()
    engine = CurrentCopyEngine(inner, check=lambda: Freshness(copy=published, state="current"))
    assert list(engine.execute("SELECT oid FROM object").frame["oid"]) == ["a"]
    assert engine.execute_adql("SELECT oid FROM ztf.object").frame.shape == (1, 1)
    regrounded = dataclasses.replace(published, grounding="0123456789abcdef")
    other = CurrentCopyEngine(inner, check=lambda: Freshness(copy=regrounded, state="current"))
    later = CurrentCopyEngine(
        inner, check=lambda: Freshness(copy=dataclasses.replace(published, built_at="x"), state="current")
    )
    assert engine.fingerprint().startswith("tap-")
    assert engine.fingerprint() != other.fingerprint()
    assert engine.fingerprint() == later.fingerprint()
    assert inner.runs == 2


def test_describe_names_the_build_in_one_line(published):
    one = dataclasses.replace(
        published, grounding="869e6b6f06af27e0", grounded_queries=1, built_at="2026-12-01T17:04:26+00:00"
    )
    assert one.describe() == (
        f"scale tiny, seed 0, grounding 869e6b6f06af27e0 (1 query), checksum {published.checksum}, "
        "built 2026-12-01 17:04:26 UTC"
    )
    assert dataclasses.replace(one, grounding="").describe().startswith("scale tiny, seed 0, no grounding, ")
