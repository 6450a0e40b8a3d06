"""Read what a gold query demands of the data: per base-table reference, the conditions its rows must meet.

A query is parsed and qualified with sqlglot, then read as one or more *worlds*: a UNION offers one world per
branch (an entity satisfying any branch is an answer), INTERSECT joins its branches into one world, an OR
contributes its first branch. Inside a world every base-table reference (``object AS o``, each ``probability``
of a self-join, the tables of subqueries and CTEs) is a ``RowRef``; comparisons of its columns with literals
become ``Atom``s, differences of two columns ``Diff``s, and q3c calls ``Cone``s. Comparisons of two columns (join
keys, q3c joins of two tables) are kept as ``Link``s: a catalog's profile reads which references describe one
object from them, and resolves conditions on lookup tables through them.

Example:
    >>> worlds = read_worlds("SELECT oid FROM probability WHERE class_name = 'SNIa' AND probability > 0.7", "ztf")
    >>> [(a.ref.table, a.column, a.op, a.values) for a in worlds[0].atoms]
    [('probability', 'class_name', '=', ('SNIa',)), ('probability', 'probability', '>', (0.7,))]
"""

import functools
import logging

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope
from sqlglot.schema import MappingSchema

from catalog import load_catalog
from engines.sql_constants import literal
from replica.engine.grounding.cones import ConeReader, values_catalogs
from replica.engine.grounding.worlds import Atom, Diff, Link, RowRef, World

__all__ = ["read_worlds"]

logger = logging.getLogger(__name__)

_COMPARISONS = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_MIRROR = {"=": "=", "!=": "!=", ">": "<", ">=": "<=", "<": ">", "<=": ">="}
_AGGREGATES = (exp.Max, exp.Min, exp.Avg, exp.Sum)


@functools.cache
def _schema(catalog: str) -> MappingSchema:
    """The catalog's tables (``mapping``: table -> column -> type) as sqlglot qualifies against them, built once."""
    tables = {t.name: {c.name: c.sql_type for c in t.columns} for t in load_catalog(catalog).tables}
    return MappingSchema(tables, dialect="postgres")


@functools.lru_cache(maxsize=1024)
def read_worlds(sql: str, catalog: str) -> tuple[World, ...]:
    """Return the worlds of one gold query on a catalog; an unparseable query gives no world (logged at debug level).

    Cached, since a build reads each query twice (its literal oids first, its entities later): treat the worlds
    as read-only.
    """
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
        catalogs = values_catalogs(tree)
        schema = _schema(catalog)
        tree = qualify(
            tree,
            schema=schema,
            dialect="postgres",
            validate_qualify_columns=False,
            expand_stars=False,
            quote_identifiers=False,
        )
        reader = _Reader(tree, catalogs, schema.mapping)
        return tuple(reader.world(choice) for choice in reader.choices())
    except (SqlglotError, RecursionError, ValueError, KeyError) as err:
        logger.debug("cannot read gold query (%s): %.80s", err, sql)
        return ()


class _Reader(ConeReader):
    """Walks the qualified tree of one query."""

    def __init__(self, tree: exp.Expression, catalogs: dict[str, list[dict[str, object]]], tables: dict[str, dict]):
        self.catalogs, self.tables, self.scopes = catalogs, tables, traverse_scope(tree)
        self.scope_of = {id(s.expression): s for s in self.scopes}
        self.unions = list(tree.find_all(exp.Union))

    def choices(self) -> list[dict[int, int]]:
        """World choices: all left branches, then each union's right branch alone."""
        first = {id(u): 0 for u in self.unions}
        return [first] + [{**first, id(u): 1} for u in self.unions]

    def world(self, choice: dict[int, int]) -> World:
        world = World()
        for scope in self.scopes:
            select = scope.expression
            if not isinstance(select, exp.Select) or not self._active(select, choice):
                continue
            for alias, source in scope.sources.items():
                if isinstance(source, exp.Table) and source.name in self.tables and alias == source.alias_or_name:
                    world.refs.append(RowRef(source.name, id(source)))
            for clause in (select.args.get("where"), select.args.get("having")):
                if clause is not None:
                    self._conditions(clause.this, scope, world)
            for join in select.args.get("joins") or []:
                if join.args.get("on") is not None:
                    self._conditions(join.args["on"], scope, world)
        refs = set(world.refs)
        world.links = [link for link in world.links if link.left[0] in refs and link.right[0] in refs]
        return world

    def _active(self, node: exp.Expression, choice: dict[int, int]) -> bool:
        """Whether the world reads ``node``: not in a UNION branch it did not choose, the right side of an EXCEPT or
        an OR, or a NOT IN / NOT EXISTS."""
        child, parent = node, node.parent
        while parent is not None:
            if isinstance(parent, exp.Union) and choice.get(id(parent), 0) != (child is parent.expression):
                return False
            if isinstance(parent, exp.Except | exp.Or) and child is parent.expression:
                return False
            if isinstance(parent, exp.Not) and isinstance(parent.this, exp.In | exp.Exists):
                return False
            child, parent = parent, parent.parent
        return True

    def _conditions(self, node: exp.Expression, scope: Scope, world: World) -> None:
        while isinstance(node, exp.Paren | exp.Or):  # an OR contributes its first branch
            node = node.this
        if isinstance(node, exp.And):
            self._conditions(node.this, scope, world)
            self._conditions(node.expression, scope, world)
        else:
            self._atom(node, scope, world)

    def _atom(self, node: exp.Expression, scope: Scope, world: World) -> None:
        negate = False
        while isinstance(node, exp.Not):
            negate, node = not negate, node.this
        if isinstance(node, exp.Paren):
            node = node.this
        if type(node) in _COMPARISONS:
            self._comparison(node, _COMPARISONS[type(node)], scope, world, negate)
        elif isinstance(node, exp.Between):
            ref = self._column(node.this, scope)
            low, high = literal(node.args.get("low")), literal(node.args.get("high"))
            if ref and isinstance(low, float) and isinstance(high, float) and not negate:
                world.atoms += [Atom(ref[0], ref[1], ">=", (low,)), Atom(ref[0], ref[1], "<=", (high,))]
        elif isinstance(node, exp.In):
            ref = self._column(node.this, scope)
            values = tuple(v for v in (literal(e) for e in node.expressions) if v is not None)
            if ref and values:
                world.atoms.append(Atom(ref[0], ref[1], "notin" if negate else "in", values))
            elif node.args.get("query") is not None and not negate:
                self._link(node.this, node.args["query"], "=", scope, world)
        elif isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            ref = self._column(node.this, scope)
            if ref:
                is_null = not (negate ^ bool(node.args.get("negate")))
                world.atoms.append(Atom(ref[0], ref[1], "null" if is_null else "notnull"))
        elif isinstance(node, exp.Like | exp.ILike):
            ref, pattern = self._column(node.this, scope), literal(node.expression)
            if ref and isinstance(pattern, str) and not negate:
                world.atoms.append(Atom(ref[0], ref[1], "like", (pattern,)))
        elif isinstance(node, exp.Column):
            ref = self._column(node, scope)
            if ref:
                world.atoms.append(Atom(ref[0], ref[1], "=", (not negate,)))
        elif isinstance(node, exp.Func):
            self._cone(node, scope, world)

    def _comparison(self, node: exp.Expression, op: str, scope: Scope, world: World, negate: bool) -> None:
        if negate:
            op = {"=": "!=", "!=": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">"}[op]
        left, right = node.this, node.expression
        if literal(left) is not None and literal(right) is None:
            left, right, op = right, left, _MIRROR[op]
        value = literal(right)
        if value is not None:
            if isinstance(left, exp.Count):
                self._count(op, value, scope, world)
                return
            ref = self._column(left.this if isinstance(left, _AGGREGATES) else left, scope)
            if ref:
                world.atoms.append(Atom(ref[0], ref[1], op, (value,)))
                if isinstance(left, _AGGREGATES):
                    world.whole.add(ref)
                return
            if isinstance(left, exp.Func) and left.name.lower() == "q3c_dist" and op in ("<", "<="):
                self._distance(left, float(value), scope, world)
            elif isinstance(left, exp.Sub) and isinstance(value, float):
                self._diff(left.this, left.expression, op, value, scope, world)
            elif isinstance(left, exp.Abs) and op in ("<", "<=") and isinstance(value, float):
                self._within(left.this, op, value, scope, world)
            return
        self._linear(left, right, op, scope, world)
        self._link(left, right, op, scope, world)

    def _link(self, left, right, op: str, scope: Scope, world: World) -> None:
        """``a op b`` between two columns (join keys, ``x IN (SELECT y ...)``) as a Link."""
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
        return self._column(select.expressions[0].unalias(), inner)

    def _within(self, node, op: str, bound: float, scope: Scope, world: World) -> None:
        """``abs(column) < bound`` as ``-bound < column < bound``."""
        ref = self._column(node, scope)
        if ref:
            world.atoms += [Atom(ref[0], ref[1], op, (bound,)), Atom(ref[0], ref[1], _MIRROR[op], (-bound,))]

    def _linear(self, left, right, op: str, scope: Scope, world: World) -> None:
        """``a op c + b`` and ``a op b + c`` as ``a - b op c``."""
        if isinstance(right, exp.Add):
            for term, const in ((right.this, right.expression), (right.expression, right.this)):
                value = literal(const)
                if isinstance(value, float) and self._column(term, scope):
                    self._diff(left, term, op, value, scope, world)
                    return

    def _diff(self, a, b, op: str, value: float, scope: Scope, world: World) -> None:
        ra, rb = self._column(a, scope), self._column(b, scope)
        if ra and rb and op != "=":
            world.diffs.append(Diff(ra, rb, op, value))

    def _count(self, op: str, value: float, scope: Scope, world: World) -> None:
        refs = [RowRef(s.name, id(s)) for s in scope.sources.values() if isinstance(s, exp.Table)]
        if refs and scope.expression.args.get("group") is not None:
            world.counts.append((refs[-1], op, float(value)))

    def _column(self, node, scope: Scope, depth: int = 0) -> tuple[RowRef, str] | None:
        """Resolve a column to (base-table reference, column name), following derived tables and CTEs."""
        while isinstance(node, exp.Paren | exp.Cast):
            node = node.this
        if not isinstance(node, exp.Column) or depth > 20:
            return None
        source = scope.sources.get(node.table) if node.table else None
        if source is None and not node.table:
            tables = [s for s in scope.sources.values() if isinstance(s, exp.Table)]
            source = next((t for t in tables if node.name in self.tables.get(t.name, {})), None)
        if isinstance(source, exp.Table) and node.name in self.tables.get(source.name, {}):
            return RowRef(source.name, id(source)), node.name
        if isinstance(source, Scope):
            return self._projection(source, node.name, depth)
        return None

    def _projection(self, scope: Scope, name: str, depth: int) -> tuple[RowRef, str] | None:
        select = scope.expression
        while isinstance(select, exp.SetOperation):
            select = select.this
        if isinstance(select, exp.Subquery):
            select = select.this
        inner = self.scope_of.get(id(select), scope)
        if not isinstance(select, exp.Select):
            return None
        for projection in select.expressions:
            if projection.is_star:
                found = self._star(inner, projection, name, depth)
                if found:
                    return found
            elif projection.alias_or_name == name:
                return self._column(projection.unalias(), inner, depth + 1)
        return None

    def _star(self, scope: Scope, star: exp.Expression, name: str, depth: int) -> tuple[RowRef, str] | None:
        qualifier = star.table if isinstance(star, exp.Column) else ""
        aliases = [alias for alias in scope.sources if alias == qualifier or not qualifier]
        found = (self._column(exp.column(name, table=alias), scope, depth + 1) for alias in aliases)
        return next((ref for ref in found if ref), None)
