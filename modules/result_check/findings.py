"""Deterministic checks of an executed result against the question's text.

Each check reads only generic phrasing ("the 10 brightest", "at most 5", "how many", quoted column names) and
the result's shape; none knows any particular question.
"""

import re

import pandas as pd

from metric.perfect_match import prediction_identifier
from modules.run.findings import Finding, FindingKind

__all__ = ["asks_for_objects", "check_result", "requested_columns", "stated_row_limit"]

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "twenty": 20, "fifty": 50, "hundred": 100,
}  # fmt: skip
_NUMBER = r"(\d[\d,]*|" + "|".join(_NUMBER_WORDS) + r")"
_LIMIT_PATTERNS = (
    re.compile(rf"\b(?:top|first|at most|up to|maximum of|limit(?: to| of)?)\s+{_NUMBER}\b(?!\s*(?:days?|%|percent))"),
    re.compile(rf"\bthe\s+{_NUMBER}\s+(?:\w+est|most|least|highest|lowest|largest|smallest|latest|earliest)\b"),
    re.compile(rf"\b{_NUMBER}\s+(?:\w+est|most|least)\b"),
)
_PER_GROUP = re.compile(r"\b(?:each|per|every|for all|respectively|by (?:band|filter|class|classifier))\b")
_ASKS_OBJECTS = re.compile(r"\b(?:objects?|sources?|candidates?|sne|supernovae)\b")
# Several rows per object are what the question asks for when it names a unit of rows other than the object:
# measurements, rows or entries of a table, probabilities per class, or everything about given objects.
_ASKS_ROWS_OF = re.compile(
    r"\b(?:detections?|light ?curves?|alerts?|candids?|photometry|magnitudes|features?|epochs?|rows?|records?"
    r"|entries|elements?|tables?|information|probabilit\w*|classes|classifications)\b"
)
_OBJECT_ID = re.compile(r"\bztf\d{2}[a-z]{7}\b")  # a named object: its rows are asked about
_ASKS_COUNT = re.compile(
    r"\bhow many\b|^\W*(?:count|(?:what is |give me |get |find |return )?the (?:total )?number of)\b"
)
_QUOTES = "\"'`\u2018\u2019\u201c\u201d"
_QUOTED = re.compile(  # a quoted name said to be a column: "as 'x'", "named 'x'", "column 'x'", "'x' column"
    rf"(?:\b(?:as|named|called|columns?)\s+[{_QUOTES}]([A-Za-z_][A-Za-z0-9_]*)[{_QUOTES}])"
    rf"|(?:[{_QUOTES}]([A-Za-z_][A-Za-z0-9_]*)[{_QUOTES}]\s+columns?\b)"
)
_COLUMN_NAME = re.compile(r"[a-z_][a-z0-9_]*")  # column names are lower case; quoted class names are not
_COLUMN_LIST = re.compile(r"\b(?:following columns?|columns?)\s*:\s*([^.\n]+)")


def _number(text: str) -> int:
    return _NUMBER_WORDS.get(text) or int(text.replace(",", ""))


def stated_row_limit(question: str) -> int | None:
    """Return the most rows the question allows ("the 10 brightest", "at most 5", "top 1000"), or None.

    A question that asks per group ("for each class", "per band") states no overall limit.

    Examples:
        >>> stated_row_limit("Give me the 10 brightest SNe Ia")
        10
        >>> stated_row_limit("Return at most five objects")
        5
        >>> stated_row_limit("The top 3 objects of each class") is None
        True
    """
    text = question.lower()
    if _PER_GROUP.search(text):
        return None
    limits = [_number(match.group(1)) for pattern in _LIMIT_PATTERNS for match in pattern.finditer(text)]
    return max(limits) if limits else None


def requested_columns(question: str) -> list[str]:
    """Return the column names the question spells out: quoted and called a column, or a list after 'columns:'.

    Examples:
        >>> requested_columns("Return the following columns: oid, ndet and meanra.")
        ['oid', 'ndet', 'meanra']
        >>> requested_columns("Rename fid as 'band', from the 'object' table")
        ['band']
    """
    names = [match.group(1) or match.group(2) for match in _QUOTED.finditer(question)]
    for match in _COLUMN_LIST.finditer(question):
        items = [part.strip().strip(_QUOTES) for part in re.split(r",|\band\b", match.group(1)) if part.strip()]
        if all(_COLUMN_NAME.fullmatch(item) for item in items):  # a list in prose names no columns
            names.extend(items)
    return list(dict.fromkeys(name for name in names if _COLUMN_NAME.fullmatch(name)))


def _empty(question: str, frame: pd.DataFrame, sql: str) -> Finding | None:
    if len(frame) == 0:
        return Finding(kind=FindingKind.EMPTY_RESULT, message="The query returned no rows; check its conditions.")
    return None


def _row_count(question: str, frame: pd.DataFrame, sql: str) -> Finding | None:
    limit = stated_row_limit(question)
    if limit is not None and len(frame) > limit:
        return Finding(
            kind=FindingKind.ROW_COUNT,
            message=f"The question asks for at most {limit} rows, the result has {len(frame)}.",
        )
    return None


def _missing_columns(question: str, frame: pd.DataFrame, sql: str) -> Finding | None:
    labels = {str(name).lower() for name in frame.columns}
    missing = [name for name in requested_columns(question) if name.lower() not in labels]
    if missing:
        return Finding(
            kind=FindingKind.MISSING_COLUMNS,
            message=f"The question asks for the column(s) {', '.join(missing)}, which the result lacks.",
        )
    return None


def asks_for_objects(question: str) -> bool:
    """Tell whether the question asks for a set of objects, one row each (not rows about objects).

    Examples:
        >>> asks_for_objects("Give me the supernovae first seen in March 2024 near the Galactic plane")
        True
        >>> asks_for_objects("Return 200 rows of the feature table for objects classified as RRL")
        False
        >>> asks_for_objects("Show all the information stored about the object ZTF21abcdxyz")
        False
    """
    text = question.lower()
    rows_asked = _ASKS_ROWS_OF.search(text) or _PER_GROUP.search(text) or _OBJECT_ID.search(text)
    return bool(_ASKS_OBJECTS.search(text)) and not rows_asked


def _repeated_objects(question: str, frame: pd.DataFrame, sql: str) -> Finding | None:
    if len(frame) < 2 or not asks_for_objects(question):
        return None
    column = "oid" if "oid" in frame.columns else prediction_identifier(frame, sql)
    if column is None or str(column).lower() not in ("oid", "objectid", "object_id"):
        return None
    values = frame.loc[:, ~frame.columns.duplicated()][column]
    repeats = len(values) - values.nunique(dropna=False)
    if repeats:
        return Finding(
            kind=FindingKind.REPEATED_OBJECTS,
            message=f"The question asks for objects, yet {repeats} rows repeat an object already listed.",
        )
    return None


def _count_as_rows(question: str, frame: pd.DataFrame, sql: str) -> Finding | None:
    text = question.lower()
    if len(frame) > 1 and _ASKS_COUNT.search(text) and not _PER_GROUP.search(text):
        return Finding(
            kind=FindingKind.COUNT_AS_ROWS,
            message=f"The question asks for a count, the result has {len(frame)} rows; return one row.",
        )
    return None


CHECKS = (_empty, _row_count, _missing_columns, _repeated_objects, _count_as_rows)
"""Every result check, in the order they report."""


def check_result(question: str, frame: pd.DataFrame, sql: str = "") -> list[Finding]:
    """Return the findings of every result check on one executed result.

    Args:
        question: The question as asked.
        frame: The rows the query returned.
        sql: The executed SQL (read to find the identifier column through aliases).

    Returns:
        The findings, in the order of ``CHECKS``; empty when the result looks consistent with the question.

    Examples:
        >>> [f.kind.value for f in check_result("How many SNe are there?", pd.DataFrame({"count": [1, 2]}))]
        ['count_as_rows']
    """
    found = (check(question, frame, sql) for check in CHECKS)
    return [finding for finding in found if finding is not None]
