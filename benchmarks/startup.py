"""Start-up time of every command's ``--help`` and of a bad argument, against ``python -c pass`` in the same run.

Prints JSON: per case the median of --repeats wall-clock runs in seconds and its ratio to the bare interpreter's
median (target: at most 15, issue 30). Run on an idle machine: ``python -m benchmarks.startup --repeats 7``.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cli import positive_int

REPO = Path(__file__).resolve().parent.parent
TARGET_RATIO = 15
CASES = {
    "python -c pass": ["-c", "pass"],
    **{f"{name} --help": ["-m", name, "--help"] for name in ("ask", "serve", "evaluate", "compile", "db")},
    "ask --format bogus": ["-m", "ask", "question", "--format", "bogus"],
    "serve --port 0": ["-m", "serve", "--port", "0"],
}


def _median_s(argv: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, *argv], cwd=REPO, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    """Measure every case in turn, interleaved with the bare interpreter, and print the JSON report."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup", description=__doc__)
    parser.add_argument("--repeats", type=positive_int, default=5, help="runs per case (default: %(default)s)")
    args = parser.parse_args(argv)
    medians = {}
    for index, (case, case_argv) in enumerate(CASES.items(), start=1):
        print(f"[{index}/{len(CASES)}] {case}", file=sys.stderr)
        medians[case] = _median_s(case_argv, args.repeats)
    base = medians["python -c pass"]
    report = {
        "repeats": args.repeats,
        "target_ratio": TARGET_RATIO,
        "cases": {case: {"median_s": round(s, 4), "ratio": round(s / base, 1)} for case, s in medians.items()},
    }
    report["worst_ratio"] = max(case["ratio"] for case in report["cases"].values())
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
