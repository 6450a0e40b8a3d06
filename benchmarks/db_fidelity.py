"""Fidelity of the synthetic database for the dev gold queries.

Runs every gold query, then plausible mutations of it (drop `ranking = 1`, swap lc/stamp classifier, read a
top-n the other way round, shift an MJD literal by one day, drop one WHERE conjunct), and reports whether each gold
is non-empty, fast and discriminative: at least one mutation returns a different answer. The answer compared is
the one the metric scores: the identifier set (row PM), or the rows (the value match) when the gold has no
identifier column or its answer is aggregated (counts per survey, class or band); a mutation that fails on the data
(not a timeout) counts as told apart, as a failed prediction scores 0. Each gold no mutation told apart gets a
``why_not``, derived from its structure and its mutations (``benchmarks.fidelity_reasons``). The mutations are the
catalog's (``benchmarks.mutations``): on the multi-survey catalog the classifier swap also swaps classifier ids,
the conditions of HAVING and JOIN ... ON are dropped too, and numeric bounds are moved by a fifth.

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
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import psycopg
import sqlglot
from sqlglot import exp

from benchmarks.common import gold_queries
from benchmarks.fidelity_reasons import reason_summary, why_not
from benchmarks.mutations import mutations
from benchmarks.peer_fidelity import peer_agreement, read_peers
from catalog import load_catalog
from catalog.options import add_catalog_argument
from data.errors import DataError
from defaults.catalog import DEFAULT_CATALOG
from metric.perfect_match import IDS, identifier_columns
from metric.value_match import value_match

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


def answers_in_aggregates(sql: str) -> bool:
    """Tell whether a query's answer is aggregated: its outer SELECT groups, or computes an aggregate.

    Its identifier column, if any, is then a group key (a survey, a class): the answer is in the aggregates.

    Examples:
        >>> answers_in_aggregates("SELECT sid, COUNT(*) FROM object GROUP BY sid")
        True
        >>> answers_in_aggregates("SELECT oid FROM object WHERE ndet > (SELECT AVG(ndet) FROM object)")
        False
    """
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.ParseError:
        return False
    if not isinstance(tree, exp.Select):
        return False
    if tree.args.get("group") is not None:
        return True
    return any(
        agg.find_ancestor(exp.Select) is tree and agg.find_ancestor(exp.Window) is None
        for projection in tree.expressions
        for agg in projection.find_all(exp.AggFunc)
    )


@dataclass
class Answer:
    """What one query returned: its identifier set, and its rows when the comparison needs them."""

    sql: str = ""
    error: str | None = None
    timed_out: bool = False
    columns: list[str] = field(default_factory=list)
    identifier: str | None = None
    ids: set[str] = field(default_factory=set)
    rows: list[tuple] | None = None
    count: int = 0
    differs: bool = False
    seconds: float = 0.0

    def frame(self) -> pd.DataFrame:
        """The kept rows as the frame the value match compares."""
        return pd.DataFrame(self.rows or [], columns=self.columns)


def run_answer(
    conn, sql: str, timeout_s: float, *, ids: tuple[str, ...] = IDS, gold: Answer | None = None, rows: bool = False
) -> Answer:
    """Execute `sql` and return its answer, streamed; with a `gold`, stop early once it differs.

    Args:
        conn: An open connection.
        sql: The query.
        timeout_s: Statement timeout.
        ids: The catalog's identifier columns, in priority order.
        gold: The gold's answer, when `sql` is a mutation of it.
        rows: Keep the rows (compared with the gold's by the value match) rather than only the identifier set.
    """
    t0 = time.monotonic()
    res = Answer(sql=sql, rows=[] if rows else None)
    try:
        with conn.transaction():
            conn.execute(f"SET LOCAL statement_timeout = {int(timeout_s * 1000)}")
            with conn.cursor(name="fidelity") as cur:
                cur.execute(sql)
                res.columns = [d.name for d in cur.description]
                idx = identifier_index(res.columns, ids)
                res.identifier = res.columns[idx] if idx is not None else None
                while batch := cur.fetchmany(5000):
                    res.count += len(batch)
                    if res.rows is not None:
                        res.rows.extend(batch)
                        if gold is not None and res.count > gold.count:
                            res.differs = True
                            break
                    elif idx is not None:
                        res.ids.update(str(r[idx]) for r in batch)
                        if gold is not None and not res.ids <= gold.ids:
                            res.differs = True
                            break
    except psycopg.Error as err:
        res.error = (type(err).__name__ + ": " + str(err).splitlines()[0])[:200]
        res.timed_out = isinstance(err, psycopg.errors.QueryCanceled)
    if gold is not None and res.error is None and not res.differs:
        if res.rows is not None:
            res.differs = not value_match(gold.frame(), res.frame(), gold.sql).pm
        else:
            res.differs = res.identifier is not None and res.ids != gold.ids
    res.seconds = round(time.monotonic() - t0, 3)
    return res


def told_apart(mutated: Answer, compared: str) -> str | None:
    """How a mutation's answer is told from the gold's: by `compared` when it differs, by its error when it fails
    on the data (a failed prediction scores 0); None when it is not (same answer, or a timeout)."""
    if mutated.error is not None:
        return None if mutated.timed_out else "error"
    return compared if mutated.differs else None


def evaluate(conn, req_id: int, sql: str, timeout_s: float, *, catalog: str = DEFAULT_CATALOG) -> dict:
    """Gold result plus the results of the catalog's mutations for one query.

    Row PM compares identifier sets, so a mutation is compared on the identifier set; when the gold has no
    identifier column, or its answer is aggregated (the identifier is then a group key), on the rows, as the value
    match does. A mutation that fails on the data (not a timeout) is told apart too.
    """
    ids = identifier_columns(catalog)
    gold = run_answer(conn, sql, timeout_s, ids=ids, rows=True)
    compared = "rows" if gold.identifier is None or answers_in_aggregates(sql) else "identifiers"
    if gold.error is None and compared == "identifiers":
        at = gold.columns.index(gold.identifier)
        gold.ids, gold.rows = {str(r[at]) for r in gold.rows}, None
    item = {
        "req_id": req_id,
        "runs": gold.error is None,
        "error": gold.error,
        "rows": gold.count,
        "seconds": gold.seconds,
        "identifier": gold.identifier,
        "compared": compared,
        "discriminative": False,
        "told_apart_by": None,
        "mutations": [],
    }
    if gold.error is None:
        for desc, mutated_sql in mutations(sql, catalog):
            m = run_answer(conn, mutated_sql, timeout_s, ids=ids, gold=gold, rows=compared == "rows")
            by = told_apart(m, compared)
            item["mutations"].append(
                {"mutation": desc, "differed": by is not None, "error": m.error, "seconds": m.seconds}
            )
            if by is not None:
                item["discriminative"], item["told_apart_by"] = True, by
                break
    if not item["discriminative"]:
        item["why_not"] = why_not(item, sql, catalog)
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
        "discriminative_by": {
            by: sum(1 for i in items if i["told_apart_by"] == by) for by in ("identifiers", "rows", "error")
        },
        "within_10s": sum(1 for i in items if i["runs"] and i["seconds"] <= 10.0),
    }
    report = {
        "catalog": args.catalog,
        "dataset": str(dataset_file),
        "totals": totals,
        "why_not": reason_summary(items),
    }
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
