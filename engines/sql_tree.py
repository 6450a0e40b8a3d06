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
    >>> nesting(sqlglot.tokenize("SELECT ((1)) AS x, NOT NOT NOT y FROM t"))
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

MAX_NESTING = 32
"""The deepest nesting (``nesting``) a guard reads; sqlglot's parser reaches the recursion limit near 45 brackets."""

_OPENING = {TokenType.L_PAREN, TokenType.L_BRACKET}
_CLOSING = {TokenType.R_PAREN, TokenType.R_BRACKET}
_PREFIX = {TokenType.NOT, TokenType.DASH, TokenType.PLUS, TokenType.TILDE}


def read_tree(sql: str, dialect: str = "postgres") -> exp.Expression | None:
    """Parse one statement, or return None when the text does not parse or is nested too deeply to parse."""
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except UNREADABLE_SQL:
        return None


def nesting(tokens: Iterable[Token]) -> int:
    """Return the deepest bracket nesting of the tokens, or their longest run of prefix operators when longer."""
    depth = deepest = run = 0
    for token in tokens:
        kind = token.token_type
        depth += (kind in _OPENING) - (kind in _CLOSING)
        run = run + 1 if kind in _PREFIX else 0
        deepest = max(deepest, depth, run)
    return deepest
