"""The values of the categorical columns of a connected database, read once per database."""

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import pandas as pd

from db.errors import ExecutionError

__all__ = [
    "CATEGORICAL_COLUMNS",
    "CLASSIFIER_TABLES",
    "Vocabulary",
    "clear_cache",
    "linked_values_text",
    "read_vocabulary",
]

logger = logging.getLogger(__name__)

CLASSIFIER_TABLES = (
    "probability",
    "lc_classifier",
    "lc_classifier_top",
    "lc_classifier_transient",
    "lc_classifier_stochastic",
    "lc_classifier_periodic",
    "stamp_classifier",
)
"""Tables with class_name per classifier_name and classifier_version."""

CATEGORICAL_COLUMNS = (
    *((table, column) for table in CLASSIFIER_TABLES for column in ("class_name", "classifier_name")),
    *((table, "classifier_version") for table in CLASSIFIER_TABLES),
    ("taxonomy", "classifier_name"),
    ("taxonomy", "classifier_version"),
    ("feature", "name"),
    ("feature", "fid"),
    ("feature", "version"),
    ("feature_version", "version"),
    ("detection", "fid"),
    ("non_detection", "fid"),
    ("forced_photometry", "fid"),
    ("magstat", "fid"),
    ("dataquality", "fid"),
    ("reference", "fid"),
    ("xmatch", "catid"),
    ("outlier", "class_name"),
)
"""(table, column) pairs whose distinct values form a closed vocabulary."""


class _Engine(Protocol):
    def execute(self, sql: str, *, timeout_s: float | None = None) -> "_Result": ...

    def fingerprint(self) -> str: ...


class _Result(Protocol):
    frame: pd.DataFrame


@dataclass(frozen=True)
class Vocabulary:
    """Valid values of categorical columns, as the strings a literal would spell.

    Attributes:
        values: Distinct values per (table, column); a column with more than the read limit is absent.
        classes: Class names per (table, classifier_name, classifier_version).
    """

    values: Mapping[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    classes: Mapping[tuple[str, str, str], frozenset[str]] = field(default_factory=dict)

    def valid_values(
        self, table: str, column: str, *, classifier_name: str | None = None, classifier_version: str | None = None
    ) -> frozenset[str] | None:
        """Return the values ``table.column`` may take (narrowed to a classifier for class_name), or None if open.

        Examples:
            >>> vocabulary = Vocabulary(
            ...     {("probability", "class_name"): frozenset({"SNIa", "SN"})},
            ...     {("probability", "lc_classifier", "1.0"): frozenset({"SNIa"})},
            ... )
            >>> sorted(vocabulary.valid_values("probability", "class_name", classifier_name="lc_classifier"))
            ['SNIa']
            >>> vocabulary.valid_values("object", "ndet") is None
            True
        """
        if column == "class_name" and classifier_name is not None:
            narrowed = [
                names
                for (table_, name, version), names in self.classes.items()
                if table_ == table and name == classifier_name and classifier_version in (None, version)
            ]
            if narrowed:
                return frozenset().union(*narrowed)
        return self.values.get((table, column))


_CACHE: dict[str, Vocabulary] = {}
_LOCK = threading.Lock()


def clear_cache() -> None:
    """Forget every vocabulary read so far (the next read queries the database again)."""
    with _LOCK:
        _CACHE.clear()


def _distinct(engine: _Engine, sql: str, timeout_s: float) -> pd.DataFrame | None:
    try:
        return engine.execute(sql, timeout_s=timeout_s).frame
    except ExecutionError as err:
        logger.info("vocabulary query skipped (%s): %s", err.kind, sql)
        return None


def _as_text(value: object) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def read_vocabulary(engine: _Engine, *, max_values: int = 500, timeout_s: float = 30.0) -> Vocabulary:
    """Read the categorical columns' values from the database, or return them from the cache of its fingerprint.

    A table or column the database lacks is skipped, and so is a column with more than ``max_values`` values.

    Args:
        engine: Runs the queries (``engines.Engine`` or ``db.executor.Executor``).
        max_values: Most distinct values a column may have to count as categorical.
        timeout_s: Time limit of each query, in seconds.

    Returns:
        The vocabulary of that database.
    """
    key = engine.fingerprint()
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    values: dict[tuple[str, str], frozenset[str]] = {}
    for table, column in CATEGORICAL_COLUMNS:
        sql = f"SELECT {column} FROM {table} WHERE {column} IS NOT NULL GROUP BY {column} LIMIT {max_values + 1}"
        frame = _distinct(engine, sql, timeout_s)
        if frame is not None and len(frame) <= max_values:
            values[(table, column)] = frozenset(_as_text(value) for value in frame.iloc[:, 0])
    classes: dict[tuple[str, str, str], frozenset[str]] = {}
    for table in CLASSIFIER_TABLES:
        sql = f"SELECT classifier_name, classifier_version, class_name FROM {table} GROUP BY 1, 2, 3"
        frame = _distinct(engine, sql, timeout_s)
        for (name, version), group in () if frame is None else frame.groupby(["classifier_name", "classifier_version"]):
            classes[(table, str(name), str(version))] = frozenset(str(value) for value in group["class_name"])
    vocabulary = Vocabulary(values, classes)
    with _LOCK:
        _CACHE[key] = vocabulary
    return vocabulary


def _spelled(values: frozenset[str]) -> str:
    numeric = all(value.lstrip("-").isdigit() for value in values)
    ordered = sorted(values, key=int) if numeric else sorted(values)
    return ", ".join(ordered if numeric else (repr(value) for value in ordered))


def linked_values_text(
    vocabulary: Vocabulary, tables: list[str], columns: dict[str, list[str]] | None, *, max_values: int = 40
) -> str:
    """Describe the valid values of the categorical columns among the linked ones, for the generation prompt.

    Class names are listed per classifier and version; a column with more than ``max_values`` values is left out.

    Args:
        vocabulary: The database's vocabulary.
        tables: The linked tables.
        columns: The linked columns per table, or None for every column of the linked tables.
        max_values: Most values listed for one column.

    Returns:
        One line per column (empty text when no linked column is categorical).

    Examples:
        >>> vocabulary = Vocabulary(
        ...     {("magstat", "fid"): frozenset({"2", "1"}), ("probability", "class_name"): frozenset({"SNIa"})},
        ...     {("probability", "lc_classifier", "1.0"): frozenset({"SNIa", "QSO"})},
        ... )
        >>> print(linked_values_text(vocabulary, ["magstat", "probability"], None))
        Values of categorical columns:
        magstat.fid: 1, 2
        probability.class_name of lc_classifier 1.0: 'QSO', 'SNIa'
    """
    lines = []
    for (table, column), values in vocabulary.values.items():
        if table not in tables or (columns is not None and column not in columns.get(table, ())):
            continue
        by_classifier = sorted(
            (name, version, names)
            for (table_, name, version), names in vocabulary.classes.items()
            if table_ == table and column == "class_name"
        )
        if by_classifier:
            lines += [
                f"{table}.class_name of {name} {version}: {_spelled(names)}"
                for name, version, names in by_classifier
                if len(names) <= max_values
            ]
        elif len(values) <= max_values:
            lines.append(f"{table}.{column}: {_spelled(values)}")
    return "\n".join(["Values of categorical columns:", *lines]) if lines else ""
