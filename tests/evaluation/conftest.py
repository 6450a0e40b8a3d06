"""Fixtures of the evaluation tests: the dev split, and an executor on the tiny database shared by a module."""

from collections.abc import Iterator
from pathlib import Path

import dspy
import pytest

from data.loader import load_dataset
from engines.postgres import PostgresEngine, PostgresSettings
from metric.gold_cache import GoldCache


@pytest.fixture(scope="session")
def dev_examples(dev_csv_path: Path) -> list[dspy.Example]:
    """The dev split as DSPy examples."""
    return load_dataset(dev_csv_path, "dev")


@pytest.fixture(scope="module")
def module_executor(tiny_dsn: str) -> Iterator[PostgresEngine]:
    """An PostgresEngine on the tiny database with a pool of 2, shared by a test module."""
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn, timeout_s=10, pool_size=2)) as executor:
        yield executor


@pytest.fixture(scope="module")
def gold_cache(module_executor: PostgresEngine, tmp_path_factory: pytest.TempPathFactory) -> GoldCache:
    """A gold cache on the module's executor, in a folder of its own."""
    return GoldCache(module_executor, cache_dir=tmp_path_factory.mktemp("gold"), timeout_s=30)
