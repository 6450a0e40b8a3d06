"""One-line hints for what a TAP service (GAVO DaCHS) refuses, and for ADQL written in the workbench's SQL box.

DaCHS answers a bad query with a parser message ("Could not parse your query ... (at char 31)") or a lookup failure
("Could not locate table 'public.object'"). `hint_for` reads the message and the query sent and names the ADQL form
to use; the first hint whose patterns match wins (`HINTS`, checked in order). `sql_box_hint` points ADQL pasted
into the PostgreSQL box to the ADQL box.

Examples:
    >>> hint_for("Could not locate table 'public.object'", "SELECT * FROM object")
    'name the schema: ztf.object or alerce_tap.object (tap_schema.tables lists them)'
    >>> sql_box_hint("SELECT TOP 5 oid FROM object")
    'TOP is ADQL: run this in the ADQL box, or write LIMIT 5 at the end for PostgreSQL'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["HINTS", "Hint", "hint_for", "sql_box_hint", "with_hint"]


@dataclass(frozen=True)
class Hint:
    """A hint shown when the service's `message` and the `query` sent match both patterns (None: any)."""

    text: str
    message: str | None = None
    query: str | None = None

    def matches(self, message: str, query: str) -> bool:
        """Whether both patterns (case-insensitive) are found."""
        return all(
            pattern is None or re.search(pattern, text, re.IGNORECASE)
            for pattern, text in ((self.message, message), (self.query, query))
        )


HINTS: tuple[Hint, ...] = (
    Hint(
        "q3c functions are PostgreSQL's; in ADQL write "
        "CONTAINS(POINT('ICRS', ra, dec), CIRCLE('ICRS', ra0, dec0, radius_deg)) = 1",
        query=r"\bq3c_\w+\s*\(",
    ),
    Hint("ADQL has no LIMIT: write SELECT TOP n ... instead", message=r"pars|expected", query=r"\blimit\s+\d"),
    Hint("write != instead of <> (DaCHS 2.7 does not parse <>)", message=r"pars|expected", query=r"<>"),
    Hint("ADQL has no :: casts: write CAST(x AS INTEGER) or CAST(x AS DOUBLE PRECISION)", query=r"::"),
    Hint("write LEFT OUTER JOIN (DaCHS 2.7 does not parse a bare LEFT JOIN)", query=r"\bleft\s+join\b"),
    Hint(
        "name the schema: ztf.object or alerce_tap.object (tap_schema.tables lists them)",
        message=r"could not locate table '(public\.)?\w+'",
    ),
    Hint(
        'check the column names in tap_schema.columns; quote reserved ones such as "value"',
        message=r"no such field|column .* does not exist",
    ),
    Hint("write the date as an MJD number; ADQL has no date functions", query=r"\b(now|current_date|interval)\b"),
    Hint('a reserved word used as a name must be quoted, as "value" or "date"', message=r"pars|expected"),
)
"""What each kind of refusal most often means, most specific first."""


def hint_for(message: str, query: str) -> str:
    """Return the hint for the service's error `message` about `query` ("" when none applies)."""
    return next((hint.text for hint in HINTS if hint.matches(message, query)), "")


def with_hint(message: str, query: str) -> str:
    """The message on one line, followed by its hint and, for a parse error, the text where the parser stopped.

    Example:
        >>> with_hint("Could not parse your query: Expected end of text (at char 18), (line:1, col:19)",
        ...           "SELECT oid FROM t LIMIT 3")
        'Could not parse your query: Expected end of text (at char 18), (line:1, col:19) (near "LIMIT 3"). Hint: \
ADQL has no LIMIT: write SELECT TOP n ... instead.'
    """
    line = " ".join(message.split())
    position = re.search(r"at char (\d+)", line)
    if position and int(position.group(1)) < len(query):
        start = int(position.group(1))
        line += f' (near "{" ".join(query[start : start + 30].split())}")'
    hint = hint_for(line, query)
    return f"{line.rstrip('.')}. Hint: {hint}." if hint else line


def sql_box_hint(sql: str) -> str:
    """A pointer to the ADQL box for ADQL written in the SQL box ("" when it does not look like ADQL)."""
    top = re.search(r"\bselect\s+(?:distinct\s+)?top\s+(\d+)", sql, re.IGNORECASE)
    if top:
        return f"TOP is ADQL: run this in the ADQL box, or write LIMIT {top.group(1)} at the end for PostgreSQL"
    if re.search(r"\bcontains\s*\(\s*point\s*\(", sql, re.IGNORECASE):
        return "CONTAINS(POINT, CIRCLE) is ADQL: run this in the ADQL box, or write q3c_radial_query for PostgreSQL"
    return ""
