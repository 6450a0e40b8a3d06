"""The TAP engine against a real local DaCHS serving the same data as the tiny PostgreSQL database."""

import json
import shutil
import subprocess
import time

import pytest
import pyvo

from benchmarks.tap import same_result
from data.loader import load_dataset
from db.tap import server as tap_server
from db.tap.server import SYNC_LIMIT_S
from engines import PostgresEngine, TapSettings
from engines.adql.translation import translate
from engines.errors import DatabaseUnavailable, ErrorKind, ExecutionError, GuardError
from engines.postgres import PostgresSettings
from engines.tap.engine import TapEngine

# Dev golds whose TAP result cannot equal PostgreSQL's, with the reason (docs/astronomer/tap.md).
EXPECTED_EXCEPTIONS = {
    "28": "lists information_schema tables: not on TAP (unsupported)",
}


@pytest.fixture(scope="module")
def tap(tap_url):
    # At the service's own sync limit, queries run in sync mode (fast); tests of the time limit pass a shorter one.
    with TapEngine(TapSettings(url=tap_url, timeout_s=SYNC_LIMIT_S, sync_limit_s=SYNC_LIMIT_S)) as engine:
        yield engine


@pytest.fixture(scope="module")
def postgres(tiny_dsn):
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, timeout_s=30)) as engine:
        yield engine


def compare_golds(examples, postgres, tap) -> dict[str, str]:
    """Run every gold on both engines; return {req_id: why it differs} for those that do."""
    differ = {}
    for example in examples:
        expected = postgres.execute(example.gold_sql)
        try:
            got = tap.execute(example.gold_sql)
        except ExecutionError as err:
            differ[str(example.req_id)] = f"{err.kind.value}: {err.message}"
            continue
        if not same_result(expected.frame, got.frame):
            differ[str(example.req_id)] = f"{len(expected.frame)} rows on PostgreSQL, {len(got.frame)} on TAP"
    return differ


def test_dev_golds_give_the_same_identifiers_and_columns_on_tap(dev_csv_path, postgres, tap):
    differ = compare_golds(load_dataset(dev_csv_path, "dev"), postgres, tap)
    assert len(differ) <= 3, differ
    assert set(differ) <= set(EXPECTED_EXCEPTIONS), differ


def test_every_dev_gold_translation_parses_with_dachs(dev_csv_path):
    queries = []
    for example in load_dataset(dev_csv_path, "dev"):
        try:
            queries.append(translate(example.gold_sql).adql)
        except ExecutionError as err:
            assert str(example.req_id) in EXPECTED_EXCEPTIONS, err
    interpreter = open(shutil.which("dachs")).readline().removeprefix("#!").strip()
    script = "import json, sys\nfrom gavo import adql\nfor q in json.load(sys.stdin): adql.parseToTree(q)\n"
    done = subprocess.run([interpreter, "-c", script], input=json.dumps(queries), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(queries) == 57


def test_taxonomy_classes_come_back_as_the_lists_postgres_returns(postgres, tap):
    sql = (
        "SELECT classifier_name, classifier_version, classes FROM taxonomy ORDER BY classifier_name, classifier_version"
    )
    expected, got = postgres.execute(sql), tap.execute(sql)
    assert len(expected.frame) > 2 and all(isinstance(classes, list) for classes in expected.frame["classes"])
    assert got.frame["classes"].tolist() == expected.frame["classes"].tolist()
    assert got.table.colnames == ["classifier_name", "classifier_version", "classes"]
    capped = tap.execute("SELECT * FROM taxonomy", max_rows=2)
    assert (len(capped.frame), capped.truncated) == (2, True)


def test_array_results_take_uploads_too(postgres, tap):
    sql = (
        "WITH chosen (name) AS (VALUES ('stamp_classifier')) "
        "SELECT t.classifier_version, t.classes FROM taxonomy t JOIN chosen c ON t.classifier_name = c.name "
        "ORDER BY t.classifier_version"
    )
    expected = postgres.execute(sql).frame["classes"].tolist()
    assert expected and tap.execute(sql).frame["classes"].tolist() == expected


def test_a_query_over_the_row_cap_is_truncated(tap):
    result = tap.execute("SELECT oid FROM object", max_rows=5)
    assert len(result.frame) == 5
    assert result.truncated
    assert result.adql == "SELECT object.oid FROM ztf.object AS object"
    assert result.table is not None and len(result.table) == 5


def test_a_missing_column_is_missing_structure(tap):
    with pytest.raises(ExecutionError) as caught:
        tap.execute("SELECT nosuch FROM object")
    assert caught.value.kind is ErrorKind.MISSING_STRUCTURE
    assert "nosuch" in caught.value.message


def test_an_unsupported_construct_never_reaches_the_service(tap):
    with pytest.raises(ExecutionError) as caught:
        tap.execute("SELECT oid, row_number() OVER (ORDER BY ndet) FROM object")
    assert caught.value.kind is ErrorKind.UNSUPPORTED


def test_the_guard_runs_before_translation(tap):
    with pytest.raises(GuardError, match="Only one SELECT or WITH statement is allowed, got DELETE"):
        tap.execute("DELETE FROM object")


def test_the_engine_reads_the_published_tables(tap):
    assert "object" in tap.target().tables
    assert "step" not in tap.target().tables
    assert tap.fingerprint().startswith("tap-")


def test_a_dead_tap_url_fails_fast_with_one_message():
    engine = TapEngine(TapSettings(url="http://127.0.0.1:9/tap", backoff_s=0.1))
    started = time.monotonic()
    with pytest.raises(DatabaseUnavailable, match=r"^Cannot use the TAP service at http://127.0.0.1:9/tap: "):
        engine.execute("SELECT oid FROM object")
    assert time.monotonic() - started < 15


def test_a_time_limit_below_the_service_sync_limit_runs_as_an_async_job(tap_url, monkeypatch):
    engine = TapEngine(TapSettings(url=tap_url, sync_limit_s=60.0))
    engine.target()  # reads the service's tables (in sync mode) before sync mode is forbidden
    monkeypatch.setattr(pyvo.dal.TAPService, "run_sync", lambda *args, **kwargs: pytest.fail("ran in sync mode"))
    result = engine.execute("SELECT oid FROM object ORDER BY oid", timeout_s=30, max_rows=4)
    assert len(result.frame) == 4 and result.truncated
    with pytest.raises(ExecutionError) as caught:
        engine.execute("SELECT nosuch FROM object", timeout_s=30)
    assert caught.value.kind is ErrorKind.MISSING_STRUCTURE


def test_a_time_limit_at_the_service_sync_limit_runs_in_sync_mode(tap_url, monkeypatch):
    engine = TapEngine(TapSettings(url=tap_url, sync_limit_s=20.0))
    monkeypatch.setattr(pyvo.dal.TAPService, "submit_job", lambda *args, **kwargs: pytest.fail("ran as a job"))
    assert len(engine.execute("SELECT oid FROM object", timeout_s=20, max_rows=3).frame) == 3


def service_queries_running() -> int:
    """Queries DaCHS's query role runs right now in its database (asked as the postgres superuser)."""
    role = tap_server._profile("untrustedquery")["user"]
    sql = f"SELECT count(*) FROM pg_stat_activity WHERE usename = '{role}' AND state = 'active'"
    done = subprocess.run(
        ["runuser", "-u", "postgres", "--", "psql", "-d", "gavo", "-Atc", sql], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_the_time_limit_stops_the_query_on_the_service(tap):
    started = time.monotonic()
    with pytest.raises(ExecutionError) as caught:
        tap.execute_adql("SELECT COUNT(*) FROM ztf.detection AS a, ztf.detection AS b", timeout_s=3)
    assert caught.value.kind is ErrorKind.TIMEOUT and time.monotonic() - started < 3 + 2
    stopped_by = time.monotonic() + 5
    while service_queries_running() and time.monotonic() < stopped_by:
        time.sleep(0.2)
    assert service_queries_running() == 0


def test_rows_past_maxrec_are_trimmed_and_flagged(tap):
    # DaCHS sends MAXREC + 1 rows when the query's own TOP is larger, to say that it cut the result.
    result = tap.execute_adql("SELECT TOP 50 oid FROM ztf.object ORDER BY oid", max_rows=5)
    assert len(result.frame) == 5 and len(result.table) == 5 and result.truncated
    assert len(tap.execute("SELECT oid FROM object ORDER BY oid LIMIT 50", max_rows=5).frame) == 5
