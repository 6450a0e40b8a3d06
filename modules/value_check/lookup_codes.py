"""The names behind integer code columns (``probability.class_id`` -> ``taxonomy.class_name``), read from lookups.

A catalog declares its code columns (``Catalog.codes``); the value check reads each lookup table once from the
connected database, so a name resolves to the id that database uses, scoped where ids repeat (class ids per
classifier, band codes per survey).

Example:
    >>> from catalog import Code
    >>> code = Code("probability", "class_id", "taxonomy", "class_id", "class_name", ("classifier_id",))
    >>> names = CodeNames(code, ((("1",), "0", "SN"), (("3",), "0", "SN"), (("3",), "1", "AGN")))
    >>> names.ids("SN", {}), names.ids("AGN", {"classifier_id": "1"})
    (('0',), ())
    >>> print(names.describe(frozenset({"0", "1"})))
    probability.class_id is taxonomy.class_id (name in taxonomy.class_name) for classifier_id 1: 0 'SN'
    probability.class_id is taxonomy.class_id (name in taxonomy.class_name) for classifier_id 3: 0 'SN', 1 'AGN'
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pandas as pd

from catalog import Catalog, Code

__all__ = ["CodeNames", "read_code_names"]

Entry = tuple[tuple[str, ...], str, str]
"""One lookup row: the values of the code's scope columns, the id and its name (all as text)."""


@dataclass(frozen=True)
class CodeNames:
    """The names of one code column's ids, as its lookup table holds them."""

    code: Code
    entries: tuple[Entry, ...]

    @property
    def column(self) -> str:
        """The code column as ``table.column``."""
        return f"{self.code.table}.{self.code.column}"

    @property
    def names(self) -> frozenset[str]:
        """Every name of the lookup."""
        return frozenset(name for _, _, name in self.entries)

    def ids(self, name: str, scope: Mapping[str, str]) -> tuple[str, ...]:
        """Return the distinct ids named `name` where the scope columns fixed in `scope` (column -> value) match."""
        return tuple(
            dict.fromkeys(id_ for values, id_, named in self.entries if named == name and self._in(values, scope))
        )

    def describe(self, ids: frozenset[str], *, max_values: int = 40) -> str:
        """One line per scope: the names of the `ids` the column holds ("" when a scope has more than `max_values`)."""
        by_scope: dict[tuple[str, ...], list[tuple[str, str]]] = {}
        for values, id_, name in sorted(self.entries, key=lambda entry: (entry[0], _as_number(entry[1]))):
            if id_ in ids:
                by_scope.setdefault(values, []).append((id_, name))
        head = f"{self.column} is {self.code.lookup}.{self.code.id} (name in {self.code.lookup}.{self.code.name})"
        lines = []
        for values, pairs in by_scope.items():
            if len(pairs) > max_values:
                continue
            where = ", ".join(f"{column} {value}" for column, value in zip(self.code.scope, values, strict=True))
            listed = ", ".join(f"{id_} {name!r}" for id_, name in pairs)
            lines.append(f"{head}{f' for {where}' if where else ''}: {listed}")
        return "\n".join(lines)

    def _in(self, values: tuple[str, ...], scope: Mapping[str, str]) -> bool:
        return all(scope.get(column, value) == value for column, value in zip(self.code.scope, values, strict=True))


def read_code_names(catalog: Catalog, frames_of: Callable[[list[tuple[str, str]]], list[pd.DataFrame | None]]) -> dict:
    """Read the lookup of each code column of `catalog`; return {(table, column): CodeNames}.

    Args:
        catalog: Declares the code columns.
        frames_of: Runs (sql, table) queries on the database and returns their rows in order, None for a query that
            could not run (then that code is left out); the table names the table read, for the caller's bookkeeping.
    """
    columns_of = [[code.id, code.name, *code.scope] for code in catalog.codes]
    queries = [
        (f"SELECT {', '.join(columns)} FROM {code.lookup} GROUP BY {', '.join(columns)}", code.lookup)
        for code, columns in zip(catalog.codes, columns_of, strict=True)
    ]
    found = {}
    for code, columns, frame in zip(catalog.codes, columns_of, frames_of(queries), strict=True):
        if frame is None or not set(columns) <= set(frame.columns):
            continue
        rows = frame.dropna(subset=[code.id, code.name])
        entries = tuple(
            (tuple(_text(row[column]) for column in code.scope), _text(row[code.id]), str(row[code.name]))
            for _, row in rows.iterrows()
        )
        found[(code.table, code.column)] = CodeNames(code, entries)
    return found


def _text(value: object) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _as_number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("inf")
