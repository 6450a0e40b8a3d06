"""Say in one line how one SQL query differs from another, from their parsed parts (sqlglot; no LM).

Compared: the conditions (WHERE, HAVING and JOIN ON, split at AND, in every sub-query), the tables read, the
returned expressions, DISTINCT, grouping, order and limit of the outer query. Table qualifiers are dropped first,
so ``o.ndet > 50`` and ``ndet > 50`` are the same condition.
"""

from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from engines.sql_tree import UNREADABLE_SQL

__all__ = ["describe_difference"]

_MAX_PART_CHARS = 80
_MAX_LINE_CHARS = 300
_SAME = "the same conditions, written another way"


@dataclass(frozen=True)
class _Parts:
    """The comparable parts of one query, as unqualified PostgreSQL texts."""

    conditions: tuple[str, ...]
    tables: tuple[str, ...]
    returns: tuple[str, ...]
    distinct: bool
    group: tuple[str, ...]
    order: tuple[str, ...]
    limit: str


def _text(node: exp.Expression) -> str:
    text = node.sql(dialect="postgres")
    return text if len(text) <= _MAX_PART_CHARS else text[: _MAX_PART_CHARS - 1] + "…"


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.And):
        return [*_conjuncts(node.left), *_conjuncts(node.right)]
    return [node.unnest()]


def _condition_text(condition: exp.Expression) -> str | None:
    """The text of one condition, its sub-queries shown as (…) (their own conditions are compared apart); None for
    a join on same-named keys, which says nothing once table qualifiers are gone."""
    if isinstance(condition, exp.EQ) and all(isinstance(side, exp.Column) for side in condition.args.values()):
        if condition.left.name == condition.right.name:
            return None
    condition = condition.copy()
    for query in list(condition.find_all(exp.Select)):
        query.replace(exp.var("…"))
    return _text(condition)


def _conditions(tree: exp.Expression) -> tuple[str, ...]:
    found = [where.this for where in tree.find_all(exp.Where, exp.Having)]
    found += [join.args["on"] for join in tree.find_all(exp.Join) if join.args.get("on")]
    texts = (_condition_text(part) for node in found for part in _conjuncts(node))
    return tuple(dict.fromkeys(text for text in texts if text is not None))


def _parts(sql: str) -> _Parts | None:
    try:
        return _read_parts(sql)
    except UNREADABLE_SQL:  # sqlglot recurses per nesting level, in parsing and in printing the parts
        return None


def _read_parts(sql: str) -> _Parts | None:
    tree = sqlglot.parse_one(sql, read="postgres")
    if tree is None:
        return None
    for column in tree.find_all(exp.Column):
        column.set("table", None)
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    outer = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    # A UNION holds its ORDER BY and LIMIT itself; a SELECT holds all three.
    group, order, limit = (
        tree.args.get(name) or (outer and outer.args.get(name)) for name in ("group", "order", "limit")
    )
    return _Parts(
        conditions=_conditions(tree),
        tables=tuple(dict.fromkeys(t.name for t in tree.find_all(exp.Table) if t.name and t.name not in ctes)),
        returns=tuple(_text(item) for item in (outer.expressions if outer else [])),
        distinct=bool(outer and outer.args.get("distinct")),
        group=tuple(_text(item) for item in (group.expressions if group else [])),
        order=tuple(_text(item) for item in (order.expressions if order else [])),
        limit=_text(limit.expression) if limit else "",
    )


def _changed(name: str, mine: tuple[str, ...], theirs: tuple[str, ...]) -> str | None:
    if mine == theirs:
        return None
    if not mine:
        return f"no {name}"
    return f"{name} {', '.join(mine)}" + (f" instead of {', '.join(theirs)}" if theirs else "")


def describe_difference(chosen: str, other: str) -> str:
    """Say in one line how `other` differs from `chosen`.

    Args:
        chosen: The SQL of the selected answer.
        other: The SQL of an alternative.

    Returns:
        The differences joined by "; ", or a note that they only differ in how they are written, or that one of
        them could not be parsed.

    Examples:
        >>> describe_difference("SELECT oid FROM object WHERE ndet > 50",
        ...                     "SELECT o.oid FROM object AS o WHERE o.ndet > 50 AND firstmjd >= 60188 LIMIT 10")
        'adds firstmjd >= 60188; limit 10 instead of none'
        >>> describe_difference("SELECT oid FROM object", "SELECT oid FROM object ORDER BY ndet DESC")
        'order by ndet DESC'
    """
    mine, theirs = _parts(other), _parts(chosen)
    if mine is None or theirs is None:
        return "cannot be compared: one of the two queries does not parse"
    added = [c for c in mine.conditions if c not in theirs.conditions]
    dropped = [c for c in theirs.conditions if c not in mine.conditions]
    parts = [f"adds {' AND '.join(added)}" if added else None, f"drops {' AND '.join(dropped)}" if dropped else None]
    parts += [
        _changed("reads", mine.tables, theirs.tables),
        _changed("returns", mine.returns, theirs.returns),
        None if mine.distinct == theirs.distinct else "distinct rows" if mine.distinct else "keeps duplicate rows",
        _changed("group by", mine.group, theirs.group),
        _changed("order by", mine.order, theirs.order),
        None if mine.limit == theirs.limit else f"limit {mine.limit or 'none'} instead of {theirs.limit or 'none'}",
    ]
    line = "; ".join(part for part in parts if part) or _SAME
    return line if len(line) <= _MAX_LINE_CHARS else line[: _MAX_LINE_CHARS - 1] + "…"
