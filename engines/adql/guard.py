"""The check that ADQL written by a person (the workbench's ADQL box) is one query before it reaches a TAP service.

ADQL has no statements that write, and the service runs it with its own read-only role; the check still refuses
what a PostgreSQL-backed service could run: exactly one SELECT (or a set operation of SELECTs), no second statement
after a semicolon, no write, DDL, SELECT INTO or lock anywhere in the parse tree (``engines.guard.check_read_only``, as
for generated SQL), and a length cap. Text sqlglot cannot read as a query is refused rather than passed on. The
functions are the service's business: its own role and limits bound them.

Example:
    >>> check_adql("SELECT TOP 3 oid FROM ztf.object;")
    'SELECT TOP 3 oid FROM ztf.object'
    >>> check_adql("SELECT 1; DROP TABLE ztf.object")
    Traceback (most recent call last):
    ...
    engines.errors.GuardError: Only one ADQL SELECT statement is allowed, got 2 statements. [refused]
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError

from engines.errors import GuardError
from engines.guard import check_read_only
from engines.sql_tree import MAX_NESTING, TOO_DEEP, nesting

__all__ = ["MAX_ADQL_CHARS", "check_adql"]

MAX_ADQL_CHARS = 20_000
_READER = Dialect.get_or_raise("tsql")  # reads ADQL's TOP and its geometry functions as plain functions


def check_adql(text: str) -> str:
    """Return the query without surrounding blanks and trailing semicolons, or raise ``GuardError``.

    Raises:
        GuardError: Empty, too long, unreadable or nested too deeply to read, several statements, a statement that
            is not a query, or one that writes, creates a table or locks rows in any of its parts.
    """
    query = text.strip().rstrip(";").strip()
    if not query:
        raise GuardError("The ADQL is empty; write one SELECT statement.")
    if len(query) > MAX_ADQL_CHARS:
        raise GuardError(f"The ADQL is {len(query):,} characters long; at most {MAX_ADQL_CHARS:,} are allowed.")
    try:
        tokens = _READER.tokenize(query)
        if nesting(tokens) > MAX_NESTING:
            raise GuardError(f"The ADQL {TOO_DEEP}")
        statements = [tree for tree in _READER.parser().parse(tokens, query) if tree is not None]
        _check_statements(statements)
    except GuardError:
        raise
    except SqlglotError as err:
        raise GuardError(f"Cannot read the ADQL as one query: {str(err).splitlines()[0]}") from err
    except RecursionError as err:
        raise GuardError(f"The ADQL {TOO_DEEP}") from err
    except Exception as err:  # a sqlglot bug must refuse the text, not crash the caller
        raise GuardError(f"Could not check the ADQL ({type(err).__name__}); write one plain SELECT statement.") from err
    return query


def _check_statements(statements: list[exp.Expression]) -> None:
    """Refuse anything but one query that neither writes nor locks."""
    if len(statements) != 1:
        raise GuardError(f"Only one ADQL SELECT statement is allowed, got {len(statements)} statements.")
    statement = statements[0]
    if not isinstance(statement, exp.Query):
        named = isinstance(statement, exp.DML | exp.DDL | exp.Drop | exp.Alter | exp.Command)
        kind = statement.key.upper() if named else "text that is not a query"
        raise GuardError(f"Only one ADQL SELECT statement is allowed, got {kind}.")
    check_read_only(statement)
