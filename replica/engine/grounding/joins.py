"""Comparisons of two columns in gold queries (join keys, ``x IN (SELECT y ...)``), kept as a world's links."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from replica.engine.grounding.worlds import Link, RowRef, World

__all__ = ["JoinReader"]


class JoinReader:
    """The join part of the query reader; the reader provides ``_column`` and ``scope_of``."""

    scope_of: dict[int, Scope]

    def _link(self, left, right, op: str, scope: Scope, world: World) -> None:
        """``a op b`` between two columns (or a column and a subquery's column) as a Link."""
        a, b = self._column(left, scope), self._column(right, scope) or self._subquery_column(right)
        if a and b and a[0] != b[0]:
            world.links.append(Link(a, op, b))

    def _subquery_column(self, node) -> tuple[RowRef, str] | None:
        """The column a one-column subquery selects, resolved to its base table."""
        while isinstance(node, exp.Paren):
            node = node.this
        select = node.this if isinstance(node, exp.Subquery) else node
        inner = self.scope_of.get(id(select))
        if not isinstance(select, exp.Select) or inner is None or len(select.expressions) != 1:
            return None
        projection = select.expressions[0]
        return self._column(projection.this if isinstance(projection, exp.Alias) else projection, inner)
