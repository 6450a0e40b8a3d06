"""pyvo, as an astronomer uses it, against the local DaCHS: the table set of both schemas, and the array column
``ztf.taxonomy.classes`` in sync and async queries (astropy reads no VOTable array of strings)."""

import json

import pytest
import pyvo

from catalog import load_catalog

CLASSES_ADQL = "SELECT classifier_name, classifier_version, classes FROM ztf.taxonomy ORDER BY classifier_name"


@pytest.fixture(scope="module")
def service(tap_url):
    return pyvo.dal.TAPService(tap_url)


def test_the_table_set_lists_both_schemas_with_their_columns(service):
    columns = {table.name: [column.name for column in table.columns] for table in service.tables}
    for name in ("ztf", "multisurvey"):
        catalog = load_catalog(name)
        for table in catalog.tap_tables:
            assert columns[f"{catalog.tap_schema}.{table.name}"] == table.column_names
    assert "classes" in columns["ztf.taxonomy"]


def test_array_columns_are_published_as_json_text(service):
    classes = service.tables["ztf.taxonomy"].columns
    described = next(column for column in classes if column.name == "classes")
    assert (described.datatype.content, described.datatype.arraysize) == ("char", "*")
    assert "JSON" in described.description


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_query_of_the_array_column_runs(service, mode, tiny_dsn):
    import psycopg

    run = service.run_sync if mode == "sync" else service.run_async
    table = run(CLASSES_ADQL).to_table()
    with psycopg.connect(tiny_dsn) as connection:
        expected = connection.execute(
            "SELECT classifier_name, classes FROM taxonomy ORDER BY classifier_name"
        ).fetchall()
    assert len(table) == len(expected) > 2
    got = [(str(row["classifier_name"]), json.loads(str(row["classes"]))) for row in table]
    assert sorted(got) == sorted(expected)


def test_the_engine_reads_the_array_column_back_as_lists_in_an_async_job(tap_url, tiny_dsn, monkeypatch):
    from engines import PostgresEngine, TapSettings
    from engines.postgres import PostgresSettings
    from engines.tap.engine import TapEngine

    sql = "SELECT classifier_name, classes FROM taxonomy ORDER BY classifier_name, classifier_version"
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, timeout_s=30)) as postgres:
        expected = postgres.execute(sql).frame["classes"].tolist()
    engine = TapEngine(TapSettings(url=tap_url, timeout_s=30, sync_limit_s=60.0))  # 30 s < 60 s: an async job
    engine.target()  # reads the service's tables (in sync mode) before sync mode is forbidden
    monkeypatch.setattr(pyvo.dal.TAPService, "run_sync", lambda *args, **kwargs: pytest.fail("ran in sync mode"))
    got = engine.execute(sql)
    assert got.frame["classes"].tolist() == expected and all(isinstance(cell, list) for cell in expected)
    assert "JSON" in got.table["classes"].description


def test_the_documented_sync_limit_is_the_local_services_own(tap_url):
    import shutil
    import subprocess

    from db.tap.server import SYNC_LIMIT_S
    from defaults.time_limits import ASK_QUERY_S
    from engines.tap.settings import TapSettings

    configured = subprocess.run(
        [shutil.which("dachs"), "config", "async", "defaultExecTimeSync"], capture_output=True, text=True, check=True
    ).stdout.split()[-1]
    assert float(configured) == SYNC_LIMIT_S == 60.0  # what docs/vo.md and the README say
    assert TapSettings().sync_limit_s == SYNC_LIMIT_S  # the test session exports ALERCE_TAP_SYNC_LIMIT_S, as told
    assert ASK_QUERY_S < SYNC_LIMIT_S  # so `ask`'s default limit runs as a job there, as the README warns
