"""Rules for PostgreSQL forms that ADQL lacks but can say another way: filtered aggregates and scalar subqueries.

GAVO DaCHS parses neither ``count(*) FILTER (WHERE ...)`` nor a subquery used as a value (``x = (SELECT ...)``).
An aggregate's filter moves into a CASE inside it; an equality with a subquery in a condition becomes ``IN``, which
keeps the rows the equality keeps. Any other subquery used as a value has no ADQL form and is refused.

Examples:
    >>> import sqlglot
    >>> tree = sqlglot.parse_one("SELECT count(*) FILTER (WHERE isdipole) AS n FROM t", read="postgres")
    >>> unfilter_aggregates(tree, None).sql("postgres")
    'SELECT COUNT(CASE WHEN isdipole THEN 1 END) AS n FROM t'
    >>> tree = sqlglot.parse_one("SELECT oid FROM f WHERE id = (SELECT id FROM lut WHERE name = 'x')")
    >>> scalar_subqueries_as_in(tree, None).sql("postgres")
    "SELECT oid FROM f WHERE id IN (SELECT id FROM lut WHERE name = 'x')"
"""

from typing import Any

from sqlglot import exp

from engines.errors import ErrorKind, ExecutionError

__all__ = ["scalar_subqueries_as_in", "unfilter_aggregates", "unsupported"]

_CONDITIONS = (exp.Where, exp.Having, exp.Join)
_CONNECTIVES = (exp.And, exp.Or, exp.Paren)
_TABLE_PLACES = (exp.From, exp.Join, exp.In, exp.Exists, exp.Any, exp.All, exp.SetOperation, exp.CTE, exp.Lateral)
"""Where a subquery is a table, not a value (ANY and ALL are left for the service to judge)."""


def unsupported(what: str) -> ExecutionError:
    """Return the error for a construct that has no ADQL form, naming it and what to use instead."""
    return ExecutionError(ErrorKind.UNSUPPORTED, None, f"Not available on TAP (ADQL): {what}.")


def unfilter_aggregates(tree: exp.Expression, rendering: Any) -> exp.Expression:
    """Write ``agg(x) FILTER (WHERE c)`` as ``agg(CASE WHEN c THEN x END)`` (``count(*)`` counts a 1)."""
    for node in list(tree.find_all(exp.Filter)):
        aggregate, condition = node.this, node.expression.this
        argument = aggregate.this
        value = exp.Literal.number(1) if argument is None or isinstance(argument, exp.Star) else argument
        aggregate.set("this", exp.Case(ifs=[exp.If(this=condition.copy(), true=value.copy())]))
        node.replace(aggregate)
    return tree


def scalar_subqueries_as_in(tree: exp.Expression, rendering: Any) -> exp.Expression:
    """Write ``x = (SELECT ...)`` in a condition as ``x IN (SELECT ...)``; refuse other subqueries used as values.

    The two keep the same rows unless negated (an empty subquery makes the equality NULL, the IN false), so only an
    equality reached from WHERE, HAVING or ON through AND, OR and parentheses is rewritten.
    """
    for node in list(tree.find_all(exp.EQ)):
        sides = (node.this, node.expression)
        subquery = next((side for side in sides if isinstance(side, exp.Subquery)), None)
        other = next((side for side in sides if side is not subquery), None)
        if subquery is not None and not isinstance(other, exp.Subquery) and _in_plain_condition(node):
            node.replace(exp.In(this=other.copy(), query=subquery.copy()))
    for node in tree.find_all(exp.Subquery):
        if not isinstance(node.parent, _TABLE_PLACES):
            raise unsupported(
                "a subquery used as a value (x > (SELECT ...)); use x IN (SELECT ...) or join a derived table"
            )
    return tree


def _in_plain_condition(node: exp.Expression) -> bool:
    parent = node.parent
    while isinstance(parent, _CONNECTIVES):
        parent = parent.parent
    return isinstance(parent, _CONDITIONS)
