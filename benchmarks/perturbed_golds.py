"""Write the gold queries of a benchmark split with every literal redrawn: questions the data was never fitted to.

Oids, AllWISE names, solar-system names, positions, class names, classifier and feature versions, thresholds and
MJD windows are redrawn from the value domains of ALeRCE (DATABASE.md); each query keeps its shape. Gold queries
of the multi-survey catalog are redrawn from its own domains (``perturbed_multisurvey``). The generality
test of the grounding (tests/replica/test_grounding_generality.py) grounds on such queries, and `benchmarks.db --ground`
times grounding on more questions than the dev split holds (the test split stays unseen).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

import sqlglot
from sqlglot import exp

from benchmarks.common import gold_queries
from benchmarks.perturbed_multisurvey import perturb_multisurvey
from cli import positive_int
from data.errors import DataError
from defaults.catalog import DEFAULT_CATALOG
from replica.ztf import vocab

__all__ = ["SEEDS", "main", "perturb"]

EXAMPLES = """examples:
  python -m benchmarks.perturbed_golds --dataset ../shared/alerce-t2s/dev.csv --count 52 --out extra.sql
  python -m benchmarks.db --scales default --ground ../shared/alerce-t2s/dev.csv extra.sql

Writes the SQL file (statements separated by ';'); exit codes: 0 written, 1 dataset not found or file not
writable, 2 bad command line."""

_OID = re.compile(r"^ZTF\d{2}[a-z]{7}$")
_WISE = re.compile(r"^J\d{6}\.\d{2}[+-]\d{6}\.\d$")
_STAMP_ONLY = set(vocab.STAMP_CLASSES) - set(vocab.LC_CLASSES)
SEEDS = (1, 2)
"""Seeds of the two perturbed copies the generality test grounds on."""


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


def perturb(sql: str, seed: int, catalog: str = DEFAULT_CATALOG) -> str:
    """The gold query on a catalog with its literals redrawn (deterministic for a seed)."""
    if catalog == "multisurvey":
        return perturb_multisurvey(sql, seed)
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


def build_parser() -> argparse.ArgumentParser:
    """Build the command-line parser."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.perturbed_golds",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--dataset", default=None, help="benchmark CSV (or folder) with gold_query (default: $ALERCE_T2S_DATA)"
    )
    parser.add_argument(
        "--seed", type=int, default=SEEDS[0], help="seed of the redrawn literals (default: %(default)s)"
    )
    parser.add_argument(
        "--count", type=positive_int, default=None, help="write the first N perturbed golds (default: all)"
    )
    parser.add_argument("--out", type=Path, required=True, help="SQL file to write")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Write the perturbed golds; print how many on stderr."""
    args = build_parser().parse_args(argv)
    try:
        _, golds = gold_queries(args.dataset)
    except DataError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    queries = [perturb(sql, args.seed) for _, sql in golds][: args.count]
    try:
        args.out.write_text(";\n".join(queries) + ";\n", encoding="utf-8")
    except OSError as err:
        print(f"error: cannot write {args.out}: {err.strerror or err}", file=sys.stderr)
        return 1
    print(f"wrote {len(queries)} perturbed gold queries to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
