"""Reading SQL that may be nested deeper than sqlglot can follow: one rule for every place that parses SQL text.

sqlglot's parser, generator and optimizer recurse once (or several times) per nesting level, so a few dozen nested
brackets exhaust Python's recursion limit, and how many exactly depends on how deep the caller's stack already is:
text the guard accepted in one thread can still overflow in another. Every reader of user or generated SQL
therefore treats ``RecursionError`` as it treats a parse error: a check refuses the text in one line, a helper
(columns, explanations, differences, value checks) falls back to its answer for unreadable SQL.

Example:
    >>> read_tree("SELECT oid FROM object").sql()
    'SELECT oid FROM object'
    >>> read_tree("SELECT " + "(" * 3000 + "1" + ")" * 3000) is None
    True
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

__all__ = ["TOO_DEEP", "UNREADABLE_SQL", "read_tree"]

UNREADABLE_SQL = (SqlglotError, RecursionError)
"""What parsing or walking a tree of untrusted SQL may raise besides a bug: catch these, never RecursionError alone."""

TOO_DEEP = "is nested too deeply to read; flatten the expression (fewer nested brackets)."
"""The end of the one-line refusal of text nested beyond the parser's reach ("The SQL " / "The ADQL " + TOO_DEEP)."""


def read_tree(sql: str, dialect: str = "postgres") -> exp.Expression | None:
    """Parse one statement, or return None when the text does not parse or is nested too deeply to parse."""
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except UNREADABLE_SQL:
        return None
