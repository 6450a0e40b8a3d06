"""Tests for the project's own example set data/examples/examples.csv (written by the team, not the benchmark).

Checks that the benchmark loader reads it, that it covers every catalog table and all difficulties, that the
guard accepts every gold query and that every gold query returns rows on the default-scale synthetic database.
"""

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from catalog import load_catalog
from data.loader import load_dataset
from engines.guard import check_sql
from engines.postgres import PostgresEngine, PostgresSettings

EXAMPLES_CSV = Path(__file__).resolve().parents[2] / "data" / "examples" / "examples.csv"
DIFFICULTIES = {"simple", "medium", "advanced"}
MIN_EXAMPLES = 40
FIRST_REQ_ID = 1000

EXAMPLES = load_dataset(EXAMPLES_CSV)


def _tables_in(sql: str) -> set[str]:
    """Names of the database tables a query reads (CTE names excluded), lower-case."""
    tree = sqlglot.parse_one(sql, read="postgres")
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    return {table.name.lower() for table in tree.find_all(exp.Table)} - ctes


def _ids(example) -> str:
    return f"req{example.req_id}"


def test_examples_load_with_the_benchmark_loader():
    assert len(EXAMPLES) >= MIN_EXAMPLES
    assert all(example.req_id >= FIRST_REQ_ID for example in EXAMPLES)
    assert all(example.question and example.gold_sql for example in EXAMPLES)


def test_all_three_difficulties_are_present():
    counts = Counter(example.difficulty for example in EXAMPLES)
    assert set(counts) == DIFFICULTIES, counts


def test_every_catalog_table_is_covered():
    catalog_tables = {name.lower() for name in load_catalog().table_names}
    used = set().union(*(_tables_in(example.gold_sql) for example in EXAMPLES))
    assert catalog_tables - used == set()
    assert used - catalog_tables == set()


@pytest.mark.parametrize("example", EXAMPLES, ids=_ids)
def test_table_info_matches_the_tables_of_the_gold_query(example):
    assert set(example.tables) == _tables_in(example.gold_sql)


@pytest.mark.parametrize("example", EXAMPLES, ids=_ids)
def test_guard_accepts_every_gold_query(example):
    assert check_sql(example.gold_sql)


@pytest.fixture(scope="module")
def default_executor(default_dsn: str) -> Iterator[PostgresEngine]:
    """An PostgresEngine on the default-scale database (built on first use of `default_dsn`)."""
    with PostgresEngine(PostgresSettings(dsn=default_dsn, timeout_s=60)) as executor:
        yield executor


@pytest.mark.parametrize("example", EXAMPLES, ids=_ids)
def test_every_gold_query_returns_rows_on_the_default_database(example, default_executor):
    result = default_executor.execute(example.gold_sql)
    assert len(result.frame) >= 1, f"req_id {example.req_id} returned no rows"


def _normalised(text: str) -> str:
    return " ".join(text.lower().split())


def test_no_example_repeats_a_benchmark_question_or_query(dev_csv_path):
    """Provenance guard: the committed examples must not contain benchmark questions or gold SQL."""
    benchmark = load_dataset(dev_csv_path)
    benchmark_texts = {_normalised(item.question) for item in benchmark} | {
        _normalised(item.gold_sql) for item in benchmark
    }
    repeated = [
        example.req_id
        for example in EXAMPLES
        if {_normalised(example.question), _normalised(example.gold_sql)} & benchmark_texts
    ]
    assert repeated == []
