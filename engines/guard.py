"""Refuse any SQL text that is not exactly one read-only SELECT statement.

The guard is the first of three defences: the executor also runs every query in a READ ONLY transaction as a role
without write privileges. It parses with sqlglot's PostgreSQL dialect and admits one SELECT, WITH ... SELECT or set
operation of selects, without data-modifying parts, locking clauses, functions with side effects or that run SQL
given as text, and without Unicode escapes (``U&"..."`` would hide a function name from the deny list).

The guard bounds its own cost: text over ``MAX_SQL_CHARS`` is refused before tokenizing, the parser stops after
``MAX_PARSE_S`` (sqlglot backtracks exponentially on some inputs, e.g. nested ``ARRAY[``), and nesting deeper than
Python's recursion limit is refused. Every failure inside the guard is a GuardError.
"""

import time

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.tokens import Token, TokenType

from engines.errors import GuardError
from engines.sql_tree import MAX_NESTING, TOO_DEEP, nesting

__all__ = [
    "DENIED_FUNCTIONS",
    "DENIED_FUNCTION_FRAGMENTS",
    "DENIED_FUNCTION_PREFIXES",
    "DENIED_RELATIONS",
    "DENIED_RELATION_PREFIXES",
    "MAX_PARSE_S",
    "MAX_SQL_CHARS",
    "check_read_only",
    "check_sql",
]

MAX_SQL_CHARS = 100_000
"""Longest SQL text the guard parses (the longest dev gold query has about 2,100 characters)."""
MAX_PARSE_S = 2.0
"""Longest time the guard spends parsing one text before refusing it."""

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
        "setseed",
        "pg_stat_get_activity",
        "pg_stat_get_progress_info",
        "pg_stat_get_wal_senders",
        "pg_stat_get_wal_receiver",
        "pg_stat_get_subscription",
        "pg_lock_status",
        "pg_blocking_pids",
        "pg_safe_snapshot_blocking_pids",
    }
)
"""Functions with side effects (including ``setseed``, session state that would outlive the query), file or server
access, that block, that run SQL given as text (ts_stat, ts_rewrite), or that show other sessions (their query
text, locks and progress); matched case-insensitively, without schema, quoted or not."""

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
    "pg_stat_get_backend_",
    "xpath",
)
"""Families of denied functions: large objects, dblink, directory listing, adminpack, slots, locks, the activity of
other backends (``pg_stat_get_backend_*``) and XPath."""

DENIED_FUNCTION_FRAGMENTS = ("xml",)
"""Denied wherever they occur in a name: every XML function (``xmlparse``, ``xmlagg``, ``xmltable``, the
``query_to_xml*`` family that runs SQL text, the ``*_to_xml*`` dumps, the ``xml(...)`` cast). libxml2 does not
check for interrupts, so no timeout or cancel stops its work, and its memory is outside PostgreSQL's accounting."""

DENIED_RELATIONS = frozenset(
    {
        "pg_stat_activity",
        "pg_locks",
        "pg_stat_ssl",
        "pg_stat_gssapi",
        "pg_stat_replication",
        "pg_stat_wal_receiver",
        "pg_stat_subscription",
    }
)
"""Views that show other sessions: their query text, client addresses, locks and replication peers."""
DENIED_RELATION_PREFIXES = ("pg_stat_progress_",)
"""Families of views that show other sessions' progress."""

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
_FUNCTIONAL_NOTATION_MESSAGE = (
    "(expression).name is not allowed: PostgreSQL reads it as the function call name(expression); "
    "write functions as name(arguments) and columns as table.column."
)
_XML_TYPE_MESSAGE = "The xml type is not allowed in queries: XML work cannot be interrupted by the timeout."


def check_sql(sql: str) -> str:
    """Admit exactly one read-only SELECT statement.

    Args:
        sql: SQL text, possibly with comments and a trailing semicolon.

    Returns:
        The statement from its first to its last token: no surrounding comments, whitespace or semicolons.

    Raises:
        GuardError: the text is empty, over MAX_SQL_CHARS, not valid Unicode, takes more than MAX_PARSE_S to parse,
            is nested too deeply, does not parse, holds several statements, is not a SELECT, modifies data, locks
            rows, calls a denied function (directly or in functional notation), reads a view of other sessions or
            uses the xml type.

    Examples:
        >>> check_sql("  SELECT oid FROM object LIMIT 5; ")
        'SELECT oid FROM object LIMIT 5'
        >>> check_sql("DELETE FROM object")
        Traceback (most recent call last):
        ...
        engines.errors.GuardError: Only one SELECT or WITH statement is allowed, got DELETE. [refused]
        >>> check_sql("SELECT 1; DROP TABLE object")
        Traceback (most recent call last):
        ...
        engines.errors.GuardError: Expected exactly one SQL statement, got 2. [refused]
        >>> check_sql("SELECT public.PG_SLEEP(10)")
        Traceback (most recent call last):
        ...
        engines.errors.GuardError: Function PG_SLEEP is not allowed in queries. [refused]
        >>> check_sql('SELECT U&"pg_sleep"(10)')
        Traceback (most recent call last):
        ...
        engines.errors.GuardError: U&"..." and U&'...' escapes are not allowed; write names and text plainly. [refused]
        >>> check_sql("SELECT x.pg_sleep FROM generate_series(3, 3) x")
        Traceback (most recent call last):
        ...
        engines.errors.GuardError: Function pg_sleep is not allowed in queries (written as x.pg_sleep). [refused]
    """
    _check_text(sql)
    try:
        tokens = _tokenize(sql)
        if nesting(tokens) > MAX_NESTING:
            raise GuardError(f"The SQL {TOO_DEEP}")
        _check_unicode_escapes(tokens)
        statement = _parse_one(tokens, sql)
        _check_statement_type(statement, tokens)
        _check_tree(statement)
    except RecursionError as err:
        raise GuardError(f"The SQL {TOO_DEEP}") from err
    except GuardError:
        raise
    except Exception as err:  # a sqlglot bug must refuse the text, not crash the caller
        raise GuardError(f"Could not check the SQL ({type(err).__name__}); write one plain SELECT statement.") from err
    code = [token for token in tokens if token.token_type != TokenType.SEMICOLON]
    return sql[code[0].start : code[-1].end + 1]


def _check_text(sql: str) -> None:
    """Refuse text that is not a str, is over MAX_SQL_CHARS, or cannot be sent as UTF-8 (lone surrogates)."""
    if not isinstance(sql, str):
        raise GuardError(f"The SQL must be text, got {type(sql).__name__}.")
    if len(sql) > MAX_SQL_CHARS:
        raise GuardError(
            f"The SQL text has {len(sql):,} characters, more than the {MAX_SQL_CHARS:,} allowed; write a shorter query."
        )
    try:
        sql.encode("utf-8")
    except UnicodeEncodeError as err:
        raise GuardError(
            f"The SQL text holds a character that is not valid Unicode at position {err.start}; remove it."
        ) from err


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


class _ParseTimeout(Exception):
    """Raised inside the parser when MAX_PARSE_S has passed (not a ParseError, which the parser would catch)."""


class _BoundedParser(_DIALECT.parser_class):
    """sqlglot's PostgreSQL parser with a deadline, checked every 1,024 token moves (backtracking included)."""

    def parse(self, raw_tokens: list[Token], sql: str) -> list[exp.Expression | None]:
        self._deadline = time.monotonic() + MAX_PARSE_S
        self._moves = 0
        return super().parse(raw_tokens, sql)

    def _advance(self, times: int = 1) -> None:
        self._moves += 1
        if not self._moves & 0x3FF and time.monotonic() > self._deadline:
            raise _ParseTimeout
        super()._advance(times)


def _parse_one(tokens: list[Token], sql: str) -> exp.Expression:
    """Parse the tokens within MAX_PARSE_S and return the only statement."""
    try:
        parsed = _BoundedParser(dialect=_DIALECT).parse(tokens, sql)
    except _ParseTimeout as err:
        raise GuardError(
            f"The SQL took more than {MAX_PARSE_S:g} s to parse; write a simpler query (fewer nested brackets)."
        ) from err
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


def check_read_only(tree: exp.Expression) -> None:
    """Refuse a parsed statement with a part that writes data, changes the schema or the session, creates a table
    (SELECT INTO) or locks rows, wherever it sits in the tree (the ADQL box's check uses it too).

    Raises:
        GuardError: The first such part, named.
    """
    for node in tree.walk():
        if isinstance(node, _WRITING_NODES):
            name = node.name if isinstance(node, exp.Command) else node.key
            raise GuardError(f"A data-modifying {name.upper()} inside a query is not allowed; use only SELECT.")
        if isinstance(node, exp.Into):
            raise GuardError("SELECT INTO creates a table and is not allowed; remove the INTO clause.")
        if isinstance(node, exp.Lock):
            clause = node.sql(dialect=_DIALECT).split(" OF ")[0]
            raise GuardError(f"Locking clause {clause} is not allowed in read-only queries; remove it.")


def _check_tree(statement: exp.Expression) -> None:
    """Refuse data-modifying parts, SELECT INTO, locking clauses, denied functions and relations, the xml type and
    functional notation anywhere in the tree."""
    check_read_only(statement)
    nodes = list(statement.walk())
    for node in nodes:
        if isinstance(node, exp.Func) and _is_denied(_function_name(node)):
            raise GuardError(f"Function {_function_name(node)} is not allowed in queries.")
        if "xml" in node.key:  # XMLTABLE, XMLNAMESPACES, ...: XML syntax that sqlglot does not model as a function
            raise GuardError(f"Function {node.key.upper()} is not allowed in queries.")
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier) and _is_denied_relation(node.name):
            raise GuardError(f"Relation {node.name} is not allowed in queries: it shows other sessions.")
        if (isinstance(node, exp.DataType) and _is_xml_type(node)) or _is_document_test(node):
            raise GuardError(_XML_TYPE_MESSAGE)
    for node in nodes:
        if isinstance(node, exp.Column | exp.Dot):
            _check_name_path(node)


def _check_name_path(node: exp.Column | exp.Dot) -> None:
    """Refuse functional notation: ``(x).f`` always, and ``a.f`` or ``a.b.f`` when ``f`` is a denied function.

    PostgreSQL reads ``x.f``, where ``f`` is not a column of ``x``, as the call ``f(x)``; sqlglot sees a column.
    """
    if isinstance(node, exp.Dot):
        base = node
        while isinstance(base, exp.Dot):
            base = base.this
        if not isinstance(base, exp.Column | exp.Identifier | exp.Var):
            raise GuardError(_FUNCTIONAL_NOTATION_MESSAGE)
        names = [part.name for part in node.parts] if isinstance(node.expression, exp.Identifier) else []
    else:
        names = [part.name for part in node.parts]
    for name in names[1:]:
        if _is_denied(name):
            raise GuardError(f"Function {name} is not allowed in queries (written as {'.'.join(names)}).")


def _is_document_test(node: exp.Expression) -> bool:
    """Tell whether a node is ``x IS [NOT] DOCUMENT``, which parses its operand as xml (sqlglot sees a column)."""
    test = node.expression if isinstance(node, exp.Is) else None
    return isinstance(test, exp.Column) and not test.table and test.name.lower() == "document"


def _is_xml_type(node: exp.DataType) -> bool:
    """Tell whether a type is xml, an array of it or a schema-qualified xml."""
    if node.this == exp.DataType.Type.XML:
        return True
    kind = node.args.get("kind")
    return node.this == exp.DataType.Type.USERDEFINED and kind is not None and "xml" in kind.sql().lower()


def _is_denied_relation(name: str) -> bool:
    """Tell whether a relation name (any case, without schema) shows other sessions.

    Examples:
        >>> _is_denied_relation("PG_STAT_ACTIVITY"), _is_denied_relation("pg_stat_progress_vacuum")
        (True, True)
        >>> _is_denied_relation("object"), _is_denied_relation("pg_stat_user_tables")
        (False, False)
    """
    lowered = name.lower()
    return lowered in DENIED_RELATIONS or lowered.startswith(DENIED_RELATION_PREFIXES)


def _function_name(node: exp.Func) -> str:
    """Return the called name as written for unknown functions, sqlglot's SQL name for known ones."""
    return node.name if isinstance(node, exp.Anonymous) else node.sql_name()


def _is_denied(name: str) -> bool:
    """Tell whether a function name (any case, without schema) is on the deny list.

    Examples:
        >>> _is_denied("PG_Sleep"), _is_denied("lo_import"), _is_denied("q3c_radial_query")
        (True, True, False)
        >>> _is_denied("xmlparse"), _is_denied("query_to_xmlschema"), _is_denied("XPath_Exists")
        (True, True, True)
    """
    lowered = name.lower()
    return (
        lowered in DENIED_FUNCTIONS
        or lowered.startswith(DENIED_FUNCTION_PREFIXES)
        or any(fragment in lowered for fragment in DENIED_FUNCTION_FRAGMENTS)
    )
