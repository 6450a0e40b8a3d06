"""Turn result cells and labels into plain Python values and unique names (for JSON, CSV, VOTable, tables)."""

import datetime as dt
import decimal
import math
from typing import Any

import pandas as pd

__all__ = ["plain_value", "unique_labels"]


def plain_value(value: Any) -> Any:
    """Turn a cell into a JSON-ready Python value: numpy scalars unwrapped, NaN/NaT to None, dates to ISO text.

    Examples:
        >>> plain_value(float("nan")) is None
        True
        >>> plain_value(dt.date(2021, 3, 4))
        '2021-03-04'
    """
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        value = value.item() if getattr(value, "ndim", 0) == 0 else value.tolist()
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
        return None
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [plain_value(item) for item in value]
    return value


def unique_labels(frame: pd.DataFrame) -> list[str]:
    """Return the frame's column labels as text, a repeated label suffixed with ``_`` until it is unique.

    Examples:
        >>> unique_labels(pd.DataFrame([[1, 2, 3]], columns=["oid", "oid", "n"]))
        ['oid', 'oid_', 'n']
    """
    labels: list[str] = []
    for label in map(str, frame.columns):
        while label in labels:
            label += "_"
        labels.append(label)
    return labels
