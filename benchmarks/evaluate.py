"""Time the evaluation of the dev golds submitted as predictions: cold and warm gold cache, 1 and 2 workers.

Each configuration opens a fresh PostgresEngine (so pool start-up is included) and a GoldCache on a temporary folder:
"cold" starts from an empty folder, "warm" reuses the folder a cold run just filled (gold queries are then read
from disk; predictions still run). Nothing is written outside the temporary folders.
"""

import argparse
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import package_versions
from data.errors import DataError
from data.loader import dataset_sha256, load_dataset, resolve_dataset_path, split_file
from db.engine import open_engine
from db.server import resolve_dsn
from engines import EngineSettings
from engines.errors import EngineError
from engines.options import add_dsn_argument
from evaluation.predictions import Prediction
from evaluation.runner import score_predictions
from metric.gold_cache import GoldCache
from replica.synthetic.scales import SCALES

EXAMPLES = """examples:
  python -m benchmarks.evaluate
  python -m benchmarks.evaluate --dsn postgresql://reader@127.0.0.1:54329/alerce_tiny --repeats 3

Prints one JSON object on stdout; exit codes: 0 done, 1 dataset or database unavailable, 2 bad command line."""

TIMEOUT_S = 30.0

logger = logging.getLogger(__name__)


def time_run(dsn: str, examples: list, cache_dir: Path, workers: int) -> tuple[float, int]:
    """Score the golds as predictions once; return the seconds taken and the number of row PM hits."""
    predictions = [Prediction(example.req_id, 0, example.gold_sql) for example in examples]
    started = time.perf_counter()
    with open_engine(EngineSettings(dsn=dsn, timeout_s=TIMEOUT_S, pool_size=max(2, workers))) as executor:
        cache = GoldCache(executor, cache_dir=cache_dir, timeout_s=TIMEOUT_S)
        records = score_predictions(predictions, examples, executor, cache, timeout_s=TIMEOUT_S, workers=workers)
    return time.perf_counter() - started, sum(record.row_pm for record in records)


def measure(dsn: str, examples: list, repeats: int) -> dict:
    """Return the best of ``repeats`` wall times per (cache state, workers), in seconds."""
    results: dict[str, float] = {}
    hits = None
    for workers in (1, 2):
        cold, warm = [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix="alerce-gold-bench-") as folder:
                seconds, hits = time_run(dsn, examples, Path(folder), workers)
                cold.append(seconds)
                warm.append(time_run(dsn, examples, Path(folder), workers)[0])
        results[f"cold_workers{workers}_s"] = round(min(cold), 3)
        results[f"warm_workers{workers}_s"] = round(min(warm), 3)
    results["row_pm_hits"] = hits
    return results


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print one JSON object."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.evaluate",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", help="benchmark CSV or folder (default: $ALERCE_T2S_DATA)")
    add_dsn_argument(parser)
    parser.add_argument(
        "--scale", choices=tuple(SCALES), default="default", help="embedded scale (default: %(default)s)"
    )
    parser.add_argument("--repeats", type=int, default=1, help="runs per configuration, best kept (default: 1)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        dataset_file = split_file(resolve_dataset_path(args.dataset), "dev")
        examples = load_dataset(dataset_file, "dev")
        dsn = resolve_dsn(args.dsn, scale=args.scale)
        results = measure(dsn, examples, max(1, args.repeats))
    except (DataError, EngineError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    output = {
        "benchmark": "evaluate",
        "params": {
            "questions": len(examples),
            "dataset_sha256": dataset_sha256(dataset_file),
            "database": "given" if args.dsn else f"ALERCE_DSN or embedded {args.scale}",
            "timeout_s": TIMEOUT_S,
            "repeats": args.repeats,
        },
        "results": results,
        "versions": package_versions("psycopg", "pandas"),
    }
    print(json.dumps(output, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
