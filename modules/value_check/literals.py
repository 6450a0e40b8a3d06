"""Find literals compared with categorical columns that are not among the column's values, and replace them.

Comparisons ``column = literal``, ``column <> literal`` and ``column [NOT] IN (literals)`` are checked in every
scope of the statement (subqueries and CTEs included); a column is resolved through its table alias, or, when
unqualified, through the one table of its scope that has it; a column of a CTE or derived table is followed to the
column it selects. A name compared with an integer code column (``class_id = 'SN'``) resolves to the id its lookup
table gives it, within the scope the statement fixes (``classifier_id = 3``).
"""

import difflib
from collections.abc import Iterator

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from engines.sql_tree import UNREADABLE_SQL
from modules.run.findings import Finding, FindingKind
from modules.value_check.lookup_codes import CodeNames
from modules.value_check.vocabulary import Vocabulary

__all__ = ["closest_values", "find_unknown_values", "replace_unknown_values"]

_CLASSIFIER_COLUMNS = ("classifier_name", "classifier_version")


def closest_values(value: str, valid: frozenset[str], n: int = 3) -> tuple[str, ...]:
    """Return up to ``n`` valid values closest to ``value``, best first (case-insensitive; numbers by distance).

    Examples:
        >>> closest_values("SN Ia", frozenset({"SNIa", "SNII", "QSO"}))
        ('SNIa', 'SNII')
        >>> closest_values("3", frozenset({"1", "2"}), n=1)
        ('2',)
    """
    try:
        number = float(value)
        numbers = {option: float(option) for option in valid}
    except ValueError:
        by_lower: dict[str, str] = {}
        for option in sorted(valid):
            by_lower.setdefault(option.lower(), option)
        matches = difflib.get_close_matches(value.lower(), list(by_lower), n=n, cutoff=0.6)
        return tuple(by_lower[match] for match in matches)
    return tuple(sorted(numbers, key=lambda option: (abs(numbers[option] - number), option))[:n])


def _table_of(column: exp.Column, scope: Scope, vocabulary: Vocabulary, depth: int = 0) -> tuple[str, str] | None:
    """Return (base table, column) of ``column`` in ``scope``, following CTEs and derived tables; None if unknown."""
    if column.table:
        source = scope.sources.get(column.table)
    else:
        having = [
            source
            for source in scope.sources.values()
            if not isinstance(source, exp.Table) or (source.name, column.name) in vocabulary.values
        ]
        source = having[0] if len(having) == 1 else None
    if isinstance(source, exp.Table):
        return source.name, column.name
    if isinstance(source, Scope) and depth < 5 and isinstance(source.expression, exp.Select):
        for projection in source.expression.selects:
            inner = projection.unalias() if isinstance(projection, exp.Alias) else projection
            if projection.alias_or_name == column.name and isinstance(inner, exp.Column):
                return _table_of(inner, source, vocabulary, depth + 1)
    return None


def _comparisons(scope: Scope) -> Iterator[tuple[exp.Column, exp.Literal]]:
    """Yield (column, literal) pairs compared with =, <> or IN in this scope (not in its subqueries)."""
    for node in scope.find_all(exp.EQ, exp.NEQ, exp.In):
        if isinstance(node, exp.In):
            if isinstance(node.this, exp.Column):
                for item in node.expressions:
                    if isinstance(item, exp.Literal):
                        yield node.this, item
            continue
        left, right = node.left, node.right
        if isinstance(left, exp.Literal) and isinstance(right, exp.Column):
            left, right = right, left
        if isinstance(left, exp.Column) and isinstance(right, exp.Literal):
            yield left, right


def _equality_filters(scope: Scope, vocabulary: Vocabulary) -> dict[tuple[str, str], str]:
    """Map (table, column) to the literal an equality fixes it to in this scope, for the columns that narrow values.

    Those are the classifier's name and version, and the scope columns of code columns (classifier_id, sid).
    """
    narrowing = {*_CLASSIFIER_COLUMNS, *(column for names in vocabulary.codes.values() for column in names.code.scope)}
    filters: dict[tuple[str, str], str] = {}
    for column, literal in _comparisons(scope):
        if column.name in narrowing and isinstance(column.parent, exp.EQ):
            resolved = _table_of(column, scope, vocabulary)
            if resolved is not None:
                filters[resolved] = literal.name
    return filters


Flag = tuple[exp.Literal, Finding, bool]
"""A flagged literal, its finding, and whether its replacement is a string (a code's id is a number)."""


def _flagged(sql: str, vocabulary: Vocabulary) -> tuple[exp.Expression | None, list[Flag]]:
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
        scopes = traverse_scope(tree)
    except UNREADABLE_SQL:  # sqlglot recurses per nesting level; very deep SQL exhausts it
        return None, []
    flagged = []
    for scope in scopes:
        filters = _equality_filters(scope, vocabulary)
        for column, literal in _comparisons(scope):
            resolved = _table_of(column, scope, vocabulary)
            if resolved is None:
                continue
            table, name = resolved
            names = vocabulary.codes.get(resolved)
            if names is not None and literal.is_string and not _is_number(literal.name):
                narrowed = {c: filters[(table, c)] for c in names.code.scope if (table, c) in filters}
                flagged.append((literal, _code_finding(names, literal.name, narrowed), False))
                continue
            valid = vocabulary.valid_values(
                table,
                name,
                classifier_name=filters.get((table, "classifier_name")),
                classifier_version=filters.get((table, "classifier_version")),
            )
            if valid and literal.name not in valid:
                flagged.append((literal, _finding(f"{table}.{name}", literal.name, valid), literal.is_string))
    return tree, flagged


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _code_finding(names: CodeNames, value: str, scope: dict[str, str]) -> Finding:
    """The finding of a name compared with a code column: the id(s) the lookup gives it, or the closest names'."""
    code = names.code
    ids = names.ids(value, scope)
    if ids:
        hint, closest = f"{value!r} is {code.id} {' or '.join(ids)}", ids if len(ids) == 1 else ()
    else:
        options = [(name, names.ids(name, scope)) for name in closest_values(value, names.names)]
        options = [(name, found) for name, found in options if found]
        listed = ", ".join(f"{name!r} ({code.id} {' or '.join(found)})" for name, found in options)
        hint = f"no {code.name} {value!r}; closest: {listed}" if options else f"no {code.name} {value!r}"
        closest = options[0][1] if options and len(options[0][1]) == 1 else ()
    where = "".join(f", {column} {scope[column]}" for column in code.scope if column in scope)
    return Finding(
        kind=FindingKind.UNKNOWN_VALUE,
        message=f"{names.column} holds ids of {code.lookup}, not names: {hint}{where}. Compare it with the id, or "
        f"join {code.lookup} and compare {code.lookup}.{code.name}.",
        column=names.column,
        value=value,
        closest=closest,
    )


def _finding(column: str, value: str, valid: frozenset[str]) -> Finding:
    closest = closest_values(value, valid)
    hint = (
        f"; closest: {', '.join(repr(v) for v in closest)}" if closest else f"; valid: {', '.join(sorted(valid)[:20])}"
    )
    return Finding(
        kind=FindingKind.UNKNOWN_VALUE,
        message=f"{column} has no value {value!r}{hint}. Use one of the column's values.",
        column=column,
        value=value,
        closest=closest,
    )


def find_unknown_values(sql: str, vocabulary: Vocabulary) -> list[Finding]:
    """Return an ``unknown_value`` finding per literal compared with a categorical column it is not a value of.

    SQL that does not parse yields no findings (the database will report it).

    Examples:
        >>> vocabulary = Vocabulary({("probability", "class_name"): frozenset({"SNIa", "QSO"})})
        >>> sql = "SELECT oid FROM probability p WHERE p.class_name = 'SN Ia'"
        >>> [f.message for f in find_unknown_values(sql, vocabulary)]
        ["probability.class_name has no value 'SN Ia'; closest: 'SNIa'. Use one of the column's values."]
    """
    return [finding for _, finding, _ in _flagged(sql, vocabulary)[1]]


def replace_unknown_values(sql: str, vocabulary: Vocabulary) -> str:
    """Return ``sql`` with each flagged literal replaced by its closest valid value (unchanged when none is flagged).

    Examples:
        >>> vocabulary = Vocabulary({("magstat", "fid"): frozenset({"1", "2"})})
        >>> replace_unknown_values("SELECT oid FROM magstat WHERE fid IN (1, 3)", vocabulary)
        'SELECT oid FROM magstat WHERE fid IN (1, 2)'
    """
    tree, flagged = _flagged(sql, vocabulary)
    replaced = [(literal, finding.closest[0], is_string) for literal, finding, is_string in flagged if finding.closest]
    if tree is None or not replaced:
        return sql
    for literal, value, is_string in replaced:
        literal.replace(exp.Literal(this=value, is_string=is_string))
    try:
        return tree.sql(dialect="postgres")
    except UNREADABLE_SQL:  # printing recurses per nesting level too
        return sql
