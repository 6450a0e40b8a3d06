"""Exceptions of running SQL on an engine, under one root `EngineError`, and the error kinds they carry."""

from enum import StrEnum

__all__ = [
    "DatabaseBusy",
    "DatabaseUnavailable",
    "EngineError",
    "ErrorKind",
    "ExecutionError",
    "GuardError",
    "error_kind_for",
]


class ErrorKind(StrEnum):
    """Coarse class of a failed query, used by self-correction and reports."""

    TIMEOUT = "timeout"
    """The query ran longer than its timeout and was cancelled."""
    MISSING_STRUCTURE = "missing_structure"
    """The query names a table, column, function, type or schema that does not exist."""
    GENERAL = "general"
    """Any other failure: syntax, types, refused by the guard, ..."""
    UNSUPPORTED = "unsupported"
    """The query uses a construct or table the engine does not offer (e.g. a window function on TAP)."""


_KIND_BY_SQLSTATE = {
    "57014": ErrorKind.TIMEOUT,  # query_canceled (statement_timeout or client cancel)
    "42P01": ErrorKind.MISSING_STRUCTURE,  # undefined_table
    "42703": ErrorKind.MISSING_STRUCTURE,  # undefined_column
    "42883": ErrorKind.MISSING_STRUCTURE,  # undefined_function
    "42704": ErrorKind.MISSING_STRUCTURE,  # undefined_object
    "3F000": ErrorKind.MISSING_STRUCTURE,  # invalid_schema_name
}


def error_kind_for(sqlstate: str | None) -> ErrorKind:
    """Classify a PostgreSQL SQLSTATE code.

    Args:
        sqlstate: the five-character SQLSTATE of the error, or None when there is none.

    Returns:
        TIMEOUT for cancelled queries, MISSING_STRUCTURE for undefined tables, columns, functions, objects and
        schemas, GENERAL otherwise.

    Examples:
        >>> error_kind_for("57014")
        <ErrorKind.TIMEOUT: 'timeout'>
        >>> error_kind_for("42P01").value
        'missing_structure'
        >>> error_kind_for(None).value
        'general'
    """
    return _KIND_BY_SQLSTATE.get(sqlstate or "", ErrorKind.GENERAL)


class EngineError(Exception):
    """Root of every exception raised while opening an engine or running SQL on it."""


class ExecutionError(EngineError):
    """A query could not be run or failed on the server.

    Attributes:
        kind: coarse class of the failure.
        sqlstate: PostgreSQL SQLSTATE code, or None when the failure did not come from the server.
        message: what went wrong, one or two sentences.
    """

    def __init__(self, kind: ErrorKind, sqlstate: str | None, message: str) -> None:
        super().__init__(kind, sqlstate, message)
        self.kind = ErrorKind(kind)
        self.sqlstate = sqlstate
        self.message = message

    @property
    def label(self) -> str:
        """The one name users see for this failure (page, API, MCP, CLI): the kind's, or ``refused`` for the guard."""
        return self.kind.value

    def __str__(self) -> str:
        """Render as `message [label, SQLSTATE code]`.

        Examples:
            >>> str(ExecutionError(ErrorKind.MISSING_STRUCTURE, "42P01", 'relation "objekt" does not exist'))
            'relation "objekt" does not exist [missing_structure, SQLSTATE 42P01]'
            >>> str(GuardError("Function pg_sleep is not allowed in queries."))
            'Function pg_sleep is not allowed in queries. [refused]'
        """
        state = f", SQLSTATE {self.sqlstate}" if self.sqlstate else ""
        return f"{self.message} [{self.label}{state}]"


class GuardError(ExecutionError):
    """The SQL guard refused a statement before it reached the server (kind GENERAL, no SQLSTATE)."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorKind.GENERAL, None, message)

    @property
    def label(self) -> str:
        """``refused``: self-correction still sees kind GENERAL, users see that the guard refused it."""
        return "refused"

    def __reduce__(self) -> tuple:
        """Pickle with the one-argument constructor."""
        return (type(self), (self.message,))


class DatabaseUnavailable(EngineError):
    """Cannot connect to the database; the message names the host, port and database and what to do."""


class DatabaseBusy(DatabaseUnavailable):
    """Every pooled connection is running another query; the database is up, and a later try may get one."""
