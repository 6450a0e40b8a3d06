"""Tests of the on-disk gold result cache."""

import threading
import time
from dataclasses import dataclass

import pandas as pd

from defaults.catalog import DEFAULT_CATALOG
from engines.errors import ErrorKind, ExecutionError, GuardError
from metric.gold_cache import GoldCache, GoldResult


@dataclass(frozen=True)
class _Result:
    frame: pd.DataFrame
    elapsed_s: float
    truncated: bool = False


class CountingExecutor:
    """A fake executor: 'fail:<kind>' raises, anything else returns a one-column frame; counts calls."""

    def __init__(self, fingerprint: str = "fp0", delay_s: float = 0.0, catalog: str = DEFAULT_CATALOG) -> None:
        self.catalog = catalog
        self.calls: list[tuple[str, float | None]] = []
        self._fingerprint = fingerprint
        self._delay_s = delay_s
        self._lock = threading.Lock()

    def execute(self, sql: str, *, timeout_s: float | None = None) -> _Result:
        with self._lock:
            self.calls.append((sql, timeout_s))
        time.sleep(self._delay_s)
        if sql == "guard":
            raise GuardError("Only one statement is allowed.")
        if sql.startswith("fail:"):
            raise ExecutionError(ErrorKind(sql.removeprefix("fail:")), "57014", "too slow")
        return _Result(pd.DataFrame({"oid": [sql]}), 0.25)

    def fingerprint(self) -> str:
        return self._fingerprint


def test_gold_cache_runs_each_query_once_and_reads_disk_afterwards(tmp_path):
    executor = CountingExecutor()
    first = GoldCache(executor, cache_dir=tmp_path, timeout_s=60).result("SELECT 1")
    assert first.error is None and first.frame["oid"].tolist() == ["SELECT 1"] and first.elapsed_s == 0.25
    again = GoldCache(executor, cache_dir=tmp_path, timeout_s=60).result("SELECT 1")
    assert executor.calls == [("SELECT 1", 60)]
    assert again.frame.equals(first.frame)
    assert len(list((tmp_path / "ztf" / "fp0").glob("*.parquet"))) == 1


def test_gold_cache_keys_entries_by_database_fingerprint(tmp_path):
    GoldCache(CountingExecutor("fp0"), cache_dir=tmp_path).result("SELECT 1")
    other = CountingExecutor("fp1")
    GoldCache(other, cache_dir=tmp_path).result("SELECT 1")
    assert len(other.calls) == 1


def test_gold_cache_keeps_each_catalogs_entries_apart(tmp_path):
    GoldCache(CountingExecutor("fp0"), cache_dir=tmp_path).result("SELECT 1")
    other = CountingExecutor("fp0", catalog="multisurvey")
    GoldCache(other, cache_dir=tmp_path).result("SELECT 1")
    assert len(other.calls) == 1
    assert [path.name for path in sorted(tmp_path.iterdir())] == ["multisurvey", "ztf"]


def test_gold_cache_keeps_errors_with_their_kind(tmp_path):
    executor = CountingExecutor()
    GoldCache(executor, cache_dir=tmp_path).result("fail:missing_structure")
    GoldCache(executor, cache_dir=tmp_path).result("guard")
    cached = GoldCache(executor, cache_dir=tmp_path)
    error = cached.result("fail:missing_structure").error
    assert (error.kind, error.sqlstate, error.message) == (ErrorKind.MISSING_STRUCTURE, "57014", "too slow")
    assert isinstance(cached.result("guard").error, GuardError)
    assert cached.result("guard").frame is None
    assert len(executor.calls) == 2


def test_gold_cache_retries_a_timeout_under_a_longer_limit(tmp_path):
    executor = CountingExecutor()
    GoldCache(executor, cache_dir=tmp_path, timeout_s=1).result("fail:timeout")
    GoldCache(executor, cache_dir=tmp_path, timeout_s=1).result("fail:timeout")
    GoldCache(executor, cache_dir=tmp_path, timeout_s=5).result("fail:timeout")
    assert [timeout for _, timeout in executor.calls] == [1, 5]


def test_gold_cache_ignores_a_corrupt_entry(tmp_path):
    executor = CountingExecutor()
    cache = GoldCache(executor, cache_dir=tmp_path)
    cache.result("SELECT 1")
    next((tmp_path / "ztf" / "fp0").glob("*.parquet")).write_bytes(b"not parquet")
    assert GoldCache(executor, cache_dir=tmp_path).result("SELECT 1").error is None
    assert len(executor.calls) == 2


def test_gold_cache_runs_a_query_once_under_concurrent_calls(tmp_path):
    executor = CountingExecutor(delay_s=0.05)
    cache = GoldCache(executor, cache_dir=tmp_path)
    results: list[GoldResult] = []
    threads = [threading.Thread(target=lambda: results.append(cache.result("SELECT 1"))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(executor.calls) == 1 and len(results) == 4


def test_gold_cache_on_the_tiny_database(executor, tmp_path):
    cache = GoldCache(executor, cache_dir=tmp_path, timeout_s=5)
    result = cache.result("SELECT oid FROM alerce.object ORDER BY oid LIMIT 3")
    assert result.error is None and len(result.frame) == 3
    missing = cache.result("SELECT no_such_column FROM alerce.object").error
    assert missing.kind is ErrorKind.MISSING_STRUCTURE
    assert (tmp_path / "ztf" / executor.fingerprint()).is_dir()


class _Planted:
    """An object whose unpickling runs code: what a replaced pickle entry in a shared cache could do."""

    ran = False

    def __reduce__(self):
        return (_planted_ran, ())


def _planted_ran():
    _Planted.ran = True
    return "planted"


def test_a_planted_pickle_entry_is_never_unpickled(tmp_path, caplog):
    import hashlib
    import pickle

    executor = CountingExecutor()
    folder = tmp_path / "ztf" / "fp0"
    folder.mkdir(parents=True)
    (folder / f"{hashlib.sha256(b'SELECT 1').hexdigest()}.pkl").write_bytes(pickle.dumps(_Planted()))
    result = GoldCache(executor, cache_dir=tmp_path).result("SELECT 1")
    assert not _Planted.ran
    assert result.frame["oid"].tolist() == ["SELECT 1"] and len(executor.calls) == 1
    assert "never read" in caplog.text


def test_an_entry_for_other_sql_does_not_verify_and_is_rerun(tmp_path, caplog):
    executor = CountingExecutor()
    GoldCache(executor, cache_dir=tmp_path).result("SELECT 1")
    entry = next((tmp_path / "ztf" / "fp0").glob("*.parquet"))
    other = GoldCache(executor, cache_dir=tmp_path / "other")
    other.result("SELECT 2")
    entry.write_bytes(next((tmp_path / "other" / "ztf" / "fp0").glob("*.parquet")).read_bytes())
    assert GoldCache(executor, cache_dir=tmp_path).result("SELECT 1").frame["oid"].tolist() == ["SELECT 1"]
    assert len(executor.calls) == 3 and "does not verify" in caplog.text


def test_repeated_column_names_and_types_survive_the_disk(tmp_path):
    frame = pd.DataFrame([[1, 1.5, "a", None], [2, None, "b", "x"]], columns=["oid", "mag", "oid", "note"])

    class Executor(CountingExecutor):
        def execute(self, sql, *, timeout_s=None):
            self.calls.append((sql, timeout_s))
            return _Result(frame, 0.1)

    executor = Executor()
    first = GoldCache(executor, cache_dir=tmp_path).result("q")
    again = GoldCache(executor, cache_dir=tmp_path).result("q")
    assert len(executor.calls) == 1
    assert list(again.frame.columns) == ["oid", "mag", "oid", "note"]
    assert again.rows == first.rows


def test_an_entry_whose_facts_nest_deeply_does_not_verify_and_is_rerun(tmp_path, caplog):
    import pyarrow.parquet as pq

    from metric.gold_cache import _FACTS_KEY

    executor = CountingExecutor()
    GoldCache(executor, cache_dir=tmp_path).result("SELECT 1")
    entry = next((tmp_path / "ztf" / "fp0").glob("*.parquet"))
    table = pq.read_table(entry)
    pq.write_table(table.replace_schema_metadata({_FACTS_KEY: b"[" * 100_000 + b"]" * 100_000}), entry)
    assert GoldCache(executor, cache_dir=tmp_path).result("SELECT 1").error is None
    assert len(executor.calls) == 2 and "nested deeper than" in caplog.text
