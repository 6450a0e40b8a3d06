"""`python -m db tap ...`: idempotent, recovers from a killed server, publishes the catalog; `python -m db adql`."""

import os
import signal
import time

import pytest
import pyvo

from db.cli import main as db_main
from db.tap.server import GAVO_DIR, tap_status, tap_up


def test_tap_up_twice_reuses_the_published_copy(pg_server, tap_url):
    marker = GAVO_DIR / "inputs" / "ztf" / "source.json"
    copied_at = marker.stat().st_mtime_ns
    assert tap_up(pg_server) == tap_url
    assert marker.stat().st_mtime_ns == copied_at
    freshness = tap_status().freshness
    assert (freshness["ztf"].copy.database, freshness["ztf"].current) == ("alerce_tiny", True)
    assert (freshness["multisurvey"].copy.database, freshness["multisurvey"].current) == (
        "alerce_multisurvey_tiny",
        True,
    )


def test_tap_up_recovers_from_a_killed_server(pg_server, tap_url):
    pid = int((GAVO_DIR / "state" / "web.pid").read_text().split()[0])
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while tap_status().running and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not tap_status().running
    assert tap_up(pg_server) == tap_url
    assert tap_status().running


def test_db_tap_status_names_the_build_served_and_says_it_is_current(capsys, pg_server, tap_url):
    assert db_main(["tap", "url"]) == 0
    assert capsys.readouterr().out == f"{tap_url}\n"
    assert db_main(["tap", "status"]) == 0
    lines = capsys.readouterr().out.splitlines()
    database = f"ztf database: alerce_tiny (embedded server in {pg_server.data_dir})"
    assert lines[:3] == ["running: yes", f"url: {tap_url}", database]
    assert lines[3].startswith("ztf build: scale tiny, seed 0, ") and " UTC" in lines[3]
    assert lines[4:6] == [
        "ztf current: yes",
        f"multisurvey database: alerce_multisurvey_tiny (embedded server in {pg_server.data_dir})",
    ]
    assert lines[7:] == ["multisurvey current: yes"]


def test_db_adql_prints_the_translation(capsys, tmp_path):
    query = tmp_path / "q.sql"
    query.write_text("SELECT oid FROM object WHERE ndet <> 1 LIMIT 5;\n")
    assert db_main(["adql", str(query)]) == 0
    assert capsys.readouterr().out == "SELECT TOP 5 object.oid FROM ztf.object AS object WHERE object.ndet != 1\n"


def test_db_adql_translates_for_the_multisurvey_catalog(capsys, tmp_path):
    query = tmp_path / "q.sql"
    query.write_text("SELECT oid, sid FROM object WHERE sid = 1 AND n_det > 5 LIMIT 3")
    assert db_main(["adql", "--catalog", "multisurvey", str(query)]) == 0
    assert capsys.readouterr().out == (
        "SELECT TOP 3 object.oid, object.sid FROM alerce_tap.object AS object "
        "WHERE object.sid = 1 AND object.n_det > 5\n"
    )
    query.write_text("SELECT oid FROM magstat")
    assert db_main(["adql", "--catalog", "multisurvey", str(query)]) == 1
    assert capsys.readouterr().err.startswith("error: Not available on TAP (ADQL): table magstat (published: allwise, ")


def test_db_adql_lists_uploads_on_stderr(capsys, tmp_path):
    query = tmp_path / "q.sql"
    query.write_text("WITH catalog (source_id, ra, dec) AS (VALUES ('a', 1.0, 2.0)) SELECT * FROM catalog")
    assert db_main(["adql", str(query)]) == 0
    out, err = capsys.readouterr()
    assert out == 'SELECT * FROM TAP_UPLOAD.catalog_upload AS "catalog"\n'
    assert err == "upload: TAP_UPLOAD.catalog_upload (1 rows: source_id, ra, dec)\n"


def test_db_adql_refuses_an_unsupported_construct_in_one_line(capsys, tmp_path):
    query = tmp_path / "q.sql"
    query.write_text("SELECT DISTINCT ON (oid) oid FROM probability")
    assert db_main(["adql", str(query)]) == 1
    assert capsys.readouterr().err == (
        "error: Not available on TAP (ADQL): DISTINCT ON; use GROUP BY with MAX/MIN, or a subquery joined back.\n"
    )


def test_db_adql_runs_the_guard_first(capsys, tmp_path):
    query = tmp_path / "q.sql"
    query.write_text("DELETE FROM object")
    assert db_main(["adql", str(query)]) == 1
    assert capsys.readouterr().err == "error: Only one SELECT or WITH statement is allowed, got DELETE.\n"


def test_db_adql_names_a_file_it_cannot_read_in_one_line(capsys, tmp_path):
    missing, not_utf8 = tmp_path / "missing.sql", tmp_path / "latin1.sql"
    not_utf8.write_bytes(b"SELECT 'caf\xe9' AS oid")
    assert db_main(["adql", str(missing)]) == 1
    assert capsys.readouterr().err == f"error: cannot read the SQL from '{missing}': No such file or directory.\n"
    assert db_main(["adql", str(not_utf8)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot read the SQL from '{not_utf8}': 'utf-8' codec") and err.count("\n") == 1


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("command", [["tap"], ["adql"]], ids=["tap", "adql"])
def test_help_exits_0_with_examples(capsys, command, flag):
    with pytest.raises(SystemExit) as exit_info:
        db_main([*command, flag])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and f"python -m db {command[0]}" in out


def test_tap_needs_an_action(capsys):
    with pytest.raises(SystemExit) as exit_info:
        db_main(["tap"])
    assert exit_info.value.code == 2
    assert "the following arguments are required: ACTION" in capsys.readouterr().err


def test_tap_up_without_dachs_says_so_in_one_line(capsys, monkeypatch):
    monkeypatch.setattr("db.tap.server.shutil.which", lambda name: None)
    assert db_main(["tap", "up"]) == 1
    assert capsys.readouterr().err == (
        "error: GAVO DaCHS is not installed (no `dachs` command); on Debian run `sudo bash "
        "scripts/install_system_packages.sh` (gavodachs2-server). The TAP engine still works against any --tap-url.\n"
    )


def test_the_service_publishes_units_and_descriptions_from_the_catalog(tap_url):
    rows = pyvo.dal.TAPService(tap_url).run_sync(
        "SELECT column_name, unit, description FROM TAP_SCHEMA.columns WHERE table_name = 'ztf.object'"
    )
    columns = {row["column_name"]: (row["unit"], row["description"]) for row in rows}
    assert columns["meanra"][0] == "deg"
    assert columns["firstmjd"][0] == "d"
    assert not columns["ndet"][0]
    assert columns["ndet"][1]


def test_taxonomy_classes_is_published_as_json_text(tap_url):
    where = "table_name = 'ztf.taxonomy' AND column_name = 'classes'"
    rows = pyvo.dal.TAPService(tap_url).run_sync(f"SELECT datatype, arraysize FROM TAP_SCHEMA.columns WHERE {where}")
    assert [(row["datatype"], row["arraysize"]) for row in rows] == [("char", "*")]  # not "*x*", which pyvo refuses
