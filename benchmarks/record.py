"""Run a benchmark and keep its JSON in ``benchmarks/results/<name>.json``, with what a reader needs to trust it.

Beside the benchmark's own output the file records the command, the commit it ran on (and whether the work tree
had changes), the machine's load average before and after, and the paths of the code it measures (``MEASURES``).
The documentation renders its numbers from these files at build time (``docsgen``), and ``tests/docs`` fails when
a documented number has no file, or when the code it measures changed after the recorded commit.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from fileio.atomic import write_atomic

REPO_DIR = Path(__file__).resolve().parent.parent
RESULTS_DIR = REPO_DIR / "benchmarks" / "results"

# The code each benchmark's numbers depend on (besides its own file): a change there makes its recorded result stale.
MEASURES: dict[str, tuple[str, ...]] = {
    "prompt_tokens": (
        "modules",
        "signatures",
        "catalog",
        "lms/fake.py",
        "benchmarks/prompt_cache.py",
        "optimizers/strategies.py",
    ),
    "selection_latency": ("modules", "lms/fake.py"),
    "guard": ("engines/guard.py",),
    "db": ("replica", "db", "catalog"),
    "db_fidelity": ("replica", "metric", "catalog", "benchmarks/mutations.py", "benchmarks/fidelity_reasons.py"),
    "db_fidelity_multisurvey": (
        "replica",
        "metric",
        "catalog",
        "benchmarks/mutations.py",
        "benchmarks/fidelity_reasons.py",
    ),
    "selection": (
        "modules/selection/vote.py",
        "modules/value_check/stage.py",
        "modules/result_check/findings.py",
        "metric",
        "replica",
    ),
    "startup": ("cli", "answering/arguments.py", "serve/arguments.py", "serve/options.py", "evaluation/arguments.py"),
    "serve_load": ("serve", "engines/postgres_pool.py", "lms/fake.py", "benchmarks/common.py"),
    "serve_cluster": ("serve", "engines/postgres_pool.py", "lms/fake.py", "benchmarks/common.py"),
    "object_view": (
        "answering/objects.py",
        "answering/object_points.py",
        "answering/object_sql.py",
        "answering/lightcurve.py",
        "answering/sky_view.py",
        "serve/objects.py",
        "serve/pages.py",
        "serve/templates/object.html",
        "replica",
    ),
}

# Results kept under a name of their own: the benchmark they run and the options that make them differ.
VARIANTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "db_fidelity_multisurvey": ("db_fidelity", ("--catalog", "multisurvey")),
}

EXAMPLES = """examples:
  python -m benchmarks.record prompt_tokens
  python -m benchmarks.record selection_latency -- --lm-delay 1.0
"""


def measured_paths(name: str) -> list[str]:
    """The paths whose change makes the result of benchmark ``name`` stale."""
    return [f"benchmarks/{benchmark_of(name)}.py", *MEASURES[name]]


def benchmark_of(name: str) -> str:
    """The benchmark module (``benchmarks/<module>.py``) whose output is kept as result ``name``."""
    return VARIANTS[name][0] if name in VARIANTS else name


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=REPO_DIR, capture_output=True, text=True, check=False, timeout=60)
    return done.stdout.strip() if done.returncode == 0 else ""


def record(name: str, argv: list[str]) -> Path:
    """Run ``python -m benchmarks.<name> argv``, write its result file and return the file's path.

    Raises:
        RuntimeError: The benchmark failed or printed no JSON (its stderr's last line is in the message), or the
            commit changed while it ran (the result would name code that did not run).
    """
    module = benchmark_of(name)
    argv = [*VARIANTS.get(name, ("", ()))[1], *argv]
    command = [sys.executable, "-m", f"benchmarks.{module}", *argv]
    paths = measured_paths(name)
    commit, dirty = _git("rev-parse", "HEAD"), bool(_git("status", "--porcelain", "--", *paths))
    load_before = os.getloadavg()
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO_DIR, capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"benchmarks.{module} exited {done.returncode}: {last}")
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError as err:
        raise RuntimeError(f"benchmarks.{module} printed no JSON ({err}).") from err
    if _git("rev-parse", "HEAD") != commit:
        raise RuntimeError(f"the commit changed from {commit[:7]} while benchmarks.{module} ran; record it again")
    entry = {
        "command": shlex.join(["python", "-m", f"benchmarks.{module}", *argv]),
        "commit": commit,
        "dirty": dirty,
        "measures": paths,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "elapsed_s": round(elapsed, 1),
        "load_average": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]},
        "cpus": os.cpu_count(),
        "result": result,
    }
    file = RESULTS_DIR / f"{name}.json"
    write_atomic(file, (json.dumps(entry, indent=2, ensure_ascii=False) + "\n").encode())
    return file


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.record",
        description=__doc__.splitlines()[0],
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "name",
        choices=sorted(MEASURES),
        help="the result to record: a benchmark (benchmarks/<name>.py), or a variant of one with its options",
    )
    parser.add_argument("args", nargs="*", help="its options, after --")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        file = record(args.name, args.args)
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(file.relative_to(REPO_DIR))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
