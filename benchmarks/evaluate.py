"""Time one `python -m evaluate --predictions` call on a grid of predictions: cold and warm gold cache.

The grid (`benchmarks.prediction_grid`) has experiments x dev questions x runs predictions built from the dev golds
and mutations of them, with the repeats a real grid has. Each call runs the command as a user would, in a child
process on a fresh report folder: "cold" starts from an empty gold cache, "warm" reuses the cache the cold call
filled. Wall time, CPU time and peak memory are the child's; the load average says how busy the machine was.
Nothing is written outside a temporary folder.
"""

import argparse
import csv
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import gold_queries, package_versions
from benchmarks.prediction_grid import build_grid
from data.errors import DataError
from db.server import resolve_dsn
from engines.errors import EngineError
from engines.options import add_dsn_argument
from evaluation.predictions import Prediction
from replica.ztf.scales import SCALES

EXAMPLES = """examples:
  python -m benchmarks.evaluate
  python -m benchmarks.evaluate --dsn postgresql://reader@127.0.0.1:54329/alerce --experiments 2 --runs 3

Prints one JSON object on stdout; exit codes: 0 done, 1 no dev golds, dataset or database unavailable, or an
evaluate call failed (one line on stderr), 2 bad command line."""

REPO_DIR = Path(__file__).resolve().parent.parent
SEED = 0
TIMEOUT_S = 30.0
METRICS = ("row_pm", "col_pm", "col_pm_formatted", "value_match")

logger = logging.getLogger(__name__)


class EvaluateCallError(Exception):
    """A `python -m evaluate` call exited with an error."""


def write_grid(predictions: list[Prediction], path: Path) -> None:
    """Write the predictions as the CSV `python -m evaluate --predictions` reads."""
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["req_id", "run", "sql"])
        writer.writerows([prediction.req_id, prediction.run, prediction.sql] for prediction in predictions)


def time_call(arguments: list[str], folder: Path) -> dict:
    """Run `python -m evaluate` with `arguments` in a child process; return its times, memory and report."""
    report_dir = Path(tempfile.mkdtemp(prefix="report-", dir=folder))
    command = [sys.executable, "-m", "evaluate", *arguments, "--report", str(report_dir), "--json"]
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    with (folder / "stderr.txt").open("w+", encoding="utf-8") as stderr, (folder / "stdout.json").open("w+") as out:
        child = subprocess.Popen(command, cwd=REPO_DIR, stdout=out, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - started
        if child.returncode != 0:
            stderr.seek(0)
            lines = stderr.read().strip().splitlines() or ["(no output)"]
            raise EvaluateCallError(f"python -m evaluate exited with {child.returncode}: {lines[-1]}")
        out.seek(0)
        report = json.load(out)
    return {
        "wall_s": round(seconds, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_memory_mb": round(usage.ru_maxrss / 1024),
        "load_average_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "pred_errors": report["counts"]["pred_errors"],
        "means": {name: report["summary"]["overall"][name]["mean"] for name in METRICS},
        "report": report,
    }


def measure(predictions: list[Prediction], dsn: str, dataset: Path, workers: int) -> dict:
    """Score the grid cold, then warm; return both timings and whether their reports agree."""
    with tempfile.TemporaryDirectory(prefix="alerce-evaluate-bench-") as name:
        folder = Path(name)
        grid = folder / "grid.csv"
        write_grid(predictions, grid)
        arguments = ["--predictions", str(grid), "--dataset", str(dataset), "--dsn", dsn, "--workers", str(workers)]
        arguments += ["--timeout", str(TIMEOUT_S), "--gold-cache", str(folder / "gold")]
        cold = time_call(arguments, folder)
        warm = time_call(arguments, folder)
    same = _scores(cold.pop("report")) == _scores(warm.pop("report"))
    return {"cold": cold, "warm": warm, "same_scores_cold_and_warm": same}


def _scores(report: dict) -> dict:
    return {key: value for key, value in report.items() if key != "settings"}


def build_parser() -> argparse.ArgumentParser:
    """Build the command-line parser."""
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
    parser.add_argument("--experiments", type=int, default=9, help="experiments in the grid (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=10, help="runs per experiment (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=2, help="evaluate's --workers (default: %(default)s)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print one JSON object."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        dataset, golds = gold_queries(args.dataset)
        predictions = build_grid(golds, experiments=args.experiments, runs=args.runs, seed=SEED)
        dsn = resolve_dsn(args.dsn, scale=args.scale)
        results = measure(predictions, dsn, dataset, args.workers)
    except (DataError, EngineError, EvaluateCallError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    params = {
        "experiments": args.experiments,
        "questions": len(golds),
        "runs": args.runs,
        "predictions": len(predictions),
        "distinct_statements": len({(p.req_id, p.sql) for p in predictions}),
        "seed": SEED,
        "workers": args.workers,
        "timeout_s": TIMEOUT_S,
        "cpus": os.cpu_count(),
        "database": "given" if args.dsn else f"ALERCE_DSN or embedded {args.scale}",
    }
    output = {"benchmark": "evaluate", "params": params, **results, "versions": package_versions("psycopg", "pandas")}
    print(json.dumps(output, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
