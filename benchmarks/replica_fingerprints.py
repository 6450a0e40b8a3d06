"""Fingerprint every table of the built replicas, to check that a change of the generator leaves the data as it was.

Builds each catalog's replica (tiny scale, seed 0) in a throwaway server, as ``db up`` builds it: the ZTF one
grounded on every split file of the dataset folder (``--dataset``, else ALERCE_T2S_DATA), the multi-survey one
grounded on the project's multi-survey examples and two copies of them with every literal redrawn. Per table: its
row count and the md5 of its rows in text order. ``--compare FILE`` checks the fingerprints against an earlier run's
output and names every table that differs. The server runs out of a temporary data folder on a free port and is
stopped (and the folder deleted) at the end.

``benchmarks/results/replica_fingerprints.json`` holds the fingerprints of the replicas as built before the replica
engine and the per-catalog recipes were split (commit 35ea10f), but for the multi-survey AllWISE and Gaia rows,
recorded again when grounded values began to reach the counterparts of grounded objects beside an orphan source. A
deliberate change of the data records a new one
(``python -m benchmarks.replica_fingerprints > benchmarks/results/replica_fingerprints.json``).
"""

import argparse
import csv
import json
import logging
import sys
from pathlib import Path

import psycopg
from psycopg import sql

from benchmarks.common import free_port, throwaway_data_dir
from benchmarks.db import start_server
from benchmarks.perturbed_golds import perturb
from catalog import load_catalog
from data.errors import DataError
from data.loader import grounding_files, resolve_dataset_path
from db.cluster import ADMIN_ROLE, Cluster
from db.errors import ServerError
from db.provision import database_name, provision_database
from replica.engine.grounding.sources import read_queries

EXAMPLES = """examples:
  python -m benchmarks.replica_fingerprints > before.json
  python -m benchmarks.replica_fingerprints --compare before.json

Prints one JSON object on stdout; exit codes: 0 done (and equal when comparing), 1 fingerprints differ or the
build failed, 2 bad command line."""

SCALE = "tiny"
SEED = 0
PERTURBED_SEEDS = (1, 2)
MULTISURVEY_EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples" / "multisurvey_examples.csv"
_FINGERPRINT = "SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM {} t"


def multisurvey_queries() -> list[str]:
    """The multi-survey examples' golds, then each copy with its literals redrawn (as tests/replica grounds on)."""
    with MULTISURVEY_EXAMPLES.open(encoding="utf-8", newline="") as handle:
        golds = [row["gold_query"].strip().rstrip(";") for row in csv.DictReader(handle)]
    return golds + [perturb(query, seed, "multisurvey") for seed in PERTURBED_SEEDS for query in golds]


def fingerprints(dsn: str, schema: str) -> dict[str, list]:
    """(row count, md5 of the rows in text order) of every table of ``schema``, by table name."""
    out = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY 1", (schema,))
        for (table,) in rows.fetchall():
            count, digest = conn.execute(sql.SQL(_FINGERPRINT).format(sql.Identifier(schema, table))).fetchone()
            out[table] = [count, digest]
    return out


def differences(before: dict, after: dict) -> list[str]:
    """One line per catalog table whose fingerprint differs between two runs (or that only one run has)."""
    lines = []
    for catalog in sorted(set(before) | set(after)):
        old, new = before.get(catalog, {}), after.get(catalog, {})
        for table in sorted(set(old) | set(new)):
            if old.get(table) != new.get(table):
                lines.append(f"{catalog}.{table}: {old.get(table)} -> {new.get(table)}")
    return lines


def run(dataset: str | None) -> dict[str, dict[str, list]]:
    """Build both replicas in a throwaway server and fingerprint them."""
    grounds = {
        "ztf": read_queries(list(grounding_files(resolve_dataset_path(dataset)))),
        "multisurvey": multisurvey_queries(),
    }
    out = {}
    with throwaway_data_dir("alerce-t2s-fingerprints-") as data_dir:
        port = free_port()
        start_server(data_dir, port)
        admin = psycopg.conninfo.make_conninfo(
            host="127.0.0.1", port=port, user=ADMIN_ROLE, password=Cluster(data_dir).admin_password(), dbname="postgres"
        )
        for catalog, queries in grounds.items():
            provision_database(admin, scale=SCALE, seed=SEED, ground=queries, catalog=catalog)
            dsn = psycopg.conninfo.make_conninfo(admin, dbname=database_name(SCALE, catalog))
            out[catalog] = fingerprints(dsn, load_catalog(catalog).schema)
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: print the fingerprints as JSON; with --compare, exit 1 when they differ from the file's."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.replica_fingerprints",
        description="Fingerprint every table of both catalogs' tiny replicas (seed 0, grounded).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", help="benchmark folder or CSV to ground the ZTF replica on")
    parser.add_argument("--compare", type=Path, help="an earlier run's JSON output to compare with")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        before = json.loads(args.compare.read_text(encoding="utf-8")) if args.compare else None
        result = run(args.dataset)
    except (OSError, ValueError, DataError, ServerError, psycopg.Error) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=1, sort_keys=True))
    if before is not None:
        lines = differences(before, result)
        for line in lines:
            print(f"differs: {line}", file=sys.stderr)
        print(f"{len(lines)} tables differ", file=sys.stderr)
        return 1 if lines else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
