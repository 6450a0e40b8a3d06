"""Pull one SQL statement out of an LM answer: fences of any kind, prose around it, trailing semicolons.

Examples:
    >>> extract_sql("Here it is:\\n```postgresql\\nSELECT oid FROM object;\\n```\\nThis lists objects.")
    'SELECT oid FROM object'
    >>> extract_sql("select 1; select 2")
    'select 1'
    >>> extract_sql("Sorry, I cannot help with that.")
    ''
"""

import re

__all__ = ["extract_sql"]

_FENCE = re.compile(r"(```|~~~)[ \t]*([\w+-]*)[ \t]*\n?(.*?)(?:\1|\Z)", re.DOTALL)
_START = re.compile(r"(?<![\w.])(SELECT\b|WITH\s+(RECURSIVE\s+)?\w+\s*(\([^)]*\))?\s*AS\b)", re.IGNORECASE)
_PROSE = re.compile(r"^[A-Z][a-z]+[\s,:]")
_SQL_LEAD = re.compile(
    r"^(select|from|where|and|or|not|join|inner|left|right|full|cross|on|group|order|having|limit|offset|union|"
    r"intersect|except|with|as|case|when|then|else|end|in|exists|between|like|ilike|is|values|distinct)\b",
    re.IGNORECASE,
)


def extract_sql(text: str | None) -> str:
    """Return the first SELECT/WITH statement in `text`, without fences, prose or trailing semicolons.

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


def _statement_from(text: str) -> str:
    start = _START.search(text)
    if start is None:
        return ""
    body = _cut_at_semicolon(text[start.start() :])
    return _drop_trailing_prose(body).strip().rstrip(";").strip()


def _cut_at_semicolon(text: str) -> str:
    """Cut at the first semicolon outside quotes and comments."""
    quote = None
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif text.startswith("--", i):
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        elif char == ";":
            return text[:i]
        i += 1
    return text


def _drop_trailing_prose(text: str) -> str:
    """Drop the first paragraph after a blank line that reads as prose, and everything after it."""
    paragraphs = re.split(r"\n[ \t]*\n", text)
    kept = [paragraphs[0]]
    for paragraph in paragraphs[1:]:
        lead = paragraph.lstrip()
        if _PROSE.match(lead) and not _SQL_LEAD.match(lead):
            break
        kept.append(paragraph)
    return "\n\n".join(kept)
