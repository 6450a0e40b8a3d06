"""Reading SQL that may be nested deeper than sqlglot can follow: one rule for every place that parses SQL text.

sqlglot's parser, generator and optimizer recurse once (or several times) per nesting level, so a few dozen nested
brackets exhaust Python's recursion limit, and how many exactly depends on how deep the caller's stack already is:
text the guard accepted in one thread can still overflow in another. Every reader of user or generated SQL
therefore treats ``RecursionError`` as it treats a parse error: a check refuses the text in one line, a helper
(columns, explanations, differences, value checks) falls back to its answer for unreadable SQL.

The guards go further and refuse, from the tokens, text nested deeper than ``MAX_NESTING`` before the parser
recurses: at the recursion limit a finalizer the garbage collector happens to run fails unseen (an unraisable
RecursionError), so reaching the limit on purpose is not harmless.

Example:
    >>> read_tree("SELECT oid FROM object").sql()
    'SELECT oid FROM object'
    >>> read_tree("SELECT " + "(" * 3000 + "1" + ")" * 3000) is None
    True
    >>> nesting(sqlglot.tokenize("SELECT ((1)) AS x, NOT NOT NOT y, CASE WHEN NOT (z) THEN 1 END FROM t"))
    3
"""

from __future__ import annotations

from collections.abc import Iterable

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

__all__ = ["MAX_NESTING", "TOO_DEEP", "UNREADABLE_SQL", "nesting", "read_tree"]

UNREADABLE_SQL = (SqlglotError, RecursionError)
"""What parsing or walking a tree of untrusted SQL may raise besides a bug: catch these, never RecursionError alone."""

TOO_DEEP = "is nested too deeply to read; flatten the expression (fewer nested brackets)."
"""The end of the one-line refusal of text nested beyond the parser's reach ("The SQL " / "The ADQL " + TOO_DEEP)."""

MAX_NESTING = 16
"""The deepest nesting (``nesting``) a guard reads. From a shallow stack sqlglot's parser reaches Python's recursion
limit near 47 brackets, 41 nested calls, 51 nested CASEs or 32 levels of ``NOT (``, and sooner from a deep one."""

_OPENING = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.CASE}
_CLOSING = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.END}
_PREFIX = {TokenType.NOT, TokenType.DASH, TokenType.PLUS, TokenType.TILDE}


def read_tree(sql: str, dialect: str = "postgres") -> exp.Expression | None:
    """Parse one statement, or return None when the text does not parse or is nested too deeply to parse."""
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except UNREADABLE_SQL:
        return None


def nesting(tokens: Iterable[Token]) -> int:
    """Return the deepest nesting of the tokens: open brackets and CASEs, each with the prefix operators before it.

    A prefix operator costs the parser a level as a bracket does, and one before a bracket lasts until it closes
    (``NOT (NOT (x))`` is 4 deep).
    """
    levels: list[int] = []  # per open bracket or CASE: 1 + the prefix operators just before it
    depth = prefixes = deepest = 0
    for token in tokens:
        kind = token.token_type
        if kind in _PREFIX:
            prefixes += 1
        elif kind in _OPENING:
            levels.append(1 + prefixes)
            depth, prefixes = depth + levels[-1], 0
        else:
            if kind in _CLOSING and levels:
                depth -= levels.pop()
            prefixes = 0
        deepest = max(deepest, depth + prefixes)
    return deepest
