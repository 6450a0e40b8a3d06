"""Reading the vocabularies of categorical columns, cached per database fingerprint."""

import pandas as pd
import pytest

from checks.vocabulary import CATEGORICAL_COLUMNS, CLASSIFIER_TABLES, clear_cache, read_vocabulary
from db.errors import ErrorKind, ExecutionError


class _Result:
    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame


class FakeEngine:
    """Answers the vocabulary queries from a table of (table, column) -> values; other tables do not exist."""

    def __init__(self, fingerprint: str) -> None:
        self._fingerprint = fingerprint
        self.calls = 0

    def fingerprint(self) -> str:
        return self._fingerprint

    def execute(self, sql: str, *, timeout_s: float | None = None) -> _Result:
        self.calls += 1
        table = sql.split(" FROM ")[1].split()[0]
        if table == "probability" and sql.startswith("SELECT classifier_name, classifier_version, class_name"):
            rows = [("lc_classifier", "1.0", "SNIa"), ("lc_classifier", "1.0", "QSO"), ("stamp_classifier", "2", "SN")]
            return _Result(pd.DataFrame(rows, columns=["classifier_name", "classifier_version", "class_name"]))
        if table == "magstat":
            return _Result(pd.DataFrame({"fid": [1, 2]}))
        if table == "feature":
            return _Result(pd.DataFrame({"x": [f"f{i}" for i in range(10)]}))
        raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42P01", f'relation "{table}" does not exist')


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


def test_read_vocabulary_reads_columns_and_classes_and_skips_missing_tables():
    vocabulary = read_vocabulary(FakeEngine("db-1"), max_values=20)
    assert vocabulary.values[("magstat", "fid")] == frozenset({"1", "2"})
    assert ("detection", "fid") not in vocabulary.values
    assert vocabulary.classes[("probability", "lc_classifier", "1.0")] == frozenset({"SNIa", "QSO"})
    assert vocabulary.valid_values("probability", "class_name", classifier_name="stamp_classifier") == {"SN"}


def test_read_vocabulary_drops_columns_with_too_many_values():
    vocabulary = read_vocabulary(FakeEngine("db-1"), max_values=5)
    assert ("feature", "name") not in vocabulary.values


def test_read_vocabulary_is_cached_per_fingerprint():
    engine = FakeEngine("db-1")
    first = read_vocabulary(engine)
    calls = engine.calls
    assert calls == len(CATEGORICAL_COLUMNS) + len(CLASSIFIER_TABLES)
    assert read_vocabulary(engine) is first
    assert engine.calls == calls
    other = FakeEngine("db-2")
    read_vocabulary(other)
    assert other.calls == calls
