"""The values of the categorical columns of a connected database, read once per database."""

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pandas as pd

from catalog import Catalog, load_catalog
from defaults.time_limits import VOCABULARY_QUERY_S, VOCABULARY_READ_S
from engines import Engine
from engines.errors import ExecutionError
from modules.value_check.lookup_codes import CodeNames, read_code_names

__all__ = [
    "Vocabulary",
    "clear_cache",
    "linked_values_text",
    "read_vocabulary",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Vocabulary:
    """Valid values of categorical columns, as the strings a literal would spell.

    Attributes:
        values: Distinct values per (table, column); a column with more than the read limit is absent.
        classes: Class names per (table, classifier_name, classifier_version).
        codes: The names of integer code columns' ids per (table, column), from their lookup tables.
    """

    values: Mapping[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    classes: Mapping[tuple[str, str, str], frozenset[str]] = field(default_factory=dict)
    codes: Mapping[tuple[str, str], CodeNames] = field(default_factory=dict)

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


_CLASS_KEY = ("classifier_name", "classifier_version", "class_name")
_CACHE: dict[str, Vocabulary] = {}
_LOCK = threading.Lock()


def clear_cache() -> None:
    """Forget every vocabulary read so far (the next read queries the database again)."""
    with _LOCK:
        _CACHE.clear()


_AT_ONCE = 4
"""Most vocabulary queries run at once (fewer when the engine's concurrency is lower): a TAP service runs each as a
job of its own, whose round trips otherwise add up; a few at once keep a live database's large scans bearable."""


class _Reader:
    """Runs the vocabulary queries within an overall time budget; a failed or unaffordable query reads nothing."""

    def __init__(self, engine: Engine, timeout_s: float, budget_s: float) -> None:
        self.engine, self.timeout_s = engine, timeout_s
        self.deadline = time.monotonic() + budget_s
        self.skipped: list[str] = []
        self.at_once = min(_AT_ONCE, engine.concurrency or _AT_ONCE)

    def frames(self, queries: Sequence[tuple[str, str]]) -> list[pd.DataFrame | None]:
        """Run (sql, table) `queries` a few at once; return their frames in order (see `frame`)."""
        return self.map(lambda query: self.frame(*query), queries)

    def map(self, read: Callable, items: Sequence) -> list:
        """Apply `read` to `items` a few at once; return the results in order."""
        if len(items) <= 1 or self.at_once <= 1:
            return [read(item) for item in items]
        with ThreadPoolExecutor(max_workers=min(self.at_once, len(items))) as pool:
            return list(pool.map(read, items))

    def frame(self, sql: str, table: str) -> pd.DataFrame | None:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            self.skipped.append(table)
            return None
        try:
            return self.engine.execute(sql, timeout_s=min(self.timeout_s, remaining)).frame
        except ExecutionError as err:
            logger.info("vocabulary query skipped (%s): %s", err.kind, sql)
            return None


def _as_text(value: object) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _distinct(frame: pd.DataFrame, column: str) -> frozenset[str]:
    return frozenset(_as_text(value) for value in frame[column].dropna().unique())


def _read_table(reader: _Reader, table: str, columns: list[str], max_values: int) -> pd.DataFrame | None:
    """Read the distinct combinations of a table's categorical columns in one scan (None: the table is unread)."""
    listed = ", ".join(columns)
    limit = max_values * 20  # combinations of a few closed sets; more means an open column among them
    frame = reader.frame(f"SELECT {listed} FROM {table} GROUP BY {listed} LIMIT {limit + 1}", table)
    if frame is None or len(frame) <= limit:
        return frame
    parts = reader.frames([(f"SELECT {c} FROM {table} GROUP BY {c} LIMIT {max_values + 1}", table) for c in columns])
    read = [part for part in parts if part is not None]
    return pd.concat(read, ignore_index=True) if read else None


def read_vocabulary(
    engine: Engine,
    catalog: Catalog | None = None,
    *,
    max_values: int = 500,
    timeout_s: float = VOCABULARY_QUERY_S,
    budget_s: float = VOCABULARY_READ_S,
) -> Vocabulary:
    """Read the categorical columns' values from the database, or return them from the cache of its fingerprint.

    One query per table reads the distinct combinations of its categorical columns (class names per classifier
    and version come from the same rows), and one per lookup table the names of the catalog's code columns, a few
    at once (at most the engine's ``concurrency``). A
    table or column the database lacks is skipped, and so is a column with more than ``max_values`` values;
    tables left when ``budget_s`` is spent are skipped with a warning.

    Args:
        engine: Runs the queries.
        catalog: Whose categorical columns to read (``Catalog.categorical``; default: ztf).
        max_values: Most distinct values a column may have to count as categorical.
        timeout_s: Time limit of each query, in seconds.
        budget_s: Time limit of the whole read, in seconds (a live database's large tables are slow to scan).

    Returns:
        The vocabulary of that database.
    """
    catalog = catalog or load_catalog()
    key = f"{catalog.name}:{engine.fingerprint()}"
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    reader = _Reader(engine, timeout_s, budget_s)
    by_table: dict[str, list[str]] = {}
    for table, column in catalog.categorical:
        by_table.setdefault(table, []).append(column)
    values: dict[tuple[str, str], frozenset[str]] = {}
    classes: dict[tuple[str, str, str], frozenset[str]] = {}
    tables = list(by_table.items())
    frames = reader.map(lambda item: _read_table(reader, *item, max_values), tables)
    for (table, columns), frame in zip(tables, frames, strict=True):
        if frame is None:
            continue
        for column in columns:
            distinct = _distinct(frame, column) if column in frame.columns else frozenset()
            if distinct and len(distinct) <= max_values:
                values[(table, column)] = distinct
        if set(_CLASS_KEY) <= set(frame.columns):
            for (name, version), group in frame.dropna(subset=list(_CLASS_KEY)).groupby(list(_CLASS_KEY[:2])):
                classes[(table, str(name), str(version))] = _distinct(group, "class_name")
    codes = read_code_names(catalog, reader.frames)
    if reader.skipped:
        read_order = [*by_table, *(code.lookup for code in catalog.codes)]
        skipped = ", ".join(table for table in dict.fromkeys(read_order) if table in reader.skipped)
        logger.warning("vocabulary read stopped after %.0f s; tables skipped: %s", budget_s, skipped)
    vocabulary = Vocabulary(values, classes, codes)
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

    Class names are listed per classifier and version, one line per distinct list (the classifiers and versions that
    share it on one line), and then name every classifier and version; a code column's ids are listed with their
    lookup names; a column with more than ``max_values`` values is left out.

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
        ...     {
        ...         ("probability", "lc_classifier", "1.0"): frozenset({"SNIa", "QSO"}),
        ...         ("probability", "lc_classifier", "1.1"): frozenset({"SNIa", "QSO"}),
        ...         ("probability", "stamp_classifier", "1.0"): frozenset({"SN"}),
        ...     },
        ... )
        >>> print(linked_values_text(vocabulary, ["magstat", "probability"], None))
        Values of categorical columns:
        magstat.fid: 1, 2
        probability.class_name of lc_classifier 1.0, 1.1: 'QSO', 'SNIa'
        probability.class_name of stamp_classifier 1.0: 'SN'
    """

    def linked(table: str, column: str) -> bool:
        return table in tables and (columns is None or column in columns.get(table, ()))

    lines = []
    for (table, column), values in vocabulary.values.items():
        if not linked(table, column):
            continue
        if (table, column) in vocabulary.codes:
            lines += filter(None, [vocabulary.codes[(table, column)].describe(values, max_values=max_values)])
            continue
        by_classifier = _class_lists(vocabulary, table, max_values) if linked(table, "class_name") else {}
        if column == "class_name" and by_classifier:
            lines += [f"{table}.class_name of {owners}: {_spelled(names)}" for names, owners in by_classifier.items()]
        elif column in _CLASS_KEY[:2] and by_classifier:
            continue  # the class lists name every classifier and version already
        elif len(values) <= max_values:
            lines.append(f"{table}.{column}: {_spelled(values)}")
    return "\n".join(["Values of categorical columns:", *lines]) if lines else ""


def _class_lists(vocabulary: Vocabulary, table: str, max_values: int) -> dict[frozenset[str], str]:
    """Map each distinct class list of `table` to the classifiers and versions that have it ("a 1, 2; b 3")."""
    owners: dict[frozenset[str], dict[str, list[str]]] = {}
    for (table_, name, version), names in sorted(vocabulary.classes.items()):
        if table_ == table and len(names) <= max_values:
            owners.setdefault(names, {}).setdefault(name, []).append(version)
    return {
        names: "; ".join(f"{name} {', '.join(versions)}" for name, versions in by_name.items())
        for names, by_name in owners.items()
    }
