"""Grounding works for gold queries it was never shown: the dev golds with every literal perturbed.

Oids, AllWISE names, solar-system names, positions, class names, classifier and feature versions, thresholds and
MJD windows are redrawn from the value domains of DATABASE.md; a throwaway database is grounded on the perturbed
queries; most of them must return rows and most must tell a plausible mutation apart (benchmarks.db_fidelity).
"""

from __future__ import annotations

import random
import re
import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest
import sqlglot
from sqlglot import exp

from benchmarks.db_fidelity import evaluate
from data.loader import load_dataset
from db.server import ServerSettings, down, up
from db.synthetic import vocab
from tests.conftest import free_port

_OID = re.compile(r"^ZTF\d{2}[a-z]{7}$")
_WISE = re.compile(r"^J\d{6}\.\d{2}[+-]\d{6}\.\d$")
_STAMP_ONLY = set(vocab.STAMP_CLASSES) - set(vocab.LC_CLASSES)
_SEEDS = (1, 2)


def _new_oid(rng: random.Random) -> str:
    year = rng.randint(18, 24)
    return f"ZTF{year}a" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6))


def _designation(rng: random.Random) -> str:
    ra, dec = rng.uniform(0, 360), rng.uniform(-25, 80)
    h = ra / 15
    sign = "-" if dec < 0 else "+"
    a = abs(dec)
    return (
        f"J{int(h):02d}{int(h % 1 * 60):02d}{h * 3600 % 60:05.2f}{sign}{int(a):02d}{int(a % 1 * 60):02d}"
        f"{a * 3600 % 60:04.1f}"
    )


def _string(value: str, column: str, rng: random.Random, mapping: dict) -> str:
    """A consistent replacement per distinct literal (the same oid twice stays the same new oid)."""
    if value in mapping:
        return mapping[value]
    if _OID.match(value):
        new = _new_oid(rng)
    elif _WISE.match(value):
        new = _designation(rng)
    elif value.isdigit() and column == "ssnamenr":
        new = str(rng.randint(1000, 600000))
    elif value in vocab.STAMP_VERSIONS:
        new = vocab.STAMP_VERSIONS[1 - vocab.STAMP_VERSIONS.index(value)]
    elif value in vocab.FEATURE_VERSIONS:
        new = vocab.FEATURE_VERSIONS[1 - vocab.FEATURE_VERSIONS.index(value)]
    elif value in _STAMP_ONLY or value == "SN":
        new = rng.choice(sorted(_STAMP_ONLY | {"SN"}))
    elif value in vocab.LC_CLASSES and value not in vocab.STAMP_CLASSES:
        branch = next(b for b in vocab.BRANCHES if value in b)
        new = rng.choice(branch)
    elif value in vocab.TOP:
        new = rng.choice(vocab.TOP)
    else:
        new = value
    mapping[value] = new
    return new


def _column_of(node: exp.Literal) -> str:
    """Name of the column a literal is compared with (through IN, BETWEEN and arithmetic), or ''."""
    for parent in (node.parent, node.parent.parent if node.parent else None):
        if isinstance(parent, exp.Binary | exp.In | exp.Between):
            columns = [c for c in parent.find_all(exp.Column)]
            if columns:
                return columns[0].name.lower()
    return ""


def _number(node: exp.Literal, value: float, rng: random.Random, shifts: dict) -> float | None:
    """A redrawn threshold; every literal compared with the same column moves by the same amount."""
    parent = node.parent
    while isinstance(parent, exp.Neg | exp.Paren):
        parent = parent.parent
    column = _column_of(node)
    if isinstance(parent, exp.Limit) or column in ("fid", "ranking") or _is_position(node):
        return None
    if value > 50000:
        return round(value + shifts.setdefault("mjd", rng.uniform(-300, 300)), 1)
    if 0 < value < 1:
        return round(min(0.95, max(0.05, value + shifts.setdefault(column, rng.uniform(-0.15, 0.15)))), 2)
    if value >= 2:
        scaled = value * shifts.setdefault(column, rng.uniform(0.6, 1.5))
        return float(max(1, round(scaled))) if value >= 20 and value == int(value) else round(scaled, 1)
    return None


def _is_position(node: exp.Literal) -> bool:
    return node.find_ancestor(exp.Values, exp.Anonymous) is not None


def _positions(tree: exp.Expression, rng: random.Random) -> None:
    """Move every literal (ra, dec) pair of a VALUES row or q3c call to a new random position."""
    for holder in list(tree.find_all(exp.Tuple)) + list(tree.find_all(exp.Anonymous)):
        numbers = [a for a in holder.expressions if isinstance(a, exp.Literal) and not a.is_string]
        if len(numbers) >= 2 and 0 <= float(numbers[0].this) <= 360 and abs(float(numbers[1].this)) <= 90:
            numbers[0].replace(exp.Literal.number(round(rng.uniform(0, 360), 5)))
            numbers[1].replace(exp.Literal.number(round(rng.uniform(-25, 80), 5)))


def perturb(sql: str, seed: int) -> str:
    """The gold query with its literals redrawn (deterministic for a seed)."""
    rng = random.Random(f"{seed}:{sql}")
    tree = sqlglot.parse_one(sql, read="postgres")
    _positions(tree, rng)
    mapping: dict[str, str] = {}
    shifts: dict[str, float] = {}
    for node in list(tree.find_all(exp.Literal)):
        if node.is_string:
            node.replace(exp.Literal.string(_string(node.this, _column_of(node), rng, mapping)))
            continue
        new = _number(node, float(node.this), rng, shifts)
        if new is not None:
            node.replace(exp.Literal.number(new))
    return tree.sql(dialect="postgres")


@pytest.fixture(scope="module")
def perturbed(dev_csv_path: Path) -> list[tuple[int, str]]:
    golds = [(int(ex.req_id), str(ex.gold_sql).strip().rstrip(";")) for ex in load_dataset(dev_csv_path)]
    return [(req_id * 10 + seed, perturb(sql, seed)) for seed in _SEEDS for req_id, sql in golds]


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
