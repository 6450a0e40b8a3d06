"""Build the synthetic ALeRCE databases in a throwaway server and time the gold queries and q3c cone searches.

For each requested scale: build time, database size, rows per table, with the data grounded on every split file
of the dataset folder (as evaluate grounds it), and the time of the grounding step itself as the builder measures
it (reading the queries, entities, rows, thinning). The default scale is also built without grounding first (then
dropped, untimed); the difference of the two builds is the time grounding adds to `db up` (noisy on a busy
machine). On the default scale: latency of every dev gold query through PostgresEngine (one warm-up, then
timed repetitions) and of q3c_radial_query cone searches around the positions of random objects. The server runs
out of a temporary data folder on a free port and is stopped (and the folder deleted) at the end, even on error;
the user's own server is never touched.
"""

import argparse
import json
import logging
import math
import random
import sys
import time
from pathlib import Path

import psycopg
from psycopg import sql as pgsql

from benchmarks.common import free_port, gold_queries, latency_summary_ms, package_versions, throwaway_data_dir
from data.errors import DataError
from data.loader import grounding_files
from db.cluster import Cluster
from db.errors import ServerError
from db.provision import database_name, read_build_info
from db.server import ServerInfo, ServerSettings, down, up
from engines.errors import EngineError
from engines.postgres import PostgresEngine, PostgresSettings
from replica.engine.grounding.sources import GroundingError, read_queries
from replica.ztf.scales import SCALES

EXAMPLES = """examples:
  python -m benchmarks.db --dataset ../shared/alerce-t2s/dev.csv
  python -m benchmarks.db --scales tiny,default,large --dataset dev.csv > db.json

Prints one JSON object on stdout; exit codes: 0 done, 1 dataset not found or server failure, 2 bad command line."""

logger = logging.getLogger("benchmarks.db")

SEED = 0
CONE_SEED = 7
CONE_COUNT = 100
CONE_RADIUS_DEG = (0.01, 1.0)
GOLD_REPEATS = 3
GOLD_TIMEOUT_S = 60.0


def start_server(data_dir: Path, port: int) -> float:
    """Initialise and start a cluster in ``data_dir`` on ``port``; return the seconds it took."""
    started = time.perf_counter()
    cluster = Cluster(data_dir)
    with cluster.lock():
        if not cluster.is_initialized():
            cluster.init()
        cluster.start(port)
    return time.perf_counter() - started


class _GroundingTimes(logging.Handler):
    """Keeps the stage times the builder attaches to its `grounded ...` log record."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.stages: dict[str, float] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if hasattr(record, "grounding_s"):
            self.stages = record.grounding_s


def build_scale(data_dir: Path, port: int, scale: str, ground: tuple[Path, ...]) -> tuple[ServerInfo, dict]:
    """Build one scale's database (seed SEED, grounded on ``ground``) and measure it.

    Returns:
        The server info with the database's DSNs, and the scale's measurements.
    """
    started_at = time.time()
    started = time.perf_counter()
    times = _GroundingTimes()
    builder_log = logging.getLogger("replica.engine.build")
    builder_log.addHandler(times)
    try:
        info = up(ServerSettings(data_dir=data_dir, port=port, scale=scale, seed=SEED, ground=ground))
    finally:
        builder_log.removeHandler(times)
    build_s = time.perf_counter() - started
    build = read_build_info(info.admin_dsn, database_name(scale))
    with psycopg.connect(info.admin_dsn) as conn:
        size_bytes = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    counts = dict(sorted(build.row_counts.items())) if build else {}
    result = {
        "build_s": round(build_s, 2),
        "rebuilt": bool(build and build.built_at.timestamp() >= started_at - 1),
        "size_mb": round(size_bytes / 2**20, 1),
        "rows_total": sum(counts.values()),
        "rows_per_table": counts,
        "objects": counts.get("object"),
        "detections": counts.get("detection"),
        "q3c": build.q3c if build else None,
        "grounded_queries": build.grounded_queries if build else 0,
        "grounding_s": round(sum(times.stages.values()), 2) if times.stages else None,
        "grounding_stages_s": times.stages,
    }
    logger.info(
        "scale %s: %.1f s, %.1f MB, %s objects, %s detections",
        scale,
        build_s,
        result["size_mb"],
        result["objects"],
        result["detections"],
    )
    return info, result


def time_golds(executor: PostgresEngine, golds: list[tuple[int, str]], repeats: int) -> tuple[list[float], list[dict]]:
    """Run each gold once to warm up, then ``repeats`` timed times.

    Returns:
        The timed durations in seconds of the golds that ran, and one entry per gold that failed.
    """
    durations: list[float] = []
    failures: list[dict] = []
    for req_id, sql in golds:
        try:
            executor.execute(sql)
            timings = [executor.execute(sql).elapsed_s for _ in range(repeats)]
        except EngineError as err:
            failures.append({"req_id": req_id, "error": str(err)[:200]})
            logger.info("gold %d failed: %s", req_id, err)
            continue
        durations.extend(timings)
        logger.debug("gold %d: %.1f ms", req_id, 1000 * min(timings))
    return durations, failures


def cone_queries(executor: PostgresEngine, count: int, seed: int) -> list[str]:
    """Build ``count`` cone searches centred on random objects, radii log-uniform in CONE_RADIUS_DEG (seeded)."""
    frame = executor.execute("SELECT meanra, meandec FROM object ORDER BY oid", max_rows=10_000_000).frame
    positions = list(frame.itertuples(index=False, name=None))
    rng = random.Random(seed)
    low, high = (math.log(r) for r in CONE_RADIUS_DEG)
    queries = []
    for ra, dec in rng.sample(positions, min(count, len(positions))):
        radius = math.exp(rng.uniform(low, high))
        queries.append(
            "SELECT oid, meanra, meandec FROM object "
            f"WHERE q3c_radial_query(meanra, meandec, {ra!r}, {dec!r}, {radius:.6f})"
        )
    return queries


def time_cones(executor: PostgresEngine, queries: list[str]) -> tuple[list[float], list[int]]:
    """Run each cone search once (after one warm-up query) and return durations in seconds and row counts."""
    if queries:
        executor.execute(queries[0])
    results = [executor.execute(sql) for sql in queries]
    return [r.elapsed_s for r in results], [len(r.frame) for r in results]


def measure_default(info: ServerInfo, golds: list[tuple[int, str]]) -> dict:
    """Time the gold queries and the cone searches on the default-scale database."""
    settings = PostgresSettings(dsn=info.reader_dsn, timeout_s=GOLD_TIMEOUT_S)
    with PostgresEngine(settings) as executor:
        logger.info("timing %d gold queries (%d repetitions after a warm-up)", len(golds), GOLD_REPEATS)
        durations, failures = time_golds(executor, golds, GOLD_REPEATS)
        logger.info("timing %d cone searches", CONE_COUNT)
        cone_s, cone_rows = time_cones(executor, cone_queries(executor, CONE_COUNT, CONE_SEED))
    gold = latency_summary_ms(durations) | {"queries": len(golds), "failed": len(failures), "failures": failures}
    cones = latency_summary_ms(cone_s) | {"rows_p50": sorted(cone_rows)[len(cone_rows) // 2] if cone_rows else None}
    return {"gold_latency_ms": gold, "cone_search_ms": cones}


def run(scales: list[str], golds: list[tuple[int, str]], data_dir: Path, port: int, ground: tuple[Path, ...]) -> dict:
    """Start the server, build every scale and measure; stop the server at the end."""
    try:
        start_s = start_server(data_dir, port)
        logger.info("server started on port %d in %.1f s (data in %s)", port, start_s, data_dir)
        results: dict = {"server_start_s": round(start_s, 2), "scales": {}, "gold_latency_ms": None}
        results["cone_search_ms"] = None
        infos = {}
        for scale in scales:
            if scale == "default" and ground:
                plain_info, plain = build_scale(data_dir, port, scale, ())
                results["default_ungrounded_build_s"] = plain["build_s"]
                # Dropping a built database forces a checkpoint of seconds: drop it untimed, so that both builds
                # start from a server without the scale's database.
                drop_database(plain_info.admin_dsn, database_name(scale))
            infos[scale], results["scales"][scale] = build_scale(data_dir, port, scale, ground)
        if "default_ungrounded_build_s" in results:
            added = results["scales"]["default"]["build_s"] - results["default_ungrounded_build_s"]
            results["grounding_added_s"] = round(added, 2)
        if "default" in infos:
            results |= measure_default(infos["default"], golds)
        with psycopg.connect(infos[scales[0]].reader_dsn) as conn:
            results["postgres"] = conn.execute("SELECT current_setting('server_version')").fetchone()[0]
        results["q3c"] = next(iter(results["scales"].values()))["q3c"]
    finally:
        down(data_dir)
    return results


def drop_database(admin_dsn: str, name: str) -> None:
    """Drop database ``name`` of the throwaway server (connected through its maintenance database)."""
    maintenance = psycopg.conninfo.make_conninfo(admin_dsn, dbname="postgres")
    try:
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(pgsql.SQL("DROP DATABASE {} WITH (FORCE)").format(pgsql.Identifier(name)))
    except psycopg.Error as err:
        raise ServerError(f"Cannot drop database {name} of the throwaway server: {str(err).strip()}") from err


def parse_scales(text: str) -> list[str]:
    """Parse a comma-separated list of scales, keeping SCALES order."""
    names = {name.strip() for name in text.split(",") if name.strip()}
    unknown = names - set(SCALES)
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown scale(s) {', '.join(sorted(unknown)) or '(none)'}; use {SCALES}")
    return [name for name in SCALES if name in names]


def build_parser() -> argparse.ArgumentParser:
    """Build the command-line parser."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.db",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--scales",
        type=parse_scales,
        default=["tiny", "default"],
        help="comma-separated scales to build (default: tiny,default)",
    )
    parser.add_argument(
        "--dataset", default=None, help="dev CSV (or folder) with the gold queries (default: $ALERCE_T2S_DATA)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="data folder of the throwaway server, kept afterwards (default: a temporary folder)",
    )
    parser.add_argument("--port", type=int, default=None, help="TCP port of the throwaway server (default: free)")
    parser.add_argument(
        "--ground",
        type=Path,
        nargs="+",
        metavar="FILE",
        default=None,
        help="gold-query files to ground on (default: every split file of the dataset folder)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one JSON object on stdout."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    port = args.port or free_port()
    try:
        dataset, golds = gold_queries(args.dataset)
        ground = tuple(args.ground) if args.ground else grounding_files(dataset)
        if args.ground and not read_queries(list(ground)):
            raise GroundingError(f"--ground {' '.join(map(str, ground))}: no query to ground on in these files.")
        if args.data_dir is not None:
            results = run(args.scales, golds, args.data_dir, port, ground)
        else:
            with throwaway_data_dir("alerce-t2s-bench-") as data_dir:
                results = run(args.scales, golds, data_dir, port, ground)
    except (DataError, EngineError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    params = {
        "scales": args.scales,
        "seed": SEED,
        "dataset": str(dataset),
        "ground": [str(path) for path in ground],
        "gold_repeats": GOLD_REPEATS,
        "gold_timeout_s": GOLD_TIMEOUT_S,
        "cone_count": CONE_COUNT,
        "cone_seed": CONE_SEED,
        "cone_radius_deg": list(CONE_RADIUS_DEG),
    }
    versions = package_versions("psycopg", "pandas", "numpy") | {"postgres": results.pop("postgres")}
    print(json.dumps({"benchmark": "db", "params": params, "versions": versions, **results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
