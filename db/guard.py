"""Refuse any SQL text that is not exactly one read-only SELECT statement.

The guard is the first of three defences: the executor also runs every query in a READ ONLY transaction as a role
without write privileges. It parses with sqlglot's PostgreSQL dialect and admits one SELECT, WITH ... SELECT or set
operation of selects, without data-modifying parts, locking clauses, functions with side effects or that run SQL
given as text, and without Unicode escapes (``U&"..."`` would hide a function name from the deny list).
"""

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.tokens import Token, TokenType

from db.errors import GuardError

__all__ = ["DENIED_FUNCTIONS", "DENIED_FUNCTION_PREFIXES", "check_sql"]

DENIED_FUNCTIONS = frozenset(
    {
        "pg_sleep",
        "pg_sleep_for",
        "pg_sleep_until",
        "pg_read_file",
        "pg_read_binary_file",
        "pg_stat_file",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_promote",
        "pg_switch_wal",
        "pg_notify",
        "pg_log_backend_memory_contexts",
        "pg_replication_slot_advance",
        "pg_drop_replication_slot",
        "pg_import_system_collations",
        "set_config",
        "nextval",
        "setval",
        "loread",
        "lowrite",
        "ts_stat",
        "ts_rewrite",
    }
)
"""Functions with side effects, file or server access, that block, or that run SQL given as text (ts_stat,
ts_rewrite); matched case-insensitively, without schema, quoted or not."""

DENIED_FUNCTION_PREFIXES = (
    "lo_",
    "dblink",
    "pg_ls_",
    "pg_file_",
    "pg_create_",
    "pg_copy_",
    "pg_advisory_",
    "pg_try_advisory_",
    "pg_stat_reset",
    "pg_logical_",
    "pg_replication_origin_",
    "pg_wal_replay_",
    "pg_backup_",
    "query_to_xml",
    "cursor_to_xml",
    "table_to_xml",
    "schema_to_xml",
    "database_to_xml",
)
"""Families of denied functions: large objects, dblink, directory listing, adminpack, slots, locks, and the XML
exports that run SQL text or dump whole tables, schemas or databases (``query_to_xml*``, ``*_to_xml*``)."""

# Nodes that change data, schema or session state, wherever they appear in the tree.
_WRITING_NODES = (
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Merge,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Copy,
    exp.Command,
    exp.Set,
    exp.Transaction,
)
_DIALECT = Dialect.get_or_raise("postgres")
_UNICODE_ESCAPE_MESSAGE = "U&\"...\" and U&'...' escapes are not allowed; write names and text plainly."


def check_sql(sql: str) -> str:
    """Admit exactly one read-only SELECT statement.

    Args:
        sql: SQL text, possibly with comments and a trailing semicolon.

    Returns:
        The statement from its first to its last token: no surrounding comments, whitespace or semicolons.

    Raises:
        GuardError: the text is empty, does not parse, holds several statements, is not a SELECT, modifies data,
            locks rows or calls a denied function.

    Examples:
        >>> check_sql("  SELECT oid FROM object LIMIT 5; ")
        'SELECT oid FROM object LIMIT 5'
        >>> check_sql("DELETE FROM object")
        Traceback (most recent call last):
        ...
        db.errors.GuardError: Only one SELECT or WITH statement is allowed, got DELETE. [general]
        >>> check_sql("SELECT 1; DROP TABLE object")
        Traceback (most recent call last):
        ...
        db.errors.GuardError: Expected exactly one SQL statement, got 2. [general]
        >>> check_sql("SELECT public.PG_SLEEP(10)")
        Traceback (most recent call last):
        ...
        db.errors.GuardError: Function PG_SLEEP is not allowed in queries. [general]
        >>> check_sql('SELECT U&"pg_sleep"(10)')
        Traceback (most recent call last):
        ...
        db.errors.GuardError: U&"..." and U&'...' escapes are not allowed; write names and text plainly. [general]
    """
    tokens = _tokenize(sql)
    _check_unicode_escapes(tokens)
    statement = _parse_one(tokens, sql)
    _check_statement_type(statement, tokens)
    _check_tree(statement)
    code = [token for token in tokens if token.token_type != TokenType.SEMICOLON]
    return sql[code[0].start : code[-1].end + 1]


def _tokenize(sql: str) -> list[Token]:
    """Split the text into tokens, refusing empty text and unterminated strings or comments."""
    try:
        tokens = _DIALECT.tokenize(sql)
    except SqlglotError as err:
        raise GuardError(f"Could not parse the SQL: {err}. Write one valid PostgreSQL SELECT statement.") from err
    if not any(token.token_type != TokenType.SEMICOLON for token in tokens):
        raise GuardError("The SQL text is empty; write one SELECT or WITH statement.")
    return tokens


def _check_unicode_escapes(tokens: list[Token]) -> None:
    """Refuse U&'...' strings and U&"..." identifiers, whose escapes PostgreSQL decodes but sqlglot does not."""
    for before, between, after in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if before.token_type == TokenType.VAR and before.text.upper() == "U" and between.token_type == TokenType.AMP:
            if after.token_type in (TokenType.IDENTIFIER, TokenType.STRING, TokenType.UNICODE_STRING):
                raise GuardError(_UNICODE_ESCAPE_MESSAGE)
    if any(token.token_type == TokenType.UNICODE_STRING for token in tokens):
        raise GuardError(_UNICODE_ESCAPE_MESSAGE)


def _parse_one(tokens: list[Token], sql: str) -> exp.Expression:
    """Parse the tokens and return the only statement."""
    try:
        parsed = _DIALECT.parser().parse(tokens, sql)
    except ParseError as err:
        first = err.errors[0] if err.errors else {}
        where = f" (line {first['line']}, column {first['col']})" if first else ""
        reason = first.get("description", str(err))
        raise GuardError(
            f"Could not parse the SQL{where}: {reason}. Write one valid PostgreSQL SELECT statement."
        ) from err
    except SqlglotError as err:
        raise GuardError(f"Could not parse the SQL: {err}. Write one valid PostgreSQL SELECT statement.") from err
    statements = [node for node in parsed if node is not None and not isinstance(node, exp.Semicolon)]
    if len(statements) != 1:
        raise GuardError(f"Expected exactly one SQL statement, got {len(statements)}.")
    return statements[0]


def _check_statement_type(statement: exp.Expression, tokens: list[Token]) -> None:
    """Refuse anything but a SELECT, a WITH ... SELECT or a set operation of selects."""
    if isinstance(statement, exp.Query) and not isinstance(statement, exp.Values):
        return
    first = next(token for token in tokens if token.token_type != TokenType.SEMICOLON)
    if isinstance(statement, exp.Command):
        kind = statement.name
    elif first.token_type == TokenType.WITH or first.token_type == TokenType.L_PAREN:
        kind = statement.key
    else:
        kind = first.text
    raise GuardError(f"Only one SELECT or WITH statement is allowed, got {kind.upper()}.")


def _check_tree(statement: exp.Expression) -> None:
    """Refuse data-modifying parts, SELECT INTO, locking clauses and denied functions anywhere in the tree."""
    for node in statement.walk():
        if isinstance(node, _WRITING_NODES):
            name = node.name if isinstance(node, exp.Command) else node.key
            raise GuardError(f"A data-modifying {name.upper()} inside a query is not allowed; use only SELECT.")
        if isinstance(node, exp.Into):
            raise GuardError("SELECT INTO creates a table and is not allowed; remove the INTO clause.")
        if isinstance(node, exp.Lock):
            clause = node.sql(dialect=_DIALECT).split(" OF ")[0]
            raise GuardError(f"Locking clause {clause} is not allowed in read-only queries; remove it.")
        if isinstance(node, exp.Func) and _is_denied(_function_name(node)):
            raise GuardError(f"Function {_function_name(node)} is not allowed in queries.")


def _function_name(node: exp.Func) -> str:
    """Return the called name as written for unknown functions, sqlglot's SQL name for known ones."""
    return node.name if isinstance(node, exp.Anonymous) else node.sql_name()


def _is_denied(name: str) -> bool:
    """Tell whether a function name (any case, without schema) is on the deny list.

    Examples:
        >>> _is_denied("PG_Sleep"), _is_denied("lo_import"), _is_denied("q3c_radial_query")
        (True, True, False)
    """
    lowered = name.lower()
    return lowered in DENIED_FUNCTIONS or lowered.startswith(DENIED_FUNCTION_PREFIXES)
