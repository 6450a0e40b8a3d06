"""Time the downloads of one answer (CSV, VOTable, Parquet) whose columns repeat one label many times.

No database: a made-up frame of `--rows` rows and N columns all labelled ``oid``, for each N of `--columns`. Each
download is rendered `--repeats` times; the JSON gives p50/p95/max in milliseconds per format and width, and the
size in bytes. Repeated labels are made unique before a VOTable or Parquet file is written, in time linear in N.
"""

from __future__ import annotations

import argparse
import json
import time

import pandas as pd

from answering import Answer
from benchmarks.common import latency_summary_ms, package_versions
from cli.argument_types import positive_int
from serve.exports import DOWNLOADS, download

EXAMPLES = """examples:
  python -m benchmarks.downloads
  python -m benchmarks.downloads --columns 100 1600 --rows 10 --repeats 5

Prints one JSON object on stdout; exit codes: 0 done, 2 bad command line."""


def repeated_label_answer(columns: int, rows: int) -> Answer:
    """An answer of `rows` rows and `columns` columns that are all labelled ``oid``."""
    frame = pd.DataFrame([[f"ZTF{row:09d}"] * columns for row in range(rows)], columns=["oid"] * columns)
    return Answer(question="q", sql="SELECT " + ", ".join(["oid"] * columns) + " FROM object", frame=frame)


def time_download(answer: Answer, fmt: str, repeats: int) -> tuple[list[float], int]:
    """Render the `fmt` download `repeats` times (a new Answer each time: its table is cached)."""
    durations, size = [], 0
    for _ in range(repeats):
        fresh = Answer(question=answer.question, sql=answer.sql, frame=answer.frame)
        started = time.perf_counter()
        size = len(download(fresh, fmt))
        durations.append(time.perf_counter() - started)
    return durations, size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--columns", type=positive_int, nargs="+", default=[100, 400, 1600], help="widths (default: %(default)s)"
    )
    parser.add_argument("--rows", type=positive_int, default=5, help="rows per answer (default: %(default)s)")
    parser.add_argument("--repeats", type=positive_int, default=3, help="renders per download (default: %(default)s)")
    args = parser.parse_args(argv)
    results: dict[str, object] = {}
    for columns in args.columns:
        answer = repeated_label_answer(columns, args.rows)
        for fmt in DOWNLOADS:
            seconds, size = time_download(answer, fmt, args.repeats)
            results[f"{fmt}_{columns}_repeated_labels"] = {"bytes": size, "render_ms": latency_summary_ms(seconds)}
    report = {
        "benchmark": "downloads",
        "params": {"columns": args.columns, "rows": args.rows, "repeats": args.repeats},
        "results": results,
        "versions": package_versions("astropy", "pyarrow", "pandas"),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
