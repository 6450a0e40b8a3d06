"""Readable names for computed result columns on TAP: an unnamed ``count(*)`` gets ``AS "count"``.

GAVO DaCHS names a result column that is not a plain column reference with a random word (``ndhwieiwopea``);
PostgreSQL names it after the function (``count``), the cast column (``ndet``) or ``case``. The rule gives every
computed column of the statement's result that PostgreSQL name as an explicit alias before the query is sent
(``column_<n>`` where PostgreSQL would say ``?column?``); a name already taken gets ``_2``, ``_3``...

Example:
    >>> import sqlglot
    >>> tree = sqlglot.parse_one("SELECT oid, count(*), max(ndet), ndet + 1 FROM object GROUP BY oid")
    >>> name_computed_columns(tree, None).sql()
    'SELECT oid, COUNT(*) AS count, MAX(ndet) AS max, ndet + 1 AS column_4 FROM object GROUP BY oid'
"""

import re
from typing import Any

from sqlglot import exp

__all__ = ["computed_name", "name_computed_columns"]


def name_computed_columns(tree: exp.Expression, rendering: Any, dialect: Any = "postgres") -> exp.Expression:
    """Alias each unnamed computed column of the result (the outermost SELECT, or a set operation's first one)."""
    select = tree
    while isinstance(select, exp.SetOperation):
        select = select.this
    if not isinstance(select, exp.Select):
        return tree
    taken = {item.alias_or_name.lower() for item in select.expressions if isinstance(item, exp.Alias | exp.Column)}
    for position, item in enumerate(list(select.expressions), start=1):
        if isinstance(item, exp.Alias | exp.Column | exp.Star) or item.alias:
            continue
        name = base = computed_name(item, dialect) or f"column_{position}"
        suffix = 1
        while name.lower() in taken:
            suffix += 1
            name = f"{base}_{suffix}"
        taken.add(name.lower())
        item.replace(exp.alias_(item.copy(), name))
    return tree


def computed_name(node: exp.Expression, dialect: Any = "postgres") -> str:
    """The name PostgreSQL gives a computed column ("" where it says ``?column?``): a function's name as `dialect`
    spells it, a cast column's name, ``case``.

    Examples:
        >>> import sqlglot
        >>> [computed_name(sqlglot.parse_one(text)) for text in ["avg(x)", "x::int", "CASE WHEN x THEN 1 END", "1 + x"]]
        ['avg', 'x', 'case', '']
    """
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Cast):
        inner = node.this
        return inner.name if isinstance(inner, exp.Column) else computed_name(inner, dialect)
    if isinstance(node, exp.Case):
        return "case"
    if isinstance(node, exp.Filter):
        return computed_name(node.this, dialect)
    if isinstance(node, exp.Func):
        called = re.match(r"(\w+)\s*\(", node.sql(dialect))
        return called.group(1).lower() if called else ""
    return ""
