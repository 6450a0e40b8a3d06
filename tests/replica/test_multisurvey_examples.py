"""The project's own multi-survey example set: format, coverage, guard, identifiers, and every gold runs."""

import csv
from collections import Counter
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from catalog import load_catalog
from data.loader import load_dataset
from engines.guard import check_sql

REPO = Path(__file__).resolve().parents[2]
EXAMPLES_CSV = REPO / "data" / "examples" / "multisurvey_examples.csv"
EXAMPLES = load_dataset(EXAMPLES_CSV)
with EXAMPLES_CSV.open(encoding="utf-8", newline="") as handle:
    KINDS = {int(row["req_id"]): row["type"] for row in csv.DictReader(handle)}
IDENTIFIERS = {"oid", "ssobjectid", "oid_catalog"}


def _tables_in(sql: str) -> set[str]:
    tree = sqlglot.parse_one(sql, read="postgres")
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    return {table.name.lower() for table in tree.find_all(exp.Table)} - ctes


def _ids(example) -> str:
    return f"req{example.req_id}"


def test_examples_load_and_are_numbered_apart_from_the_ztf_set() -> None:
    assert len(EXAMPLES) >= 60
    ids = [example.req_id for example in EXAMPLES]
    assert len(set(ids)) == len(ids) and min(ids) >= 2000


def test_all_difficulties_and_every_table_are_covered() -> None:
    assert set(Counter(example.difficulty for example in EXAMPLES)) == {"simple", "medium", "advanced"}
    used = set().union(*(_tables_in(example.gold_sql) for example in EXAMPLES))
    assert used == set(load_catalog("multisurvey").table_names)


@pytest.mark.parametrize("example", EXAMPLES, ids=_ids)
def test_gold_is_a_guarded_select_on_the_tables_it_lists(example) -> None:
    check_sql(example.gold_sql)
    assert set(example.tables) == _tables_in(example.gold_sql)


@pytest.mark.parametrize("example", [e for e in EXAMPLES if KINDS[e.req_id] == "object"], ids=_ids)
def test_object_questions_return_the_identifier_first(example) -> None:
    first = sqlglot.parse_one(example.gold_sql, read="postgres").selects[0]
    assert first.alias_or_name.lower() in IDENTIFIERS


@pytest.mark.parametrize("example", EXAMPLES, ids=_ids)
def test_gold_runs_on_the_tiny_replica(ms_conn, example) -> None:
    ms_conn.execute(example.gold_sql).fetchall()
