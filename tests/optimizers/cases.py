"""Load tests/fixtures/metric_cases.yaml and build its frames like the reference did (from driver tuples)."""

from pathlib import Path

import pandas as pd
import pytest
import yaml

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "metric_cases.yaml").read_text(encoding="utf-8"))


def frame(spec: dict | None) -> pd.DataFrame | None:
    """Build a result frame from ``{columns, rows}``; None stands for a failed execution."""
    if spec is None:
        return None
    return pd.DataFrame([tuple(row) for row in spec["rows"]], columns=spec["columns"])


def params(section: str) -> list:
    """Return the cases of one section as pytest params with their ids."""
    return [pytest.param(case, id=case["id"]) for case in CASES[section]]
