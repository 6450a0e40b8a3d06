"""Reading the vocabularies of categorical columns: one query per table, a time budget, cached per fingerprint."""

import logging
import re

import pandas as pd
import pytest

from catalog import load_catalog
from engines.errors import ErrorKind, ExecutionError
from modules.value_check.vocabulary import clear_cache, linked_values_text, read_vocabulary
from tests.at_once import AtOnce

_QUERY = re.compile(r"SELECT (?P<columns>.+) FROM (?P<table>\w+) GROUP BY .+ LIMIT (?P<limit>\d+)")

TABLES = {
    "probability": pd.DataFrame(
        [("lc_classifier", "1.0", "SNIa"), ("lc_classifier", "1.0", "QSO"), ("stamp_classifier", "2", "SN")],
        columns=["classifier_name", "classifier_version", "class_name"],
    ),
    "magstat": pd.DataFrame({"fid": [1, 2, 1]}),
    "feature": pd.DataFrame({"name": [f"f{i}" for i in range(10)], "fid": [1] * 10, "version": ["v1"] * 10}),
}


_TWO_VERSIONS = pd.DataFrame(
    [("lc_classifier", version, name) for version in ("1.0", "1.1") for name in ("SNIa", "QSO")]
    + [("stamp_classifier", "2", "SN")],
    columns=["classifier_name", "classifier_version", "class_name"],
)


class _Result:
    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame


class FakeEngine:
    """Answers GROUP BY queries from `TABLES`; other tables do not exist. Records each query and its timeout.

    It runs one statement at a time (``concurrency``), so the queries come in the catalog's order.
    """

    def __init__(
        self, fingerprint: str, tables: dict[str, pd.DataFrame] | None = None, concurrency: int | None = 1
    ) -> None:
        self.concurrency = concurrency
        self._fingerprint = fingerprint
        self.tables = TABLES if tables is None else tables
        self.queries: list[tuple[str, float | None]] = []

    def fingerprint(self) -> str:
        return self._fingerprint

    def execute(self, sql: str, *, timeout_s: float | None = None) -> _Result:
        self.queries.append((sql, timeout_s))
        match = _QUERY.fullmatch(sql)
        table = match["table"]
        if table not in self.tables:
            raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42P01", f'relation "{table}" does not exist')
        columns = [column.strip() for column in match["columns"].split(",")]
        return _Result(self.tables[table][columns].drop_duplicates().head(int(match["limit"])))


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


def test_read_vocabulary_reads_columns_and_classes_and_skips_missing_tables():
    vocabulary = read_vocabulary(FakeEngine("db-1"), max_values=20)
    assert vocabulary.values[("magstat", "fid")] == frozenset({"1", "2"})
    assert vocabulary.values[("probability", "classifier_name")] == frozenset({"lc_classifier", "stamp_classifier"})
    assert ("detection", "fid") not in vocabulary.values
    assert vocabulary.classes[("probability", "lc_classifier", "1.0")] == frozenset({"SNIa", "QSO"})
    assert vocabulary.valid_values("probability", "class_name", classifier_name="stamp_classifier") == {"SN"}


def test_one_query_reads_every_categorical_column_of_a_table():
    engine = FakeEngine("db-1")
    read_vocabulary(engine)
    tables = dict.fromkeys(table for table, _ in load_catalog().categorical)
    assert len(engine.queries) == len(tables)
    assert engine.queries[0][0].startswith("SELECT class_name, classifier_name, classifier_version FROM probability")


def test_read_vocabulary_drops_columns_with_too_many_values():
    vocabulary = read_vocabulary(FakeEngine("db-1"), max_values=5)
    assert ("feature", "name") not in vocabulary.values
    assert vocabulary.values[("feature", "version")] == frozenset({"v1"})


def test_too_many_combinations_fall_back_to_one_query_per_column():
    many = pd.DataFrame(
        {"name": [f"f{i}" for i in range(41)], "fid": [i % 3 for i in range(41)], "version": ["v"] * 41}
    )
    engine = FakeEngine("db-1", {"feature": many})
    vocabulary = read_vocabulary(engine, max_values=2)  # 41 combinations, over 20 x 2: one query per column
    assert [sql for sql, _ in engine.queries if " FROM feature " in sql][1:] == [
        "SELECT name FROM feature GROUP BY name LIMIT 3",
        "SELECT fid FROM feature GROUP BY fid LIMIT 3",
        "SELECT version FROM feature GROUP BY version LIMIT 3",
    ]
    assert vocabulary.values[("feature", "version")] == frozenset({"v"})
    assert ("feature", "fid") not in vocabulary.values  # three values, more than max_values


def test_the_time_budget_bounds_every_query_and_skips_what_is_left(caplog):
    engine = FakeEngine("db-1")
    read_vocabulary(engine, timeout_s=10.0, budget_s=2.0)
    assert all(timeout <= 2.0 for _, timeout in engine.queries)
    clear_cache()
    with caplog.at_level(logging.WARNING, logger="modules.value_check.vocabulary"):
        vocabulary = read_vocabulary(FakeEngine("db-2"), budget_s=0.0)
    assert vocabulary.values == {}
    assert "vocabulary read stopped after 0 s; tables skipped: probability, lc_classifier" in caplog.text


class _SlowEngine(FakeEngine):
    """Takes 0.1 s per query; counts how many run at once."""

    def __init__(self, concurrency: int | None) -> None:
        super().__init__("slow", concurrency=concurrency)
        self.at_once = AtOnce()

    def execute(self, sql: str, *, timeout_s: float | None = None) -> _Result:
        with self.at_once.call():
            return super().execute(sql, timeout_s=timeout_s)


@pytest.mark.parametrize(("concurrency", "expected"), [(None, 4), (2, 2), (1, 1)])
def test_a_few_queries_run_at_once_but_never_more_than_the_engine_runs(concurrency, expected):
    engine = _SlowEngine(concurrency)
    vocabulary = read_vocabulary(engine, max_values=20)
    assert engine.at_once.most == expected
    clear_cache()
    assert read_vocabulary(FakeEngine("sequential"), max_values=20) == vocabulary


def test_read_vocabulary_is_cached_per_fingerprint():
    engine = FakeEngine("db-1")
    first = read_vocabulary(engine)
    calls = len(engine.queries)
    assert read_vocabulary(engine) is first
    assert len(engine.queries) == calls
    other = FakeEngine("db-2")
    read_vocabulary(other)
    assert len(other.queries) == calls


def test_linked_values_leave_out_unlinked_and_open_columns():
    vocabulary = read_vocabulary(FakeEngine("db-1"))
    text = linked_values_text(
        vocabulary, ["feature", "magstat"], {"feature": ["name"], "magstat": ["fid"]}, max_values=5
    )
    assert text == "Values of categorical columns:\nmagstat.fid: 1, 2"
    assert linked_values_text(vocabulary, ["object"], None) == ""


def test_the_multisurvey_vocabulary_names_its_code_columns_from_the_database(multisurvey_dsn):
    from engines.postgres import PostgresEngine, PostgresSettings
    from modules.value_check.stage import ValueCheck

    with PostgresEngine(PostgresSettings(dsn=multisurvey_dsn, catalog="multisurvey")) as engine:
        check = ValueCheck.open(engine, "multisurvey")
        rows = engine.execute("SELECT classifier_id, class_id FROM taxonomy WHERE class_name = 'SN'").frame
    sn = {str(classifier): str(class_id) for classifier, class_id in rows.itertuples(index=False)}
    assert set(check.vocabulary.codes) == {(code.table, code.column) for code in load_catalog("multisurvey").codes}
    text = check.prompt_text(["probability", "detection"], {"probability": ["class_id"], "detection": ["band"]})
    assert (
        f"probability.class_id is taxonomy.class_id (name in taxonomy.class_name) for classifier_id 3: {sn['3']} 'SN'"
        in text
    )
    assert (
        "detection.band is band.band (name in band.band_name) for sid 1: 1 'g', 2 'r', 3 'i', 4 'z', 5 'y', 6 'u'"
        in text
    )
    sql = "SELECT oid, sid FROM probability WHERE classifier_id = 3 AND class_id = 'SN' AND ranking = 1"
    assert check.replace(sql) == sql.replace("'SN'", sn["3"])


def test_class_lists_merge_shared_lists_and_name_every_classifier_and_version():
    vocabulary = read_vocabulary(FakeEngine("db-1", {"probability": _TWO_VERSIONS}))
    text = linked_values_text(vocabulary, ["probability"], None)
    assert text.splitlines()[1:] == [
        "probability.class_name of lc_classifier 1.0, 1.1: 'QSO', 'SNIa'",
        "probability.class_name of stamp_classifier 2: 'SN'",
    ]
    alone = linked_values_text(vocabulary, ["probability"], {"probability": ["classifier_version"]})
    assert alone.splitlines()[1:] == ["probability.classifier_version: '1.0', '1.1', '2'"]
