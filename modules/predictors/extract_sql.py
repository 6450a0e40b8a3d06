"""Pull one SQL statement out of an LM answer: fences of any kind, prose around it, trailing semicolons.

sqlglot's PostgreSQL tokenizer tells SQL text from strings and comments (nested ``/* */``, ``--``, ``$$`` and
``$tag$`` dollar quotes, ``E''`` escapes), so a semicolon or a blank line inside them never ends the statement.

Examples:
    >>> extract_sql("Here it is:\\n```postgresql\\nSELECT oid FROM object;\\n```\\nThis lists objects.")
    'SELECT oid FROM object'
    >>> extract_sql("select 1; select 2")
    'select 1'
    >>> extract_sql("SELECT $$a;b$$ AS t; DROP TABLE object")
    'SELECT $$a;b$$ AS t'
    >>> extract_sql("Sorry, I cannot help with that.")
    ''
"""

import itertools
import re

from sqlglot.dialects.postgres import Postgres
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from engines.guard import MAX_SQL_CHARS

__all__ = ["extract_sql"]

_FENCE = re.compile(r"(```|~~~)[ \t]*([\w+-]*)[ \t]*\n?(.*?)(?:\1|\Z)", re.DOTALL)
_START = re.compile(r"(?<![\w.$])(SELECT\b|WITH\s+(RECURSIVE\s+)?\w+\s*(\([^)]*\))?\s*AS\b)", re.IGNORECASE)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_PROSE = re.compile(r"^[A-Z][a-z]+['\s,:]")
_SQL_LEAD = re.compile(
    r"^(select|from|where|and|or|not|join|inner|left|right|full|cross|on|group|order|having|limit|offset|union|"
    r"intersect|except|with|as|case|when|then|else|end|in|exists|between|like|ilike|is|values|distinct)\b",
    re.IGNORECASE,
)
_QUERY_AFTER = frozenset(
    {TokenType.UNION, TokenType.INTERSECT, TokenType.EXCEPT, TokenType.ALL, TokenType.DISTINCT}
    | {TokenType.L_PAREN, TokenType.R_PAREN}
)
"""Tokens a SELECT may follow at the top level of one statement (set operations, after a CTE list)."""
_MAX_RESTARTS = 8
"""Prose SELECTs skipped at most in one block (each skip tokenizes the rest again)."""


def extract_sql(text: str | None) -> str:
    """Return the first SELECT/WITH statement in `text`, without fences, prose or trailing semicolons.

    Fenced blocks are tried in order, then the whole text. In a block, the statement starts at the first SELECT
    or WITH, unless a later top-level SELECT follows a word or a colon ("select the objects with: SELECT ..."):
    then the first was prose and the statement starts there. Text longer than the SQL guard accepts
    (``engines.guard.MAX_SQL_CHARS``) is returned whole, never tokenized: the guard refuses it.

    Args:
        text: A raw LM answer.

    Returns:
        The statement, stripped; an empty string when no statement is found.
    """
    if not text:
        return ""
    for _, _, body in _FENCE.findall(text):
        statement = _statement_from(body)
        if statement:
            return statement
    return _statement_from(text)


def _statement_from(text: str, restarts: int = 0) -> str:
    start = _START.search(text)
    if start is None:
        return ""
    text = text[start.start() :]
    if len(text) > MAX_SQL_CHARS:
        return text.strip()
    tokens = _tokens(text)
    end = len(text)
    depth = 0
    for previous, token in itertools.pairwise(tokens):
        depth += _depth_change(previous)
        if previous.token_type == TokenType.SEMICOLON:
            end = previous.start
            break
        if _starts_prose(text, previous, token):
            end = previous.end + 1
            break
        if _is_restart(previous, token, depth) and restarts < _MAX_RESTARTS:
            return _statement_from(text[token.start :], restarts + 1)
    return text[:end].strip().rstrip(";").strip()


def _is_restart(previous: Token, token: Token, depth: int) -> bool:
    """Tell whether `token` is a top-level SELECT after a word or a colon: the text before it was prose."""
    return depth == 0 and token.token_type == TokenType.SELECT and previous.token_type not in _QUERY_AFTER


def _depth_change(token: Token) -> int:
    return {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(token.token_type, 0)


def _tokens(text: str) -> list[Token]:
    """Tokenize as PostgreSQL; on an error (an apostrophe in trailing prose), the tokens read before it."""
    tokenizer = Postgres().tokenizer_class()
    try:
        return tokenizer.tokenize(text)
    except SqlglotError:
        return list(tokenizer.tokens)


def _starts_prose(text: str, previous: Token, token: Token) -> bool:
    """Tell whether a blank line outside strings and comments separates the statement from a prose paragraph."""
    gap = text[previous.end + 1 : token.start]
    if previous.comments or not _BLANK_LINE.search(gap):
        return False
    lead = text[token.start :]
    return bool(_PROSE.match(lead)) and not _SQL_LEAD.match(lead)
