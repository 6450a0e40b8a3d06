"""Grounded rows respect every key and constraint of the schema; queries no object can answer are skipped.

Cases come from tests/fixtures/grounding_cases.yaml: queries that once ended a grounded build in a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import psycopg
import pytest
import yaml

from catalog import load_catalog, render_ddl
from db.q3c import install_q3c
from replica.engine.grounding.entities import Skipped, entities_for_queries
from replica.replicas import build_replica
from replica.ztf.grounding import ZTF_PROFILE, grounded_tables

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "grounding_cases.yaml").read_text(encoding="utf-8"))
_SCALE = {"old_feature_fraction": 0.3, "max_forced_rows": 20}
_DATABASE = "grounding_cases"


def _queries(case: dict) -> list[str]:
    return case.get("together") or [case["sql"]]


def _tables(queries: list[str]) -> dict[str, pd.DataFrame]:
    return grounded_tables(entities_for_queries(queries, ZTF_PROFILE).entities, np.random.default_rng(0), **_SCALE)


def _broken_constraints(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Every primary key repeated, NULL in a NOT NULL column, or foreign key without its row, among the rows."""
    out = []
    for table in load_catalog().tables:
        frame = tables.get(table.name)
        if frame is None:
            continue
        if frame.duplicated(table.primary_key).any():
            out.append(f"{table.name}: repeated {table.primary_key}")
        for column in table.columns:
            if not column.nullable and column.name in frame.columns and frame[column.name].isna().any():
                out.append(f"{table.name}.{column.name}: NULL")
        for fk in table.foreign_keys:
            parents = tables.get(fk.ref_table, pd.DataFrame(columns=fk.ref_columns))
            named = set(parents[fk.ref_columns].itertuples(index=False, name=None))
            if not set(frame[fk.columns].itertuples(index=False, name=None)) <= named:
                out.append(f"{table.name}: {fk.name} names missing rows")
    return out


@pytest.mark.parametrize("case", CASES["answered"], ids=lambda case: case["id"])
def test_grounded_rows_keep_every_key_of_the_schema(case: dict) -> None:
    assert _broken_constraints(_tables(_queries(case))) == []


def test_a_key_value_names_one_row_and_the_rows_naming_it_follow() -> None:
    queries = ["SELECT q.oid FROM dataquality AS q WHERE q.candid = 7", "SELECT oid FROM detection WHERE candid = 8"]
    tables = _tables(queries)
    named = {7, 8}
    alerts = tables["detection"][tables["detection"]["candid"].isin(named)]
    assert set(alerts["candid"]) == named and not alerts.duplicated(["oid", "candid"]).any()
    quality = tables["dataquality"][tables["dataquality"]["candid"].isin(named)]
    assert sorted(quality[["candid", "oid"]].itertuples(index=False)) == sorted(
        alerts[["candid", "oid"]].itertuples(index=False)
    )


def test_a_grounded_name_never_takes_the_oid_a_query_names() -> None:
    case = next(c for c in CASES["answered"] if c["id"] == "named_like_a_grounded_object")
    oids = _tables(case["together"])["object"]["oid"]
    assert "ZTF20zzaaaab" in set(oids) and oids.is_unique


@pytest.mark.parametrize("case", CASES["skipped"], ids=lambda case: case["id"])
def test_a_query_no_object_answers_is_skipped_in_one_line(case: dict, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="replica.engine.grounding.entities"):
        plan = entities_for_queries([case["sql"]], ZTF_PROFILE)
    assert plan.entities == []
    assert [s.query for s in plan.skipped] == [case["sql"]]
    assert case["reason"] in plan.skipped[0].reason
    assert [r.getMessage() for r in caplog.records] == [
        f"not grounding a query ({plan.skipped[0].reason}): {case['sql']}"
    ]


def test_skipping_a_query_keeps_the_others() -> None:
    skipped, kept = CASES["skipped"][0]["sql"], CASES["answered"][0]["sql"]
    plan = entities_for_queries([skipped, kept], ZTF_PROFILE)
    assert [s.query for s in plan.skipped] == [skipped] and isinstance(plan.skipped[0], Skipped)
    assert plan.entities


@pytest.fixture(scope="module")
def grounded_build(admin_dsn_tiny: str) -> Iterator[tuple[str, list[str]]]:
    """DSN of a tiny database built and grounded on every case at once, and the build's log lines."""
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {_DATABASE} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {_DATABASE}")
    dsn = psycopg.conninfo.make_conninfo(admin_dsn_tiny, dbname=_DATABASE)
    queries = [sql for kind in CASES.values() for case in kind for sql in _queries(case)]
    handler, logger = _Lines(), logging.getLogger("replica")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        with psycopg.connect(dsn) as conn:
            install_q3c(conn)
            conn.execute(render_ddl(load_catalog()))
            build_replica(conn, catalog="ztf", scale="tiny", seed=0, ground=queries)
        yield dsn, handler.lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        with psycopg.connect(admin_dsn_tiny, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {_DATABASE} WITH (FORCE)")


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_a_build_grounded_on_queries_that_broke_it_answers_them(grounded_build: tuple[str, list[str]]) -> None:
    dsn, _ = grounded_build
    with psycopg.connect(dsn) as conn:
        conn.execute("SET search_path TO alerce, public")
        empty = [sql for case in CASES["answered"] for sql in _queries(case) if not conn.execute(sql).fetchall()]
    assert empty == []


def test_the_built_database_keeps_every_foreign_key(grounded_build: tuple[str, list[str]]) -> None:
    orphans = {}
    with psycopg.connect(grounded_build[0]) as conn:
        for table in load_catalog().tables:
            for fk in table.foreign_keys:
                joined = " AND ".join(f"p.{p} = c.{c}" for c, p in zip(fk.columns, fk.ref_columns, strict=True))
                orphans[fk.name] = conn.execute(
                    f"SELECT count(*) FROM alerce.{table.name} AS c "
                    f"WHERE NOT EXISTS (SELECT 1 FROM alerce.{fk.ref_table} AS p WHERE {joined})"
                ).fetchone()[0]
    assert {name: n for name, n in orphans.items() if n} == {}


def test_the_build_summary_counts_skipped_and_unanswered_queries(grounded_build: tuple[str, list[str]]) -> None:
    lines = grounded_build[1]
    total = sum(len(_queries(case)) for kind in CASES.values() for case in kind)
    skipped, unanswered = len(CASES["skipped"]), len(CASES["unanswered"])
    summary = next(line for line in lines if line.startswith("grounded "))
    assert summary.startswith(
        f"grounded {total - skipped} of {total} queries ({skipped} skipped, {unanswered} without rows): "
    )
    assert f"grounding did not give this query any row: {CASES['unanswered'][0]['sql']}" in lines
