"""Turn result cells and labels into plain Python values and unique names (for JSON, CSV, VOTable, tables)."""

import datetime as dt
import decimal
import math
import re
from collections.abc import Iterable
from typing import Any

import pandas as pd

__all__ = ["csv_safe", "plain_value", "unique_labels", "unique_names", "xml_safe"]

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# Characters XML 1.0 cannot carry, not even as character references.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


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
    """Return the frame's column labels as text, repeats made unique (``unique_names``).

    Examples:
        >>> unique_labels(pd.DataFrame([[1, 2, 3, 4]], columns=["oid", "oid", "n", "oid"]))
        ['oid', 'oid_', 'n', 'oid_2']
    """
    return unique_names(map(str, frame.columns))


def unique_names(names: Iterable[str]) -> list[str]:
    """Make repeated names unique: ``oid``, ``oid_`` (as DaCHS), ``oid_2``..., in time linear in their number.

    Examples:
        >>> unique_names(["a", "a_", "a", "a"])
        ['a', 'a_', 'a_2', 'a_3']
    """
    taken: set[str] = set()
    repeats: dict[str, int] = {}  # name -> repeats numbered so far, so each suffix of a name is tried once
    unique: list[str] = []
    for base in names:
        name = base
        while name in taken:
            repeats[base] = repeats.get(base, 0) + 1
            name = base + ("_" if repeats[base] == 1 else f"_{repeats[base]}")
        taken.add(name)
        unique.append(name)
    return unique


def csv_safe(value: Any) -> Any:
    """Neutralise text a spreadsheet would run as a formula (OWASP): prefix it with ``'``; numbers stay numbers.

    Examples:
        >>> [csv_safe(v) for v in ["=1+1", "@SUM(A1)", "-2+3", "-1.5", -1.5, "ZTF1"]]
        ["'=1+1", "'@SUM(A1)", "'-2+3", '-1.5', -1.5, 'ZTF1']
    """
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def xml_safe(text: str) -> str:
    """Replace the characters XML 1.0 cannot hold (control characters, lone surrogates) with U+FFFD.

    Examples:
        >>> xml_safe("a\\x00b\\tc") == "a\\ufffdb\\tc"
        True
    """
    return _NOT_XML.sub("\ufffd", text)
