"""Embedded server lifecycle, database provisioning and the read-only reader role."""

import os
import shutil
import signal
import socket
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import psycopg
import pytest

from db.cluster import Cluster
from db.errors import ServerError
from db.provision import READER_CONNECTION_LIMIT, build_checksum
from db.server import (
    ROOT_DATA_DIR,
    ServerInfo,
    ServerSettings,
    default_data_dir,
    down,
    resolve_dsn,
    running_dsn,
    status,
    up,
)


def wait_until_stopped(data_dir: Path, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while Cluster(data_dir).running_pid() is not None:
        assert time.monotonic() < deadline, "the server did not stop"
        time.sleep(0.05)


def test_up_twice_reuses_the_server_and_the_database(scratch_server: ServerSettings) -> None:
    first = up(scratch_server)
    built = status(scratch_server.data_dir).databases
    second = up(scratch_server)
    assert second == first
    assert status(scratch_server.data_dir).databases == built
    assert first.reader_dsn == f"postgresql://alerce_reader@127.0.0.1:{scratch_server.port}/alerce_tiny"


def test_status_reports_port_pid_and_built_databases(scratch_server: ServerSettings) -> None:
    info = up(scratch_server)
    state = status(scratch_server.data_dir)
    assert (state.running, state.port, state.pid) == (True, info.port, info.pid)
    assert [(b.database, b.scale, b.seed) for b in state.databases] == [("alerce_tiny", "tiny", 0)]


def test_up_recovers_after_the_postmaster_is_killed(scratch_server: ServerSettings) -> None:
    before = up(scratch_server)
    os.kill(before.pid, signal.SIGKILL)
    wait_until_stopped(scratch_server.data_dir)
    assert (scratch_server.data_dir / "cluster" / "postmaster.pid").exists()
    assert status(scratch_server.data_dir).running is False
    after = up(scratch_server)
    assert after.pid != before.pid
    assert after.reader_dsn == before.reader_dsn
    with psycopg.connect(after.reader_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM meta.build_info").fetchone()[0] == 1


def test_down_stops_the_server_and_url_then_fails(scratch_server: ServerSettings) -> None:
    up(scratch_server)
    assert down(scratch_server.data_dir) is True
    assert status(scratch_server.data_dir).running is False
    assert down(scratch_server.data_dir) is False
    with pytest.raises(ServerError) as err:
        running_dsn(scale="tiny", data_dir=scratch_server.data_dir)
    assert str(err.value) == (
        f"The embedded server in {scratch_server.data_dir} is not running; start it with `python -m db up`."
    )


def test_running_dsn_names_a_database_that_is_not_built(tiny_server: ServerInfo, pg_server: ServerSettings) -> None:
    with pytest.raises(
        ServerError,
        match=r"^Database alerce_large is not built; build it with `python -m db up --catalog ztf --scale large`\.$",
    ):
        running_dsn(scale="large", data_dir=pg_server.data_dir)


def test_up_with_another_seed_rebuilds(scratch_server: ServerSettings) -> None:
    up(replace(scratch_server, seed=1))
    assert [b.seed for b in status(scratch_server.data_dir).databases] == [1]
    up(replace(scratch_server, seed=None))
    assert [b.seed for b in status(scratch_server.data_dir).databases] == [1]


def test_reader_is_read_only_by_default(tiny_dsn: str) -> None:
    with psycopg.connect(tiny_dsn) as conn:
        assert conn.execute("SHOW transaction_read_only").fetchone()[0] == "on"
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("CREATE TABLE public.scratch (x int)")


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO alerce.object (oid) VALUES ('ZTF00aaaaaaa')",
        "DELETE FROM alerce.object",
        "CREATE TABLE alerce.scratch (x int)",
        "CREATE TABLE public.scratch (x int)",
        "CREATE TEMP TABLE scratch (x int)",
        "CREATE SCHEMA scratch",
    ],
)
def test_reader_lacks_write_privileges_even_in_a_read_write_transaction(tiny_dsn: str, statement: str) -> None:
    with psycopg.connect(tiny_dsn) as conn:
        conn.execute("SET TRANSACTION READ WRITE")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(statement)


def test_admin_needs_a_password_and_the_reader_does_not(tiny_server: ServerInfo) -> None:
    with psycopg.connect(tiny_server.reader_dsn) as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == "alerce_reader"
    no_password = psycopg.conninfo.make_conninfo(tiny_server.admin_dsn, password="")
    with pytest.raises(psycopg.OperationalError, match="password"):
        psycopg.connect(no_password).close()


def test_database_has_the_search_path_and_only_catalog_tables_in_schema_alerce(tiny_dsn: str) -> None:
    from catalog import load_catalog

    with psycopg.connect(tiny_dsn) as conn:
        assert conn.execute("SHOW search_path").fetchone()[0] == "alerce, public"
        tables = {
            r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'alerce'")
        }
        functions = conn.execute("SELECT count(*) FROM pg_proc WHERE pronamespace = 'alerce'::regnamespace").fetchone()
        info = conn.execute("SELECT scale, seed, checksum FROM meta.build_info").fetchone()
    assert tables == set(load_catalog().table_names)
    assert functions == (0,)
    assert info[:2] == ("tiny", 0)


def test_build_checksum_changes_with_the_ddl() -> None:
    assert build_checksum("CREATE SCHEMA alerce;") != build_checksum("CREATE SCHEMA alerce; ")
    assert len(build_checksum("")) == 16


def test_resolve_dsn_prefers_the_explicit_dsn_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALERCE_DSN", "postgresql://env/db")
    assert resolve_dsn("postgresql://explicit/db") == "postgresql://explicit/db"
    assert resolve_dsn() == "postgresql://env/db"


def test_resolve_dsn_falls_back_to_the_embedded_server(
    monkeypatch: pytest.MonkeyPatch, tiny_server: ServerInfo, pg_server: ServerSettings
) -> None:
    monkeypatch.delenv("ALERCE_DSN", raising=False)
    monkeypatch.setenv("ALERCE_T2S_DATA_DIR", str(pg_server.data_dir))
    assert resolve_dsn(None, scale="tiny") == tiny_server.reader_dsn


def test_default_data_dir_honours_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ALERCE_T2S_DATA_DIR", str(tmp_path))
    assert default_data_dir() == tmp_path
    assert ServerSettings().data_dir == tmp_path
    monkeypatch.delenv("ALERCE_T2S_DATA_DIR")
    if os.geteuid() == 0:
        assert default_data_dir() == ROOT_DATA_DIR
    else:
        assert default_data_dir().parts[-2:] == ("alerce-t2s", "pg")


def test_default_port_honours_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALERCE_T2S_PORT", "55555")
    assert ServerSettings().port == 55555
    monkeypatch.setenv("ALERCE_T2S_PORT", "five")
    with pytest.raises(ServerError, match=r"^ALERCE_T2S_PORT must be a TCP port number, got 'five'\.$"):
        ServerSettings()
    monkeypatch.delenv("ALERCE_T2S_PORT")
    assert ServerSettings().port == 54329


def test_settings_reject_an_unknown_scale() -> None:
    with pytest.raises(
        ServerError, match=r"^Unknown scale 'huge' for catalog ztf; choose one of tiny, default, large\.$"
    ):
        ServerSettings(scale="huge")
    with pytest.raises(
        ServerError, match=r"^Unknown scale 'large' for catalog multisurvey; choose one of tiny, default\.$"
    ):
        ServerSettings(scale="large", catalog="multisurvey")


def test_settings_reject_an_unknown_catalog() -> None:
    with pytest.raises(ServerError, match=r"^Unknown catalog 'rubin'; choose one of ztf, multisurvey\.$"):
        ServerSettings(catalog="rubin")


def test_up_refuses_a_folder_that_is_not_a_data_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ServerError, match="is not empty and holds no initialised cluster"):
        up(ServerSettings(data_dir=tmp_path, port=1, scale="tiny"))
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_up_names_a_port_in_use() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="alerce-t2s-busy-"))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        try:
            with pytest.raises(ServerError) as err:
                up(ServerSettings(data_dir=data_dir, port=port, scale="tiny"))
            expected = (
                f"PostgreSQL did not start: port {port} is in use, choose another with --port or $ALERCE_T2S_PORT."
            )
            assert str(err.value).startswith(expected + " Server log ")
        finally:
            down(data_dir)
            shutil.rmtree(data_dir, ignore_errors=True)


def test_reader_role_has_limits(tiny_dsn: str) -> None:
    with psycopg.connect(tiny_dsn) as conn:
        shown = {
            name: conn.execute(f"SHOW {name}").fetchone()[0]
            for name in (
                "temp_file_limit",
                "work_mem",
                "statement_timeout",
                "idle_in_transaction_session_timeout",
                "cursor_tuple_fraction",
            )
        }
        limit = conn.execute("SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user").fetchone()[0]
    assert shown == {
        "temp_file_limit": "1GB",
        "work_mem": "16MB",
        "statement_timeout": "5min",
        "idle_in_transaction_session_timeout": "5min",
        "cursor_tuple_fraction": "1",
    }
    assert limit == READER_CONNECTION_LIMIT


def test_reader_cannot_lift_its_temp_file_limit(tiny_dsn: str) -> None:
    with psycopg.connect(tiny_dsn) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT set_config('temp_file_limit', '-1', true)")


@pytest.mark.parametrize(
    "call",
    [
        "pg_terminate_backend(0)",
        "pg_cancel_backend(0)",
        "pg_advisory_lock(1)",
        "pg_try_advisory_lock(1)",
        "pg_advisory_xact_lock_shared(1)",
        "pg_advisory_unlock_all()",
        "lo_create(0)",
        "lo_from_bytea(0, 'x')",
        "lo_unlink(1)",
        "lo_open(1, 262144)",
        "pg_notify('alerts', 'x')",
        "ts_stat('SELECT to_tsvector(''x'')')",
        "query_to_xml('SELECT 1', true, true, '')",
        "cursor_to_xml('c', 1, true, true, '')",
        "pg_read_file('PG_VERSION')",
    ],
)
def test_reader_may_not_execute_dangerous_functions(tiny_dsn: str, call: str) -> None:
    with psycopg.connect(tiny_dsn) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for function"):
            conn.execute(f"SELECT {call}")


def test_reader_keeps_the_functions_the_executor_needs(tiny_dsn: str) -> None:
    with psycopg.connect(tiny_dsn) as conn:
        row = conn.execute("SELECT set_config('statement_timeout', '1s', true), current_setting('work_mem')").fetchone()
    assert row == ("1s", "16MB")


@pytest.mark.parametrize("database", ["postgres", "template1"])
def test_reader_cannot_connect_to_maintenance_databases(tiny_server: ServerInfo, database: str) -> None:
    dsn = psycopg.conninfo.make_conninfo(tiny_server.reader_dsn, dbname=database)
    with pytest.raises(psycopg.OperationalError, match="permission denied for database"):
        psycopg.connect(dsn).close()


def test_up_reapplies_protections_to_an_existing_database(scratch_server: ServerSettings) -> None:
    info = up(scratch_server)
    with psycopg.connect(info.admin_dsn, autocommit=True) as admin:
        admin.execute("GRANT EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint) TO PUBLIC")
        admin.execute("ALTER ROLE alerce_reader RESET temp_file_limit")
    up(scratch_server)
    with psycopg.connect(info.reader_dsn) as conn:
        may_terminate = conn.execute(
            "SELECT has_function_privilege('pg_terminate_backend(integer, bigint)', 'EXECUTE')"
        ).fetchone()[0]
        assert conn.execute("SHOW temp_file_limit").fetchone()[0] == "1GB"
    assert may_terminate is False


def test_embedded_admin_dsn_only_for_the_embedded_reader_dsn(pg_server, tiny_server) -> None:
    from db.server import embedded_admin_dsn

    assert embedded_admin_dsn(tiny_server.reader_dsn, pg_server.data_dir) == tiny_server.admin_dsn
    assert embedded_admin_dsn("postgresql://someone@elsewhere:5432/ztf", pg_server.data_dir) is None


def test_multisurvey_database_resolves_bare_names_to_alerce_tap(multisurvey_server: ServerInfo) -> None:
    from catalog import load_catalog

    assert multisurvey_server.reader_dsn.endswith("/alerce_multisurvey_tiny")
    with psycopg.connect(multisurvey_server.reader_dsn) as conn:
        assert conn.execute("SHOW search_path").fetchone()[0] == "alerce_tap, public"
        tables = {
            r[0]
            for r in conn.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'alerce_tap'")
        }
        assert conn.execute("SELECT count(*) > 0 FROM lsst_detection").fetchone()[0]
        assert conn.execute("SELECT to_regclass('magstat')").fetchone()[0] is None
        info = conn.execute("SELECT scale, seed FROM meta.build_info").fetchone()
    assert tables == set(load_catalog("multisurvey").table_names)
    assert info == ("tiny", 0)


@pytest.mark.parametrize(
    "statement",
    ["DELETE FROM alerce_tap.object", "CREATE TABLE alerce_tap.scratch (x int)", "SELECT pg_read_file('PG_VERSION')"],
)
def test_multisurvey_reader_has_the_same_protections(multisurvey_server: ServerInfo, statement: str) -> None:
    with psycopg.connect(multisurvey_server.reader_dsn) as conn:
        assert conn.execute("SHOW transaction_read_only").fetchone()[0] == "on"
        conn.execute("SET TRANSACTION READ WRITE")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(statement)


def test_status_lists_each_catalogs_database(pg_server, tiny_server, multisurvey_server) -> None:
    builds = {build.database: build.catalog for build in status(pg_server.data_dir).databases}
    assert builds["alerce_tiny"] == "ztf"
    assert builds["alerce_multisurvey_tiny"] == "multisurvey"
    assert running_dsn(scale="tiny", catalog="multisurvey", data_dir=pg_server.data_dir) == (
        multisurvey_server.reader_dsn
    )
