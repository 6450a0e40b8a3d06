"""Grounding works for gold queries it was never shown: the dev golds with every literal perturbed.

Oids, AllWISE names, solar-system names, positions, class names, classifier and feature versions, thresholds and
MJD windows are redrawn from the value domains of DATABASE.md; a throwaway database is grounded on the perturbed
queries; most of them must return rows and most must tell a plausible mutation apart (benchmarks.db_fidelity).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest
import sqlglot

from benchmarks.db_fidelity import evaluate
from benchmarks.perturbed_golds import SEEDS, perturb
from data.loader import load_dataset
from db.server import ServerSettings, down, up
from tests.conftest import free_port


@pytest.fixture(scope="module")
def perturbed(dev_csv_path: Path) -> list[tuple[int, str]]:
    golds = [(int(ex.req_id), str(ex.gold_sql).strip().rstrip(";")) for ex in load_dataset(dev_csv_path)]
    return [(req_id * 10 + seed, perturb(sql, seed)) for seed in SEEDS for req_id, sql in golds]


@pytest.fixture(scope="module")
def perturbed_dsn(perturbed: list[tuple[int, str]], tmp_path_factory):
    queries = tmp_path_factory.mktemp("perturbed") / "perturbed.sql"
    queries.write_text(";\n".join(sql for _, sql in perturbed) + ";\n")
    data_dir = Path(tempfile.mkdtemp(prefix="alerce-t2s-perturbed-"))
    try:
        settings = ServerSettings(data_dir=data_dir, port=free_port(), scale="tiny", seed=0, ground=(queries,))
        yield up(settings).reader_dsn
    finally:
        down(data_dir)
        shutil.rmtree(data_dir, ignore_errors=True)


def test_perturbation_changes_literals_and_keeps_queries_valid(perturbed, dev_csv_path) -> None:
    originals = {int(ex.req_id): str(ex.gold_sql).strip().rstrip(";") for ex in load_dataset(dev_csv_path)}
    changed = sum(1 for key, sql in perturbed if sql != sqlglot.transpile(originals[key // 10], read="postgres")[0])
    assert changed >= 0.9 * len(perturbed)
    for _, sql in perturbed:
        sqlglot.parse_one(sql, read="postgres")


def test_grounding_answers_perturbed_golds(perturbed, perturbed_dsn) -> None:
    with psycopg.connect(perturbed_dsn) as conn:
        items = [evaluate(conn, key, sql, 10.0) for key, sql in perturbed]
    non_empty = [i for i in items if i["runs"] and i["rows"] > 0]
    discriminative = [i for i in items if i["discriminative"]]
    empty = sorted(i["req_id"] for i in items if i not in non_empty)
    assert len(non_empty) >= 0.95 * len(items), f"empty: {empty}"
    blind = sorted(i["req_id"] for i in items if i not in discriminative)
    assert len(discriminative) >= 0.85 * len(items), f"not discriminative: {blind}"
