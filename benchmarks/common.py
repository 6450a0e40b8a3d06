"""Helpers shared by the benchmarks: a split's questions and golds, latency summaries, a throwaway server, versions.

A benchmark whose input holds or matches nothing raises `EmptyInputError` (a `DataError`), so that it exits 1 with
one line instead of printing zeros.
"""

import contextlib
import importlib.metadata
import platform
import shutil
import socket
import statistics
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import dspy

from data.errors import DataError
from data.loader import load_dataset, resolve_dataset_path, split_file
from defaults.catalog import DEFAULT_CATALOG

__all__ = [
    "EmptyInputError",
    "free_port",
    "gold_queries",
    "latency_summary_ms",
    "package_versions",
    "split_examples",
    "throwaway_data_dir",
]


class EmptyInputError(DataError):
    """A benchmark's input holds, or matches, nothing to measure."""


def split_examples(
    dataset: str | Path | None, split: str = "dev", catalog: str = DEFAULT_CATALOG
) -> tuple[Path, list[dspy.Example]]:
    """Load the questions of one split.

    Args:
        dataset: The ``--dataset`` value (file or folder), or None for env ALERCE_T2S_DATA / the fetch cache (for
            a catalog no benchmark covers, its example set).
        split: Split to read when ``dataset`` is a folder.
        catalog: The catalog the questions are about.

    Returns:
        The CSV file read and its examples (see ``data.loader.load_dataset``).

    Raises:
        DatasetNotFound: No dataset at the given or default place.
        DatasetFormatError: The file is not a benchmark CSV.
        EmptyInputError: The file holds no question.
    """
    file = split_file(resolve_dataset_path(dataset, catalog), split)
    examples = load_dataset(file, split)
    if not examples:
        raise EmptyInputError(f"'{file}' holds no questions; pass a benchmark CSV with questions as --dataset.")
    return file, examples


def gold_queries(
    dataset: str | Path | None, split: str = "dev", catalog: str = DEFAULT_CATALOG
) -> tuple[Path, list[tuple[int, str]]]:
    """Load the gold SQL of one split, ordered by req_id.

    Args:
        dataset: The ``--dataset`` value (file or folder), or None for env ALERCE_T2S_DATA / the fetch cache (for
            a catalog no benchmark covers, its example set).
        split: Split to read when ``dataset`` is a folder.
        catalog: The catalog the questions are about.

    Returns:
        The CSV file read, and (req_id, gold SQL without a trailing ';') pairs sorted by req_id.

    Raises:
        DatasetNotFound: No dataset at the given or default place.
        DatasetFormatError: The file is not a benchmark CSV.
        EmptyInputError: The file holds no question.
    """
    file, examples = split_examples(dataset, split, catalog)
    golds = [(int(ex.req_id), str(ex.gold_sql).strip().rstrip(";").strip()) for ex in examples]
    return file, sorted(golds)


def latency_summary_ms(seconds: Sequence[float]) -> dict[str, float | int | None]:
    """Summarise durations in seconds as p50, p95 and max in milliseconds (None when empty), plus their count."""
    if not seconds:
        return {"p50": None, "p95": None, "max": None, "n": 0}
    values = sorted(seconds)
    p95 = statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]
    return {
        "p50": round(statistics.median(values) * 1000, 2),
        "p95": round(p95 * 1000, 2),
        "max": round(values[-1] * 1000, 2),
        "n": len(values),
    }


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def throwaway_data_dir(prefix: str) -> Iterator[Path]:
    """Yield a fresh temporary data folder for an embedded server; stop its server and delete it on exit."""
    from db.server import down

    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield data_dir
    finally:
        try:
            down(data_dir)
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)


def package_versions(*packages: str) -> dict[str, str | None]:
    """Return the Python version and the installed version of each package (None if missing)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in packages:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions
