"""A fresh clone without the benchmark: pytest stops at once with one line, and -m 'not benchmark' runs the rest."""

import os
import subprocess
import sys

from tests.conftest import REPO_DIR

LOADER_TESTS = "tests/data/test_loader.py"


def run_pytest(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """Run pytest in a child with no ALERCE_T2S_DATA, an empty cache folder and no way to the network."""
    env = {key: value for key, value in os.environ.items() if key not in ("ALERCE_T2S_DATA", "ALERCE_DOCS_DIR")}
    env |= {"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    env |= {name: "http://127.0.0.1:9" for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=REPO_DIR, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_without_the_benchmark_the_session_stops_with_one_line(tmp_path):
    done = run_pytest(tmp_path, LOADER_TESTS)
    assert done.returncode == 4
    stops = [line for line in done.stdout.splitlines() + done.stderr.splitlines() if "benchmark's dev split" in line]
    assert len(stops) == 1
    assert "run `python -m data fetch`" in stops[0] and "ALERCE_T2S_DATA=FOLDER" in stops[0]
    assert "passed" not in done.stdout and "failed" not in done.stdout


def test_not_benchmark_runs_the_others_and_keeps_opt_in_tests_out(tmp_path):
    done = run_pytest(tmp_path, "-m", "not benchmark", LOADER_TESTS, "tests/lms/test_local_models_real.py")
    assert done.returncode == 0, done.stdout[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary
    assert "3 deselected" in summary  # the loader's real-split test and the two opt-in local-model tests
