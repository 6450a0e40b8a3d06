"""The local DaCHS follows its database: ground, `tap up`, reground, query through TAP gives the new rows or the
one-line stale error, never the old rows."""

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import lms
from answering.cli import main as ask_main
from db.engine import open_engine
from db.server import ServerSettings, down, up
from db.tap.server import tap_status, tap_up
from engines import EngineSettings
from engines.errors import DatabaseUnavailable
from lms.fake import fake_lm, render_answer
from tests.conftest import free_port

OLD, NEW = "ZTF20aaaaold", "ZTF20bbbbnew"
SQL = f"SELECT oid FROM object WHERE oid IN ('{OLD}', '{NEW}')"


@pytest.fixture
def own_server() -> Iterator[ServerSettings]:
    """A throwaway tiny database of its own (this test rebuilds it), stopped and deleted at the end."""
    data_dir = Path(tempfile.mkdtemp(prefix="alerce-t2s-replica-"))
    try:
        yield ServerSettings(data_dir=data_dir, port=free_port(), scale="tiny", seed=0)
    finally:
        down(data_dir)
        shutil.rmtree(data_dir, ignore_errors=True)


def grounded_on(settings: ServerSettings, oid: str, folder: Path) -> ServerSettings:
    """`settings` grounded on one query that only an object `oid` answers."""
    path = folder / f"{oid}.sql"
    path.write_text(f"SELECT oid, ndet FROM object WHERE oid = '{oid}';\n")
    return replace(settings, ground=(path,))


def test_a_regrounded_database_is_never_served_stale(pg_server, tap_url, own_server, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: fake_lm(lambda call: render_answer({})))
    as_it_is = replace(own_server, ground=None)  # what `python -m db tap up` publishes
    try:
        assert tap_up(grounded_on(own_server, OLD, tmp_path)) == tap_url
        with open_engine(EngineSettings(engine="tap", tap_url=tap_url)) as engine:
            assert engine.execute(SQL).frame["oid"].tolist() == [OLD]
            up(grounded_on(own_server, NEW, tmp_path))  # `db up --ground` under the running DaCHS

            with pytest.raises(DatabaseUnavailable) as caught:
                engine.execute(SQL)
            refresh = f"python -m db tap up --scale tiny --data-dir {own_server.data_dir}"
            assert str(caught.value).startswith(
                f"The local TAP service at {tap_url} serves a stale copy of alerce_tiny"
            )
            assert str(caught.value).endswith(f"run `{refresh}` to republish it.")
            assert ask_main(["Which objects?", "--model", "fake/x", "--engine", "tap", "--tap-url", tap_url]) == 1
            err = capsys.readouterr().err
            assert [line for line in err.splitlines() if line.startswith("error:")] == [f"error: {caught.value}"]
            assert "Traceback" not in err
            assert not tap_status().freshness["ztf"].current

            assert tap_up(as_it_is) == tap_url
            assert engine.execute(SQL).frame["oid"].tolist() == [NEW]
            assert tap_status().freshness["ztf"].current
    finally:
        tap_up(pg_server)  # the rest of the run expects the test database
