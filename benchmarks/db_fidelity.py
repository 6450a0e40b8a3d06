"""Fidelity of the synthetic database for the dev gold queries.

Runs every gold query, then plausible mutations of it (drop `ranking = 1`, swap lc/stamp classifier, shift an
MJD literal by one day, drop one WHERE conjunct), and reports whether each gold is non-empty, fast and
discriminative (at least one mutation returns a different identifier set). The mutations are the catalog's
(``benchmarks.mutations``): on the multi-survey catalog the classifier swap also swaps classifier ids, the
conditions of HAVING and JOIN ... ON are dropped too, and numeric bounds are moved by a fifth.

With ``--peer-predictions`` (default: peer_predictions_dev.csv beside the dataset, when present) it also scores
real LLM predictions on the database and reports how often the row and formatted-column verdicts agree with the
live ALeRCE database's (items whose live gold ran).

Without --dsn the embedded database is used, grounded on every split file of the dataset folder (as evaluate
grounds it), and the time grounding adds to the build is reported.

Usage: python -m benchmarks.db_fidelity --dataset dev.csv [--dsn DSN] [--timeout 10] [--peer-predictions FILE]
       python -m benchmarks.db_fidelity --catalog multisurvey   (its example golds, its embedded database)
"""

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

import psycopg

from benchmarks.common import gold_queries
from benchmarks.mutations import mutations
from benchmarks.peer_fidelity import peer_agreement, read_peers
from catalog import load_catalog
from catalog.options import add_catalog_argument
from data.errors import DataError
from metric.perfect_match import IDS, identifier_columns

log = logging.getLogger("benchmarks.db_fidelity")

_PEER_MAX_BYTES = 1024 * 1024 * 1024  # large gold results (tens of thousands of wide rows) must not be truncated


def identifier_index(columns: list[str], ids: tuple[str, ...] = IDS) -> int | None:
    """Index of the compared identifier column (evaluator priority among `ids`), or None."""
    lower = [c.lower() for c in columns]
    for name in ids:
        if name in lower:
            return lower.index(name)
    for i, c in enumerate(lower):
        if "oid" in c or "id" in c:
            return i
    return None


def run_ids(conn, sql: str, timeout_s: float, gold: set[str] | None = None, ids: tuple[str, ...] = IDS) -> dict:
    """Execute `sql` and return its identifier set (streamed; stops early once it differs from `gold`)."""
    t0 = time.monotonic()
    res: dict = {"error": None, "rows": 0, "ids": set(), "identifier": None, "differs": False}
    try:
        with conn.transaction():
            conn.execute(f"SET LOCAL statement_timeout = {int(timeout_s * 1000)}")
            with conn.cursor(name="fidelity") as cur:
                cur.execute(sql)
                cols = [d.name for d in cur.description]
                idx = identifier_index(cols, ids)
                res["identifier"] = cols[idx] if idx is not None else None
                while rows := cur.fetchmany(5000):
                    res["rows"] += len(rows)
                    if idx is None:
                        continue
                    res["ids"].update(str(r[idx]) for r in rows)
                    if gold is not None and not res["ids"] <= gold:
                        res["differs"] = True
                        break
    except psycopg.Error as err:
        res["error"] = (type(err).__name__ + ": " + str(err).splitlines()[0])[:200]
    if gold is not None and res["error"] is None and res["identifier"] is not None:
        res["differs"] = res["differs"] or res["ids"] != gold
    res["seconds"] = round(time.monotonic() - t0, 3)
    return res


def evaluate(conn, req_id: int, sql: str, timeout_s: float, *, catalog: str = "ztf") -> dict:
    """Gold result plus the results of the catalog's mutations for one query."""
    ids = identifier_columns(catalog)
    gold = run_ids(conn, sql, timeout_s, ids=ids)
    item = {
        "req_id": req_id,
        "runs": gold["error"] is None,
        "error": gold["error"],
        "rows": gold["rows"],
        "seconds": gold["seconds"],
        "identifier": gold["identifier"],
        "discriminative": False,
        "mutations": [],
    }
    if gold["error"] is not None or gold["identifier"] is None:
        return item
    for desc, mutated in mutations(sql, catalog):
        m = run_ids(conn, mutated, timeout_s, gold["ids"], ids)
        item["mutations"].append(
            {"mutation": desc, "differed": m["differs"], "error": m["error"], "seconds": m["seconds"]}
        )
        if m["differs"]:
            item["discriminative"] = True
            break
    return item


def _resolve_dsn(dsn: str | None, dataset, catalog: str) -> str:
    from data.loader import grounding_files
    from db.server import resolve_dsn

    return resolve_dsn(dsn, ground=None if dsn else grounding_files(dataset), catalog=catalog)


def _peer_file(arg: str | None, dataset) -> Path | None:
    if arg:
        return Path(arg)
    folder = Path(dataset).parent if Path(dataset).is_file() else Path(dataset)
    candidate = folder / "peer_predictions_dev.csv"
    return candidate if candidate.is_file() else None


def main(argv: list[str] | None = None) -> int:
    """Entry point: prints one JSON object on stdout."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.db_fidelity", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dataset", default=None, help="dev CSV with gold_query (default: $ALERCE_T2S_DATA; multisurvey: its examples)"
    )
    add_catalog_argument(parser)
    parser.add_argument("--dsn", default=None, help="PostgreSQL DSN of the synthetic database")
    parser.add_argument("--timeout", type=float, default=10.0, help="per-statement timeout in seconds")
    parser.add_argument(
        "--peer-predictions",
        default=None,
        help="CSV of real LLM predictions with live verdicts (default: peer_predictions_dev.csv beside the dataset)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
    dataset = args.dataset or (os.environ.get("ALERCE_T2S_DATA") if args.catalog == "ztf" else None)
    if not dataset and args.catalog == "ztf":
        parser.error("--dataset is required (or set ALERCE_T2S_DATA)")
    try:
        dataset_file, golds = gold_queries(dataset, catalog=args.catalog)
        peers_path = _peer_file(args.peer_predictions, dataset_file)
        peers = read_peers(peers_path, dict(golds)) if peers_path is not None else None
    except (DataError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    items = []
    dsn = _resolve_dsn(args.dsn, dataset_file, args.catalog)
    with psycopg.connect(dsn) as conn:
        conn.execute(f"SET search_path TO {load_catalog(args.catalog).schema}, public")
        conn.commit()
        for req_id, gold_sql in golds:
            item = evaluate(conn, req_id, gold_sql, args.timeout, catalog=args.catalog)
            log.info(
                "TRAIN %s rows=%s %.2fs disc=%s %s",
                item["req_id"],
                item["rows"],
                item["seconds"],
                item["discriminative"],
                item["error"] or "",
            )
            items.append(item)
    totals = {
        "queries": len(items),
        "non_empty": sum(1 for i in items if i["runs"] and i["rows"] > 0),
        "discriminative": sum(1 for i in items if i["discriminative"]),
        "within_10s": sum(1 for i in items if i["runs"] and i["seconds"] <= 10.0),
    }
    report = {"catalog": args.catalog, "dataset": str(dataset_file), "totals": totals}
    if peers is not None:
        report["peer_predictions"] = {"file": peers_path.name, **_peer_report(dsn, peers, dict(golds), args.timeout)}
    print(json.dumps({**report, "queries": items}, indent=1))
    return 0


def _peer_report(dsn: str, peers, golds: dict[int, str], timeout_s: float) -> dict:
    from engines.postgres import PostgresEngine, PostgresSettings

    with PostgresEngine(PostgresSettings(dsn=dsn, timeout_s=timeout_s, max_bytes=_PEER_MAX_BYTES)) as executor:
        result = peer_agreement(executor, peers, golds, timeout_s)
    log.info(
        "peer predictions: row agreement %s, formatted column agreement %s",
        result["row_agreement"],
        result["col_formatted_agreement"],
    )
    return result


if __name__ == "__main__":
    sys.exit(main())
