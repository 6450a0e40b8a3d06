"""Fixtures for pipeline tests: the dev frame and an oracle LM over it."""

from pathlib import Path

import dspy
import pandas as pd
import pytest

from catalog import load_catalog
from lms.fake import OracleAnswers, fake_lm


def catalog_columns(table: str) -> list[str]:
    """Column names of a catalog table ([] when unknown)."""
    found = load_catalog().table(table)
    return found.column_names if found else []


@pytest.fixture(scope="session")
def dev_frame(dev_csv_path: Path) -> pd.DataFrame:
    """The dev split as a DataFrame."""
    return pd.read_csv(dev_csv_path)


@pytest.fixture
def oracle_lm(dev_frame: pd.DataFrame) -> dspy.LM:
    """An LM answering every stage from the dev labels; its engine is `oracle_lm.engine_obj`."""
    return fake_lm(OracleAnswers(dev_frame, catalog_columns))
